package io.jfio.core.engine;

import static io.jfio.core.uring.UringConstants.IORING_OP_READ;
import static io.jfio.core.uring.UringConstants.IORING_OP_READ_FIXED;

import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.Iovec;
import io.jfio.core.sys.LibC;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * The inline attempt of a blocking read: preadv2 with RWF_NOWAIT on the calling thread, which the kernel answers
 * from the page cache or refuses with EAGAIN without waiting for the device. A read served this way skips the hand-off
 * to a ring thread and back (two wake-ups); one refused goes to the ring as usual.
 *
 * <p>Thread-safe; the iovec each attempt needs comes from a small pool of slots claimed with a CAS (a virtual thread
 * has no cheap thread-local memory), or from a confined arena of its own when every slot is taken.
 */
final class NowaitRead {
    /** Slots of the iovec pool; each on its own cache line. */
    private static final int SLOTS = 64;
    private static final long STRIDE = 64;
    private static final MemorySegment IOVECS = Arena.global().allocate(STRIDE * SLOTS, STRIDE);
    private static final AtomicIntegerArray BUSY = new AtomicIntegerArray(SLOTS);

    /** The result meaning "not done inline: submit to the ring". */
    static final long NOT_DONE = Long.MIN_VALUE;

    private NowaitRead() {
    }

    /** True for a lone read into memory (no chain, no linked timeout) that nobody asked to cancel. */
    static boolean eligible(IoOp head) {
        return head.next == null && head.linkTimeoutNanos < 0 && !head.cancelRequested && head.kbuf != null
                && (head.opcode == IORING_OP_READ || head.opcode == IORING_OP_READ_FIXED);
    }

    /**
     * Tries the read without waiting for the device.
     *
     * @return the bytes read (0 at end of file), or {@link #NOT_DONE} when the data is not all cached, the descriptor
     *     is opened with O_DIRECT (a direct read would wait for the device even with RWF_NOWAIT), or the file does
     *     not support RWF_NOWAIT (pipes, sockets, some file systems): the ring then does the read
     */
    static long attempt(IoOp op) {
        int fl = LibC.fcntl(op.fd, Fcntl.F_GETFL, 0);
        if (fl < 0 || (fl & Fcntl.O_DIRECT) != 0) return NOT_DONE;
        int slot = (int) (Thread.currentThread().threadId() & (SLOTS - 1));
        for (int i = 0; i < 4; i++, slot = (slot + 1) & (SLOTS - 1)) {
            if (BUSY.compareAndSet(slot, 0, 1)) {
                try {
                    return read(op, IOVECS.asSlice(STRIDE * slot, Iovec.SIZE));
                } finally {
                    BUSY.set(slot, 0);
                }
            }
        }
        try (Arena a = Arena.ofConfined()) {
            return read(op, a.allocate(Iovec.SIZE, 8));
        }
    }

    private static long read(IoOp op, MemorySegment iov) {
        Iovec.set(iov, 0, MemorySegment.ofAddress(op.kbuf.address()).reinterpret(op.len));
        long r = LibC.preadv2(op.fd, iov, 1, op.off, Fcntl.RWF_NOWAIT);
        if (r < 0) return NOT_DONE; // EAGAIN (not cached), EOPNOTSUPP, ESPIPE, ...: the ring gives the real answer
        if (r < op.len && r > 0) {
            // Part of the range is cached: a short read is allowed, but the ring would have read it all, so the
            // caller gets what it would get from the ring.
            return NOT_DONE;
        }
        return r;
    }
}
