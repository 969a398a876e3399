package io.jfio.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class BenchFileTest {
    /** Under target/, which lives on the build's disk; @TempDir may be on tmpfs, which BenchFile refuses. */
    static Path diskDir() throws IOException {
        Path d = Path.of("target", "bench-test");
        Files.createDirectories(d);
        String type = Files.getFileStore(d).type().toLowerCase(Locale.ROOT);
        assumeTrue(!type.equals("tmpfs") && !type.equals("ramfs"), "target/ is on " + type + ": skipped");
        return d;
    }

    @Test
    void createsAStampedNonSparseFileAndRemovesItWithItsDirectory() throws IOException {
        Path parent = diskDir();
        StringWriter log = new StringWriter();
        Path dir;
        Path file;
        try (BenchFile f = BenchFile.create(parent, 1 << 20, 1, new PrintWriter(log))) {
            dir = f.directory();
            file = f.path();
            assertTrue(dir.getFileName().toString().startsWith("jfio-bench-"));
            assertEquals(1 << 20, Files.size(file));
            assertEquals(256, f.blocks());
            ByteBuffer b = ByteBuffer.allocate(BenchFile.BLOCK).order(ByteOrder.LITTLE_ENDIAN);
            try (FileChannel ch = FileChannel.open(file)) {
                for (long off = 0; off < f.size(); off += BenchFile.BLOCK) {
                    b.clear();
                    ch.read(b, off);
                    assertEquals(BenchFile.stamp(off), b.getLong(0), "stamp at offset " + off);
                    for (int i = 8; i < BenchFile.BLOCK; i++) assertTrue(b.get(i) != 0, "zero byte at " + (off + i));
                }
            }
            long allocated = ((Number) Files.getAttribute(file, "unix:size")).longValue();
            assertEquals(1 << 20, allocated);
        }
        assertFalse(Files.exists(file));
        assertFalse(Files.exists(dir));
        try (Stream<Path> s = Files.list(parent)) {
            assertTrue(s.noneMatch(p -> p.equals(dir)));
        }
    }

    @Test
    void refusesTmpfsWithAnExplanation() throws IOException {
        Path shm = Path.of("/dev/shm");
        assumeTrue(Files.isDirectory(shm) && Files.getFileStore(shm).type().equals("tmpfs"), "no tmpfs at /dev/shm");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> BenchFile.create(shm, 1 << 20, 1, new PrintWriter(new StringWriter())));
        assertTrue(e.getMessage().contains("tmpfs") && e.getMessage().contains("--dir"), e.getMessage());
    }

    @Test
    void saysHowMuchSpaceIsNeededWhenThereIsNotEnough() throws IOException {
        Path parent = diskDir();
        long huge = 1L << 50;
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> BenchFile.create(parent, huge, 1, new PrintWriter(new StringWriter())));
        assertTrue(e.getMessage().contains("need 1.0 PiB (1 PiB file + 64 MiB margin), have "),
                e.getMessage());
        try (Stream<Path> s = Files.list(parent)) {
            assertTrue(s.noneMatch(p -> p.getFileName().toString().startsWith("jfio-bench-")),
                    "nothing is created when the space check fails");
        }
    }
}
