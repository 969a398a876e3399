package io.jfio.core.engine;

import static io.jfio.core.uring.UringConstants.IORING_FSYNC_DATASYNC;
import static io.jfio.core.uring.UringConstants.IORING_OP_CLOSE;
import static io.jfio.core.uring.UringConstants.IORING_OP_FADVISE;
import static io.jfio.core.uring.UringConstants.IORING_OP_FALLOCATE;
import static io.jfio.core.uring.UringConstants.IORING_OP_FSYNC;
import static io.jfio.core.uring.UringConstants.IORING_OP_NOP;
import static io.jfio.core.uring.UringConstants.IORING_OP_OPENAT;
import static io.jfio.core.uring.UringConstants.IORING_OP_READ;
import static io.jfio.core.uring.UringConstants.IORING_OP_READV;
import static io.jfio.core.uring.UringConstants.IORING_OP_READ_FIXED;
import static io.jfio.core.uring.UringConstants.IORING_OP_SPLICE;
import static io.jfio.core.uring.UringConstants.IORING_OP_STATX;
import static io.jfio.core.uring.UringConstants.IORING_OP_SYNC_FILE_RANGE;
import static io.jfio.core.uring.UringConstants.IORING_OP_TIMEOUT;
import static io.jfio.core.uring.UringConstants.IORING_OP_WRITE;
import static io.jfio.core.uring.UringConstants.IORING_OP_WRITEV;
import static io.jfio.core.uring.UringConstants.IORING_OP_WRITE_FIXED;

import io.jfio.core.sys.Errno;
import io.jfio.core.sys.ErrnoException;
import io.jfio.core.sys.Iovec;
import io.jfio.core.uring.UringConstants;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * One I/O request: what to do (an io_uring opcode and its arguments) and, once submitted, how it ended.
 *
 * <p>Built by the static factories, then submitted once to an {@link IoEngine}. Not thread-safe while being built;
 * after submission the engine owns it and the result is published safely to the waiting thread, future or
 * callback. A request cannot be submitted twice.
 *
 * <p>The opcode vocabulary is io_uring's; the thread engine executes the same requests with the equivalent system
 * calls, so both engines give the same results, including {@code -errno} for failures.
 *
 * <p>Memory: at submission the engine decides, for every segment the kernel reads or writes, whether the kernel gets
 * it directly (memory of an {@link IoArena}, which the request holds open until it completes; memory freed only
 * once unreachable, which the request references; memory confined to the thread blocked in
 * {@link IoEngine#execute}) or a bounce buffer of the engine's pool (any other memory: filled at submission when
 * the kernel reads it, copied back at completion when the kernel writes it, EFAULT if its arena was closed
 * meanwhile). Read-only destinations are refused with {@link IllegalArgumentException}. See {@link IoEngine} for
 * the whole contract.
 */
public final class IoOp {
    /** Largest byte count one read or write request carries (the kernel's MAX_RW_COUNT, INT_MAX rounded to pages). */
    public static final int MAX_RW = 0x7ffff000;
    /** Most segments one readv or writev request carries (the kernel's UIO_MAXIOV). */
    public static final int IOV_MAX = 1024;

    static final int NEW = 0;
    static final int SUBMITTED = 1;
    static final int DONE = 2;

    final int opcode;
    final int fd;
    final long off;
    /** The address the kernel gets: set at submission for requests on memory (see {@link RequestMemory}). */
    long addr;
    final int len;
    final int opFlags;
    final int bufIndex;
    final int spliceFdIn;
    final long addr3;
    /** The caller's memory: the data buffer, or the path of openat and statx; or null. */
    final MemorySegment buffer;
    /** The caller's statx buffer; or null. */
    final MemorySegment buffer2;
    /** The caller's segments of readv and writev; or null. */
    final MemorySegment[] vectors;
    /** True when the kernel writes into the caller's memory through a bounce buffer whoever submits. */
    private final boolean bouncedOutput;
    /** What the kernel touches in place of {@code buffer}, {@code buffer2} (or the iovec array), from submission. */
    MemorySegment kbuf;
    MemorySegment kbuf2;
    /** The request's hold on its memory, from submission to completion; null before and after. */
    private RequestMemory memory;
    String path;
    int sqeFlags;
    long linkTimeoutNanos = -1;
    IoOp next;

    // completion state, written by the engine
    volatile int state = NEW;
    long result;
    Thread waiter;
    Completion callback;
    OpFuture future;
    IoEngine engine;
    /** The io_uring engine's ring this request was handed to; volatile for cancel's flag-then-look. */
    volatile UringRing ring;
    long userData = -1;
    volatile boolean cancelRequested;
    Runnable whenDone;
    boolean closedByEngine;

    private IoOp(int opcode, int fd, long off, long addr, int len, int opFlags, int bufIndex, int spliceFdIn,
                 long addr3, MemorySegment buffer, MemorySegment buffer2) {
        this(opcode, fd, off, addr, len, opFlags, bufIndex, spliceFdIn, addr3, buffer, buffer2, null);
    }

    private IoOp(int opcode, int fd, long off, long addr, int len, int opFlags, int bufIndex, int spliceFdIn,
                 long addr3, MemorySegment buffer, MemorySegment buffer2, MemorySegment[] vectors) {
        this.opcode = opcode;
        this.fd = fd;
        this.off = off;
        this.addr = addr;
        this.len = len;
        this.opFlags = opFlags;
        this.bufIndex = bufIndex;
        this.spliceFdIn = spliceFdIn;
        this.addr3 = addr3;
        this.buffer = buffer;
        this.buffer2 = buffer2;
        this.vectors = vectors;
        this.bouncedOutput = switch (opcode) {
            case IORING_OP_READ -> RequestMemory.alwaysBouncedOutput(buffer);
            case IORING_OP_STATX -> RequestMemory.alwaysBouncedOutput(buffer2);
            case IORING_OP_READV -> java.util.Arrays.stream(vectors).anyMatch(RequestMemory::alwaysBouncedOutput);
            default -> false;
        };
    }

    private static MemorySegment nativeSegment(MemorySegment s, String what) {
        if (!s.isNative()) {
            throw new IllegalArgumentException(what + " must be a native segment (an Arena allocation or a direct"
                    + " buffer), not a heap segment: the kernel writes to it after the call returns");
        }
        if (!s.scope().isAlive()) throw new IllegalStateException(what + " belongs to a closed arena");
        return s;
    }

    private static MemorySegment writable(MemorySegment s, String what) {
        if (s.isReadOnly()) {
            throw new IllegalArgumentException(what + " is a read-only segment: the kernel would write into it");
        }
        return s;
    }

    private static long offset(long offset) {
        if (offset < 0) throw new IllegalArgumentException("negative file offset: offset=" + offset);
        return offset;
    }

    private static int rwLength(MemorySegment buf) {
        return (int) Math.min(buf.byteSize(), MAX_RW);
    }

    /**
     * A request that does nothing; completes with 0. Measures the engine's own overhead.
     *
     * @return the request, not yet submitted
     */
    public static IoOp nop() {
        return new IoOp(IORING_OP_NOP, -1, 0, 0, 0, 0, 0, 0, 0, null, null);
    }

    /**
     * Reads up to {@code buf.byteSize()} bytes (at most {@link #MAX_RW}) at {@code offset}, like pread(2): the
     * result is the number of bytes read, which may be short, and 0 at or past end of file.
     *
     * <p>The kernel writes into {@code buf} directly when it cannot be freed while this request holds it (an
     * {@link IoArena}, {@link java.lang.foreign.Arena#ofAuto()}, {@link java.lang.foreign.Arena#global()}, a direct
     * buffer). Memory of an arena its owner closes explicitly goes through a bounce buffer, copied to {@code buf} at
     * completion (EFAULT if the arena was closed meanwhile). Such a bounced read cannot be followed by a linked
     * request (the copy happens after the kernel is done with the chain), and when its memory is confined to a
     * thread it can only be run by a blocking {@link IoEngine#execute} on that thread.
     *
     * @param fd the descriptor to read from
     * @param buf the native memory to read into; its size is the byte count (at most {@link #MAX_RW})
     * @param offset the file offset to read at, not negative
     * @return the request, not yet submitted
     * @throws IllegalArgumentException if {@code buf} is read-only or a heap segment
     */
    public static IoOp read(int fd, MemorySegment buf, long offset) {
        nativeSegment(buf, "read buffer");
        writable(buf, "read buffer");
        return new IoOp(IORING_OP_READ, fd, offset(offset), 0, rwLength(buf), 0, 0, 0, 0, buf, null);
    }

    /**
     * Writes up to {@code buf.byteSize()} bytes at {@code offset}, like pwrite(2); may write fewer.
     *
     * <p>The kernel reads {@code buf} directly when it cannot be freed while this request holds it (as for
     * {@link #read}); memory of an arena its owner closes explicitly is copied into a buffer the engine owns when
     * the request is submitted, so the bytes written are those the segment held at submission.
     *
     * @param fd the descriptor to write to
     * @param buf the native memory to write; its size is the byte count (at most {@link #MAX_RW})
     * @param offset the file offset to write at, not negative
     * @return the request, not yet submitted
     * @throws IllegalArgumentException if {@code buf} is a heap segment
     */
    public static IoOp write(int fd, MemorySegment buf, long offset) {
        nativeSegment(buf, "write buffer");
        return new IoOp(IORING_OP_WRITE, fd, offset(offset), 0, rwLength(buf), 0, 0, 0, 0, buf, null);
    }

    /**
     * preadv(2) into {@code bufs}, in order: the engine builds the iovec array in its own memory, and each segment is
     * written directly or through a bounce buffer as for {@link #read}.
     *
     * @param fd the descriptor to read from
     * @param bufs the native segments to fill, in order
     * @param offset the file offset to read at, not negative
     * @return the request, not yet submitted
     * @throws IllegalArgumentException if a segment is read-only or a heap segment, or there are more than
     *                                  {@link #IOV_MAX}
     */
    public static IoOp readv(int fd, MemorySegment[] bufs, long offset) {
        MemorySegment[] v = vectors(bufs);
        for (MemorySegment b : v) writable(b, "readv buffer");
        return new IoOp(IORING_OP_READV, fd, offset(offset), 0, v.length, 0, 0, 0, 0, null, null, v);
    }

    /**
     * pwritev(2) from {@code bufs}, in order; each segment read directly or copied at submission as for write.
     *
     * @param fd the descriptor to write to
     * @param bufs the native segments to write, in order (at most {@link #IOV_MAX})
     * @param offset the file offset to write at, not negative
     * @return the request, not yet submitted
     * @throws IllegalArgumentException if a segment is a heap segment, or there are more than {@link #IOV_MAX}
     */
    public static IoOp writev(int fd, MemorySegment[] bufs, long offset) {
        return new IoOp(IORING_OP_WRITEV, fd, offset(offset), 0, bufs.length, 0, 0, 0, 0, null, null,
                vectors(bufs));
    }

    private static MemorySegment[] vectors(MemorySegment[] bufs) {
        if (bufs.length > IOV_MAX) {
            throw new IllegalArgumentException("too many segments for one request: count=" + bufs.length + " max="
                    + IOV_MAX);
        }
        MemorySegment[] v = bufs.clone();
        for (MemorySegment b : v) nativeSegment(b, "vectored I/O buffer");
        return v;
    }

    /**
     * A read into a buffer registered with {@link IoEngine#registerBuffers}: {@code buf} must lie inside registered
     * buffer {@code bufIndex}. Saves the kernel pinning the pages on every request. Registered memory is never
     * bounced, so {@code buf} must be memory registration accepts (an {@link IoArena}, an automatic or global
     * arena, a direct buffer).
     *
     * @param fd the descriptor to read from
     * @param buf the memory to read into, inside registered buffer {@code bufIndex}
     * @param offset the file offset to read at, not negative
     * @param bufIndex the index of the registered buffer, in the order given to {@link IoEngine#registerBuffers}
     * @return the request, not yet submitted
     * @throws IllegalArgumentException if {@code buf} is read-only, a heap segment, or memory of another arena
     */
    public static IoOp readFixed(int fd, MemorySegment buf, long offset, int bufIndex) {
        nativeSegment(buf, "read buffer");
        writable(buf, "read buffer");
        registrable(buf, "read buffer");
        return new IoOp(IORING_OP_READ_FIXED, fd, offset(offset), 0, rwLength(buf), 0, bufIndex, 0, 0, buf, null);
    }

    /**
     * A write from a registered buffer; see {@link #readFixed}.
     *
     * @param fd the descriptor to write to
     * @param buf the memory to write, inside registered buffer {@code bufIndex}
     * @param offset the file offset to write at, not negative
     * @param bufIndex the index of the registered buffer, in the order given to {@link IoEngine#registerBuffers}
     * @return the request, not yet submitted
     * @throws IllegalArgumentException if {@code buf} is a heap segment or memory of another arena
     */
    public static IoOp writeFixed(int fd, MemorySegment buf, long offset, int bufIndex) {
        nativeSegment(buf, "write buffer");
        registrable(buf, "write buffer");
        return new IoOp(IORING_OP_WRITE_FIXED, fd, offset(offset), 0, rwLength(buf), 0, bufIndex, 0, 0, buf, null);
    }

    private static void registrable(MemorySegment buf, String what) {
        if (!RequestMemory.neverFreedInFlight(buf)) {
            throw new IllegalArgumentException(what + " of a fixed request must lie in a registered buffer, and only"
                    + " memory of an IoArena, Arena.ofAuto(), Arena.global() or a direct buffer can be registered");
        }
    }

    /**
     * fsync(2).
     *
     * @param fd the descriptor to sync
     * @return the request, not yet submitted
     */
    public static IoOp fsync(int fd) {
        return new IoOp(IORING_OP_FSYNC, fd, 0, 0, 0, 0, 0, 0, 0, null, null);
    }

    /**
     * fdatasync(2).
     *
     * @param fd the descriptor to sync
     * @return the request, not yet submitted
     */
    public static IoOp fdatasync(int fd) {
        return new IoOp(IORING_OP_FSYNC, fd, 0, 0, 0, IORING_FSYNC_DATASYNC, 0, 0, 0, null, null);
    }

    /**
     * sync_file_range(2); {@code length} at most 4 GiB - 1 (0 = to end of file).
     *
     * @param fd the descriptor whose range to sync
     * @param offset where the range starts, not negative
     * @param length the range's length in bytes
     * @param flags {@code SYNC_FILE_RANGE_WAIT_BEFORE}, {@code _WRITE} and {@code _WAIT_AFTER}, as for
     *     sync_file_range(2)
     * @return the request, not yet submitted
     */
    public static IoOp syncFileRange(int fd, long offset, long length, int flags) {
        return new IoOp(IORING_OP_SYNC_FILE_RANGE, fd, offset(offset), 0, u32(length, "length"), flags, 0, 0, 0,
                null, null);
    }

    /**
     * fallocate(2) with {@code mode} (0, FALLOC_FL_KEEP_SIZE, FALLOC_FL_PUNCH_HOLE, ...).
     *
     * @param fd the descriptor of the file
     * @param mode the fallocate(2) mode bits
     * @param offset where the range starts, not negative
     * @param length the range's length in bytes, positive
     * @return the request, not yet submitted
     */
    public static IoOp fallocate(int fd, int mode, long offset, long length) {
        if (length <= 0) throw new IllegalArgumentException("fallocate length must be positive: length=" + length);
        return new IoOp(IORING_OP_FALLOCATE, fd, offset(offset), length, mode, 0, 0, 0, 0, null, null);
    }

    /**
     * posix_fadvise(2); {@code length} at most 4 GiB - 1, 0 meaning to end of file.
     *
     * @param fd the descriptor of the file
     * @param offset where the range starts, not negative
     * @param length the range's length in bytes
     * @param advice a {@code POSIX_FADV_*} value
     * @return the request, not yet submitted
     */
    public static IoOp fadvise(int fd, long offset, long length, int advice) {
        return new IoOp(IORING_OP_FADVISE, fd, offset(offset), 0, u32(length, "length"), advice, 0, 0, 0, null, null);
    }

    /**
     * openat(2); {@code path} is a NUL-terminated native string, {@code displayPath} names it in messages. The
     * result is the new descriptor.
     *
     * @param dirfd the directory a relative path is resolved against, or {@code AT_FDCWD}
     * @param path the path, a NUL-terminated native string that stays alive until the request completes
     * @param displayPath the path as people read it, for messages
     * @param flags the {@code O_*} open flags
     * @param mode permission bits for a created file
     * @return the request, not yet submitted
     */
    public static IoOp openat(int dirfd, MemorySegment path, String displayPath, int flags, int mode) {
        nativeSegment(path, "path");
        IoOp op = new IoOp(IORING_OP_OPENAT, dirfd, 0, 0, mode, flags, 0, 0, 0, path, null);
        op.path = displayPath;
        return op;
    }

    /**
     * close(2).
     *
     * @param fd the descriptor to close
     * @return the request, not yet submitted
     */
    public static IoOp close(int fd) {
        return new IoOp(IORING_OP_CLOSE, fd, 0, 0, 0, 0, 0, 0, 0, null, null);
    }

    /**
     * statx(2) of {@code path} relative to {@code dirfd} (AT_EMPTY_PATH with an empty path: the fd itself).
     *
     * @param dirfd the directory a relative path is resolved against, or the descriptor itself with an empty path and
     *     {@code AT_EMPTY_PATH}
     * @param path the path, a NUL-terminated native string
     * @param flags {@code AT_*} flags, as for statx(2)
     * @param mask the {@code STATX_*} fields wanted
     * @param statxBuf the native memory the kernel fills with a {@code struct statx}
     * @return the request, not yet submitted
     */
    public static IoOp statx(int dirfd, MemorySegment path, int flags, int mask, MemorySegment statxBuf) {
        nativeSegment(path, "path");
        nativeSegment(statxBuf, "statx buffer");
        writable(statxBuf, "statx buffer");
        return new IoOp(IORING_OP_STATX, dirfd, 0, 0, mask, flags, 0, 0, 0, path, statxBuf);
    }

    /**
     * splice(2) from {@code fdIn} to {@code fdOut}; an offset of -1 means "use the descriptor's position" (required
     * for pipes).
     *
     * @param fdIn the descriptor to read from
     * @param offIn the offset in {@code fdIn}, or -1
     * @param fdOut the descriptor to write to
     * @param offOut the offset in {@code fdOut}, or -1
     * @param length the most bytes to move, not negative
     * @param flags {@code SPLICE_F_*} flags
     * @return the request, not yet submitted
     */
    public static IoOp splice(int fdIn, long offIn, int fdOut, long offOut, int length, int flags) {
        if (length < 0) throw new IllegalArgumentException("negative length: length=" + length);
        return new IoOp(IORING_OP_SPLICE, fdOut, offOut, offIn, length, flags, 0, fdIn, 0, null, null);
    }

    /**
     * A timer: completes with 0 when {@code delay} has passed (or with -ECANCELED if cancelled).
     *
     * @param delay how long to wait, not negative
     * @return the request, not yet submitted
     */
    public static IoOp timeout(Duration delay) {
        long nanos = delay.toNanos();
        if (nanos < 0) throw new IllegalArgumentException("negative timeout: " + delay);
        return new IoOp(IORING_OP_TIMEOUT, -1, 0, 0, 1, 0, 0, 0, nanos, null, null);
    }

    private static int u32(long v, String what) {
        if (v < 0 || v > 0xffff_ffffL) throw new IllegalArgumentException(what + " out of range 0..2^32-1: " + v);
        return (int) v;
    }

    /**
     * Links {@code next} after this request: {@code next} starts only after this one completed successfully (a
     * failure or a short read or write completes the rest of the chain with -ECANCELED). Returns {@code next}, so
     * chains read {@code a.link(b).link(c)}; submit the head.
     *
     * @param next the request to run after this one, not yet submitted nor linked
     * @return {@code next}
     */
    public IoOp link(IoOp next) {
        if (this.next != null) throw new IllegalStateException("already linked");
        if (bouncedOutput) throw bouncedLink();
        if (next == this || next.state != NEW) throw new IllegalArgumentException("cannot link this request");
        this.next = next;
        return next;
    }

    /**
     * Bounds how long this request may take once started: after {@code timeout} the engine cancels it and it
     * completes with -ECANCELED (the io_uring engine uses a linked timeout; the thread engine can only cancel a
     * request that has not started).
     *
     * @param timeout how long the request may run; zero or negative cancels it at once
     * @return this request
     */
    public IoOp withTimeout(Duration timeout) {
        linkTimeoutNanos = Math.max(0, timeout.toNanos());
        return this;
    }

    /**
     * Runs {@code action} on the completion thread when the request has really completed, that is when the kernel
     * has let go of its buffers and descriptor, even if its future was cancelled earlier. Runs before the request's
     * callback or future. For resource bookkeeping (releasing a descriptor or buffer); must be short.
     *
     * @param action what to run; it must not block
     * @return this request
     */
    public IoOp whenDone(Runnable action) {
        if (state != NEW) throw new IllegalStateException("request already submitted: " + this);
        Runnable prev = whenDone;
        whenDone = prev == null ? action : () -> {
            prev.run();
            action.run();
        };
        return this;
    }

    /**
     * Names the file in error messages.
     *
     * @param path the file's path as people read it
     * @return this request
     */
    public IoOp path(String path) {
        this.path = path;
        return this;
    }

    /**
     * The io_uring opcode.
     *
     * @return the opcode, an {@code IORING_OP_*} value
     */
    public int opcode() {
        return opcode;
    }

    /**
     * The descriptor the request works on (for splice, the output).
     *
     * @return the descriptor, or -1 for requests without one
     */
    public int fd() {
        return fd;
    }

    /**
     * The file offset (read, write, fadvise, fallocate, ...).
     *
     * @return the offset in bytes
     */
    public long offset() {
        return off;
    }

    /**
     * The byte count for read and write; the opcode-specific length otherwise.
     *
     * @return the length in bytes, or the value the opcode puts in the length field
     */
    public int length() {
        return len;
    }

    /**
     * The next request in the chain, or null.
     *
     * @return the linked request, or null when this is the last of its chain
     */
    public IoOp next() {
        return next;
    }

    /**
     * True once the request has completed.
     *
     * @return true when a result is available
     */
    public boolean isDone() {
        return state == DONE;
    }

    /**
     * The raw result once done: {@code >= 0} on success, {@code -errno} on failure.
     *
     * @return the result: a byte count, a descriptor or 0 on success, the negated errno on failure
     */
    public long result() {
        if (state != DONE) throw new IllegalStateException("request not complete: " + this);
        return result;
    }

    /**
     * The future of this request, once it has been submitted without a callback.
     *
     * @return the future, or null before submission or when a callback was given
     */
    public CompletableFuture<Long> future() {
        return future;
    }

    /**
     * Returns {@code result} if it is not negative, else throws the {@link IOException} for it, naming this
     * request's operation, descriptor, path, offset and length.
     *
     * @param result a result of this request: not negative on success, the negated errno on failure
     * @return {@code result}, when not negative
     * @throws IOException when {@code result} is negative: its message names the operation, the errno and this
     *     request's descriptor, path, offset and length
     */
    public long check(long result) throws IOException {
        if (result >= 0) return result;
        throw error(result);
    }

    ErrnoException error(long result) {
        boolean rw = opcode == IORING_OP_READ || opcode == IORING_OP_WRITE || opcode == IORING_OP_READ_FIXED
                || opcode == IORING_OP_WRITE_FIXED || opcode == IORING_OP_READV || opcode == IORING_OP_WRITEV;
        return new ErrnoException(name(), (int) -result, fd, path, rw ? off : ErrnoException.NONE,
                rw ? len : ErrnoException.NONE);
    }

    /**
     * The operation's lower-case name, e.g. {@code "read"}.
     *
     * @return the name, e.g. {@code "read"} or {@code "fdatasync"}
     */
    public String name() {
        if (opcode == IORING_OP_FSYNC && (opFlags & IORING_FSYNC_DATASYNC) != 0) return "fdatasync";
        return UringConstants.opName(opcode).toLowerCase(java.util.Locale.ROOT);
    }

    private IllegalArgumentException bouncedLink() {
        return new IllegalArgumentException("the kernel writes this request's result into a bounce buffer that is"
                + " copied to the caller's memory at completion (memory of an explicitly closed arena), so no"
                + " request may be linked after it (it would see the memory before the copy); allocate the buffer"
                + " from an IoArena: " + this);
    }

    /** Checks that the request has not been submitted before. */
    void checkSubmittable() {
        if (state != NEW) throw new IllegalStateException("request already submitted: " + this);
    }

    /**
     * Marks submission by {@code by}: decides, for each segment the kernel touches, whether it gets the caller's
     * memory or a bounce buffer (filled now for memory the kernel reads), and holds IoArenas. Fails if the request was
     * submitted before, if its memory is freed, or if its results could not be copied back.
     */
    void markSubmitted(AbstractEngine by) {
        if (state != NEW) throw new IllegalStateException("request already submitted: " + this);
        if (buffer != null || vectors != null) {
            RequestMemory m = new RequestMemory(by.bounces(), waiter);
            try {
                hand(m);
            } catch (RuntimeException e) {
                m.release();
                throw withRequest(e);
            }
            if (m.copiesOut() && next != null) {
                m.release();
                throw bouncedLink();
            }
            memory = m;
        }
        engine = by;
        state = SUBMITTED;
    }

    private RuntimeException withRequest(RuntimeException e) {
        String msg = e.getMessage() + ": " + this;
        if (e instanceof IllegalArgumentException) return new IllegalArgumentException(msg, e);
        if (e instanceof IllegalStateException) return new IllegalStateException(msg, e);
        return e;
    }

    private void hand(RequestMemory m) {
        switch (opcode) {
            // Only the bytes the request carries (at most MAX_RW) are bounced.
            case IORING_OP_READ, IORING_OP_READ_FIXED -> kbuf = m.output(buffer.asSlice(0, len), "read buffer");
            case IORING_OP_WRITE, IORING_OP_WRITE_FIXED -> kbuf = m.input(buffer.asSlice(0, len), "write buffer");
            case IORING_OP_OPENAT -> kbuf = m.input(buffer, "path");
            case IORING_OP_STATX -> {
                kbuf = m.input(buffer, "path");
                kbuf2 = m.output(buffer2, "statx buffer");
            }
            case IORING_OP_READV, IORING_OP_WRITEV -> {
                MemorySegment iov = m.scratch(Iovec.SIZE * vectors.length);
                for (int i = 0; i < vectors.length; i++) {
                    Iovec.set(iov, i, opcode == IORING_OP_READV ? m.output(vectors[i], "readv buffer " + i)
                            : m.input(vectors[i], "writev buffer " + i));
                }
                kbuf = iov;
            }
            default -> throw new IllegalStateException("request with memory of unknown kind: " + this);
        }
        addr = kbuf.address();
    }

    /** The SQE's off field: the file offset, or for statx the address of the buffer the kernel fills. */
    long sqeOff() {
        return opcode == IORING_OP_STATX ? kbuf2.address() : off;
    }

    /** Lets go of the request's memory, once: at completion, refusal, or a submission that failed. */
    void unpin() {
        RequestMemory m = memory;
        if (m != null) {
            memory = null;
            m.release();
        }
    }

    /** Copies what the kernel wrote into bounce buffers to the caller's memory; -EFAULT if it was freed. */
    private long copyOut(long r) {
        RequestMemory m = memory;
        if (m == null || !m.copiesOut() || r < 0 || (r == 0 && opcode != IORING_OP_STATX)) return r;
        long c = m.copyOut(opcode == IORING_OP_STATX ? -1 : r);
        return c < 0 ? c : r;
    }

    /** True for requests whose result is normal on -ETIME (a plain timer). */
    boolean isTimer() {
        return opcode == IORING_OP_TIMEOUT;
    }

    /** The expected byte count of a read or write, for short-transfer chain semantics; -1 for other requests. */
    long expectedTransfer() {
        return switch (opcode) {
            case IORING_OP_READ, IORING_OP_WRITE, IORING_OP_READ_FIXED, IORING_OP_WRITE_FIXED -> len;
            default -> -1;
        };
    }

    /** Completes the request: publishes the result and wakes whoever waits. Called by engines, exactly once. */
    void complete(long res) {
        long r = res;
        if (opcode == IORING_OP_TIMEOUT && r == -Errno.ETIME) r = 0;
        r = copyOut(r);
        unpin();
        result = r;
        Runnable done = whenDone;
        if (done != null) {
            try {
                done.run();
            } catch (RuntimeException e) {
                System.getLogger("io.jfio.core.engine").log(System.Logger.Level.ERROR, "whenDone failed: " + this, e);
            }
        }
        state = DONE; // volatile write publishes result
        Thread w = waiter;
        if (w != null) java.util.concurrent.locks.LockSupport.unpark(w);
        Completion c = callback;
        if (c != null) {
            c.complete(this, r);
        } else if (future != null) {
            future.settle(this, r);
        }
    }

    /**
     * Ends a request that the engine refused at submission (it was closed): the request never started, so its
     * {@link #whenDone} action runs now, as for any request that is over, and it is done with -ECANCELED. Neither its
     * callback nor its future is told: the submitter gets the refusal as an exception.
     */
    void refuse() {
        closedByEngine = true;
        unpin();
        result = -Errno.ECANCELED;
        Runnable done = whenDone;
        if (done != null) {
            try {
                done.run();
            } catch (RuntimeException e) {
                System.getLogger("io.jfio.core.engine").log(System.Logger.Level.ERROR, "whenDone failed: " + this, e);
            }
        }
        state = DONE;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("IoOp[").append(name());
        if (fd >= 0) sb.append(" fd=").append(fd);
        if (path != null) sb.append(" path=").append(path);
        if (opcode == IORING_OP_READ || opcode == IORING_OP_WRITE) {
            sb.append(" offset=").append(off).append(" length=").append(len);
        }
        if (opcode == IORING_OP_TIMEOUT) sb.append(" nanos=").append(addr3);
        if (state == DONE) sb.append(" result=").append(result);
        return sb.append(']').toString();
    }

    /** Nanoseconds for a timeout request. */
    long timeoutNanos() {
        return addr3;
    }

    /**
     * The future of a request: completes with the result, or exceptionally with the {@link IOException} naming the
     * errno; {@link #cancel(boolean)} asks the engine to cancel the request in the kernel as well.
     */
    static final class OpFuture extends CompletableFuture<Long> {
        private final IoOp op;

        OpFuture(IoOp op) {
            this.op = op;
        }

        void settle(IoOp o, long r) {
            if (o.closedByEngine) {
                completeExceptionally(new EngineClosedException(o.engine.name()));
            } else if (r >= 0) {
                complete(r);
            } else {
                completeExceptionally(o.error(r));
            }
        }

        /**
         * Cancels the future and asks the engine to cancel the request. The buffer may still be in use by the
         * kernel until {@link IoOp#isDone()} is true.
         */
        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            boolean cancelled = super.cancel(mayInterruptIfRunning);
            if (cancelled && op.engine != null) op.engine.cancel(op);
            return cancelled;
        }
    }
}
