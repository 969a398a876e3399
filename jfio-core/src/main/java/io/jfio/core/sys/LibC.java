package io.jfio.core.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
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
 * <p>Segments passed here must be native (off-heap) segments; the linker checks that they are alive and accessible
 * from the calling thread, and keeps their arena open until the call returns (for the {@code syscall(2)} calls
 * too: see {@code sys}).
 *
 * <p>Each handle is built once, in the static initialiser of its own holder class, so it is linked on first use
 * rather than when this class loads: linking a downcall of a new shape costs milliseconds (the linker generates code
 * for it), so linking all of them up front would slow every start of the JVM, where a command uses a dozen
 * (docs/measurements/jvm-startup.md). For the same reason the calls of the tree copy and of io_uring are raw system
 * calls through one {@code syscall(2)} handle: one shape for all of them.
 */
public final class LibC {
    private static final long IO_URING_SETUP = 425; // __NR_io_uring_setup, same number on x86_64 and aarch64
    private static final long IO_URING_ENTER = 426; // __NR_io_uring_enter
    private static final long IO_URING_REGISTER = 427; // __NR_io_uring_register
    private static final long FSTAT_NR = Platform.isX86() ? 5 : 80; // __NR_fstat; aarch64's is newfstat

    // ssize_t pread(int fd, void *buf, size_t count, off_t offset)
    private static final class Pread {
        static final MethodHandle H = Native.errnoCall("pread",
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG));
    }
    // ssize_t pwrite(int fd, const void *buf, size_t count, off_t offset)
    private static final class Pwrite {
        static final MethodHandle H = Native.errnoCall("pwrite",
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG));
    }
    // ssize_t preadv(int fd, const struct iovec *iov, int iovcnt, off_t offset)
    private static final class Preadv {
        static final MethodHandle H = Native.errnoCall("preadv",
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG));
    }
    // ssize_t pwritev(int fd, const struct iovec *iov, int iovcnt, off_t offset)
    private static final class Pwritev {
        static final MethodHandle H = Native.errnoCall("pwritev",
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG));
    }
    // int fallocate(int fd, int mode, off_t offset, off_t len)
    private static final class Fallocate {
        static final MethodHandle H = Native.errnoCall("fallocate",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG));
    }
    // int ftruncate(int fd, off_t length)
    private static final class Ftruncate {
        static final MethodHandle H = Native.errnoCall("ftruncate",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG));
    }
    // int fsync(int fd)
    private static final class Fsync {
        static final MethodHandle H = Native.errnoCall("fsync", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    }
    // int fdatasync(int fd)
    private static final class Fdatasync {
        static final MethodHandle H = Native.errnoCall("fdatasync",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    }
    // int sync_file_range(int fd, off64_t offset, off64_t nbytes, unsigned int flags)
    private static final class SyncFileRange {
        static final MethodHandle H = Native.errnoCall("sync_file_range",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT));
    }
    // ssize_t sendfile(int out_fd, int in_fd, off_t *offset, size_t count)
    private static final class Sendfile {
        static final MethodHandle H = Native.errnoCall("sendfile",
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG));
    }
    // ssize_t splice(int fd_in, off64_t *off_in, int fd_out, off64_t *off_out, size_t len, unsigned int flags)
    private static final class Splice {
        static final MethodHandle H = Native.errnoCall("splice",
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    }
    // off_t lseek(int fd, off_t offset, int whence)
    private static final class Lseek {
        static final MethodHandle H = Native.errnoCall("lseek",
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT));
    }
    // void *mmap(void *addr, size_t length, int prot, int flags, int fd, off_t offset)
    private static final class Mmap {
        static final MethodHandle H = Native.errnoCall("mmap",
                FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG));
    }
    // int munmap(void *addr, size_t length)
    private static final class Munmap {
        static final MethodHandle H = Native.errnoCall("munmap",
                FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG));
    }
    // int madvise(void *addr, size_t length, int advice)
    private static final class Madvise {
        static final MethodHandle H = Native.errnoCall("madvise",
                FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT));
    }
    // int mincore(void *addr, size_t length, unsigned char *vec)
    private static final class Mincore {
        static final MethodHandle H = Native.errnoCall("mincore",
                FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, ADDRESS));
    }
    // int eventfd(unsigned int initval, int flags)
    private static final class Eventfd {
        static final MethodHandle H = Native.errnoCall("eventfd",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    }
    // int poll(struct pollfd *fds, nfds_t nfds, int timeout)
    private static final class Poll {
        static final MethodHandle H = Native.errnoCall("poll",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    }
    // int pipe2(int pipefd[2], int flags)
    private static final class Pipe2 {
        static final MethodHandle H = Native.errnoCall("pipe2",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    }
    // int socket(int domain, int type, int protocol)
    private static final class Socket {
        static final MethodHandle H = Native.errnoCall("socket",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
    }
    // int connect(int sockfd, const struct sockaddr *addr, socklen_t addrlen)
    private static final class Connect {
        static final MethodHandle H = Native.errnoCall("connect",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    }
    // int setsockopt(int sockfd, int level, int optname, const void *optval, socklen_t optlen)
    private static final class Setsockopt {
        static final MethodHandle H = Native.errnoCall("setsockopt",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    }
    // int shutdown(int sockfd, int how)
    private static final class Shutdown {
        static final MethodHandle H = Native.errnoCall("shutdown",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    }
    // ssize_t send(int sockfd, const void *buf, size_t len, int flags)
    private static final class Send {
        static final MethodHandle H = Native.errnoCall("send",
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    }
    // ssize_t recv(int sockfd, void *buf, size_t len, int flags)
    private static final class Recv {
        static final MethodHandle H = Native.errnoCall("recv",
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    }
    // int getpagesize(void)
    private static final class Getpagesize {
        static final MethodHandle H = Native.plainCall("getpagesize", FunctionDescriptor.of(JAVA_INT));
    }
    // long syscall(long number, ...): every variadic argument passed pointer-sized, because glibc reads each one
    // with va_arg(ap, long); an int would leave the upper half of the register undefined. ADDRESS rather than
    // JAVA_LONG so that pointer arguments keep the linker's liveness checks (see sys).
    private static final class Syscall6 {
        static final MethodHandle H = Native.errnoCall("syscall",
                FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS),
                Linker.Option.firstVariadicArg(1));
    }


    // The system calls a tree copy makes for every file go through syscall(2) with the Syscall6 shape: a downcall
    // of a new shape costs the linker generated code and a dozen method-handle classes, most of it compiled again
    // by the JIT, so twenty shapes would be a large part of a short copy's CPU time; one shape is linked once.
    // The numbers (x86_64 / aarch64, from asm/unistd_64.h and asm-generic/unistd.h) and prototypes:
    private static final boolean X86 = Platform.isX86();
    private static final long NR_READ = X86 ? 0 : 63;                // ssize_t read(int, void *, size_t)
    private static final long NR_WRITE = X86 ? 1 : 64;               // ssize_t write(int, const void *, size_t)
    private static final long NR_CLOSE = X86 ? 3 : 57;               // int close(int)
    private static final long NR_FCNTL = X86 ? 72 : 25;              // int fcntl(int, int cmd, unsigned long arg)
    private static final long NR_PREADV2 = X86 ? 327 : 286;          // ssize_t preadv2(int, iov *, int iovcnt,
                                                                     //     unsigned long pos_l, pos_h, rwf_t)
    private static final long NR_IOCTL = X86 ? 16 : 29;              // int ioctl(int, unsigned long, unsigned long)
    private static final long NR_FCHMOD = X86 ? 91 : 52;             // int fchmod(int, mode_t)
    private static final long NR_FCHOWN = X86 ? 93 : 55;             // int fchown(int, uid_t, gid_t)
    private static final long NR_LSETXATTR = X86 ? 189 : 6;          // int lsetxattr(path, name, value, size, flags)
    private static final long NR_FSETXATTR = X86 ? 190 : 7;          // int fsetxattr(fd, name, value, size, flags)
    private static final long NR_LGETXATTR = X86 ? 192 : 9;          // ssize_t lgetxattr(path, name, value, size)
    private static final long NR_FGETXATTR = X86 ? 193 : 10;         // ssize_t fgetxattr(fd, name, value, size)
    private static final long NR_LLISTXATTR = X86 ? 195 : 12;        // ssize_t llistxattr(path, list, size)
    private static final long NR_FLISTXATTR = X86 ? 196 : 13;        // ssize_t flistxattr(fd, list, size)
    private static final long NR_OPENAT = X86 ? 257 : 56;            // int openat(int, path, int flags, mode_t)
    private static final long NR_MKDIRAT = X86 ? 258 : 34;           // int mkdirat(int, path, mode_t)
    private static final long NR_FCHOWNAT = X86 ? 260 : 54;          // int fchownat(int, path, uid_t, gid_t, int)
    private static final long NR_UNLINKAT = X86 ? 263 : 35;          // int unlinkat(int, path, int flags)
    private static final long NR_LINKAT = X86 ? 265 : 37;            // int linkat(int, path, int, path, int flags)
    private static final long NR_SYMLINKAT = X86 ? 266 : 36;         // int symlinkat(target, int, path)
    private static final long NR_READLINKAT = X86 ? 267 : 78;        // ssize_t readlinkat(int, path, buf, size)
    private static final long NR_FCHMODAT = X86 ? 268 : 53;          // int fchmodat(int, path, mode_t)
    private static final long NR_UTIMENSAT = X86 ? 280 : 88;         // int utimensat(int, path, times[2], int flags)
    private static final long NR_COPY_FILE_RANGE = X86 ? 326 : 285;  // ssize_t copy_file_range(int, loff_t *, int,
                                                                     //     loff_t *, size_t, unsigned int)
    private static final long NR_STATX = X86 ? 332 : 291;            // int statx(int, path, int, unsigned, statx *)
    private static final long NR_FADVISE64 = X86 ? 221 : 223;        // int fadvise64(int, loff_t, size_t, int)
    private static final long NR_FSTATFS = X86 ? 138 : 44;           // int fstatfs(int, struct statfs *)
    private static final long NR_GETEUID = X86 ? 107 : 175;          // uid_t geteuid(void), cannot fail
    private static final long NR_GETEGID = X86 ? 108 : 177;          // gid_t getegid(void), cannot fail
    private static final long NR_PRLIMIT64 = X86 ? 302 : 261;        // int prlimit64(pid_t, int resource,
                                                                     //     const rlimit64 *new, rlimit64 *old)
    private static final long NR_OPENAT2 = 437;                      // int openat2(int, path, open_how *, size_t),
                                                                      // same number on x86_64 and aarch64 (5.6)
    private static final long NR_CACHESTAT = 451;                    // int cachestat(int, range *, cachestat *,
                                                                     //     unsigned int); Linux 6.5, 451 everywhere

    // ---- metadata, names and links (the tree copy)
    private static final long GETDENTS64_NR = Platform.isX86() ? 217 : 61; // __NR_getdents64
    private static final long MKNODAT_NR = Platform.isX86() ? 259 : 33;     // __NR_mknodat
    private static final long RENAMEAT2_NR = Platform.isX86() ? 316 : 276;  // __NR_renameat2

    // int fremovexattr(int fd, const char *name)
    private static final class Fremovexattr {
        static final MethodHandle H = Native.errnoCall("fremovexattr",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
    }
    // int flock(int fd, int operation)
    private static final class Flock {
        static final MethodHandle H = Native.errnoCall("flock", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    }

    // ---- change notification (the watcher)
    // int inotify_init1(int flags)
    private static final class InotifyInit1 {
        static final MethodHandle H = Native.errnoCall("inotify_init1", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    }
    // int inotify_add_watch(int fd, const char *pathname, uint32_t mask)
    private static final class InotifyAddWatch {
        static final MethodHandle H = Native.errnoCall("inotify_add_watch",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    }
    // int inotify_rm_watch(int fd, int wd)
    private static final class InotifyRmWatch {
        static final MethodHandle H = Native.errnoCall("inotify_rm_watch",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    }
    // int epoll_create1(int flags)
    private static final class EpollCreate1 {
        static final MethodHandle H = Native.errnoCall("epoll_create1", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    }
    // int epoll_ctl(int epfd, int op, int fd, struct epoll_event *event)
    private static final class EpollCtl {
        static final MethodHandle H = Native.errnoCall("epoll_ctl",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS));
    }
    // int epoll_wait(int epfd, struct epoll_event *events, int maxevents, int timeout): blocks, so never critical
    private static final class EpollWait {
        static final MethodHandle H = Native.errnoCall("epoll_wait",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
    }

    /**
     * The page size, asked once on first use: the kernel's {@code AT_PAGESZ} from {@code /proc/self/auxv}, read as a
     * file, so that a copy does not link a downcall of a new shape (tens of milliseconds at start) for one number;
     * {@code getpagesize(3)} where that file cannot be read.
     */
    private static final class PageSize {
        static final int VALUE;

        static {
            int fromAux = AuxVector.pageSize();
            if (fromAux > 0) {
                VALUE = fromAux;
            } else {
                try {
                    VALUE = (int) Getpagesize.H.invokeExact();
                } catch (Throwable t) {
                    throw new ExceptionInInitializerError(t);
                }
            }
        }
    }

    private LibC() {
    }

    private static long ret(long r, MemorySegment capture) {
        return r == -1 ? -Native.errno(capture) : r;
    }

    /**
     * syscall(2) with six arguments through the one shared handle; returns the result or -errno. Unused trailing
     * arguments are {@link #NO_ARG} (the kernel does not read them).
     *
     * <p>Every argument is passed as an {@code ADDRESS}: a pointer is the segment itself, so the linker checks it
     * (native, alive, accessible from this thread) and keeps its arena from being closed until the call returns,
     * exactly as for a downcall with a C prototype; a number is wrapped by {@link #n} into a zero-length segment at
     * that address, which the linker passes as the same 64-bit register value a {@code long} would be.
     */
    private static long sys(long nr, MemorySegment a, MemorySegment b, MemorySegment c, MemorySegment d,
                            MemorySegment e, MemorySegment f) {
        MemorySegment cap = Native.capture();
        try {
            return ret((long) Syscall6.H.invokeExact(cap, nr, a, b, c, d, e, f), cap);
        } catch (RuntimeException | Error x) {
            throw x; // the linker refused a segment: closed (IllegalStateException), another thread's, on the heap
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** An unused argument of {@link #sys}. */
    private static final MemorySegment NO_ARG = MemorySegment.NULL;

    /**
     * A number passed to {@link #sys}: sign-extended to 64 bits, as {@code va_arg(ap, long)} reads it (an int
     * descriptor or flag is then read back from the low half by the kernel).
     */
    private static MemorySegment n(long value) {
        return MemorySegment.ofAddress(value);
    }

    /** An unsigned 32-bit number (flags, modes, counts) passed to {@link #sys}: zero-extended. */
    private static MemorySegment u(int value) {
        return MemorySegment.ofAddress(Integer.toUnsignedLong(value));
    }

    private static AssertionError linkFailure(Throwable t) {
        return new AssertionError("downcall failed unexpectedly", t);
    }

    /** The system page size. */
    public static int pageSize() {
        return PageSize.VALUE;
    }

    /**
     * openat(2) with a path given as a Java string: its bytes by {@link FileNames#encode} (UTF-8, and the bytes a
     * name that is not valid UTF-8 was read with), NUL-terminated in a temporary arena.
     *
     * @return the new descriptor, or -errno
     */
    public static int openat(int dirfd, String path, int flags, int mode) {
        byte[] b = FileNames.encode(path);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = arena.allocate(b.length + 1L);
            MemorySegment.copy(b, 0, seg, JAVA_BYTE, 0, b.length);
            return openat(dirfd, seg, flags, mode);
        }
    }

    /** openat(2) with a NUL-terminated path segment; returns the descriptor or -errno. */
    public static int openat(int dirfd, MemorySegment path, int flags, int mode) {
        return (int) sys(NR_OPENAT, n(dirfd), path, u(flags), u(mode), NO_ARG,
                NO_ARG);
    }

    /**
     * openat2(2) (Linux 5.6) with an {@code open_how} of {@link Fcntl#OPEN_HOW_SIZE} bytes (u64 flags, u64 mode,
     * u64 resolve) in {@code how}; returns the descriptor or -errno (-ENOSYS on older kernels).
     */
    public static int openat2(int dirfd, MemorySegment path, MemorySegment how) {
        return (int) sys(NR_OPENAT2, n(dirfd), path, how, n(Fcntl.OPEN_HOW_SIZE), NO_ARG, NO_ARG);
    }

    /** close(2); returns 0 or -errno. The descriptor is released even when this reports EINTR or EIO. */
    public static int close(int fd) {
        return (int) sys(NR_CLOSE, n(fd), NO_ARG, NO_ARG, NO_ARG, NO_ARG, NO_ARG);
    }

    /** pread(2) of {@code count} bytes into {@code buf}; returns bytes read (0 at end of file) or -errno. */
    public static long pread(int fd, MemorySegment buf, long count, long offset) {
        MemorySegment cap = Native.capture();
        try {
            return ret((long) Pread.H.invokeExact(cap, fd, buf, count, offset), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** pwrite(2); returns bytes written or -errno. */
    public static long pwrite(int fd, MemorySegment buf, long count, long offset) {
        MemorySegment cap = Native.capture();
        try {
            return ret((long) Pwrite.H.invokeExact(cap, fd, buf, count, offset), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** preadv(2) with an array of {@link Iovec}; returns bytes read or -errno. */
    public static long preadv(int fd, MemorySegment iov, int iovcnt, long offset) {
        MemorySegment cap = Native.capture();
        try {
            return ret((long) Preadv.H.invokeExact(cap, fd, iov, iovcnt, offset), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /**
     * preadv2(2) with an array of {@link Iovec} and {@code RWF_*} flags (e.g. {@link Fcntl#RWF_NOWAIT}); returns bytes
     * read or -errno. A raw system call: 64-bit offsets travel whole in pos_l, pos_h is 0.
     */
    public static long preadv2(int fd, MemorySegment iov, int iovcnt, long offset, int flags) {
        return sys(NR_PREADV2, n(fd), iov, n(iovcnt), n(offset), NO_ARG, u(flags));
    }

    /** fcntl(2) with an integer argument (F_GETFL and the like); returns the result or -errno. */
    public static int fcntl(int fd, int cmd, long arg) {
        return (int) sys(NR_FCNTL, n(fd), n(cmd), n(arg), NO_ARG, NO_ARG, NO_ARG);
    }

    /** pwritev(2) with an array of {@link Iovec}; returns bytes written or -errno. */
    public static long pwritev(int fd, MemorySegment iov, int iovcnt, long offset) {
        MemorySegment cap = Native.capture();
        try {
            return ret((long) Pwritev.H.invokeExact(cap, fd, iov, iovcnt, offset), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /**
     * read(2); returns bytes read or -errno. Through the raw system call, as write: a downcall shape of its own
     * would be linked (and its stub generated) on first use, which a short copy pays at start-up.
     */
    public static long read(int fd, MemorySegment buf, long count) {
        return sys(NR_READ, n(fd), buf, n(count), NO_ARG, NO_ARG, NO_ARG);
    }

    /** write(2); returns bytes written or -errno. */
    public static long write(int fd, MemorySegment buf, long count) {
        return sys(NR_WRITE, n(fd), buf, n(count), NO_ARG, NO_ARG, NO_ARG);
    }

    /** fstat(2) into a {@link Stat}-sized segment, through the raw system call; returns 0 or -errno. */
    public static int fstat(int fd, MemorySegment statBuf) {
        if (statBuf.byteSize() < Stat.LAYOUT.byteSize()) throw new IllegalArgumentException("stat buffer too small");
        return (int) sys(FSTAT_NR, n(fd), statBuf, NO_ARG, NO_ARG, NO_ARG, NO_ARG);
    }

    /** statx(2) into a {@link Statx}-sized segment; returns 0 or -errno. */
    public static int statx(int dirfd, MemorySegment path, int flags, int mask, MemorySegment statxBuf) {
        if (statxBuf.byteSize() < Statx.LAYOUT.byteSize()) throw new IllegalArgumentException("statx buffer too small");
        return (int) sys(NR_STATX, n(dirfd), path, u(flags), u(mask),
                statxBuf, NO_ARG);
    }

    /**
     * posix_fadvise(2) as the fadvise64 system call (through the shared syscall handle: no downcall of its own to
     * link, which a copy's start-up would pay for); returns 0 or -errno.
     */
    public static int posixFadvise(int fd, long offset, long len, int advice) {
        return (int) sys(NR_FADVISE64, n(fd), n(offset), n(len), n(advice), NO_ARG, NO_ARG);
    }

    /** The size of {@code struct cachestat_range} (offset, length; length 0 = to the end of the file). */
    public static final long CACHESTAT_RANGE_SIZE = 16;
    /** The size of {@code struct cachestat}: nr_cache, nr_dirty, nr_writeback, nr_evicted, nr_recently_evicted. */
    public static final long CACHESTAT_SIZE = 40;

    /**
     * cachestat(2) (Linux 6.5): how many pages of a range of the file are in the page cache, without mapping it.
     * {@code range} holds the offset and length (two u64), {@code out} receives five u64 page counts, the first
     * being the pages cached. Returns 0 or -errno (ENOSYS before 6.5).
     */
    public static int cachestat(int fd, MemorySegment range, MemorySegment out) {
        if (range.byteSize() < CACHESTAT_RANGE_SIZE || out.byteSize() < CACHESTAT_SIZE) {
            throw new IllegalArgumentException("cachestat buffers too small");
        }
        return (int) sys(NR_CACHESTAT, n(fd), range, out, NO_ARG, NO_ARG, NO_ARG);
    }

    /** fallocate(2); returns 0 or -errno. */
    public static int fallocate(int fd, int mode, long offset, long len) {
        MemorySegment cap = Native.capture();
        try {
            return (int) ret((int) Fallocate.H.invokeExact(cap, fd, mode, offset, len), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** ftruncate(2); returns 0 or -errno. */
    public static int ftruncate(int fd, long length) {
        MemorySegment cap = Native.capture();
        try {
            return (int) ret((int) Ftruncate.H.invokeExact(cap, fd, length), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** fsync(2); returns 0 or -errno. */
    public static int fsync(int fd) {
        MemorySegment cap = Native.capture();
        try {
            return (int) ret((int) Fsync.H.invokeExact(cap, fd), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** fdatasync(2); returns 0 or -errno. */
    public static int fdatasync(int fd) {
        MemorySegment cap = Native.capture();
        try {
            return (int) ret((int) Fdatasync.H.invokeExact(cap, fd), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** sync_file_range(2); returns 0 or -errno. */
    public static int syncFileRange(int fd, long offset, long nbytes, int flags) {
        MemorySegment cap = Native.capture();
        try {
            return (int) ret((int) SyncFileRange.H.invokeExact(cap, fd, offset, nbytes, flags), cap);
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
        return sys(NR_COPY_FILE_RANGE, n(fdIn), offIn, n(fdOut), offOut, n(len), u(flags));
    }

    /** sendfile(2); {@code offset} is an 8-byte segment or NULL. Returns bytes sent or -errno. */
    public static long sendfile(int outFd, int inFd, MemorySegment offset, long count) {
        MemorySegment cap = Native.capture();
        try {
            return ret((long) Sendfile.H.invokeExact(cap, outFd, inFd, offset, count), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** splice(2); offsets as in {@link #copyFileRange}. Returns bytes moved or -errno. */
    public static long splice(int fdIn, MemorySegment offIn, int fdOut, MemorySegment offOut, long len, int flags) {
        MemorySegment cap = Native.capture();
        try {
            return ret((long) Splice.H.invokeExact(cap, fdIn, offIn, fdOut, offOut, len, flags), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** lseek(2), including SEEK_DATA and SEEK_HOLE; returns the new offset or -errno (ENXIO: no more data). */
    public static long lseek(int fd, long offset, int whence) {
        MemorySegment cap = Native.capture();
        try {
            return ret((long) Lseek.H.invokeExact(cap, fd, offset, whence), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** mmap(2); returns the mapping's address or -errno (MAP_FAILED is turned into -errno). */
    public static long mmap(long addr, long length, int prot, int flags, int fd, long offset) {
        MemorySegment cap = Native.capture();
        try {
            return ret((long) Mmap.H.invokeExact(cap, addr, length, prot, flags, fd, offset), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** munmap(2); returns 0 or -errno. */
    public static int munmap(long addr, long length) {
        MemorySegment cap = Native.capture();
        try {
            return (int) ret((int) Munmap.H.invokeExact(cap, addr, length), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** madvise(2); returns 0 or -errno. */
    public static int madvise(long addr, long length, int advice) {
        MemorySegment cap = Native.capture();
        try {
            return (int) ret((int) Madvise.H.invokeExact(cap, addr, length, advice), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** mincore(2): one byte per page into {@code vec}; returns 0 or -errno. */
    public static int mincore(long addr, long length, MemorySegment vec) {
        MemorySegment cap = Native.capture();
        try {
            return (int) ret((int) Mincore.H.invokeExact(cap, addr, length, vec), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** eventfd(2); returns the descriptor or -errno. */
    public static int eventfd(int initval, int flags) {
        MemorySegment cap = Native.capture();
        try {
            return (int) ret((int) Eventfd.H.invokeExact(cap, initval, flags), cap);
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
            return (int) ret((int) Poll.H.invokeExact(cap, fds, nfds, timeoutMillis), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** pipe2(2) into an 8-byte segment holding two ints; returns 0 or -errno. */
    public static int pipe2(MemorySegment fds, int flags) {
        MemorySegment cap = Native.capture();
        try {
            return (int) ret((int) Pipe2.H.invokeExact(cap, fds, flags), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** socket(2); flags such as {@link Sockets#SOCK_CLOEXEC} are or-ed into {@code type}. Returns the fd or -errno. */
    public static int socket(int domain, int type, int protocol) {
        MemorySegment cap = Native.capture();
        try {
            return (int) ret((int) Socket.H.invokeExact(cap, domain, type, protocol), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /**
     * connect(2) to a {@link SockaddrIn} or {@link SockaddrIn6} of {@code addrLen} bytes. On a blocking socket it
     * waits at most the socket's SO_SNDTIMEO (then -EINPROGRESS). Returns 0 or -errno.
     */
    public static int connect(int fd, MemorySegment addr, int addrLen) {
        MemorySegment cap = Native.capture();
        try {
            return (int) ret((int) Connect.H.invokeExact(cap, fd, addr, addrLen), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** setsockopt(2) with the option value in {@code value} ({@code len} bytes). Returns 0 or -errno. */
    public static int setsockopt(int fd, int level, int name, MemorySegment value, int len) {
        MemorySegment cap = Native.capture();
        try {
            return (int) ret((int) Setsockopt.H.invokeExact(cap, fd, level, name, value, len), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /**
     * shutdown(2). Unlike close, it wakes every thread blocked in a call on the socket, which is how one thread stops
     * another's blocking send or recv. Returns 0 or -errno.
     */
    public static int shutdown(int fd, int how) {
        MemorySegment cap = Native.capture();
        try {
            return (int) ret((int) Shutdown.H.invokeExact(cap, fd, how), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** send(2) of {@code count} bytes of {@code buf}; returns bytes sent (possibly fewer) or -errno. */
    public static long send(int fd, MemorySegment buf, long count, int flags) {
        MemorySegment cap = Native.capture();
        try {
            return ret((long) Send.H.invokeExact(cap, fd, buf, count, flags), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** recv(2) into {@code buf}, at most {@code count} bytes; returns bytes received (0: end of stream) or -errno. */
    public static long recv(int fd, MemorySegment buf, long count, int flags) {
        MemorySegment cap = Native.capture();
        try {
            return ret((long) Recv.H.invokeExact(cap, fd, buf, count, flags), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** io_uring_setup(2); returns the ring descriptor or -errno. */
    public static int ioUringSetup(int entries, MemorySegment params) {
        return (int) sys(IO_URING_SETUP, n(entries), params, NO_ARG, NO_ARG, NO_ARG, NO_ARG);
    }

    /**
     * io_uring_enter(2) without a signal mask, or with an extended argument when {@code IORING_ENTER_EXT_ARG} is in
     * {@code flags} ({@code arg}/{@code argSize} then point at {@code struct io_uring_getevents_arg}).
     *
     * @return the number of SQEs consumed, or -errno
     */
    public static int ioUringEnter(int ringFd, int toSubmit, int minComplete, int flags, long arg, long argSize) {
        return (int) sys(IO_URING_ENTER, n(ringFd), u(toSubmit), u(minComplete),
                u(flags), n(arg), n(argSize));
    }

    /** io_uring_register(2); returns the call's result or -errno. */
    public static int ioUringRegister(int ringFd, int opcode, long arg, int nrArgs) {
        return (int) sys(IO_URING_REGISTER, n(ringFd), u(opcode), n(arg), u(nrArgs),
                NO_ARG, NO_ARG);
    }

    // ------------------------------------------------------------------ metadata, names and links

    /** ioctl(2) with an integer argument (FICLONE takes the source descriptor); returns the result or -errno. */
    public static int ioctl(int fd, long request, long arg) {
        return (int) sys(NR_IOCTL, n(fd), n(request), n(arg), NO_ARG, NO_ARG, NO_ARG);
    }

    /**
     * Shares the data of {@code srcFd} with {@code dstFd} (reflink, {@code ioctl(dst, FICLONE, src)}): both files
     * then hold the same extents, copied on write. Returns 0, or -errno: EOPNOTSUPP or EINVAL where the file system
     * cannot, EXDEV across file systems.
     */
    public static int ficlone(int dstFd, int srcFd) {
        return ioctl(dstFd, Fcntl.FICLONE, srcFd);
    }

    /**
     * fgetxattr(2): the value of extended attribute {@code name} into {@code value} (size 0 with NULL asks for the
     * size). Returns the value's length or -errno (ENODATA: no such attribute; ERANGE: buffer too small).
     */
    public static long fgetxattr(int fd, MemorySegment name, MemorySegment value, long size) {
        return sys(NR_FGETXATTR, n(fd), name, value, n(size), NO_ARG, NO_ARG);
    }

    /** fsetxattr(2); {@code flags} 0, XATTR_CREATE or XATTR_REPLACE. Returns 0 or -errno. */
    public static int fsetxattr(int fd, MemorySegment name, MemorySegment value, long size, int flags) {
        return (int) sys(NR_FSETXATTR, n(fd), name, value, n(size), n(flags), NO_ARG);
    }

    /**
     * flistxattr(2): the NUL-separated names of the file's extended attributes into {@code list} (size 0 asks for
     * the size). Returns the list's length (0: none) or -errno.
     */
    public static long flistxattr(int fd, MemorySegment list, long size) {
        return sys(NR_FLISTXATTR, n(fd), list, n(size), NO_ARG, NO_ARG, NO_ARG);
    }

    /** fremovexattr(2); returns 0 or -errno. */
    public static int fremovexattr(int fd, MemorySegment name) {
        MemorySegment cap = Native.capture();
        try {
            return (int) ret((int) Fremovexattr.H.invokeExact(cap, fd, name), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** lgetxattr(2): like {@link #fgetxattr} by path, on a symlink itself rather than its target. */
    public static long lgetxattr(MemorySegment path, MemorySegment name, MemorySegment value, long size) {
        return sys(NR_LGETXATTR, path, name, value, n(size), NO_ARG, NO_ARG);
    }

    /** lsetxattr(2): like {@link #fsetxattr} by path, on a symlink itself. Returns 0 or -errno. */
    public static int lsetxattr(MemorySegment path, MemorySegment name, MemorySegment value, long size, int flags) {
        return (int) sys(NR_LSETXATTR, path, name, value, n(size), n(flags), NO_ARG);
    }

    /** llistxattr(2): like {@link #flistxattr} by path, on a symlink itself. */
    public static long llistxattr(MemorySegment path, MemorySegment list, long size) {
        return sys(NR_LLISTXATTR, path, list, n(size), NO_ARG, NO_ARG, NO_ARG);
    }

    /** fchmod(2); returns 0 or -errno. */
    public static int fchmod(int fd, int mode) {
        return (int) sys(NR_FCHMOD, n(fd), u(mode), NO_ARG, NO_ARG, NO_ARG, NO_ARG);
    }

    /**
     * fchmodat(2) with flags 0 (glibc emulates AT_SYMLINK_NOFOLLOW only through /proc, and Linux has no mode bits on
     * symlinks to change). Returns 0 or -errno.
     */
    public static int fchmodat(int dirfd, MemorySegment path, int mode) {
        return (int) sys(NR_FCHMODAT, n(dirfd), path, u(mode), NO_ARG, NO_ARG, NO_ARG);
    }

    /** fchown(2); -1 for {@code uid} or {@code gid} leaves it unchanged. Returns 0 or -errno. */
    public static int fchown(int fd, int uid, int gid) {
        return (int) sys(NR_FCHOWN, n(fd), n(uid), n(gid), NO_ARG, NO_ARG, NO_ARG);
    }

    /** fchownat(2); with AT_SYMLINK_NOFOLLOW it changes a symlink itself (lchown). Returns 0 or -errno. */
    public static int fchownat(int dirfd, MemorySegment path, int uid, int gid, int flags) {
        return (int) sys(NR_FCHOWNAT, n(dirfd), path, n(uid), n(gid), n(flags), NO_ARG);
    }

    /**
     * utimensat(2): sets access and modification time from two {@link Timespec}s in {@code times} (a tv_nsec of
     * UTIME_OMIT leaves that time alone); with AT_SYMLINK_NOFOLLOW on a symlink itself. Returns 0 or -errno.
     */
    public static int utimensat(int dirfd, MemorySegment path, MemorySegment times, int flags) {
        return (int) sys(NR_UTIMENSAT, n(dirfd), path, times, n(flags), NO_ARG, NO_ARG);
    }

    /** futimens(3): {@link #utimensat} on an open descriptor. Returns 0 or -errno. */
    public static int futimens(int fd, MemorySegment times) {
        return (int) sys(NR_UTIMENSAT, n(fd), NO_ARG, times, NO_ARG, NO_ARG, NO_ARG);
    }

    /** mkdirat(2); the umask applies to {@code mode}. Returns 0 or -errno. */
    public static int mkdirat(int dirfd, MemorySegment path, int mode) {
        return (int) sys(NR_MKDIRAT, n(dirfd), path, u(mode), NO_ARG, NO_ARG, NO_ARG);
    }

    /**
     * mknodat(2) through the raw system call (glibc exports the symbol only from 2.33): a FIFO, socket or device
     * node; {@code mode} holds the type (S_IFIFO, ...) and permissions, {@code dev} the kernel's dev_t encoding.
     * Returns 0 or -errno.
     */
    public static int mknodat(int dirfd, MemorySegment path, int mode, long dev) {
        return (int) sys(MKNODAT_NR, n(dirfd), path, u(mode), n(dev), NO_ARG, NO_ARG);
    }

    /** unlinkat(2); AT_REMOVEDIR removes an empty directory. Returns 0 or -errno. */
    public static int unlinkat(int dirfd, MemorySegment path, int flags) {
        return (int) sys(NR_UNLINKAT, n(dirfd), path, n(flags), NO_ARG, NO_ARG, NO_ARG);
    }

    /**
     * linkat(2): a new name for an existing file. Never replaces: EEXIST if {@code newPath} exists. With
     * AT_EMPTY_PATH and an empty {@code oldPath} it names the file open as {@code oldDirfd} (an O_TMPFILE file,
     * for one); with AT_SYMLINK_FOLLOW a {@code /proc/self/fd/N} path does the same without privilege. Returns 0 or
     * -errno.
     */
    public static int linkat(int oldDirfd, MemorySegment oldPath, int newDirfd, MemorySegment newPath, int flags) {
        return (int) sys(NR_LINKAT, n(oldDirfd), oldPath, n(newDirfd), newPath, n(flags), NO_ARG);
    }

    /** symlinkat(2): a symlink at {@code linkPath} holding {@code target}. Never replaces. Returns 0 or -errno. */
    public static int symlinkat(MemorySegment target, int newDirfd, MemorySegment linkPath) {
        return (int) sys(NR_SYMLINKAT, target, n(newDirfd), linkPath, NO_ARG, NO_ARG, NO_ARG);
    }

    /**
     * readlinkat(2): the target of a symlink into {@code buf}, not NUL-terminated. Returns its length or -errno; a
     * result equal to {@code size} means the target may have been cut short: retry with a bigger buffer.
     */
    public static long readlinkat(int dirfd, MemorySegment path, MemorySegment buf, long size) {
        return sys(NR_READLINKAT, n(dirfd), path, buf, n(size), NO_ARG, NO_ARG);
    }

    /**
     * renameat2(2) through the raw system call; {@code flags} 0, RENAME_NOREPLACE (EEXIST instead of replacing) or
     * RENAME_EXCHANGE. Returns 0 or -errno (EINVAL where the file system does not support the flag).
     */
    public static int renameat2(int oldDirfd, MemorySegment oldPath, int newDirfd, MemorySegment newPath,
                                int flags) {
        return (int) sys(RENAMEAT2_NR, n(oldDirfd), oldPath, n(newDirfd), newPath, u(flags),
                NO_ARG);
    }

    /**
     * getdents64(2) through the raw system call: as many {@link Dirent64} records as fit into {@code buf}. Returns
     * the bytes filled, 0 at the end of the directory, or -errno.
     */
    public static long getdents64(int fd, MemorySegment buf, long size) {
        if (size > buf.byteSize()) throw new IllegalArgumentException("getdents64 size exceeds the buffer");
        return sys(GETDENTS64_NR, n(fd), buf, n(size), NO_ARG, NO_ARG, NO_ARG);
    }

    /** getrlimit(2) into a {@link Rlimit}-sized segment; returns 0 or -errno. */
    public static int getrlimit(int resource, MemorySegment rlimit) {
        if (rlimit.byteSize() < Rlimit.LAYOUT.byteSize()) throw new IllegalArgumentException("rlimit too small");
        return (int) sys(NR_PRLIMIT64, n(0), n(resource), NO_ARG, rlimit, NO_ARG, NO_ARG);
    }

    /** fstatfs(2) into a {@link Statfs}-sized segment; returns 0 or -errno. */
    public static int fstatfs(int fd, MemorySegment statfs) {
        if (statfs.byteSize() < Statfs.LAYOUT.byteSize()) throw new IllegalArgumentException("statfs too small");
        return (int) sys(NR_FSTATFS, n(fd), statfs, NO_ARG, NO_ARG, NO_ARG, NO_ARG);
    }

    /** TCGETS, the same number on x86_64 and aarch64 (asm-generic/ioctls.h). */
    private static final long TCGETS = 0x5401;
    /** Room for the kernel's {@code struct termios} (36 bytes on both). */
    private static final long TERMIOS_SIZE = 64;

    /**
     * isatty(3): 1 when {@code fd} is a terminal, else -errno (ENOTTY: not a terminal; EBADF: not open). Done as the
     * C library does it, {@code ioctl(fd, TCGETS)}, through the shared syscall handle.
     */
    public static int isatty(int fd) {
        try (Arena a = Arena.ofConfined()) {
            long r = sys(NR_IOCTL, n(fd), n(TCGETS), a.allocate(TERMIOS_SIZE, 8), NO_ARG, NO_ARG, NO_ARG);
            return r == 0 ? 1 : (int) r;
        }
    }

    /** geteuid(2): the effective user ID. */
    public static int geteuid() {
        return (int) sys(NR_GETEUID, NO_ARG, NO_ARG, NO_ARG, NO_ARG, NO_ARG, NO_ARG);
    }

    /** getegid(2): the effective group ID. */
    public static int getegid() {
        return (int) sys(NR_GETEGID, NO_ARG, NO_ARG, NO_ARG, NO_ARG, NO_ARG, NO_ARG);
    }

    /**
     * flock(2): an advisory lock on the open file description (not on the process, unlike fcntl locks), so two
     * descriptors opened separately conflict even inside one process. Returns 0 or -errno ({@code EWOULDBLOCK},
     * which is EAGAIN, with {@link Fcntl#LOCK_NB} when another holder has it).
     */
    public static int flock(int fd, int operation) {
        MemorySegment cap = Native.capture();
        try {
            return (int) ret((int) Flock.H.invokeExact(cap, fd, operation), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    // ------------------------------------------------------------------ change notification

    /** inotify_init1(2) with {@code IN_NONBLOCK}/{@code IN_CLOEXEC} flags; returns the descriptor or -errno. */
    public static int inotifyInit1(int flags) {
        MemorySegment cap = Native.capture();
        try {
            return (int) ret((int) InotifyInit1.H.invokeExact(cap, flags), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /**
     * inotify_add_watch(2) for a NUL-terminated path; returns the watch descriptor (the same one again for an inode
     * already watched by this instance) or -errno (ENOSPC: {@code fs.inotify.max_user_watches} reached).
     */
    public static int inotifyAddWatch(int fd, MemorySegment path, int mask) {
        MemorySegment cap = Native.capture();
        try {
            return (int) ret((int) InotifyAddWatch.H.invokeExact(cap, fd, path, mask), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** inotify_rm_watch(2); returns 0 or -errno (EINVAL: no such watch, e.g. already gone with IN_IGNORED). */
    public static int inotifyRmWatch(int fd, int wd) {
        MemorySegment cap = Native.capture();
        try {
            return (int) ret((int) InotifyRmWatch.H.invokeExact(cap, fd, wd), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** epoll_create1(2); returns the descriptor or -errno. */
    public static int epollCreate1(int flags) {
        MemorySegment cap = Native.capture();
        try {
            return (int) ret((int) EpollCreate1.H.invokeExact(cap, flags), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /** epoll_ctl(2) with one {@link EpollEvent} (may be {@code NULL} for EPOLL_CTL_DEL); returns 0 or -errno. */
    public static int epollCtl(int epfd, int op, int fd, MemorySegment event) {
        MemorySegment cap = Native.capture();
        try {
            return (int) ret((int) EpollCtl.H.invokeExact(cap, epfd, op, fd, event), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }

    /**
     * epoll_wait(2) into an array of {@link EpollEvent}, waiting at most {@code timeoutMillis} (-1: forever; 0: do not
     * wait); returns the number of ready descriptors (0 on timeout) or -errno (EINTR when a signal came first).
     */
    public static int epollWait(int epfd, MemorySegment events, int maxEvents, int timeoutMillis) {
        if (events.byteSize() < maxEvents * EpollEvent.SIZE) throw new IllegalArgumentException("events too small");
        MemorySegment cap = Native.capture();
        try {
            return (int) ret((int) EpollWait.H.invokeExact(cap, epfd, events, maxEvents, timeoutMillis), cap);
        } catch (Throwable t) {
            throw linkFailure(t);
        }
    }
}
