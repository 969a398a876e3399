package io.jfio.core.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * Downcalls into the C library for the Linux file I/O system calls jfio uses.
 *
 * <p>Thread-safe; stateless. Convention: every method returns the call's result when it succeeds and
 * {@code -errno} when it fails, exactly like the raw kernel interface, so hot paths need no exception and callers
 * turn failures into {@link ErrnoException} with {@link ErrnoException#check}. Nothing here loops over short reads
 * or writes or retries {@code EINTR}: the wrappers in {@code io.jfio.core.file} do, and say so.
 *
 * <p>Segments passed here must be native (off-heap) segments that stay alive for the call; the linker keeps their
 * arena alive during the call.
 */
public final class LibC {
    private static final long IO_URING_SETUP = 425; // __NR_io_uring_setup, same number on x86_64 and aarch64
    private static final long IO_URING_ENTER = 426; // __NR_io_uring_enter
    private static final long IO_URING_REGISTER = 427; // __NR_io_uring_register
    private static final long FSTAT_NR = Platform.isX86() ? 5 : 80; // __NR_fstat; aarch64's is newfstat

    // int openat(int dirfd, const char *pathname, int flags, ... /* mode_t mode */)
    private static final MethodHandle OPENAT = Native.errnoCall("openat",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), Linker.Option.firstVariadicArg(3));
    // int close(int fd)
    private static final MethodHandle CLOSE = Native.errnoCall("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    // ssize_t pread(int fd, void *buf, size_t count, off_t offset)
    private static final MethodHandle PREAD = Native.errnoCall("pread",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG));
    // ssize_t pwrite(int fd, const void *buf, size_t count, off_t offset)
    private static final MethodHandle PWRITE = Native.errnoCall("pwrite",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG));
    // ssize_t preadv(int fd, const struct iovec *iov, int iovcnt, off_t offset)
    private static final MethodHandle PREADV = Native.errnoCall("preadv",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG));
    // ssize_t pwritev(int fd, const struct iovec *iov, int iovcnt, off_t offset)
    private static final MethodHandle PWRITEV = Native.errnoCall("pwritev",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG));
    // ssize_t read(int fd, void *buf, size_t count)
    private static final MethodHandle READ = Native.errnoCall("read",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    // ssize_t write(int fd, const void *buf, size_t count)
    private static final MethodHandle WRITE = Native.errnoCall("write",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    // int statx(int dirfd, const char *pathname, int flags, unsigned int mask, struct statx *statxbuf)
    private static final MethodHandle STATX = Native.errnoCall("statx",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS));
    // int posix_fadvise(int fd, off_t offset, off_t len, int advice): returns the error number, leaves errno alone
    private static final MethodHandle POSIX_FADVISE = Native.plainCall("posix_fadvise",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT));
    // int fallocate(int fd, int mode, off_t offset, off_t len)
    private static final MethodHandle FALLOCATE = Native.errnoCall("fallocate",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG));
    // int ftruncate(int fd, off_t length)
    private static final MethodHandle FTRUNCATE = Native.errnoCall("ftruncate",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG));
    // int fsync(int fd)
    private static final MethodHandle FSYNC = Native.errnoCall("fsync", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    // int fdatasync(int fd)
    private static final MethodHandle FDATASYNC = Native.errnoCall("fdatasync",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    // int sync_file_range(int fd, off64_t offset, off64_t nbytes, unsigned int flags)
    private static final MethodHandle SYNC_FILE_RANGE = Native.errnoCall("sync_file_range",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT));
    // ssize_t copy_file_range(int fd_in, off64_t *off_in, int fd_out, off64_t *off_out, size_t len, unsigned flags)
    private static final MethodHandle COPY_FILE_RANGE = Native.errnoCall("copy_file_range",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    // ssize_t sendfile(int out_fd, int in_fd, off_t *offset, size_t count)
    private static final MethodHandle SENDFILE = Native.errnoCall("sendfile",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG));
    // ssize_t splice(int fd_in, off64_t *off_in, int fd_out, off64_t *off_out, size_t len, unsigned int flags)
    private static final MethodHandle SPLICE = Native.errnoCall("splice",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    // off_t lseek(int fd, off_t offset, int whence)
    private static final MethodHandle LSEEK = Native.errnoCall("lseek",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT));
    // void *mmap(void *addr, size_t length, int prot, int flags, int fd, off_t offset)
    private static final MethodHandle MMAP = Native.errnoCall("mmap",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG));
    // int munmap(void *addr, size_t length)
    private static final MethodHandle MUNMAP = Native.errnoCall("munmap",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG));
    // int madvise(void *addr, size_t length, int advice)
    private static final MethodHandle MADVISE = Native.errnoCall("madvise",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT));
    // int mincore(void *addr, size_t length, unsigned char *vec)
    private static final MethodHandle MINCORE = Native.errnoCall("mincore",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, ADDRESS));
    // int eventfd(unsigned int initval, int flags)
    private static final MethodHandle EVENTFD = Native.errnoCall("eventfd",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    // int poll(struct pollfd *fds, nfds_t nfds, int timeout)
    private static final MethodHandle POLL = Native.errnoCall("poll",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    // int pipe2(int pipefd[2], int flags)
    private static final MethodHandle PIPE2 = Native.errnoCall("pipe2",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    // int getpagesize(void)
    private static final MethodHandle GETPAGESIZE = Native.plainCall("getpagesize", FunctionDescriptor.of(JAVA_INT));
    // long syscall(long number, ...): every variadic argument passed as a long, because glibc reads each one with
    // va_arg(ap, long); an int would leave the upper half of the register undefined.
    private static final MethodHandle SYSCALL2 = Native.errnoCall("syscall",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG), Linker.Option.firstVariadicArg(1));
    private static final MethodHandle SYSCALL4 = Native.errnoCall("syscall",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),
            Linker.Option.firstVariadicArg(1));
    private static final MethodHandle SYSCALL6 = Native.errnoCall("syscall",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG,
                    JAVA_LONG), Linker.Option.firstVariadicArg(1));

    private static final int PAGE_SIZE;

    static {
        try {
            PAGE_SIZE = (int) GETPAGESIZE.invokeExact();
        } catch (Throwable t) {
            throw new ExceptionInInitializerError(t);
        }
    }

    private LibC() {
    }

    private static long ret(long r, MemorySegment capture) {
        return r == -1 ? -Native.errno(capture) : r;
    }

    private static AssertionError linkFailure(Throwable t) {
        return new AssertionError("downcall failed unexpectedly", t);
    }

    /** The system page size. */
    public static int pageSize() {
        return PAGE_SIZE;
    }

    /**
     * openat(2) with a path given as a Java string (encoded UTF-8, NUL-terminated in a temporary arena).
     *
     * @return the new descriptor, or -errno
     */
    public static int openat(int dirfd, String path, int flags, int mode) {
        try (Arena arena = Arena.ofConfined()) {
            return openat(dirfd, arena.allocateFrom(path), flags, mode);
        }
    }

    /** openat(2) with a NUL-terminated path segment; returns the descriptor or -errno. */
    public static int openat(int dirfd, MemorySegment path, int flags, int mode) {
        MemorySegment cap = Native.capture();
        try {
            return (int) ret((int) OPENAT.invokeExact(cap, dirfd, path, flags, mode), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** close(2); returns 0 or -errno. The descriptor is released even when this reports EINTR or EIO. */
    public static int close(int fd) {
        MemorySegment cap = Native.capture();
        try {
            return (int) ret((int) CLOSE.invokeExact(cap, fd), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** pread(2) of {@code count} bytes into {@code buf}; returns bytes read (0 at end of file) or -errno. */
    public static long pread(int fd, MemorySegment buf, long count, long offset) {
        MemorySegment cap = Native.capture();
        try {
            return ret((long) PREAD.invokeExact(cap, fd, buf, count, offset), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** pwrite(2); returns bytes written or -errno. */
    public static long pwrite(int fd, MemorySegment buf, long count, long offset) {
        MemorySegment cap = Native.capture();
        try {
            return ret((long) PWRITE.invokeExact(cap, fd, buf, count, offset), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** preadv(2) with an array of {@link Iovec}; returns bytes read or -errno. */
    public static long preadv(int fd, MemorySegment iov, int iovcnt, long offset) {
        MemorySegment cap = Native.capture();
        try {
            return ret((long) PREADV.invokeExact(cap, fd, iov, iovcnt, offset), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** pwritev(2) with an array of {@link Iovec}; returns bytes written or -errno. */
    public static long pwritev(int fd, MemorySegment iov, int iovcnt, long offset) {
        MemorySegment cap = Native.capture();
        try {
            return ret((long) PWRITEV.invokeExact(cap, fd, iov, iovcnt, offset), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** read(2); returns bytes read or -errno. */
    public static long read(int fd, MemorySegment buf, long count) {
        MemorySegment cap = Native.capture();
        try {
            return ret((long) READ.invokeExact(cap, fd, buf, count), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** write(2); returns bytes written or -errno. */
    public static long write(int fd, MemorySegment buf, long count) {
        MemorySegment cap = Native.capture();
        try {
            return ret((long) WRITE.invokeExact(cap, fd, buf, count), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** fstat(2) into a {@link Stat}-sized segment, through the raw system call; returns 0 or -errno. */
    public static int fstat(int fd, MemorySegment statBuf) {
        if (statBuf.byteSize() < Stat.LAYOUT.byteSize()) throw new IllegalArgumentException("stat buffer too small");
        MemorySegment cap = Native.capture();
        try {
            return (int) ret((long) SYSCALL2.invokeExact(cap, FSTAT_NR, (long) fd, statBuf.address()), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** statx(2) into a {@link Statx}-sized segment; returns 0 or -errno. */
    public static int statx(int dirfd, MemorySegment path, int flags, int mask, MemorySegment statxBuf) {
        if (statxBuf.byteSize() < Statx.LAYOUT.byteSize()) throw new IllegalArgumentException("statx buffer too small");
        MemorySegment cap = Native.capture();
        try {
            return (int) ret((int) STATX.invokeExact(cap, dirfd, path, flags, mask, statxBuf), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** posix_fadvise(2); returns 0 or -errno (the call returns its error rather than setting errno). */
    public static int posixFadvise(int fd, long offset, long len, int advice) {
        try {
            return -(int) POSIX_FADVISE.invokeExact(fd, offset, len, advice);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** fallocate(2); returns 0 or -errno. */
    public static int fallocate(int fd, int mode, long offset, long len) {
        MemorySegment cap = Native.capture();
        try {
            return (int) ret((int) FALLOCATE.invokeExact(cap, fd, mode, offset, len), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** ftruncate(2); returns 0 or -errno. */
    public static int ftruncate(int fd, long length) {
        MemorySegment cap = Native.capture();
        try {
            return (int) ret((int) FTRUNCATE.invokeExact(cap, fd, length), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** fsync(2); returns 0 or -errno. */
    public static int fsync(int fd) {
        MemorySegment cap = Native.capture();
        try {
            return (int) ret((int) FSYNC.invokeExact(cap, fd), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** fdatasync(2); returns 0 or -errno. */
    public static int fdatasync(int fd) {
        MemorySegment cap = Native.capture();
        try {
            return (int) ret((int) FDATASYNC.invokeExact(cap, fd), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** sync_file_range(2); returns 0 or -errno. */
    public static int syncFileRange(int fd, long offset, long nbytes, int flags) {
        MemorySegment cap = Native.capture();
        try {
            return (int) ret((int) SYNC_FILE_RANGE.invokeExact(cap, fd, offset, nbytes, flags), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /**
     * copy_file_range(2). {@code offIn}/{@code offOut} are 8-byte segments holding the offsets (updated by the
     * kernel) or {@link MemorySegment#NULL} to use and advance the file positions. Returns bytes copied or -errno.
     */
    public static long copyFileRange(int fdIn, MemorySegment offIn, int fdOut, MemorySegment offOut, long len,
                                     int flags) {
        MemorySegment cap = Native.capture();
        try {
            return ret((long) COPY_FILE_RANGE.invokeExact(cap, fdIn, offIn, fdOut, offOut, len, flags), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** sendfile(2); {@code offset} is an 8-byte segment or NULL. Returns bytes sent or -errno. */
    public static long sendfile(int outFd, int inFd, MemorySegment offset, long count) {
        MemorySegment cap = Native.capture();
        try {
            return ret((long) SENDFILE.invokeExact(cap, outFd, inFd, offset, count), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** splice(2); offsets as in {@link #copyFileRange}. Returns bytes moved or -errno. */
    public static long splice(int fdIn, MemorySegment offIn, int fdOut, MemorySegment offOut, long len, int flags) {
        MemorySegment cap = Native.capture();
        try {
            return ret((long) SPLICE.invokeExact(cap, fdIn, offIn, fdOut, offOut, len, flags), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** lseek(2), including SEEK_DATA and SEEK_HOLE; returns the new offset or -errno (ENXIO: no more data). */
    public static long lseek(int fd, long offset, int whence) {
        MemorySegment cap = Native.capture();
        try {
            return ret((long) LSEEK.invokeExact(cap, fd, offset, whence), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** mmap(2); returns the mapping's address or -errno (MAP_FAILED is turned into -errno). */
    public static long mmap(long addr, long length, int prot, int flags, int fd, long offset) {
        MemorySegment cap = Native.capture();
        try {
            return ret((long) MMAP.invokeExact(cap, addr, length, prot, flags, fd, offset), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** munmap(2); returns 0 or -errno. */
    public static int munmap(long addr, long length) {
        MemorySegment cap = Native.capture();
        try {
            return (int) ret((int) MUNMAP.invokeExact(cap, addr, length), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** madvise(2); returns 0 or -errno. */
    public static int madvise(long addr, long length, int advice) {
        MemorySegment cap = Native.capture();
        try {
            return (int) ret((int) MADVISE.invokeExact(cap, addr, length, advice), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** mincore(2): one byte per page into {@code vec}; returns 0 or -errno. */
    public static int mincore(long addr, long length, MemorySegment vec) {
        MemorySegment cap = Native.capture();
        try {
            return (int) ret((int) MINCORE.invokeExact(cap, addr, length, vec), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** eventfd(2); returns the descriptor or -errno. */
    public static int eventfd(int initval, int flags) {
        MemorySegment cap = Native.capture();
        try {
            return (int) ret((int) EVENTFD.invokeExact(cap, initval, flags), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /**
     * poll(2) on {@code nfds} {@code struct pollfd {int fd; short events; short revents;}} (8 bytes each), waiting at
     * most {@code timeoutMillis} (-1: forever); returns the number of ready descriptors (0 on timeout) or -errno.
     */
    public static int poll(MemorySegment fds, long nfds, int timeoutMillis) {
        MemorySegment cap = Native.capture();
        try {
            return (int) ret((int) POLL.invokeExact(cap, fds, nfds, timeoutMillis), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** pipe2(2) into an 8-byte segment holding two ints; returns 0 or -errno. */
    public static int pipe2(MemorySegment fds, int flags) {
        MemorySegment cap = Native.capture();
        try {
            return (int) ret((int) PIPE2.invokeExact(cap, fds, flags), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** io_uring_setup(2); returns the ring descriptor or -errno. */
    public static int ioUringSetup(int entries, MemorySegment params) {
        MemorySegment cap = Native.capture();
        try {
            return (int) ret((long) SYSCALL2.invokeExact(cap, IO_URING_SETUP, (long) entries, params.address()), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /**
     * io_uring_enter(2) without a signal mask, or with an extended argument when {@code IORING_ENTER_EXT_ARG} is in
     * {@code flags} ({@code arg}/{@code argSize} then point at {@code struct io_uring_getevents_arg}).
     *
     * @return the number of SQEs consumed, or -errno
     */
    public static int ioUringEnter(int ringFd, int toSubmit, int minComplete, int flags, long arg, long argSize) {
        MemorySegment cap = Native.capture();
        try {
            return (int) ret((long) SYSCALL6.invokeExact(cap, IO_URING_ENTER, (long) ringFd,
                    Integer.toUnsignedLong(toSubmit), Integer.toUnsignedLong(minComplete),
                    Integer.toUnsignedLong(flags), arg, argSize), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** io_uring_register(2); returns the call's result or -errno. */
    public static int ioUringRegister(int ringFd, int opcode, long arg, int nrArgs) {
        MemorySegment cap = Native.capture();
        try {
            return (int) ret((long) SYSCALL4.invokeExact(cap, IO_URING_REGISTER, (long) ringFd,
                    Integer.toUnsignedLong(opcode), arg, Integer.toUnsignedLong(nrArgs)), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }
}
