package io.jfio.core.engine;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;

/**
 * Thread-safe: any thread may take or give back a buffer, and close the pool; each size class has its own lock. The
 * buffers an engine gives the kernel in place of caller memory that could be freed under a request (see
 * {@link RequestMemory}): reused instead of allocated per request, so that bouncing costs a copy, not an allocation
 * that zeroes the memory and a cleaner that frees it.
 *
 * <p>Size classes are powers of two from {@link #MIN_CLASS} to {@link #MAX_CLASS}, each buffer aligned to 4 KiB
 * (any O_DIRECT alignment). At most {@link #RETAINED_BYTES} of idle buffers are kept per class; a buffer given back
 * beyond that, one larger than the largest class, and every buffer given back after {@link #close()} is freed at
 * once. Buffers in use are bounded by the requests in flight, not by the pool.
 */
final class BouncePool implements AutoCloseable {
    /** Smallest size class. */
    static final long MIN_CLASS = 4096;
    /** Largest size class; larger buffers are allocated and freed per request. */
    static final long MAX_CLASS = 1L << 20;
    /** Idle bytes kept per size class. */
    static final long RETAINED_BYTES = 4L << 20;

    private static final long ALIGN = 4096;
    private static final int CLASSES = Long.numberOfTrailingZeros(MAX_CLASS) - Long.numberOfTrailingZeros(MIN_CLASS)
            + 1;

    private final SizeClass[] classes = new SizeClass[CLASSES];

    BouncePool() {
        for (int i = 0; i < CLASSES; i++) classes[i] = new SizeClass(MIN_CLASS << i);
    }

    /** A buffer of at least {@code size} bytes; its {@link Buffer#segment()} is exactly {@code size} bytes. */
    Buffer take(long size) {
        long need = Math.max(size, 1);
        if (need > MAX_CLASS) return new Buffer(null, Arena.ofShared(), need, size);
        SizeClass c = classes[classIndex(need)];
        Buffer b = c.poll();
        return b != null ? b.resize(size) : new Buffer(c, Arena.ofShared(), c.size, size);
    }

    /** Gives {@code b} back: kept for reuse, or freed. The kernel must be done with it. */
    void give(Buffer b) {
        if (b.home == null || !b.home.offer(b)) b.arena.close();
    }

    /** Frees every idle buffer; buffers still in use are freed when given back. Idempotent. */
    @Override
    public void close() {
        for (SizeClass c : classes) c.close();
    }

    /** Idle bytes kept, for tests and diagnostics. */
    long retainedBytes() {
        long n = 0;
        for (SizeClass c : classes) n += c.retained();
        return n;
    }

    private static int classIndex(long size) {
        long rounded = Math.max(MIN_CLASS, Long.highestOneBit(size - 1) << 1);
        return Long.numberOfTrailingZeros(rounded) - Long.numberOfTrailingZeros(MIN_CLASS);
    }

    /** One size class: a stack of idle buffers, most recently used first (warm in the cache). */
    private static final class SizeClass {
        final long size;
        private final int max;
        private final ArrayDeque<Buffer> idle = new ArrayDeque<>();
        private boolean closed;

        SizeClass(long size) {
            this.size = size;
            this.max = (int) Math.max(2, RETAINED_BYTES / size);
        }

        synchronized Buffer poll() {
            return idle.pollFirst();
        }

        synchronized boolean offer(Buffer b) {
            if (closed || idle.size() >= max) return false;
            idle.addFirst(b);
            return true;
        }

        void close() {
            ArrayDeque<Buffer> drop;
            synchronized (this) {
                closed = true;
                drop = new ArrayDeque<>(idle);
                idle.clear();
            }
            for (Buffer b : drop) b.arena.close();
        }

        synchronized long retained() {
            return idle.size() * size;
        }
    }

    /** A buffer of the pool: its own arena, so that it can be freed alone. Used by one request at a time. */
    static final class Buffer {
        private final SizeClass home;
        private final Arena arena;
        private final MemorySegment whole;
        private MemorySegment segment;

        private Buffer(SizeClass home, Arena arena, long capacity, long size) {
            this.home = home;
            this.arena = arena;
            this.whole = arena.allocate(capacity, ALIGN);
            this.segment = whole.asSlice(0, size);
        }

        private Buffer resize(long size) {
            segment = whole.asSlice(0, size);
            return this;
        }

        /** The bytes the request asked for, at the start of the buffer. */
        MemorySegment segment() {
            return segment;
        }
    }
}
