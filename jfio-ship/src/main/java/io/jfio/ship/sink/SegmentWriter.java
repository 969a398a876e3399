package io.jfio.ship.sink;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * Thread-safe: the pipeline thread fills buffers and submits jobs; the writer thread ({@code jfio-ship-dirwrite}) runs
 * them, one at a time, in the order submitted.
 *
 * <p>The directory sink's writes of encoded batches, off the pipeline thread. An NDJSON batch is about three times its
 * input, and the kernel's copy of it into the page cache costs as much as encoding it: with the write on a thread of
 * its own, the next batch is encoded while the previous one is written. The batch's bytes are valid only during
 * {@link Sink#send}, so they are copied into one of {@link #BUFFERS} buffers of the writer's own; when all are waiting
 * to be written the pipeline waits for one ({@link #buffer}), which bounds the memory and the bytes not yet written.
 * Other jobs (the hand-over of a sync task) keep their place in the order: a sync task submitted after a write reaches
 * the sync thread only once the write is done. The thread is started on the first job, so a sink that never writes
 * an encoded batch has none.
 */
final class SegmentWriter {
    /** Buffers: one being written, one waiting, one being filled. */
    static final int BUFFERS = 3;
    private static final Runnable STOP = () -> { };

    private final Arena arena = Arena.ofAuto();
    private final LinkedBlockingQueue<Runnable> jobs = new LinkedBlockingQueue<>();
    /** Guarded by this: buffers not in use. */
    private final ArrayDeque<MemorySegment> free = new ArrayDeque<>();
    /** Guarded by this: buffers handed out or waiting to be written. */
    private int lent;
    /** Guarded by this: jobs submitted and not finished. */
    private int pending;
    private Thread thread;
    private final java.util.function.Consumer<RuntimeException> failed;

    /** @param failed told of a job that threw (the job's own failures are its business; this is for bugs) */
    SegmentWriter(java.util.function.Consumer<RuntimeException> failed) {
        this.failed = failed;
    }

    /**
     * A buffer of at least {@code length} bytes, to fill and pass to {@link #submit(MemorySegment, Runnable)}; waits
     * while all {@link #BUFFERS} are in use.
     */
    synchronized MemorySegment buffer(long length) throws InterruptedException {
        while (free.isEmpty() && lent >= BUFFERS) wait();
        MemorySegment b = free.poll();
        lent++;
        if (b == null || b.byteSize() < length) {
            // A bigger one; the smaller one is freed when it is no longer reachable.
            b = arena.allocate(Math.max(length + length / 4, b == null ? 0 : b.byteSize() * 2), 64);
        }
        return b;
    }

    /** Runs {@code job} after the jobs before it, then takes {@code buffer} back. */
    void submit(MemorySegment buffer, Runnable job) {
        submit(() -> {
            try {
                job.run();
            } finally {
                synchronized (this) {
                    free.push(buffer);
                    lent--;
                    notifyAll();
                }
            }
        });
    }

    /** Runs {@code job} after the jobs before it. */
    void submit(Runnable job) {
        synchronized (this) {
            pending++;
            if (thread == null) thread = Thread.ofPlatform().name("jfio-ship-dirwrite").daemon(true).start(this::loop);
        }
        jobs.add(job);
    }

    /** Whether every job submitted has finished (what was submitted before is done when this says so). */
    synchronized boolean idle() {
        return pending == 0;
    }

    /** Waits until every job submitted has finished. */
    synchronized void awaitIdle() throws InterruptedException {
        while (pending > 0) wait();
    }

    /** Finishes the jobs submitted and ends the thread (waiting up to {@code millis} for it). */
    void close(long millis) throws InterruptedException {
        Thread t;
        synchronized (this) {
            t = thread;
        }
        if (t == null) return;
        jobs.add(STOP);
        t.join(millis);
    }

    private void loop() {
        while (true) {
            Runnable job;
            try {
                job = jobs.take();
            } catch (InterruptedException e) {
                return;
            }
            if (job == STOP) return;
            try {
                job.run();
            } catch (RuntimeException e) {
                failed.accept(e);
            } finally {
                synchronized (this) {
                    pending--;
                    notifyAll();
                }
            }
        }
    }
}
