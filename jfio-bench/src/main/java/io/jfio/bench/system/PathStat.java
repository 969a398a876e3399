package io.jfio.bench.system;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import io.jfio.core.sys.ErrnoException;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import io.jfio.core.sys.Statx;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The statx(2) facts {@code jfio info} needs about one file: its type, its device, its mount and its O_DIRECT
 * alignment.
 *
 * <p>Immutable.
 *
 * @param mode           file type and permission bits
 * @param devMajor       major number of the device holding the file
 * @param devMinor       minor number of that device
 * @param rdevMajor      major number of the device this file is, for device files
 * @param rdevMinor      minor number of the device this file is
 * @param mntId          the mount ID, or -1 when the kernel did not report one (before 5.8)
 * @param dioMemAlign    O_DIRECT buffer alignment; 0 when not supported or not reported (before 6.1)
 * @param dioOffsetAlign O_DIRECT offset and length alignment; 0 when not supported or not reported
 */
record PathStat(int mode, int devMajor, int devMinor, int rdevMajor, int rdevMinor, long mntId, int dioMemAlign,
                int dioOffsetAlign) {

    static final int S_IFBLK = 0060000;  // S_IFBLK in linux/stat.h
    static final int S_IFCHR = 0020000;  // S_IFCHR
    static final int S_IFSOCK = 0140000; // S_IFSOCK

    private static final int MASK = Statx.STATX_TYPE | Statx.STATX_MODE | Statx.STATX_MNT_ID | Statx.STATX_DIOALIGN;

    /** statx of {@code path}, following symbolic links. */
    static PathStat of(String path) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            return call(a, Fcntl.AT_FDCWD, a.allocateFrom(path), 0, path);
        }
    }

    /** statx of an open descriptor ({@code AT_EMPTY_PATH}). */
    static PathStat of(int fd, String pathForMessages) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            return call(a, fd, a.allocateFrom(""), Fcntl.AT_EMPTY_PATH, pathForMessages);
        }
    }

    private static PathStat call(Arena a, int dirfd, MemorySegment path, int flags, String pathForMessages)
            throws ErrnoException {
        MemorySegment buf = a.allocate(Statx.LAYOUT);
        int r = LibC.statx(dirfd, path, flags, MASK, buf);
        ErrnoException.check(r, "statx", dirfd >= 0 ? dirfd : -1, pathForMessages);
        long mntId = (Statx.mask(buf) & Statx.STATX_MNT_ID) != 0 ? Statx.mntId(buf) : -1;
        return new PathStat(Statx.mode(buf), Statx.devMajor(buf), Statx.devMinor(buf),
                buf.get(JAVA_INT, Statx.OFF_RDEV_MAJOR), buf.get(JAVA_INT, Statx.OFF_RDEV_MINOR), mntId,
                Statx.dioMemAlign(buf), Statx.dioOffsetAlign(buf));
    }

    /** The S_IFMT bits. */
    int type() {
        return mode & Fcntl.S_IFMT;
    }

    boolean isDirectory() {
        return type() == Fcntl.S_IFDIR;
    }

    boolean isRegularFile() {
        return type() == Fcntl.S_IFREG;
    }

    boolean isBlockDevice() {
        return type() == S_IFBLK;
    }

    /** The file type in words, e.g. {@code directory}. */
    String typeName() {
        int t = type();
        if (t == Fcntl.S_IFREG) return "regular file";
        if (t == Fcntl.S_IFDIR) return "directory";
        if (t == Fcntl.S_IFLNK) return "symbolic link";
        if (t == Fcntl.S_IFIFO) return "fifo";
        if (t == S_IFBLK) return "block device";
        if (t == S_IFCHR) return "character device";
        if (t == S_IFSOCK) return "socket";
        return "unknown";
    }

    /** {@code major:minor} of the device holding the file. */
    String device() {
        return Integer.toUnsignedString(devMajor) + ":" + Integer.toUnsignedString(devMinor);
    }
}
