package io.jfio.core.file;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jfio.core.sys.Errno;
import io.jfio.core.sys.ErrnoException;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import io.jfio.core.sys.Mman;
import io.jfio.core.sys.Statx;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/**
 * How much of a file is in the page cache, and how to make it leave: the tools that make "cold" and "hot"
 * measurements honest, and {@link #cachedPages}, with which the tree copy leaves a mostly cached large file in one
 * piece rather than splitting it across workers.
 *
 * <p>Thread-safe; the only state is whether cachestat(2) exists, learned once.
 */
public final class PageCache {
    /** mincore in chunks, so the vector stays small for huge files. */
    private static final long CHUNK = 1L << 30;
    /**
     * cachestat(2) said ENOSYS (a kernel before 6.5, or a seccomp filter that hides it that way): it is not asked
     * again, so a caller that asks for every large file pays the failing call once. EPERM is not remembered: newer
     * kernels give it per file (one the caller can neither write nor owns), so it says nothing about the next file;
     * a seccomp filter that answers EPERM therefore costs one failed call per file asked about, each answered -1
     * ("cannot say": the copy may then split a file that is in fact cached). A racy flag: two threads may both ask.
     */
    private static volatile boolean noCachestat;

    private PageCache() {
    }

    /**
     * Residency of a file: pages in the page cache out of pages in the file.
     *
     * @param residentPages the pages of the file in the page cache
     * @param totalPages the pages the file spans
     */
    public record Residency(long residentPages, long totalPages) {
        /**
         * Fraction resident, 0..1 (1 for an empty file).
         *
         * @return {@code residentPages / totalPages}
         */
        public double fraction() {
            return totalPages == 0 ? 1.0 : (double) residentPages / totalPages;
        }
    }

    /**
     * Counts the pages of {@code path} in the page cache: maps the file without faulting anything in and asks
     * mincore(2). Mapping does not change residency.
     *
     * @param path the file to look at
     * @return the file's residency
     * @throws IOException if the file cannot be opened, mapped or asked about (the message names the call and the
     *     errno)
     */
    public static Residency residency(Path path) throws IOException {
        String p = path.toString();
        int fd = LibC.openat(Fcntl.AT_FDCWD, p, Fcntl.O_RDONLY | Fcntl.O_CLOEXEC, 0);
        ErrnoException.check(fd, "open", -1, p);
        try {
            return residency(fd, p);
        } finally {
            LibC.close(fd);
        }
    }

    /**
     * {@link #residency(Path)} for an open descriptor.
     *
     * @param fd an open descriptor of the file
     * @param path the file's path, for messages
     * @return the file's residency
     * @throws IOException if the file cannot be mapped or asked about (the message names the call and the errno)
     */
    public static Residency residency(int fd, String path) throws IOException {
        long size = IoFile.statFd(fd, path).size();
        int page = LibC.pageSize();
        long total = (size + page - 1) / page;
        long resident = 0;
        for (long off = 0; off < size; off += CHUNK) {
            long len = Math.min(CHUNK, size - off);
            long addr = ErrnoException.check(LibC.mmap(0, len, Mman.PROT_READ, Mman.MAP_SHARED, fd, off), "mmap",
                    fd, path, off, len);
            try {
                resident += mincoreResident(addr, len, path);
            } finally {
                LibC.munmap(addr, len);
            }
        }
        return new Residency(resident, total);
    }

    /**
     * How many pages of an open file are in the page cache, by cachestat(2) (Linux 6.5): one system call, no
     * mapping, nothing allocated ({@code range} and {@code out} are the caller's scratch, at least
     * {@link LibC#CACHESTAT_RANGE_SIZE} and {@link LibC#CACHESTAT_SIZE} bytes).
     *
     * @param fd an open descriptor of the file
     * @param range scratch for the kernel's {@code struct cachestat_range}
     * @param out scratch the kernel fills with its {@code struct cachestat}
     * @return the cached pages, or -1 when the kernel cannot say (no cachestat, or it refused this file)
     */
    public static long cachedPages(int fd, MemorySegment range, MemorySegment out) {
        return cachedPages(fd, 0, 0, range, out); // offset 0, length 0: the whole file
    }

    /**
     * How many pages of a byte range of an open file are in the page cache, by cachestat(2), as
     * {@link #cachedPages(int, MemorySegment, MemorySegment)} does for the whole file. The kernel's cost grows with
     * the range (about 55 ms for a cached 4 GiB file), so a caller that needs only an estimate asks for samples.
     *
     * @param fd an open descriptor of the file
     * @param offset the first byte of the range
     * @param length the range's length; 0 means to the end of the file
     * @param range scratch for the kernel's {@code struct cachestat_range}
     * @param out scratch the kernel fills with its {@code struct cachestat}
     * @return the cached pages of the range, or -1 when the kernel cannot say
     */
    public static long cachedPages(int fd, long offset, long length, MemorySegment range, MemorySegment out) {
        if (noCachestat) return -1;
        range.set(JAVA_LONG, 0, offset);
        range.set(JAVA_LONG, 8, length);
        int r = LibC.cachestat(fd, range, out);
        if (r == 0) return out.get(JAVA_LONG, 0);
        if (r == -Errno.ENOSYS) noCachestat = true;
        return -1;
    }

    static long mincoreResident(long addr, long len, String path) throws ErrnoException {
        int page = LibC.pageSize();
        long pages = (len + page - 1) / page;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment vec = a.allocate(pages);
            ErrnoException.check(LibC.mincore(addr, len, vec), "mincore", -1, path, 0, len);
            long n = 0;
            for (long i = 0; i < pages; i++) n += vec.get(JAVA_BYTE, i) & 1;
            return n;
        }
    }

    /**
     * Drops {@code path} from the page cache: fdatasync (dirty pages cannot be dropped) then
     * POSIX_FADV_DONTNEED. Verify with {@link #residency}: pages mapped by some process stay.
     *
     * @param path the file to drop
     * @throws IOException if the file cannot be opened, synced or advised (the message names the call and the errno)
     */
    public static void evict(Path path) throws IOException {
        String p = path.toString();
        int fd = LibC.openat(Fcntl.AT_FDCWD, p, Fcntl.O_RDONLY | Fcntl.O_CLOEXEC, 0);
        ErrnoException.check(fd, "open", -1, p);
        try {
            ErrnoException.check(LibC.fdatasync(fd), "fdatasync", fd, p);
            ErrnoException.check(LibC.posixFadvise(fd, 0, 0, Fcntl.POSIX_FADV_DONTNEED), "posix_fadvise(DONTNEED)",
                    fd, p);
        } finally {
            LibC.close(fd);
        }
    }

    /**
     * Reads {@code path} into the page cache (POSIX_FADV_WILLNEED, then a read pass to be sure) and returns the
     * residency reached.
     *
     * @param path the file to read
     * @return the residency after the read pass
     * @throws IOException if the file cannot be opened, read or asked about (the message names the call and the errno)
     */
    public static Residency warm(Path path) throws IOException {
        String p = path.toString();
        int fd = LibC.openat(Fcntl.AT_FDCWD, p, Fcntl.O_RDONLY | Fcntl.O_CLOEXEC, 0);
        ErrnoException.check(fd, "open", -1, p);
        try (Arena a = Arena.ofConfined()) {
            LibC.posixFadvise(fd, 0, 0, Fcntl.POSIX_FADV_WILLNEED);
            MemorySegment buf = a.allocate(1 << 20, 4096);
            long off = 0;
            while (true) {
                long n = ErrnoException.check(LibC.pread(fd, buf, buf.byteSize(), off), "pread", fd, p, off,
                        buf.byteSize());
                if (n == 0) break;
                off += n;
            }
            return residency(fd, p);
        } finally {
            LibC.close(fd);
        }
    }

    /**
     * The O_DIRECT alignment statx reports for a path (buffer, offset), or {@code {0, 0}} if not reported.
     *
     * @param path the file or directory to ask about
     * @return {@code {bufferAlignment, offsetAlignment}} in bytes
     * @throws IOException if statx fails on the path (the message names the call and the errno)
     */
    public static int[] directAlignment(Path path) throws IOException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment buf = a.allocate(Statx.LAYOUT);
            String p = path.toString();
            ErrnoException.check(LibC.statx(Fcntl.AT_FDCWD, a.allocateFrom(p), 0, Statx.STATX_DIOALIGN, buf),
                    "statx", -1, p);
            return new int[] {Statx.dioMemAlign(buf), Statx.dioOffsetAlign(buf)};
        }
    }
}
