package io.jfio.core.engine;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * Thread-safe: {@link #release()} may be called from any thread, once effective. The buffers registered with an
 * engine for {@link IoOp#readFixed} and {@link IoOp#writeFixed}, kept alive for as long as they are registered.
 *
 * <p>The kernel reaches registered buffers by address long after registration, so only memory that cannot be freed
 * under it is accepted: memory of an open {@link IoArena}, which the registration holds (closing the arena frees it
 * only once the buffers are unregistered), and memory freed only once unreachable ({@link
 * java.lang.foreign.Arena#ofAuto()}, {@link java.lang.foreign.Arena#global()}, direct buffers), which the
 * registration references.
 */
final class RegisteredBuffers {
    private final MemorySegment[] buffers;
    private final List<IoArena> pins;
    private boolean released;

    private RegisteredBuffers(MemorySegment[] buffers, List<IoArena> pins) {
        this.buffers = buffers;
        this.pins = pins;
    }

    /**
     * Checks and holds {@code buffers}.
     *
     * @throws IllegalArgumentException for a heap segment or memory of an arena that may be closed under the
     *                                  registration
     * @throws IllegalStateException    for memory already freed
     */
    static RegisteredBuffers hold(MemorySegment... buffers) {
        MemorySegment[] copy = buffers.clone();
        for (int i = 0; i < copy.length; i++) {
            MemorySegment b = copy[i];
            if (!b.isNative()) throw new IllegalArgumentException("registered buffer " + i + " is a heap segment:"
                    + " registered buffers must be native memory");
            if (!b.scope().isAlive()) throw new IllegalStateException("registered buffer " + i + " belongs to a"
                    + " closed arena");
            if (!RequestMemory.neverFreedInFlight(b)) {
                throw new IllegalArgumentException("registered buffer " + i + " belongs to an arena that may be"
                        + " closed while the kernel still uses it: register memory of an IoArena, Arena.ofAuto(),"
                        + " Arena.global() or a direct buffer");
            }
        }
        List<IoArena> pins = new ArrayList<>();
        for (MemorySegment b : copy) {
            IoArena arena = IoArena.of(b);
            if (arena == null) continue;
            if (!arena.acquire()) {
                for (IoArena p : pins) p.release();
                throw new IllegalStateException("a registered buffer belongs to a closed IoArena");
            }
            pins.add(arena);
        }
        return new RegisteredBuffers(copy, pins);
    }

    /** How many buffers are held. */
    int count() {
        return buffers.length;
    }

    /** The buffers, in registration order. */
    MemorySegment[] buffers() {
        return buffers.clone();
    }

    /** Lets go of the buffers: the kernel must no longer use them (unregistered, or the ring is closed). */
    void release() {
        synchronized (this) {
            if (released) return;
            released = true;
        }
        for (IoArena p : pins) p.release();
    }
}
