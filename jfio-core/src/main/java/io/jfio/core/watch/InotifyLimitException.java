package io.jfio.core.watch;

import io.jfio.core.sys.Errno;
import io.jfio.core.sys.ErrnoException;
import java.io.IOException;

/**
 * An inotify limit of the kernel was reached: {@code ENOSPC} from inotify_add_watch (the watches of this user,
 * {@code fs.inotify.max_user_watches}) or {@code EMFILE} from inotify_init1 (the instances of this user,
 * {@code fs.inotify.max_user_instances}). The message names the call, the errno, the limit, its value and how to
 * raise it.
 *
 * <p>Immutable.
 */
public final class InotifyLimitException extends IOException {
    private static final long serialVersionUID = 1L;

    /** The system call that hit the limit. */
    private final String call;
    /** The errno it failed with, positive. */
    private final int errno;
    /** The path being watched, or null. */
    private final String path;
    /** The limit's sysctl. */
    private final String sysctl;
    /** The limit's value, or -1. */
    private final long limit;

    /**
     * Creates the exception.
     *
     * @param call   {@code "inotify_add_watch"} or {@code "inotify_init1"}
     * @param errno  ENOSPC or EMFILE (its sign is ignored)
     * @param path   the path being watched, or null
     * @param sysctl the limit's name, e.g. {@code "fs.inotify.max_user_watches"}
     * @param limit  its value, or -1 when it could not be read
     */
    public InotifyLimitException(String call, int errno, String path, String sysctl, long limit) {
        super(ErrnoException.message(call, errno, -1, path, ErrnoException.NONE, ErrnoException.NONE));
        this.call = call;
        this.errno = Math.abs(errno);
        this.path = path;
        this.sysctl = sysctl;
        this.limit = limit;
    }

    /**
     * The system call that hit the limit.
     *
     * @return {@code "inotify_add_watch"} or {@code "inotify_init1"}
     */
    public String call() {
        return call;
    }

    /**
     * The errno the call failed with.
     *
     * @return the errno value, positive: ENOSPC for watches, EMFILE for instances
     */
    public int errno() {
        return errno;
    }

    /**
     * The errno's symbol.
     *
     * @return the symbolic name of {@link #errno()}, {@code "ENOSPC"} or {@code "EMFILE"}
     */
    public String errnoName() {
        return Errno.name(errno);
    }

    /**
     * The path that was to be watched.
     *
     * @return the path, or null when no path was involved (the limit on instances)
     */
    public String path() {
        return path;
    }

    /**
     * The sysctl that sets the limit.
     *
     * @return its name, e.g. {@code fs.inotify.max_user_watches}
     */
    public String sysctl() {
        return sysctl;
    }

    /**
     * The limit's value when it was reached.
     *
     * @return the value, or -1 when it could not be read
     */
    public long limit() {
        return limit;
    }

    @Override
    public String getMessage() {
        return super.getMessage() + " limit=" + sysctl + (limit >= 0 ? "=" + limit : "")
                + " (raise it: sysctl -w " + sysctl + "=N, or poll instead)";
    }
}
