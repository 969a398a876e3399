package io.jfio.core.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jfio.core.sys.Errno;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
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

    /** cachestat's count agrees with mincore's, cold and warm. */
    @Test
    void shouldCountCachedPagesOfAnOpenFile() throws Exception {
        Path p = dir.resolve("f");
        byte[] data = new byte[4 << 20];
        new Random(2).nextBytes(data);
        Files.write(p, data);
        int fd = LibC.openat(Fcntl.AT_FDCWD, p.toString(), Fcntl.O_RDONLY | Fcntl.O_CLOEXEC, 0);
        assertTrue(fd >= 0, Errno.name(-fd));
        try (Arena a = Arena.ofConfined()) {
            MemorySegment range = a.allocate(LibC.CACHESTAT_RANGE_SIZE, 8);
            MemorySegment out = a.allocate(LibC.CACHESTAT_SIZE, 8);
            int rc = LibC.cachestat(fd, range, out);
            assumeTrue(rc != -Errno.ENOSYS, "cachestat(2) needs Linux 6.5");
            // A file of our own is never refused by the kernel's per-file check: EPERM is a seccomp filter.
            assumeTrue(rc != -Errno.EPERM, "cachestat(2) refused (EPERM) by a seccomp filter");
            assertEquals(0, rc, Errno.name(-rc));
            PageCache.Residency warm = PageCache.warm(p);
            assertEquals(warm.residentPages(), PageCache.cachedPages(fd, range, out));
            PageCache.evict(p);
            long cold = PageCache.cachedPages(fd, range, out);
            assertTrue(cold >= 0 && cold <= TOLERANCE * warm.totalPages(), "after evict: " + cold);
            assertEquals(-1, PageCache.cachedPages(-1, range, out), "EBADF: the kernel cannot say");
        } finally {
            LibC.close(fd);
        }
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
