package io.jfio.core.sys;

/**
 * Linux errno values (identical on x86_64 and aarch64, from asm-generic/errno-base.h and errno.h) and their
 * symbolic names for messages.
 *
 * <p>Thread-safe; constants only.
 */
public final class Errno {
    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int EINTR = 4;
    public static final int EIO = 5;
    public static final int ENXIO = 6;
    public static final int E2BIG = 7;
    public static final int EBADF = 9;
    public static final int EAGAIN = 11;
    public static final int ENOMEM = 12;
    public static final int EACCES = 13;
    public static final int EFAULT = 14;
    public static final int EBUSY = 16;
    public static final int EEXIST = 17;
    public static final int EXDEV = 18;
    public static final int ENODEV = 19;
    public static final int ENOTDIR = 20;
    public static final int EISDIR = 21;
    public static final int EINVAL = 22;
    public static final int ENFILE = 23;
    public static final int EMFILE = 24;
    public static final int ENOTTY = 25;
    public static final int ETXTBSY = 26;
    public static final int EFBIG = 27;
    public static final int ENOSPC = 28;
    public static final int ESPIPE = 29;
    public static final int EROFS = 30;
    public static final int EMLINK = 31;
    public static final int EPIPE = 32;
    public static final int ERANGE = 34;
    public static final int ENAMETOOLONG = 36;
    public static final int ENOSYS = 38;
    public static final int ENOTEMPTY = 39;
    public static final int ELOOP = 40;
    public static final int ENODATA = 61;
    public static final int ETIME = 62;
    public static final int EOVERFLOW = 75;
    public static final int EBADFD = 77;
    public static final int ENOTSOCK = 88;
    public static final int EOPNOTSUPP = 95;
    public static final int EADDRINUSE = 98;
    public static final int ENETUNREACH = 101;
    public static final int ECONNABORTED = 103;
    public static final int ECONNRESET = 104;
    public static final int ENOBUFS = 105;
    public static final int ENOTCONN = 107;
    public static final int ETIMEDOUT = 110;
    public static final int ECONNREFUSED = 111;
    public static final int EHOSTUNREACH = 113;
    public static final int EALREADY = 114;
    public static final int EINPROGRESS = 115;
    public static final int ESTALE = 116;
    public static final int EDQUOT = 122;
    public static final int ECANCELED = 125;

    private static final String[] NAMES = new String[134];
    private static final String[] TEXTS = new String[134];

    static {
        def(EPERM, "EPERM", "Operation not permitted");
        def(ENOENT, "ENOENT", "No such file or directory");
        def(EINTR, "EINTR", "Interrupted system call");
        def(EIO, "EIO", "Input/output error");
        def(ENXIO, "ENXIO", "No such device or address");
        def(E2BIG, "E2BIG", "Argument list too long");
        def(EBADF, "EBADF", "Bad file descriptor");
        def(EAGAIN, "EAGAIN", "Resource temporarily unavailable");
        def(ENOMEM, "ENOMEM", "Cannot allocate memory");
        def(EACCES, "EACCES", "Permission denied");
        def(EFAULT, "EFAULT", "Bad address");
        def(EBUSY, "EBUSY", "Device or resource busy");
        def(EEXIST, "EEXIST", "File exists");
        def(EXDEV, "EXDEV", "Invalid cross-device link");
        def(ENODEV, "ENODEV", "No such device");
        def(ENOTDIR, "ENOTDIR", "Not a directory");
        def(EISDIR, "EISDIR", "Is a directory");
        def(EINVAL, "EINVAL", "Invalid argument");
        def(ENFILE, "ENFILE", "Too many open files in system");
        def(EMFILE, "EMFILE", "Too many open files");
        def(ENOTTY, "ENOTTY", "Inappropriate ioctl for device");
        def(ETXTBSY, "ETXTBSY", "Text file busy");
        def(EFBIG, "EFBIG", "File too large");
        def(ENOSPC, "ENOSPC", "No space left on device");
        def(ESPIPE, "ESPIPE", "Illegal seek");
        def(EROFS, "EROFS", "Read-only file system");
        def(EMLINK, "EMLINK", "Too many links");
        def(EPIPE, "EPIPE", "Broken pipe");
        def(ERANGE, "ERANGE", "Numerical result out of range");
        def(ENAMETOOLONG, "ENAMETOOLONG", "File name too long");
        def(ENOSYS, "ENOSYS", "Function not implemented");
        def(ENOTEMPTY, "ENOTEMPTY", "Directory not empty");
        def(ELOOP, "ELOOP", "Too many levels of symbolic links");
        def(ENODATA, "ENODATA", "No data available");
        def(ETIME, "ETIME", "Timer expired");
        def(EOVERFLOW, "EOVERFLOW", "Value too large for defined data type");
        def(EBADFD, "EBADFD", "File descriptor in bad state");
        def(ENOTSOCK, "ENOTSOCK", "Socket operation on non-socket");
        def(EOPNOTSUPP, "EOPNOTSUPP", "Operation not supported");
        def(EADDRINUSE, "EADDRINUSE", "Address already in use");
        def(ENETUNREACH, "ENETUNREACH", "Network is unreachable");
        def(ECONNABORTED, "ECONNABORTED", "Software caused connection abort");
        def(ECONNRESET, "ECONNRESET", "Connection reset by peer");
        def(ENOBUFS, "ENOBUFS", "No buffer space available");
        def(ENOTCONN, "ENOTCONN", "Transport endpoint is not connected");
        def(ETIMEDOUT, "ETIMEDOUT", "Connection timed out");
        def(ECONNREFUSED, "ECONNREFUSED", "Connection refused");
        def(EHOSTUNREACH, "EHOSTUNREACH", "No route to host");
        def(EALREADY, "EALREADY", "Operation already in progress");
        def(EINPROGRESS, "EINPROGRESS", "Operation now in progress");
        def(ESTALE, "ESTALE", "Stale file handle");
        def(EDQUOT, "EDQUOT", "Disk quota exceeded");
        def(ECANCELED, "ECANCELED", "Operation canceled");
    }

    private Errno() {
    }

    private static void def(int errno, String name, String text) {
        NAMES[errno] = name;
        TEXTS[errno] = text;
    }

    /** The symbol for an errno value ({@code "EINVAL"}), or {@code "errno 999"} for one this table lacks. */
    public static String name(int errno) {
        int e = Math.abs(errno);
        return e < NAMES.length && NAMES[e] != null ? NAMES[e] : "errno " + e;
    }

    /** The C library's description of an errno value, or the symbol where this table has none. */
    public static String describe(int errno) {
        int e = Math.abs(errno);
        return e < TEXTS.length && TEXTS[e] != null ? TEXTS[e] : name(e);
    }
}
