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
import static io.jfio.core.uring.UringConstants.IORING_OP_WRITE;
import static io.jfio.core.uring.UringConstants.IORING_OP_WRITEV;
import static io.jfio.core.uring.UringConstants.IORING_OP_WRITE_FIXED;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.jfio.core.sys.Errno;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Executes one {@link IoOp} with the equivalent plain system call, for the thread engine.
 *
 * <p>Thread-safe; stateless. Retries EINTR (a signal arriving mid-call is not a failure of the request). Returns the
 * result in the io_uring convention: {@code >= 0} or {@code -errno}.
 */
final class Syscalls {
    /** How often a request waiting on a pipe or socket checks whether it was cancelled. */
    static final int CANCEL_CHECK_MILLIS = 20;

    private Syscalls() {
    }

    /** The opcodes {@link #run} implements. */
    static boolean implemented(int opcode) {
        return switch (opcode) {
            case IORING_OP_NOP, IORING_OP_READ, IORING_OP_READ_FIXED, IORING_OP_WRITE, IORING_OP_WRITE_FIXED,
                 IORING_OP_READV, IORING_OP_WRITEV, IORING_OP_FSYNC, IORING_OP_SYNC_FILE_RANGE, IORING_OP_FALLOCATE,
                 IORING_OP_FADVISE, IORING_OP_OPENAT, IORING_OP_CLOSE, IORING_OP_STATX, IORING_OP_SPLICE -> true;
            default -> false;
        };
    }

    static long run(IoOp op) {
        long r;
        do {
            r = once(op);
        } while (r == -Errno.EINTR && op.opcode != IORING_OP_CLOSE); // close must never be retried: the fd is gone
        return r;
    }

    private static long once(IoOp op) {
        return switch (op.opcode) {
            case IORING_OP_NOP -> 0;
            case IORING_OP_READ, IORING_OP_READ_FIXED -> readWrite(op, false);
            case IORING_OP_WRITE, IORING_OP_WRITE_FIXED -> readWrite(op, true);
            case IORING_OP_READV -> LibC.preadv(op.fd, raw(op.kbuf), op.len, op.off);
            case IORING_OP_WRITEV -> LibC.pwritev(op.fd, raw(op.kbuf), op.len, op.off);
            case IORING_OP_FSYNC -> (op.opFlags & IORING_FSYNC_DATASYNC) != 0 ? LibC.fdatasync(op.fd)
                    : LibC.fsync(op.fd);
            case IORING_OP_SYNC_FILE_RANGE -> LibC.syncFileRange(op.fd, op.off, Integer.toUnsignedLong(op.len),
                    op.opFlags);
            case IORING_OP_FALLOCATE -> LibC.fallocate(op.fd, op.len, op.off, op.addr);
            case IORING_OP_FADVISE -> LibC.posixFadvise(op.fd, op.off, Integer.toUnsignedLong(op.len), op.opFlags);
            case IORING_OP_OPENAT -> LibC.openat(op.fd, raw(op.kbuf), op.opFlags, op.len);
            case IORING_OP_CLOSE -> LibC.close(op.fd);
            case IORING_OP_STATX -> LibC.statx(op.fd, raw(op.kbuf), op.opFlags, op.len, raw(op.kbuf2));
            case IORING_OP_SPLICE -> splice(op);
            default -> -Errno.EOPNOTSUPP;
        };
    }

    /**
     * The request's memory as a segment of the global scope: the caller's segment may belong to a confined arena
     * of the submitting thread, which a pool thread may not pass to a downcall (WrongThreadException). Like the
     * kernel with io_uring we use the address: the request's {@link RequestMemory} keeps it from being freed
     * until the request completes (or it is a bounce buffer the engine owns).
     */
    private static MemorySegment raw(MemorySegment s) {
        return s == null ? null : MemorySegment.ofAddress(s.address()).reinterpret(s.byteSize());
    }

    private static long readWrite(IoOp op, boolean write) {
        MemorySegment buf = raw(op.kbuf);
        long r = write ? LibC.pwrite(op.fd, buf, op.len, op.off) : LibC.pread(op.fd, buf, op.len, op.off);
        return r == -Errno.ESPIPE ? stream(op, write) : r;
    }

    /**
     * A read or write of a pipe, FIFO, socket or character device, which have no offset (pread says ESPIPE):
     * io_uring ignores the offset of such files, and so do we. Such a request may wait for a peer forever, so it
     * waits in poll(2) in slices of {@link #CANCEL_CHECK_MILLIS}, checking for cancellation between them; once the
     * descriptor is ready, the read or write itself runs (and reports EOF, EPIPE or EBADF if that is what is ready).
     * A second reader that drains the data first can still leave this one blocked in read(2), uncancellable.
     */
    private static long stream(IoOp op, boolean write) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment pollfd = a.allocate(8, 4); // struct pollfd { int fd; short events; short revents; }
            pollfd.set(JAVA_INT, 0, op.fd);
            pollfd.set(JAVA_SHORT, 4, (short) (write ? Fcntl.POLLOUT : Fcntl.POLLIN));
            while (true) {
                // Run inline by the waiting thread itself (a blocking call from a platform thread), nobody else
                // sees its interrupt: it cancels the request here, as the engine would on a hand-off.
                if (op.waiter == Thread.currentThread() && Thread.currentThread().isInterrupted()) {
                    op.cancelRequested = true;
                }
                if (op.cancelRequested) return -Errno.ECANCELED;
                pollfd.set(JAVA_SHORT, 6, (short) 0);
                int n = LibC.poll(pollfd, 1, CANCEL_CHECK_MILLIS);
                if (n == 0 || n == -Errno.EINTR) continue;
                if (n < 0) return n;
                MemorySegment buf = raw(op.kbuf);
                return write ? LibC.write(op.fd, buf, op.len) : LibC.read(op.fd, buf, op.len);
            }
        }
    }

    private static long splice(IoOp op) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment offIn = MemorySegment.NULL;
            MemorySegment offOut = MemorySegment.NULL;
            if (op.addr != -1) offIn = a.allocateFrom(JAVA_LONG, op.addr);
            if (op.off != -1) offOut = a.allocateFrom(JAVA_LONG, op.off);
            return LibC.splice(op.spliceFdIn, offIn, op.fd, offOut, Integer.toUnsignedLong(op.len), op.opFlags);
        }
    }
}
