package io.jfio.core.sys;

import java.io.IOException;

/**
 * A failed system call or io_uring operation: names the call, the errno symbol, and the path, offset and length
 * where there are any.
 *
 * <p>Immutable. The message follows the {@code key=value} convention, e.g.
 * {@code "pread failed: errno=EINVAL (Invalid argument) fd=7 path=/data/x offset=4096 length=512"}.
 */
public class ErrnoException extends IOException {
    private static final long serialVersionUID = 1L;

    /** Marks an absent offset or length. */
    public static final long NONE = Long.MIN_VALUE;

    private final String call;
    private final int errno;
    private final String path;
    private final long offset;
    private final long length;

    /**
     * Creates the exception.
     *
     * @param call   the system call or operation name, e.g. {@code "pread"}
     * @param errno  the positive errno value
     * @param fd     the descriptor involved, or -1
     * @param path   the path involved, or null
     * @param offset the file offset involved, or {@link #NONE}
     * @param length the length involved, or {@link #NONE}
     */
    public ErrnoException(String call, int errno, int fd, String path, long offset, long length) {
        super(message(call, errno, fd, path, offset, length));
        this.call = call;
        this.errno = Math.abs(errno);
        this.path = path;
        this.offset = offset;
        this.length = length;
    }

    /** Shorthand for a call with no descriptor, offset or length. */
    public ErrnoException(String call, int errno, String path) {
        this(call, errno, -1, path, NONE, NONE);
    }

    /**
     * The message of an exception for these values, e.g. {@code "pread failed: errno=EINVAL (Invalid argument) fd=7"};
     * for exception types that cannot extend this class but speak the same way.
     */
    public static String message(String call, int errno, int fd, String path, long offset, long length) {
        StringBuilder sb = new StringBuilder(96).append(call).append(" failed: errno=").append(Errno.name(errno))
                .append(" (").append(Errno.describe(errno)).append(')');
        if (fd >= 0) sb.append(" fd=").append(fd);
        if (path != null) sb.append(" path=").append(path);
        if (offset != NONE) sb.append(" offset=").append(offset);
        if (length != NONE) sb.append(" length=").append(length);
        return sb.toString();
    }

    /**
     * Returns {@code result} when it is not negative; otherwise throws for {@code -result} as the errno.
     * Fits the convention of {@link LibC}: results are {@code >= 0} or {@code -errno}.
     */
    public static long check(long result, String call, int fd, String path, long offset, long length)
            throws ErrnoException {
        if (result < 0) throw new ErrnoException(call, (int) -result, fd, path, offset, length);
        return result;
    }

    /** Like {@link #check(long, String, int, String, long, long)} for calls without offset and length. */
    public static long check(long result, String call, int fd, String path) throws ErrnoException {
        return check(result, call, fd, path, NONE, NONE);
    }

    /** The call that failed. */
    public String call() {
        return call;
    }

    /** The errno value, positive. */
    public int errno() {
        return errno;
    }

    /** The errno symbol, e.g. {@code "ENOSPC"}. */
    public String errnoName() {
        return Errno.name(errno);
    }

    /** The path involved, or null. */
    public String path() {
        return path;
    }

    /** The offset involved, or {@link #NONE}. */
    public long offset() {
        return offset;
    }

    /** The length involved, or {@link #NONE}. */
    public long length() {
        return length;
    }
}
