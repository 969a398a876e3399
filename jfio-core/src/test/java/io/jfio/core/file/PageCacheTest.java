package io.jfio.core.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.core.sys.LibC;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link PageCache}: eviction empties the cache of a file, warming fills it, residency counts right. */
class PageCacheTest {
    /** Pages the kernel may keep despite DONTNEED (e.g. one under writeback or read-ahead at that moment). */
    private static final double TOLERANCE = 0.02;

    @TempDir
    Path dir;

    @Test
    void shouldEvictAndWarmFile() throws Exception {
        Path p = dir.resolve("f");
        byte[] data = new byte[16 << 20];
        new Random(1).nextBytes(data);
        Files.write(p, data);

        PageCache.evict(p);
        PageCache.Residency cold = PageCache.residency(p);
        assertEquals((16 << 20) / LibC.pageSize(), cold.totalPages());
        assertTrue(cold.fraction() <= TOLERANCE, "after evict: " + cold);

        PageCache.Residency warm = PageCache.warm(p);
        assertEquals(1.0, warm.fraction(), "after warm: " + warm);
        assertEquals(warm, PageCache.residency(p));

        PageCache.evict(p);
        assertTrue(PageCache.residency(p).fraction() <= TOLERANCE, "after second evict");
    }

    @Test
    void shouldCountPartialLastPageAndEmptyFile() throws Exception {
        Path p = dir.resolve("f");
        Files.write(p, new byte[LibC.pageSize() + 1]);
        PageCache.Residency r = PageCache.warm(p);
        assertEquals(2, r.totalPages());
        assertEquals(2, r.residentPages());
        Path empty = dir.resolve("empty");
        Files.write(empty, new byte[0]);
        assertEquals(new PageCache.Residency(0, 0), PageCache.residency(empty));
        assertEquals(1.0, PageCache.residency(empty).fraction());
    }

    @Test
    void shouldReportDirectIoAlignment() throws Exception {
        Path p = dir.resolve("f");
        Files.write(p, new byte[1]);
        int[] align = PageCache.directAlignment(p);
        assertEquals(2, align.length);
        // Reported by ext4 and xfs since 6.1; 0 where the file system does not say.
        assertTrue(align[0] >= 0 && align[1] >= 0);
        if (align[1] > 0) assertTrue(Integer.bitCount(align[1]) == 1, "offset alignment " + align[1]);
    }
}
