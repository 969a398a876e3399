package io.jfio.ship.pipeline;

import io.jfio.core.sys.Errno;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.FileNames;
import io.jfio.core.sys.LibC;
import io.jfio.core.sys.Statx;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A reusable statx buffer: of a path (following symlinks, like the paths a user names) or of an open descriptor
 * ({@code AT_EMPTY_PATH}, race-free). One system call, no allocation but the path's bytes.
 *
 * <p>Not thread-safe; one per thread.
 */
final class Stx {
    private static final int MASK = Statx.STATX_TYPE | Statx.STATX_MODE | Statx.STATX_NLINK | Statx.STATX_INO
            | Statx.STATX_SIZE | Statx.STATX_UID;
    private final MemorySegment buf;
    private final MemorySegment pathBuf;
    private final MemorySegment empty;

    Stx(Arena arena) {
        buf = arena.allocate(Statx.LAYOUT);
        pathBuf = arena.allocate(Fcntl.PATH_MAX + 1);
        empty = arena.allocate(1);
    }

    /** statx of a path, following symlinks; 0 or -errno. */
    int ofPath(String path) {
        return ofPath(path, 0);
    }

    /** statx of a path without following a final symlink; 0 or -errno. */
    int ofPathNoFollow(String path) {
        return ofPath(path, Fcntl.AT_SYMLINK_NOFOLLOW);
    }

    private int ofPath(String path, int flags) {
        byte[] b = FileNames.encode(path);
        if (b.length >= Fcntl.PATH_MAX) return -Errno.ENAMETOOLONG;
        MemorySegment.copy(b, 0, pathBuf, ValueLayout.JAVA_BYTE, 0, b.length);
        pathBuf.set(ValueLayout.JAVA_BYTE, b.length, (byte) 0);
        return LibC.statx(Fcntl.AT_FDCWD, pathBuf, flags, MASK, buf);
    }

    /** statx of an open descriptor; 0 or -errno. */
    int ofFd(int fd) {
        return LibC.statx(fd, empty, Fcntl.AT_EMPTY_PATH, MASK, buf);
    }

    long dev() {
        return Statx.dev(buf);
    }

    long ino() {
        return Statx.ino(buf);
    }

    long size() {
        return Statx.size(buf);
    }

    int uid() {
        return Statx.uid(buf);
    }

    long nlink() {
        return Statx.nlink(buf);
    }

    int type() {
        return Statx.mode(buf) & Fcntl.S_IFMT;
    }

    boolean isRegular() {
        return type() == Fcntl.S_IFREG;
    }

    boolean isDirectory() {
        return type() == Fcntl.S_IFDIR;
    }

    boolean isSymlink() {
        return type() == Fcntl.S_IFLNK;
    }

    /** A word for what a non-regular file is, for messages. */
    String typeName() {
        return switch (type()) {
            case Fcntl.S_IFDIR -> "directory";
            case Fcntl.S_IFIFO -> "fifo";
            case Fcntl.S_IFSOCK -> "socket";
            case Fcntl.S_IFCHR -> "char-device";
            case Fcntl.S_IFBLK -> "block-device";
            case Fcntl.S_IFLNK -> "symlink";
            case Fcntl.S_IFREG -> "file";
            default -> "unknown";
        };
    }
}
