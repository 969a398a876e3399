package io.jfio.core.engine;

import io.jfio.core.sys.Errno;
import io.jfio.core.sys.ErrnoException;
import java.io.IOException;

/**
 * io_uring cannot be used on this system: the kernel lacks it (ENOSYS), it is disabled by the
 * {@code kernel.io_uring_disabled} sysctl or a seccomp filter (EPERM), or setup failed for another reason.
 *
 * <p>Immutable. The message names the call and the errno, e.g.
 * {@code "io_uring_setup failed: errno=EPERM (Operation not permitted)"}.
 */
public final class UringUnavailableException extends IOException {
    private static final long serialVersionUID = 1L;

    /** The system call that failed. */
    private final String call;
    /** The errno it failed with, positive. */
    private final int errno;

    /**
     * Creates the exception.
     *
     * @param call  the system call that failed, e.g. {@code "io_uring_setup"}
     * @param errno the errno it failed with (its sign is ignored)
     */
    public UringUnavailableException(String call, int errno) {
        super(ErrnoException.message(call, errno, -1, null, ErrnoException.NONE, ErrnoException.NONE));
        this.call = call;
        this.errno = Math.abs(errno);
    }

    /**
     * The system call that failed.
     *
     * @return the call's name, e.g. {@code "io_uring_setup"}
     */
    public String call() {
        return call;
    }

    /**
     * The errno the call failed with.
     *
     * @return the errno value, positive, e.g. 1 for EPERM
     */
    public int errno() {
        return errno;
    }

    /**
     * The errno's symbol.
     *
     * @return the symbolic name of {@link #errno()}, e.g. {@code "EPERM"}
     */
    public String errnoName() {
        return Errno.name(errno);
    }
}
