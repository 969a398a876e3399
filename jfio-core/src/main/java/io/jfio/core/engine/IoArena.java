package io.jfio.core.engine;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Thread-safe: any thread may allocate, submit requests on its memory, or close it. An arena whose memory the engines
 * hand to the kernel without a copy, because it cannot be freed under a request: {@link #close()} frees the memory
 * only once no request submitted on it is in flight.
 *
 * <p>The JDK has no public way to hold a caller's arena open while the kernel writes into it, so the engines read
 * into memory of an explicitly closeable arena ({@link Arena#ofConfined()}, {@link Arena#ofShared()}) through a
 * bounce buffer and copy at completion (see {@link IoOp#read}). Memory of an {@code IoArena} is counted instead:
 * each request on it holds the arena from submission until completion, and a close that finds requests in flight
 * only marks the arena closed (no new allocation or request is accepted); the last completion frees it. Until then
 * its segments stay alive.
 */
public final class IoArena implements Arena {
    /** Open arenas by scope: how a request finds the arena of its buffer. */
    private static final Map<MemorySegment.Scope, IoArena> OPEN = new ConcurrentHashMap<>();

    private final Arena arena = Arena.ofShared();
    private int inFlight;
    private boolean closeRequested;

    private IoArena() {
        OPEN.put(arena.scope(), this);
    }

    /**
     * A new arena, usable from any thread.
     *
     * @return the arena, which the caller closes
     */
    public static IoArena ofShared() {
        return new IoArena();
    }

    /** The open arena {@code segment} belongs to, or null when it belongs to none. */
    static IoArena of(MemorySegment segment) {
        return OPEN.get(segment.scope());
    }

    @Override
    public MemorySegment allocate(long byteSize, long byteAlignment) {
        synchronized (this) {
            if (closeRequested) {
                throw new IllegalStateException("IoArena closed: cannot allocate " + byteSize + " bytes");
            }
        }
        return arena.allocate(byteSize, byteAlignment);
    }

    @Override
    public MemorySegment.Scope scope() {
        return arena.scope();
    }

    /**
     * Requests in flight on this arena's memory.
     *
     * @return the number of requests
     */
    public synchronized int inFlight() {
        return inFlight;
    }

    /** Counts a request in; false when the arena is closed (the request must be refused). */
    synchronized boolean acquire() {
        if (closeRequested) return false;
        inFlight++;
        return true;
    }

    /** Counts a request out; frees the memory if the arena was closed meanwhile and this was the last request. */
    void release() {
        synchronized (this) {
            if (inFlight <= 0) throw new IllegalStateException("IoArena released more often than acquired");
            if (--inFlight > 0 || !closeRequested) return;
        }
        free();
    }

    /**
     * Closes the arena: no new allocation or request is accepted. The memory is freed now if no request on it is in
     * flight, else by the completion of the last one; its segments stay alive until then.
     *
     * @throws IllegalStateException if the arena was closed before
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closeRequested) throw new IllegalStateException("IoArena already closed");
            closeRequested = true;
            if (inFlight > 0) return;
        }
        free();
    }

    private void free() {
        OPEN.remove(arena.scope());
        arena.close();
    }

    @Override
    public synchronized String toString() {
        return "IoArena[in_flight=" + inFlight + (closeRequested ? " closed" : "") + "]";
    }
}
