package io.jfio.bench.suite;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jfio.bench.BenchFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;

class CacheStateTest {
    /** A directory on a disk-backed file system (eviction means nothing on tmpfs), or the test is skipped. */
    static Path diskDir() throws IOException {
        Path d = Path.of(System.getProperty("user.dir"), "target");
        Files.createDirectories(d);
        try {
            BenchFile.checkFileSystem(d);
        } catch (IllegalArgumentException e) {
            assumeTrue(false, "target/ is on a memory file system: " + e.getMessage());
        }
        return d;
    }

    @Test
    void shouldFlagAColdCellWhoseFileIsStillResident() throws IOException {
        Path f = Files.createTempFile(diskDir(), "cache-state", ".bin");
        try {
            byte[] data = new byte[1 << 20];
            new Random(7).nextBytes(data);
            Files.write(f, data);
            CacheState hot = CacheState.prepare(f, CacheState.Cache.HOT);
            assertTrue(hot.ok(), hot.label());
            // Measured as if a cold cell were about to run on a file just read: it must not pass as cold.
            CacheState notCold = CacheState.measure(f, CacheState.Cache.COLD);
            assertFalse(notCold.ok(), notCold.label());
            assertTrue(notCold.label().contains("NOT COLD"), notCold.label());
            CacheState cold = CacheState.prepare(f, CacheState.Cache.COLD);
            assertTrue(cold.ok(), cold.label());
        } finally {
            Files.deleteIfExists(f);
        }
    }
}
