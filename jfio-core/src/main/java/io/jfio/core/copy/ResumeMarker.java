package io.jfio.core.copy;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import io.jfio.core.sys.Errno;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import io.jfio.core.sys.Statx;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Makes "run the same command again" finish an interrupted copy of a directory. {@code cp -a src dst} copies src
 * <em>as</em> dst when dst does not exist, but <em>into</em> dst (as dst/src) when it does, so after an interrupted
 * first run the same command would start a second copy inside the first. When a run creates the top-level target
 * directory it leaves this marker in it, naming the source's device and inode; a later run that finds the marker
 * for the same source resumes into the directory instead. The marker is removed once the directory is complete, so
 * a completed copy behaves exactly like cp afterwards.
 *
 * <p>Thread-safe; stateless. The file is {@value #NAME}, one line: {@code jfio-copy dev=D ino=I}.
 */
final class ResumeMarker {
    static final String NAME = ".jfio-copy.resume";
    private static final byte[] NAME_BYTES = NAME.getBytes(StandardCharsets.US_ASCII);

    private ResumeMarker() {
    }

    private static byte[] content(Meta source) {
        return ("jfio-copy dev=" + source.dev() + " ino=" + source.ino() + "\n").getBytes(StandardCharsets.US_ASCII);
    }

    /** True when {@code name} is the marker's file name. */
    static boolean isName(byte[] name) {
        return Arrays.equals(name, NAME_BYTES);
    }

    /** Writes the marker into the target directory open as {@code dirFd}; returns 0 or -errno. */
    static int write(int dirFd, Meta source) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment path = a.allocateFrom(NAME);
            int fd = LibC.openat(dirFd, path, Fcntl.O_WRONLY | Fcntl.O_CREAT | Fcntl.O_TRUNC
                    | Fcntl.O_CLOEXEC | Fcntl.O_NOFOLLOW, 0600);
            if (fd < 0) return fd;
            try {
                byte[] c = content(source);
                MemorySegment buf = a.allocate(c.length);
                MemorySegment.copy(c, 0, buf, JAVA_BYTE, 0, c.length);
                long n = LibC.write(fd, buf, c.length);
                return n == c.length ? 0 : n < 0 ? (int) n : -Errno.EIO;
            } finally {
                LibC.close(fd);
            }
        }
    }

    /** True when the directory {@code dir} holds a marker for {@code source} (the target, as cp names it). */
    static boolean matches(byte[] dir, Meta source) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment path = a.allocate(Fcntl.PATH_MAX + 1);
            if (Names.put(path, dir, NAME_BYTES) < 0) return false;
            return matches(Fcntl.AT_FDCWD, path, source, a);
        }
    }

    /** True when the target directory open as {@code dirFd} holds a marker for {@code source}. */
    static boolean matches(int dirFd, Meta source) {
        try (Arena a = Arena.ofConfined()) {
            return matches(dirFd, a.allocateFrom(NAME), source, a);
        }
    }

    private static boolean matches(int dirFd, MemorySegment path, Meta source, Arena a) {
        int fd = LibC.openat(dirFd, path, Fcntl.O_RDONLY | Fcntl.O_CLOEXEC | Fcntl.O_NOFOLLOW | Fcntl.O_NONBLOCK, 0);
        if (fd < 0) return false;
        try {
            if (!ours(fd, a)) return false;
            byte[] want = content(source);
            MemorySegment buf = a.allocate(want.length + 1);
            long n = LibC.read(fd, buf, want.length + 1);
            if (n != want.length) return false;
            byte[] got = new byte[(int) n];
            MemorySegment.copy(buf, JAVA_BYTE, 0, got, 0, got.length);
            return Arrays.equals(got, want);
        } finally {
            LibC.close(fd);
        }
    }

    /**
     * Whether the marker open as {@code fd} can only have been written by a run of this user: a regular file of
     * one name, owned by us, that no one else may write. A marker another user who may write the target put there
     * would otherwise make the copy resume into the directory and keep their files of the source's size and time.
     */
    private static boolean ours(int fd, Arena a) {
        MemorySegment sx = a.allocate(Statx.LAYOUT);
        if (LibC.statx(fd, a.allocateFrom(""), Fcntl.AT_EMPTY_PATH, Statx.STATX_BASIC_STATS, sx) != 0) return false;
        return (Statx.mode(sx) & Fcntl.S_IFMT) == Fcntl.S_IFREG && Statx.uid(sx) == LibC.geteuid()
                && (Statx.mode(sx) & 022) == 0 && Statx.nlink(sx) == 1;
    }

    /**
     * Removes the marker for {@code source} from the directory open as {@code dirFd} ({@code pathBuf}: a scratch
     * buffer). A file of that name that is not this marker stays: the source may hold a file of the same name, copied
     * over the marker, and it is the user's.
     */
    static int remove(int dirFd, MemorySegment pathBuf, Meta source) {
        if (!matches(dirFd, source)) return 0;
        Names.putAscii(pathBuf, NAME);
        int r = LibC.unlinkat(dirFd, pathBuf, 0);
        return r == -Errno.ENOENT ? 0 : r;
    }
}
