package io.jfio.bench.system;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import io.jfio.core.sys.Errno;
import io.jfio.core.sys.ErrnoException;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether O_DIRECT really works at a path, found by doing it: open with O_DIRECT, then one aligned write and read
 * back in a new file of a directory (a read for an existing file, which is never written), plus the alignment
 * statx reports (STATX_DIOALIGN, Linux 6.1) for a regular file there.
 *
 * <p>Immutable.
 *
 * @param works          true if O_DIRECT I/O worked, false if it failed, null if it could not be tested
 * @param errno          the errno symbol of the failure, or null
 * @param detail         what was tried and what happened, for people
 * @param dioMemAlign    buffer alignment from statx; 0 when not supported or not reported
 * @param dioOffsetAlign offset alignment from statx; 0 when not supported or not reported
 */
record DirectIoProbe(Boolean works, String errno, String detail, int dioMemAlign, int dioOffsetAlign) {

    /** The I/O size tried: a page, which every device's logical block size divides. */
    private static final int IO_SIZE = 4096;

    /** Tests {@code path}, whose statx is {@code stat}. Never writes to an existing file. */
    static DirectIoProbe run(Path path, PathStat stat) {
        if (stat.isDirectory()) return inDirectory(path, stat);
        if (stat.isRegularFile()) return existingFile(path, stat);
        return new DirectIoProbe(null, null, "not tested: not a regular file or directory: type="
                + stat.typeName(), stat.dioMemAlign(), stat.dioOffsetAlign());
    }

    private static DirectIoProbe inDirectory(Path dir, PathStat dirStat) {
        String d = dir.toString();
        int fd = LibC.openat(Fcntl.AT_FDCWD, d, Fcntl.O_TMPFILE | Fcntl.O_RDWR | Fcntl.O_DIRECT | Fcntl.O_CLOEXEC,
                0600);
        if (fd >= 0) return exercise(fd, d, "unnamed temporary file (O_TMPFILE)");
        int directErrno = -fd;
        if (cannotCreate(directErrno)) return notTested(directErrno, d, dirStat);
        int plain = LibC.openat(Fcntl.AT_FDCWD, d, Fcntl.O_TMPFILE | Fcntl.O_RDWR | Fcntl.O_CLOEXEC, 0600);
        if (plain >= 0) {
            // O_TMPFILE works without O_DIRECT, so O_DIRECT is what the file system refuses.
            try {
                PathStat st = statOrDefault(plain, d, dirStat);
                return failed(directErrno, "open(O_TMPFILE|O_DIRECT) failed", st);
            } finally {
                LibC.close(plain);
            }
        }
        // No O_TMPFILE here (EOPNOTSUPP, or EISDIR before Linux 3.11): a named file, removed right after.
        Path tmp = dir.resolve(".jfio-info-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
        String t = tmp.toString();
        try {
            fd = LibC.openat(Fcntl.AT_FDCWD, t, Fcntl.O_CREAT | Fcntl.O_EXCL | Fcntl.O_RDWR | Fcntl.O_DIRECT
                    | Fcntl.O_CLOEXEC, 0600);
            if (fd >= 0) return exercise(fd, t, "temporary file " + tmp.getFileName());
            directErrno = -fd;
            // The kernel creates the file before it checks O_DIRECT, so the file may exist now: no O_EXCL.
            int created = LibC.openat(Fcntl.AT_FDCWD, t, Fcntl.O_CREAT | Fcntl.O_RDWR | Fcntl.O_CLOEXEC, 0600);
            if (created < 0) return notTested(-created, d, dirStat);
            try {
                return failed(directErrno, "open(O_CREAT|O_DIRECT) failed", statOrDefault(created, t, dirStat));
            } finally {
                LibC.close(created);
            }
        } finally {
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException ignored) {
                // Nothing more to do than leave it: its name says who made it.
            }
        }
    }

    private static DirectIoProbe existingFile(Path file, PathStat st) {
        String f = file.toString();
        int fd = LibC.openat(Fcntl.AT_FDCWD, f, Fcntl.O_RDONLY | Fcntl.O_DIRECT | Fcntl.O_CLOEXEC, 0);
        if (fd < 0) {
            if (-fd == Errno.EACCES || -fd == Errno.EPERM) {
                return new DirectIoProbe(null, null, "not tested: cannot open the file: errno=" + Errno.name(-fd),
                        st.dioMemAlign(), st.dioOffsetAlign());
            }
            return failed(-fd, "open(O_RDONLY|O_DIRECT) failed", st);
        }
        try (Arena a = Arena.ofConfined()) {
            int size = ioSize(st);
            MemorySegment buf = a.allocate(size, bufferAlignment(st));
            long r = LibC.pread(fd, buf, size, 0);
            if (r < 0) return failed((int) -r, "pread of " + size + " bytes at offset 0 failed", st);
            return new DirectIoProbe(true, null, "existing file: open and " + size + "-byte read at offset 0",
                    st.dioMemAlign(), st.dioOffsetAlign());
        } finally {
            LibC.close(fd);
        }
    }

    /** One aligned write and read back through {@code fd}, which was opened with O_DIRECT; closes it. */
    private static DirectIoProbe exercise(int fd, String path, String what) {
        try (Arena a = Arena.ofConfined()) {
            PathStat st = statOrDefault(fd, path, null);
            int size = ioSize(st);
            long align = bufferAlignment(st);
            MemorySegment out = a.allocate(size, align);
            for (int i = 0; i < size; i++) out.set(JAVA_BYTE, i, (byte) (i * 31 + 7));
            long w = LibC.pwrite(fd, out, size, 0);
            if (w < 0) return failed((int) -w, what + ": open worked, pwrite of " + size + " bytes failed", st);
            if (w != size) {
                return failedWithoutErrno(what + ": short O_DIRECT write: written=" + w + " length=" + size, st);
            }
            MemorySegment in = a.allocate(size, align);
            long r = LibC.pread(fd, in, size, 0);
            if (r < 0) return failed((int) -r, what + ": pread of " + size + " bytes failed", st);
            if (r != size) {
                return failedWithoutErrno(what + ": short O_DIRECT read: read=" + r + " length=" + size, st);
            }
            if (in.mismatch(out) >= 0) {
                return failedWithoutErrno(what + ": data read back differs from data written", st);
            }
            return new DirectIoProbe(true, null, what + ": open, " + size + "-byte write and read back",
                    st.dioMemAlign(), st.dioOffsetAlign());
        } finally {
            LibC.close(fd);
        }
    }

    /** A write size the file system accepts: a page, or the offset alignment if that is larger. */
    private static int ioSize(PathStat st) {
        return Math.max(IO_SIZE, st == null ? 0 : st.dioOffsetAlign());
    }

    private static long bufferAlignment(PathStat st) {
        return Math.max(LibC.pageSize(), st == null ? 0 : st.dioMemAlign());
    }

    private static PathStat statOrDefault(int fd, String path, PathStat fallback) {
        try {
            return PathStat.of(fd, path);
        } catch (ErrnoException e) {
            return fallback;
        }
    }

    /** Errors that mean "no file may be created here", which says nothing about O_DIRECT. */
    private static boolean cannotCreate(int errno) {
        return errno == Errno.EACCES || errno == Errno.EPERM || errno == Errno.EROFS || errno == Errno.ENOSPC
                || errno == Errno.EDQUOT;
    }

    private static DirectIoProbe notTested(int errno, String dir, PathStat st) {
        return new DirectIoProbe(null, Errno.name(errno), "not tested: cannot create a file: errno="
                + Errno.name(errno) + " (" + Errno.describe(errno) + ") dir=" + dir, align(st, true), align(st, false));
    }

    private static DirectIoProbe failed(int errno, String what, PathStat st) {
        return new DirectIoProbe(false, Errno.name(errno), what + ": errno=" + Errno.name(errno) + " ("
                + Errno.describe(errno) + ")", align(st, true), align(st, false));
    }

    private static DirectIoProbe failedWithoutErrno(String what, PathStat st) {
        return new DirectIoProbe(false, null, what, align(st, true), align(st, false));
    }

    private static int align(PathStat st, boolean memory) {
        if (st == null) return 0;
        return memory ? st.dioMemAlign() : st.dioOffsetAlign();
    }
}
