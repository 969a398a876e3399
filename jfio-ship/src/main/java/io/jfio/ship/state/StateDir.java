package io.jfio.ship.state;

import io.jfio.core.sys.Errno;
import io.jfio.core.sys.ErrnoException;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Thread-safe: the descriptor is only read after {@link #open}; {@link #close} once, after the last use.
 *
 * <p>The state directory, opened once ({@code O_DIRECTORY|O_NOFOLLOW}): its lock and checkpoint files are opened,
 * renamed and removed relative to this descriptor. Whoever may rename the directory or its parent while the
 * shipper runs (to put a symbolic link in its place) changes nothing: the files keep going to the directory that
 * was opened, the one the lock is in, and never through a link to another one.
 */
public final class StateDir implements AutoCloseable {
    private final Path path;
    private volatile int fd;

    private StateDir(Path path, int fd) {
        this.path = path;
        this.fd = fd;
    }

    /**
     * Opens the directory {@code path} (which must exist).
     *
     * @throws IOException when it cannot be opened, is not a directory or is a symbolic link
     */
    public static StateDir open(Path path) throws IOException {
        int fd = LibC.openat(Fcntl.AT_FDCWD, path.toString(), Fcntl.O_RDONLY | Fcntl.O_DIRECTORY | Fcntl.O_NOFOLLOW
                | Fcntl.O_CLOEXEC, 0);
        if (fd == -Errno.ELOOP) {
            throw new IOException("state directory is a symbolic link; refusing to follow it (give the directory it "
                    + "points to): dir=" + path);
        }
        ErrnoException.check(fd, "open", -1, path.toString());
        return new StateDir(path, fd);
    }

    /** The directory's path, as given (for messages). */
    public Path path() {
        return path;
    }

    /**
     * A path that reaches this directory through its descriptor ({@code /proc/self/fd/N}): the kernel resolves it to
     * the directory opened, whatever its name leads to now, so APIs that take paths (file channels, moves) stay in
     * it. Valid while this is open.
     */
    public Path reach() {
        int f = fd;
        if (f < 0) throw new IllegalStateException("state directory closed: " + path);
        return Path.of("/proc/self/fd/" + f);
    }

    /** The descriptor; -1 after {@link #close}. */
    public int fd() {
        return fd;
    }

    @Override
    public synchronized void close() {
        int f = fd;
        fd = -1;
        if (f >= 0) LibC.close(f);
    }
}
