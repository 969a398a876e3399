package io.jfio.core.engine;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

/**
 * The submission side of a ring: the kernel-shared head, tail and flags words and the SQE array.
 *
 * <p>Not thread-safe; owned by the ring thread. The tail is ours: we keep a local shadow copy, write SQEs beyond the
 * published tail, and publish them all at once with a release store. The head is the kernel's: it moves as the
 * kernel consumes SQEs, and we read it with an acquire load.
 */
final class SubmissionQueue {
    private static final VarHandle INT = JAVA_INT.varHandle();

    private final MemorySegment ring;
    private final MemorySegment sqes;
    private final long headOff;
    private final long tailOff;
    private final long flagsOff;
    private final long droppedOff;
    private final int mask;
    private final int entries;
    private int localTail;

    SubmissionQueue(MemorySegment ring, MemorySegment sqes, MemorySegment params) {
        this.ring = ring;
        this.sqes = sqes;
        this.headOff = UringParams.sqOff(params, UringParams.SQ_HEAD);
        this.tailOff = UringParams.sqOff(params, UringParams.SQ_TAIL);
        this.flagsOff = UringParams.sqOff(params, UringParams.SQ_FLAGS);
        this.droppedOff = UringParams.sqOff(params, UringParams.SQ_DROPPED);
        this.mask = ring.get(JAVA_INT, UringParams.sqOff(params, UringParams.SQ_RING_MASK));
        this.entries = ring.get(JAVA_INT, UringParams.sqOff(params, UringParams.SQ_RING_ENTRIES));
        // Identity-map the indirection array once: SQE slot i is always array entry i, so only the tail moves.
        long arrayOff = UringParams.sqOff(params, UringParams.SQ_ARRAY);
        for (int i = 0; i < entries; i++) ring.set(JAVA_INT, arrayOff + 4L * i, i);
        // Plain read is fine here: no SQE has been submitted yet, so the kernel has not moved the tail.
        this.localTail = ring.get(JAVA_INT, tailOff);
    }

    /** The number of SQ entries. */
    int entries() {
        return entries;
    }

    /** The kernel's head. Acquire: SQE slots before it are free for us to overwrite only once we see it move. */
    int head() {
        return (int) INT.getAcquire(ring, headOff);
    }

    /** Free SQE slots. */
    int space() {
        return entries - (localTail - head());
    }

    /** SQEs written and published but not yet consumed by the kernel, plus those written and not yet published. */
    int pending() {
        return localTail - head();
    }

    /**
     * Claims the next SQE slot; the caller must have checked {@link #space()}. Returns the byte offset of the slot
     * in {@link #sqes()}.
     */
    long claim() {
        long base = (long) (localTail & mask) * Sqe.SIZE;
        localTail++;
        return base;
    }

    MemorySegment sqes() {
        return sqes;
    }

    /**
     * Claims the next SQE and writes every field of it. The caller must have checked {@link #space()}; the SQE is
     * seen by the kernel only after {@link #publish()}.
     */
    void prepare(int opcode, int flags, int fd, long off, long addr, int len, int opFlags, long userData,
                        int bufIndex, int spliceFdIn, long addr3) {
        Sqe.write(sqes, claim(), opcode, flags, fd, off, addr, len, opFlags, userData, bufIndex, spliceFdIn, addr3);
    }

    /**
     * Publishes every claimed SQE to the kernel. Release: the SQE contents written before must be visible to the
     * kernel before it can see the new tail (io_uring_enter reads the tail with an acquire load).
     *
     * @return how many SQEs the kernel has yet to consume
     */
    int publish() {
        INT.setRelease(ring, tailOff, localTail);
        return localTail - head();
    }

    /**
     * The SQ ring flags (IORING_SQ_NEED_WAKEUP, IORING_SQ_CQ_OVERFLOW, IORING_SQ_TASKRUN). The kernel sets them
     * asynchronously and they only advise us to enter the kernel, so an opaque load (no ordering) suffices; a
     * caller checking NEED_WAKEUP after publishing must issue {@link VarHandle#fullFence()} first.
     */
    int flags() {
        return (int) INT.getOpaque(ring, flagsOff);
    }

    /** SQEs the kernel dropped as invalid (only ever non-zero with a ring that has no SQ array). */
    int dropped() {
        return (int) INT.getOpaque(ring, droppedOff);
    }
}
