package io.jfio.core.copy;

import java.util.ArrayDeque;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The copy's work queues, shared by the worker threads.
 *
 * <p>Thread-safe (one lock; tasks are coarse, a directory listing or a batch of files, so it is taken a few
 * thousand times a second at most). Three queues, taken in this order:
 * <ol>
 *   <li>urgent: parts of split files and hard links whose first copy is done: finishing started work frees its
 *       descriptors and memory first;</li>
 *   <li>directories (last in, first out: depth first), while fewer than {@link #ENTRY_HIGH_WATER} entries wait, so
 *       the walk runs ahead of the copy, the totals for progress fill in early, and memory stays bounded;</li>
 *   <li>batches of entries (first in, first out), else directories again.</li>
 * </ol>
 * The work is done when no task is queued or running.
 */
final class Work {
    /** Entries listed but not yet copied above which the walk pauses. */
    static final long ENTRY_HIGH_WATER = 200_000;

    /** A unit of work for a worker. */
    interface Task {
        void run(Copier copier);

        /** Entries this task carries, for the high-water mark. */
        default int entryCount() {
            return 0;
        }

        /**
         * The copy was cancelled before this task ran: release what it holds (a part of a split file holds the
         * file's descriptors). Called on the thread that runs {@link TreeCopy#run()}, after the workers left.
         */
        default void abandon(Copier copier) {
        }
    }

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition ready = lock.newCondition();
    private final ArrayDeque<Task> urgent = new ArrayDeque<>();
    private final ArrayDeque<Task> dirs = new ArrayDeque<>();
    private final ArrayDeque<Task> batches = new ArrayDeque<>();
    private long queuedEntries;
    private int outstanding;
    private boolean cancelled;

    void submitUrgent(Task t) {
        add(urgent, t, true);
    }

    void submitDir(Task t) {
        add(dirs, t, false);
    }

    void submitBatch(Task t) {
        add(batches, t, false);
    }

    private void add(ArrayDeque<Task> q, Task t, boolean first) {
        lock.lock();
        try {
            if (first) {
                q.addFirst(t);
            } else {
                q.addLast(t);
            }
            queuedEntries += t.entryCount();
            outstanding++;
            ready.signal();
        } finally {
            lock.unlock();
        }
    }

    /** The next task, waiting for one; null when all work is done or the copy was cancelled. */
    Task take() throws InterruptedException {
        lock.lock();
        try {
            while (true) {
                if (cancelled) return null;
                Task t = urgent.pollFirst();
                if (t == null && queuedEntries < ENTRY_HIGH_WATER) t = dirs.pollLast();
                if (t == null) t = batches.pollFirst();
                if (t == null) t = dirs.pollLast();
                if (t != null) {
                    queuedEntries -= t.entryCount();
                    return t;
                }
                if (outstanding == 0) {
                    ready.signalAll();
                    return null;
                }
                ready.await();
            }
        } finally {
            lock.unlock();
        }
    }

    /** A task taken with {@link #take()} has finished (after submitting whatever it found). */
    void done() {
        lock.lock();
        try {
            if (--outstanding == 0) ready.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Stops handing out tasks; workers finish what they hold and leave. */
    void cancel() {
        lock.lock();
        try {
            cancelled = true;
            ready.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** True when tasks are waiting to be taken. */
    boolean hasQueued() {
        lock.lock();
        try {
            return !urgent.isEmpty() || !dirs.isEmpty() || !batches.isEmpty();
        } finally {
            lock.unlock();
        }
    }

    /** The tasks never handed out (after a cancel), in no particular order; the queues are left empty. */
    java.util.List<Task> drain() {
        lock.lock();
        try {
            java.util.List<Task> all = new java.util.ArrayList<>(urgent);
            all.addAll(dirs);
            all.addAll(batches);
            urgent.clear();
            dirs.clear();
            batches.clear();
            return all;
        } finally {
            lock.unlock();
        }
    }
}
