package io.jfio.core.engine;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

/**
 * The completion side of a ring: the kernel-shared head, tail and overflow words and the CQE array.
 *
 * <p>Not thread-safe; owned by the ring thread. The tail is the kernel's: an acquire load makes the CQEs it covers
 * visible. The head is ours: we keep a shadow copy and release it after the CQEs have been read, so the kernel never
 * overwrites a CQE we are still reading.
 */
final class CompletionQueue {
    private static final VarHandle INT = JAVA_INT.varHandle();

    private final MemorySegment ring;
    private final long headOff;
    private final long tailOff;
    private final long overflowOff;
    private final long cqesOff;
    private final int mask;
    private final int entries;
    private int localHead;

    CompletionQueue(MemorySegment ring, MemorySegment params) {
        this.ring = ring;
        this.headOff = UringParams.cqOff(params, UringParams.CQ_HEAD);
        this.tailOff = UringParams.cqOff(params, UringParams.CQ_TAIL);
        this.overflowOff = UringParams.cqOff(params, UringParams.CQ_OVERFLOW);
        this.cqesOff = UringParams.cqOff(params, UringParams.CQ_CQES);
        this.mask = ring.get(JAVA_INT, UringParams.cqOff(params, UringParams.CQ_RING_MASK));
        this.entries = ring.get(JAVA_INT, UringParams.cqOff(params, UringParams.CQ_RING_ENTRIES));
        this.localHead = ring.get(JAVA_INT, headOff);
    }

    /** The number of CQ entries. */
    int entries() {
        return entries;
    }

    /** CQEs ready to be read. Acquire: pairs with the kernel's release store of the tail after writing the CQEs. */
    int ready() {
        return (int) INT.getAcquire(ring, tailOff) - localHead;
    }

    /** Byte offset in {@link #ring()} of the {@code i}-th ready CQE (0 = oldest). */
    long cqeBase(int i) {
        return cqesOff + (long) ((localHead + i) & mask) * Cqe.SIZE;
    }

    MemorySegment ring() {
        return ring;
    }

    /** The user_data of the {@code i}-th ready CQE. */
    long userData(int i) {
        return Cqe.userData(ring, cqeBase(i));
    }

    /** The result of the {@code i}-th ready CQE: a count, a descriptor, or -errno. */
    int res(int i) {
        return Cqe.res(ring, cqeBase(i));
    }

    /** The IORING_CQE_F_* flags of the {@code i}-th ready CQE. */
    int flags(int i) {
        return Cqe.flags(ring, cqeBase(i));
    }

    /**
     * Marks {@code n} CQEs as consumed. Release: our reads of those CQEs happen before the kernel may reuse their
     * slots.
     */
    void advance(int n) {
        localHead += n;
        INT.setRelease(ring, headOff, localHead);
    }

    /** CQEs the kernel had to drop because the CQ was full (never with IORING_FEAT_NODROP, which jfio requires). */
    int overflow() {
        return (int) INT.getOpaque(ring, overflowOff);
    }
}
