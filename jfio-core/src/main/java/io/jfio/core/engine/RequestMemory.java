package io.jfio.core.engine;

import io.jfio.core.sys.Errno;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Not thread-safe: built by the submitting thread, then used by the one thread that completes the request (the
 * engine publishes the request between them). The memory the kernel touches for one request, and why it cannot be
 * freed before the kernel is done with it.
 *
 * <p>Each caller segment the kernel reads or writes is handed over in one of three ways:
 * <ul>
 *   <li>directly, when it cannot be freed while the request holds it: memory of an open {@link IoArena} (held
 *       here until {@link #release()}), memory freed only once unreachable (the request references it), and memory
 *       confined to the thread that blocks in {@link IoEngine#execute} until the request is over (only that thread
 *       could close its arena);</li>
 *   <li>through a bounce buffer of the engine's {@link BouncePool} otherwise: filled from the caller's segment now
 *       when the kernel reads it, copied to the caller's segment at completion when the kernel writes it, or the
 *       request fails with EFAULT if the caller's arena was closed meanwhile;</li>
 *   <li>refused, when it must be copied at completion but only another thread may access it.</li>
 * </ul>
 */
final class RequestMemory {
    private final BouncePool pool;
    private final Thread waiter;
    private IoArena[] pins = new IoArena[1];
    private int pinCount;
    private BouncePool.Buffer[] bounces = new BouncePool.Buffer[1];
    private int bounceCount;
    /** Pairs (bounce buffer, caller segment) to copy at completion, in the order the kernel fills them. */
    private MemorySegment[] outputs = new MemorySegment[2];
    private int outputCount;
    private boolean released;

    RequestMemory(BouncePool pool, Thread waiter) {
        this.pool = pool;
        this.waiter = waiter;
    }

    /**
     * True when the kernel may use {@code s} itself for the whole request, whatever thread submits it: memory of an
     * {@link IoArena} or memory freed only once unreachable.
     */
    static boolean neverFreedInFlight(MemorySegment s) {
        return IoArena.of(s) != null || KernelMemory.freedOnlyWhenUnreachable(s);
    }

    /**
     * True when a request writing into {@code s} goes through a bounce buffer whoever submits it, so that nothing
     * may be linked after it.
     */
    static boolean alwaysBouncedOutput(MemorySegment s) {
        return !neverFreedInFlight(s) && !KernelMemory.confined(s);
    }

    /** The segment the kernel reads in place of {@code s}: {@code s} itself or a bounce buffer filled from it. */
    MemorySegment input(MemorySegment s, String what) {
        if (direct(s, what)) return s;
        MemorySegment b = bounce(s.byteSize());
        try {
            MemorySegment.copy(s, 0, b, 0, s.byteSize());
        } catch (WrongThreadException e) {
            throw new IllegalArgumentException(what + " is confined to another thread: only its owner may submit a"
                    + " request on it", e);
        } catch (IllegalStateException e) {
            throw new IllegalStateException(what + " belongs to a closed arena", e);
        }
        return b;
    }

    /** The segment the kernel writes in place of {@code s}: {@code s} itself or a bounce buffer copied at the end. */
    MemorySegment output(MemorySegment s, String what) {
        if (direct(s, what)) return s;
        if (KernelMemory.confined(s)) {
            throw new IllegalArgumentException(what + " is confined to another thread, or the request is"
                    + " asynchronous: the engine could not copy into it at completion; use a shared arena or an"
                    + " IoArena");
        }
        MemorySegment b = bounce(s.byteSize());
        if (outputCount + 2 > outputs.length) outputs = Arrays.copyOf(outputs, outputs.length * 2);
        outputs[outputCount++] = b;
        outputs[outputCount++] = s;
        return b;
    }

    /** Engine-owned memory of {@code size} bytes for the kernel (an iovec array the engine builds). */
    MemorySegment scratch(long size) {
        return bounce(size);
    }

    /** True when the request's results reach the caller only by a copy at completion. */
    boolean copiesOut() {
        return outputCount > 0;
    }

    /**
     * Copies what the kernel wrote into bounce buffers to the caller's segments: the first {@code n} bytes, in order,
     * or with {@code n < 0} every buffer whole. Returns 0, or -EFAULT when a caller's arena was closed meanwhile.
     */
    long copyOut(long n) {
        long left = n < 0 ? Long.MAX_VALUE : n;
        for (int i = 0; i < outputCount && left > 0; i += 2) {
            MemorySegment from = outputs[i];
            MemorySegment to = outputs[i + 1];
            long k = Math.min(left, to.byteSize());
            try {
                if (!to.scope().isAlive()) return -Errno.EFAULT;
                MemorySegment.copy(from, 0, to, 0, k);
            } catch (IllegalStateException | WrongThreadException closedMeanwhile) {
                return -Errno.EFAULT;
            }
            left -= k;
        }
        return 0;
    }

    /** Lets go of the IoArenas held and gives the bounce buffers back. Idempotent. */
    void release() {
        if (released) return;
        released = true;
        for (int i = 0; i < pinCount; i++) pins[i].release();
        for (int i = 0; i < bounceCount; i++) pool.give(bounces[i]);
        pinCount = 0;
        bounceCount = 0;
        outputCount = 0;
    }

    private boolean direct(MemorySegment s, String what) {
        if (!s.scope().isAlive()) throw new IllegalStateException(what + " belongs to a closed arena");
        IoArena arena = IoArena.of(s);
        if (arena != null) {
            if (!arena.acquire()) throw new IllegalStateException(what + " belongs to a closed IoArena");
            if (pinCount == pins.length) pins = Arrays.copyOf(pins, pins.length * 2);
            pins[pinCount++] = arena;
            return true;
        }
        if (KernelMemory.freedOnlyWhenUnreachable(s)) return true;
        return KernelMemory.confined(s) && waiter == Thread.currentThread() && s.isAccessibleBy(waiter);
    }

    private MemorySegment bounce(long size) {
        BouncePool.Buffer b = pool.take(size);
        if (bounceCount == bounces.length) bounces = Arrays.copyOf(bounces, bounces.length * 2);
        bounces[bounceCount++] = b;
        return b.segment();
    }
}
