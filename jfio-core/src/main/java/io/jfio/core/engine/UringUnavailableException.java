package io.jfio.core.engine;

import io.jfio.core.sys.ErrnoException;

/**
 * io_uring cannot be used on this system: the kernel lacks it (ENOSYS), it is disabled by the
 * {@code kernel.io_uring_disabled} sysctl or a seccomp filter (EPERM), or setup failed for another reason.
 */
public final class UringUnavailableException extends ErrnoException {
    private static final long serialVersionUID = 1L;

    public UringUnavailableException(String call, int errno) {
        super(call, errno, -1, null, NONE, NONE);
    }
}
