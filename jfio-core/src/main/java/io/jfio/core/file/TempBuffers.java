package io.jfio.core.file;

import io.jfio.core.sys.LibC;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Scratch native memory: bounce buffers that carry heap {@link java.nio.ByteBuffer}s to and from the kernel, and
 * iovec arrays. The kernel can only address native memory, and the garbage collector may move a heap array while a
 * request is in flight, so heap data always goes through one of these.
 *
 * <p>Thread-safe. Like the JDK's temporary direct buffer cache, each platform thread keeps a few buffers
 * ({@link #PER_THREAD}, each at most {@link #MAX_CACHED} bytes) for reuse without synchronisation. Virtual threads
 * are many and short-lived, so a per-thread cache would hold native memory per virtual thread until the collector
 * noticed it; they share one small pool ({@link #SHARED}) instead. Anything larger than {@link #MAX_CACHED} is
 * allocated for the call and not kept: callers chunk big transfers rather than ask for it.
 *
 * <p>Buffers are page-aligned and their sizes are powers of two of at least a page, which meets any O_DIRECT
 * alignment up to the page size for both the address and, when chunking by the buffer size, the length. Memory
 * comes from automatic arenas, so a buffer that falls out of the cache is freed by the collector once unreachable,
 * never while a request still refers to it ({@link io.jfio.core.engine.IoOp} holds its segments).
 */
final class TempBuffers {
    /** Largest buffer kept for reuse, and the chunk size for copying heap buffers. */
    static final int MAX_CACHED = 1 << 20;
    private static final int PER_THREAD = 4;
    private static final int SHARED = 16;
    private static final int MIN_SIZE = Math.max(4096, LibC.pageSize());
    private static final long ALIGN = Math.max(4096, LibC.pageSize());

    private static final ThreadLocal<MemorySegment[]> LOCAL =
            ThreadLocal.withInitial(() -> new MemorySegment[PER_THREAD]);
    /** The virtual threads' pool; guarded by its own monitor (held only to scan a 16-slot array). */
    private static final MemorySegment[] SHARED_POOL = new MemorySegment[SHARED];

    private TempBuffers() {
    }

    /**
     * A page-aligned buffer of at least {@code size} bytes, with unspecified contents. Give it back with
     * {@link #give} when no request uses it any more.
     */
    static MemorySegment take(long size) {
        if (size < 0) throw new IllegalArgumentException("negative size: size=" + size);
        if (size > MAX_CACHED) return allocate(size);
        MemorySegment found;
        if (Thread.currentThread().isVirtual()) {
            synchronized (SHARED_POOL) {
                found = takeFrom(SHARED_POOL, size);
            }
        } else {
            found = takeFrom(LOCAL.get(), size);
        }
        return found != null ? found : allocate(roundUp(size));
    }

    /** Returns a buffer from {@link #take} for reuse; it may be dropped (and later freed by the collector). */
    static void give(MemorySegment buffer) {
        if (buffer.byteSize() > MAX_CACHED) return;
        if (Thread.currentThread().isVirtual()) {
            synchronized (SHARED_POOL) {
                putInto(SHARED_POOL, buffer);
            }
        } else {
            putInto(LOCAL.get(), buffer);
        }
    }

    /** Removes and returns the smallest cached buffer that is big enough, or null. */
    private static MemorySegment takeFrom(MemorySegment[] cache, long size) {
        int best = -1;
        for (int i = 0; i < cache.length; i++) {
            MemorySegment s = cache[i];
            if (s != null && s.byteSize() >= size && (best < 0 || s.byteSize() < cache[best].byteSize())) best = i;
        }
        if (best < 0) return null;
        MemorySegment s = cache[best];
        cache[best] = null;
        return s;
    }

    /** Stores {@code buffer} in a free slot, or in place of the smallest cached buffer if that is smaller. */
    private static void putInto(MemorySegment[] cache, MemorySegment buffer) {
        int smallest = -1;
        for (int i = 0; i < cache.length; i++) {
            if (cache[i] == null) {
                cache[i] = buffer;
                return;
            }
            if (smallest < 0 || cache[i].byteSize() < cache[smallest].byteSize()) smallest = i;
        }
        // Full: keeping the bigger buffer serves more future requests (a big one can carry a small copy).
        if (cache[smallest].byteSize() < buffer.byteSize()) cache[smallest] = buffer;
    }

    private static long roundUp(long size) {
        if (size <= MIN_SIZE) return MIN_SIZE;
        return Long.highestOneBit(size - 1) << 1;
    }

    private static MemorySegment allocate(long size) {
        return Arena.ofAuto().allocate(Math.max(size, 1), ALIGN);
    }
}
