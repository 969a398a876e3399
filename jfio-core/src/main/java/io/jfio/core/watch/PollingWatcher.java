package io.jfio.core.watch;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A {@link FileWatcher} that scans: every {@code interval} it examines the watched directories and files with
 * statx and reports the differences since the last scan as the same event kinds inotify gives, where they can be
 * inferred (see {@link FileEvent.Kind}): CREATE, DELETE, MODIFY, ATTRIB, MOVED (the same inode under a new name),
 * DELETE_SELF and UNWATCHED. It cannot see CLOSE_WRITE, and a rename out of or into the watched set is a DELETE or a
 * CREATE. It works on every file system, NFS, SMB and FUSE included, and needs no kernel resources; it costs a scan
 * per interval whether anything changed or not, and a change is seen up to one interval late.
 *
 * <p>Thread-safe as {@link FileWatcher} says: one thread polls; the others may watch, wake and close. Scans run on
 * the polling thread.
 */
public final class PollingWatcher implements FileWatcher {
    private final long intervalNanos;
    private final String reason;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final Snapshots snapshots = new Snapshots();
    private final List<FileEvent> pending = new ArrayList<>();
    private long nextScan;
    private boolean woken;
    private boolean closed;
    private boolean polling;

    /**
     * A watcher that scans its paths every {@code interval}.
     *
     * @param interval time between scans, at least 1 ms
     * @param reason   why this watcher polls, for {@link #mechanism()} and {@link #polled()} (e.g. "forced")
     */
    public PollingWatcher(Duration interval, String reason) {
        if (interval.compareTo(Duration.ofMillis(1)) < 0) {
            throw new IllegalArgumentException("poll interval below 1 ms: interval=" + interval);
        }
        this.intervalNanos = interval.toNanos();
        this.reason = reason;
        this.nextScan = System.nanoTime() + intervalNanos;
    }

    @Override
    public void watch(Path path) throws IOException {
        add(path, false);
    }

    @Override
    public void watchTree(Path dir) throws IOException {
        add(dir, true);
    }

    private void add(Path path, boolean tree) throws IOException {
        lock.lock();
        try {
            ensureOpen();
            snapshots.add(path.toAbsolutePath().normalize(), tree);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean unwatch(Path path) {
        lock.lock();
        try {
            return snapshots.remove(path.toAbsolutePath().normalize());
        } finally {
            lock.unlock();
        }
    }

    @Override
    public List<FileEvent> poll(Duration timeout) throws IOException {
        long deadline = Deadlines.after(timeout);
        lock.lock();
        try {
            if (polling) throw new IllegalStateException("poll called from two threads at once");
            polling = true;
            try {
                while (true) {
                    ensureOpen();
                    if (Thread.currentThread().isInterrupted()) throw new InterruptedIOException("poll interrupted");
                    long now = System.nanoTime();
                    if (now - nextScan >= 0) {
                        snapshots.scan(pending);
                        nextScan = now + intervalNanos;
                    }
                    if (!pending.isEmpty() || woken || now - deadline >= 0) {
                        woken = false;
                        List<FileEvent> out = new ArrayList<>(pending);
                        pending.clear();
                        return out;
                    }
                    long wait = Math.min(nextScan - now, deadline - now);
                    try {
                        changed.awaitNanos(wait);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            } finally {
                polling = false;
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void wakeup() {
        lock.lock();
        try {
            woken = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String mechanism() {
        return "polling every " + TimeUnit.NANOSECONDS.toMillis(intervalNanos) + " ms (" + reason + ")";
    }

    @Override
    public Map<Path, String> polled() {
        lock.lock();
        try {
            Map<Path, String> m = new LinkedHashMap<>();
            for (Path p : snapshots.roots()) m.put(p, reason);
            return Collections.unmodifiableMap(m);
        } finally {
            lock.unlock();
        }
    }

    /**
     * The interval between scans.
     *
     * @return the interval
     */
    public Duration interval() {
        return Duration.ofNanos(intervalNanos);
    }

    private void ensureOpen() throws WatcherClosedException {
        if (closed) throw new WatcherClosedException("polling");
    }

    @Override
    public String toString() {
        return "PollingWatcher[" + mechanism() + "]";
    }
}
