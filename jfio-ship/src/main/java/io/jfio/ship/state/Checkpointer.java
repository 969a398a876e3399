package io.jfio.ship.state;

import io.jfio.ship.log.ShipLog;
import io.jfio.ship.metrics.ShipMetrics;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Thread-safe: the pipeline thread submits; the writer thread {@code jfio-ship-checkpoint-SINK} writes.
 *
 * <p>Writes one sink's checkpoints off the pipeline thread: a write (temp file, fsync, rename, directory fsync: several
 * device flushes) must not stall harvesting. Only the newest snapshot submitted is written (an older one not yet
 * written is replaced). A forced write ({@link #writeNow}) runs on the caller's thread, ordered with the background
 * writes by a lock, so an older snapshot never overwrites a newer one.
 */
public final class Checkpointer {
    private final String sink;
    private final CheckpointStore store;
    private final ShipLog log;
    private final ShipMetrics metrics;
    private final ShipMetrics.SinkCounters counters;
    private final Object lock = new Object();
    private final AtomicReference<List<Checkpoint>> next = new AtomicReference<>();
    private final Semaphore signal = new Semaphore(0);
    private Thread thread;
    private volatile boolean closed;
    private volatile boolean failed;

    public Checkpointer(String sink, CheckpointStore store, ShipLog log, ShipMetrics metrics) {
        this.sink = sink;
        this.store = store;
        this.log = log;
        this.metrics = metrics;
        this.counters = metrics.of(sink);
    }

    /** Whether a write failed since the last call (the caller writes again later); clears the flag. */
    public boolean takeFailure() {
        if (!failed) return false;
        failed = false;
        return true;
    }

    /** Queues {@code entries} for the writer thread (started on first use). */
    public void submit(List<Checkpoint> entries) {
        if (thread == null) {
            thread = Thread.ofPlatform().daemon().name("jfio-ship-checkpoint-" + sink).start(this::loop);
        }
        next.set(entries);
        signal.release();
    }

    /** Writes {@code entries} now, on this thread; true when they are durable. */
    public boolean writeNow(List<Checkpoint> entries) {
        synchronized (lock) {
            next.set(null);
            return write(entries);
        }
    }

    private void loop() {
        while (!closed) {
            try {
                signal.acquire();
            } catch (InterruptedException e) {
                return;
            }
            synchronized (lock) {
                List<Checkpoint> entries = next.getAndSet(null);
                if (entries != null) write(entries);
            }
        }
    }

    private boolean write(List<Checkpoint> entries) {
        try {
            store.write(entries);
            counters.add(ShipMetrics.Counter.CHECKPOINTS, 1);
            return true;
        } catch (IOException e) {
            failed = true;
            metrics.error(sink, "checkpoint");
            log.error("checkpoint-write-failed", "sink", sink, "file", store.file(), "error", e.toString(),
                    "action", "kept in memory; written again at the next interval");
            return false;
        }
    }

    /** Ends the writer thread after the write in progress; a forced write may follow on the caller's thread. */
    public void close() {
        closed = true;
        signal.release();
        Thread t = thread;
        if (t == null) return;
        try {
            t.join(30_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
