package io.jfio.core.watch;

import io.jfio.core.sys.ErrnoException;

/**
 * An inotify limit of the kernel was reached: {@code ENOSPC} from inotify_add_watch (the watches of this user,
 * {@code fs.inotify.max_user_watches}) or {@code EMFILE} from inotify_init1 (the instances of this user,
 * {@code fs.inotify.max_user_instances}). The message names the limit, its value and how to raise it.
 *
 * <p>Immutable.
 */
public final class InotifyLimitException extends ErrnoException {
    private static final long serialVersionUID = 1L;

    private final String sysctl;
    private final long limit;

    /**
     * @param call   {@code "inotify_add_watch"} or {@code "inotify_init1"}
     * @param errno  ENOSPC or EMFILE
     * @param path   the path being watched, or null
     * @param sysctl the limit's name, e.g. {@code "fs.inotify.max_user_watches"}
     * @param limit  its value, or -1 when it could not be read
     */
    public InotifyLimitException(String call, int errno, String path, String sysctl, long limit) {
        super(call, errno, path);
        this.sysctl = sysctl;
        this.limit = limit;
    }

    /** The sysctl that sets the limit, e.g. {@code fs.inotify.max_user_watches}. */
    public String sysctl() {
        return sysctl;
    }

    /** The limit's value when it was reached, or -1 when unknown. */
    public long limit() {
        return limit;
    }

    @Override
    public String getMessage() {
        return super.getMessage() + " limit=" + sysctl + (limit >= 0 ? "=" + limit : "")
                + " (raise it: sysctl -w " + sysctl + "=N, or poll instead)";
    }
}
