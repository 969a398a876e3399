package io.jfio.ship.state;

import io.jfio.core.sys.Errno;
import io.jfio.core.sys.ErrnoException;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * An exclusive lock on a directory: {@code flock(LOCK_EX | LOCK_NB)} on its {@code lock} file, which then holds the
 * holder's pid. The kernel drops the lock when the process dies however it dies (kill -9 included), so a stale lock
 * file never blocks a restart; flock belongs to the open file description, so a second lock inside the same process
 * fails too.
 *
 * <p>Not thread-safe; {@link #close} is idempotent.
 */
public final class StateLock implements AutoCloseable {
    private final Path file;
    private int fd;

    private StateLock(Path file, int fd) {
        this.file = file;
        this.fd = fd;
    }

    /**
     * Takes the lock on {@code dir/name}.
     *
     * @param what for the message: what the directory is ("state directory", "sink directory")
     * @throws LockedException when another holder has it; the message names its pid
     * @throws IOException     when the lock file cannot be opened
     */
    public static StateLock acquire(Path dir, String name, String what) throws IOException {
        Path file = dir.resolve(name);
        return acquire(Fcntl.AT_FDCWD, file.toString(), dir, file, what);
    }

    /**
     * Takes the lock on {@code name} in the opened directory {@code dir} (relative to its descriptor).
     *
     * @throws LockedException when another holder has it; the message names its pid
     * @throws IOException     when the lock file cannot be opened
     */
    public static StateLock acquire(StateDir dir, String name, String what) throws IOException {
        return acquire(dir.fd(), name, dir.path(), dir.path().resolve(name), what);
    }

    private static StateLock acquire(int dirFd, String name, Path dir, Path file, String what) throws IOException {
        // O_NOFOLLOW: the pid is written into this file as root; a symlink planted at its name must not redirect
        // that write (and the truncation before it) to another file.
        int fd = LibC.openat(dirFd, name, Fcntl.O_RDWR | Fcntl.O_CREAT | Fcntl.O_NOFOLLOW | Fcntl.O_CLOEXEC, 0600);
        if (fd == -Errno.ELOOP) {
            throw new IOException(what + " lock is a symbolic link; refusing to follow it (remove it if it is not "
                    + "yours): lock=" + file);
        }
        ErrnoException.check(fd, "open", -1, file.toString());
        int r = LibC.flock(fd, Fcntl.LOCK_EX | Fcntl.LOCK_NB);
        if (r == -Errno.EAGAIN) {
            String pid = readPid(fd);
            LibC.close(fd);
            throw new LockedException(what + " is in use by another jfio ship: dir=" + dir + " pid=" + pid
                    + " lock=" + file);
        }
        if (r < 0) {
            LibC.close(fd);
            ErrnoException.check(r, "flock", fd, file.toString());
        }
        try (Arena arena = Arena.ofConfined()) {
            byte[] pid = (ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII);
            MemorySegment seg = arena.allocateFrom(java.lang.foreign.ValueLayout.JAVA_BYTE, pid);
            LibC.ftruncate(fd, 0);
            LibC.pwrite(fd, seg, pid.length, 0);
        }
        return new StateLock(file, fd);
    }

    /**
     * The pid written in {@code dir/name} when another open file holds its lock, or null when nobody does (or there
     * is no lock file). Only looks: the file is opened read-only, never created or written, and a shared lock is
     * tried and let go at once.
     *
     * @throws IOException when the lock file exists but cannot be opened (a symbolic link, no permission)
     */
    public static String holder(Path dir, String name) throws IOException {
        Path file = dir.resolve(name);
        int fd = LibC.openat(Fcntl.AT_FDCWD, file.toString(), Fcntl.O_RDONLY | Fcntl.O_NOFOLLOW | Fcntl.O_CLOEXEC, 0);
        if (fd == -Errno.ENOENT) return null;
        ErrnoException.check(fd, "open", -1, file.toString());
        try {
            int r = LibC.flock(fd, Fcntl.LOCK_SH | Fcntl.LOCK_NB);
            if (r == -Errno.EAGAIN) return readPid(fd);
            ErrnoException.check(r, "flock", fd, file.toString());
            return null;
        } finally {
            LibC.close(fd); // lets go of the shared lock, if it was taken
        }
    }

    private static String readPid(int fd) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(32);
            long n = LibC.pread(fd, buf, 32, 0);
            if (n <= 0) return "unknown";
            return new String(buf.asSlice(0, n).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
                    StandardCharsets.US_ASCII).trim();
        }
    }

    /** The lock file. */
    public Path file() {
        return file;
    }

    @Override
    public void close() {
        if (fd >= 0) {
            LibC.close(fd);
            fd = -1;
        }
    }

    /** Another process (or another open of the same file) holds the lock. */
    public static final class LockedException extends IOException {
        private static final long serialVersionUID = 1L;

        LockedException(String message) {
            super(message);
        }
    }
}
