package io.jfio.ship.state;

import io.jfio.ship.log.OsReason;
import io.jfio.ship.log.ShipLog;
import io.jfio.ship.metrics.ShipMetrics;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Thread-safe: the pipeline thread submits; the writer thread {@code jfio-ship-checkpoint-SINK} writes.
 *
 * <p>Writes one sink's checkpoints off the pipeline thread: a write (temp file, fsync, rename, directory fsync: several
 * device flushes) must not stall harvesting. Only the newest snapshot submitted is written (an older one not yet
 * written is replaced). A forced write ({@link #writeNow}) runs on the caller's thread, ordered with the background
 * writes by a lock, so an older snapshot never overwrites a newer one.
 *
 * <p>A write that fails (a full or failing state directory) leaves the previous checkpoint file as it was; the
 * writer thread tries the newest snapshot again every {@code retry} until one succeeds. Each failure is counted in
 * the metrics; the log says each distinct reason once, and once more when writing works again.
 */
public final class Checkpointer {
    private final String sink;
    private final CheckpointStore store;
    private final ShipLog log;
    private final ShipMetrics metrics;
    private final ShipMetrics.SinkCounters counters;
    private final long retryNanos;
    private final Object lock = new Object();
    private final AtomicReference<List<Checkpoint>> next = new AtomicReference<>();
    private final Semaphore signal = new Semaphore(0);
    private Thread thread;
    private volatile boolean closed;
    private volatile boolean failed;
    /** Guarded by {@link #lock}: the snapshot whose write failed, written again unless a newer one comes. */
    private List<Checkpoint> retry;
    /** Guarded by {@link #lock}: the reason of the last failed write, null after a write succeeded. */
    private String lastError;
    /** Guarded by {@link #lock}: failed writes since the last one that succeeded. */
    private long failures;

    /** A checkpointer that retries a failed write every second. */
    public Checkpointer(String sink, CheckpointStore store, ShipLog log, ShipMetrics metrics) {
        this(sink, store, log, metrics, TimeUnit.SECONDS.toNanos(1));
    }

    /** As above, retrying a failed write every {@code retryNanos}. */
    public Checkpointer(String sink, CheckpointStore store, ShipLog log, ShipMetrics metrics, long retryNanos) {
        this.sink = sink;
        this.store = store;
        this.log = log;
        this.metrics = metrics;
        this.counters = metrics.of(sink);
        this.retryNanos = retryNanos;
    }

    /** Whether a write failed since the last call (the caller writes again later); clears the flag. */
    public boolean takeFailure() {
        if (!failed) return false;
        failed = false;
        return true;
    }

    /** Why the last write failed, as the operating system says it; null when the last write succeeded. */
    public String lastError() {
        synchronized (lock) {
            return lastError;
        }
    }

    /** Queues {@code entries} for the writer thread (started on first use). */
    public void submit(List<Checkpoint> entries) {
        startThread();
        next.set(entries);
        signal.release();
    }

    private synchronized void startThread() {
        if (thread == null && !closed) {
            thread = Thread.ofPlatform().daemon().name("jfio-ship-checkpoint-" + sink).start(this::loop);
        }
    }

    /** Writes {@code entries} now, on this thread; true when they are durable. */
    public boolean writeNow(List<Checkpoint> entries) {
        boolean ok;
        synchronized (lock) {
            next.set(null);
            retry = null;
            ok = write(entries);
            if (!ok && !closed) retry = entries;
        }
        if (!ok) startThread();
        return ok;
    }

    private void loop() {
        while (!closed) {
            try {
                boolean waiting;
                synchronized (lock) {
                    waiting = retry != null;
                }
                if (waiting) {
                    signal.tryAcquire(retryNanos, TimeUnit.NANOSECONDS);
                } else {
                    signal.acquire();
                }
            } catch (InterruptedException e) {
                return;
            }
            synchronized (lock) {
                List<Checkpoint> entries = next.getAndSet(null);
                if (entries == null) entries = retry;
                retry = null;
                if (entries != null && !write(entries) && next.get() == null) retry = entries;
            }
        }
    }

    /** Called with {@link #lock} held. */
    private boolean write(List<Checkpoint> entries) {
        try {
            store.write(entries);
            counters.add(ShipMetrics.Counter.CHECKPOINTS, 1);
            if (lastError != null) {
                log.info("checkpoint-write-recovered", "sink", sink, "file", store.file(), "failed-writes", failures);
                lastError = null;
                failures = 0;
            }
            return true;
        } catch (IOException e) {
            failed = true;
            failures++;
            metrics.error(sink, "checkpoint");
            String reason = OsReason.of(e);
            if (!reason.equals(lastError)) {
                log.error("checkpoint-write-failed", "sink", sink, "file", store.file(), "error", reason,
                        "action", "the previous checkpoint stands; retried until a write works (this reason is not "
                                + "logged again)");
            }
            lastError = reason;
            return false;
        }
    }

    /** Ends the writer thread after the write in progress; a forced write may follow on the caller's thread. */
    public void close() {
        closed = true;
        signal.release();
        Thread t;
        synchronized (this) {
            t = thread;
        }
        if (t == null) return;
        try {
            t.join(30_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
