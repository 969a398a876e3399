package io.jfio.core.file;

import io.jfio.core.engine.IoArena;
import io.jfio.core.engine.IoEngine;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A fixed set of equal-sized, aligned native buffers carved from one slab: for O_DIRECT (any alignment up to the
 * page size works) and for io_uring registered-buffer I/O (the whole slab is one registered buffer, index 0).
 *
 * <p>Thread-safe. {@link #acquire()} blocks (parking a virtual thread) while every buffer is in use. Releasing a
 * buffer twice, releasing a foreign segment, or closing the pool while buffers are out fails with
 * {@link IllegalStateException}: the pool never frees memory a request may still be using.
 */
public final class BufferPool implements AutoCloseable {
    /** The engines read into this memory directly, and it outlives any request still on it. */
    private final IoArena arena = IoArena.ofShared();
    private final MemorySegment slab;
    private final long bufferSize;
    private final int count;
    private final ArrayBlockingQueue<MemorySegment> free;
    private final boolean[] out;
    private boolean closed;

    /**
     * Allocates the pool's slab and cuts it into {@code count} buffers.
     *
     * @param count      how many buffers
     * @param bufferSize bytes each; a multiple of {@code alignment}
     * @param alignment  a power of two, e.g. 4096
     */
    public BufferPool(int count, long bufferSize, long alignment) {
        if (count < 1 || bufferSize < 1 || Long.bitCount(alignment) != 1 || bufferSize % alignment != 0) {
            throw new IllegalArgumentException("bad pool shape: count=" + count + " buffer_size=" + bufferSize
                    + " alignment=" + alignment);
        }
        this.slab = arena.allocate(bufferSize * count, alignment);
        this.bufferSize = bufferSize;
        this.count = count;
        this.free = new ArrayBlockingQueue<>(count);
        this.out = new boolean[count];
        for (int i = 0; i < count; i++) free.add(slab.asSlice(i * bufferSize, bufferSize));
    }

    /**
     * Takes a buffer, waiting while none is free.
     *
     * @return a buffer of {@link #bufferSize()} bytes, to be given back with {@link #release}
     * @throws InterruptedException if the thread is interrupted while waiting
     */
    public MemorySegment acquire() throws InterruptedException {
        MemorySegment s = free.take();
        mark(s, true);
        return s;
    }

    /**
     * Takes a buffer if one is free within {@code timeout}, else returns null.
     *
     * @param timeout how long to wait for a free buffer
     * @param unit the unit of {@code timeout}
     * @return a buffer, or null when none was freed in time
     * @throws InterruptedException if the thread is interrupted while waiting
     */
    public MemorySegment tryAcquire(long timeout, TimeUnit unit) throws InterruptedException {
        MemorySegment s = free.poll(timeout, unit);
        if (s != null) mark(s, true);
        return s;
    }

    /**
     * Gives a buffer back. It must not be in use by any request any more.
     *
     * @param buffer a buffer this pool handed out and that is not given back yet
     */
    public void release(MemorySegment buffer) {
        mark(buffer, false);
        free.add(buffer);
    }

    private synchronized void mark(MemorySegment s, boolean taking) {
        long off = s.address() - slab.address();
        if (off < 0 || off % bufferSize != 0 || off / bufferSize >= count || s.byteSize() != bufferSize) {
            throw new IllegalStateException("segment does not belong to this pool: address=0x"
                    + Long.toHexString(s.address()));
        }
        int i = (int) (off / bufferSize);
        if (closed) throw new IllegalStateException("pool closed");
        if (out[i] == taking) {
            throw new IllegalStateException(taking ? "buffer handed out twice: index=" + i
                    : "buffer released twice: index=" + i);
        }
        out[i] = taking;
    }

    /**
     * Registers the slab with {@code engine} as fixed buffer 0, for {@link io.jfio.core.engine.IoOp#readFixed}.
     *
     * @param engine the engine whose requests will read into the buffers
     * @throws IOException if the engine cannot register the slab (the message names the errno, e.g. ENOMEM when it
     *     exceeds RLIMIT_MEMLOCK)
     */
    public void registerWith(IoEngine engine) throws IOException {
        engine.registerBuffers(slab);
    }

    /**
     * The whole slab (registered buffer 0).
     *
     * @return the memory of all buffers, one after the other
     */
    public MemorySegment slab() {
        return slab;
    }

    /**
     * The size of each buffer.
     *
     * @return the size in bytes
     */
    public long bufferSize() {
        return bufferSize;
    }

    /**
     * How many buffers the pool has.
     *
     * @return the count given to the constructor
     */
    public int count() {
        return count;
    }

    /**
     * Buffers currently handed out.
     *
     * @return how many buffers are acquired and not released
     */
    public synchronized int inUse() {
        int n = 0;
        for (boolean b : out) {
            if (b) n++;
        }
        return n;
    }

    /** Frees the slab. Fails if any buffer is still out (it may be under I/O). Idempotent once it succeeded. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) return;
            int n = inUse();
            if (n > 0) throw new IllegalStateException("pool closed while buffers are in use: in_use=" + n);
            closed = true;
        }
        arena.close();
    }
}
