package io.jfio.core.watch;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Reports changes to watched files and directories: the change detector of {@code jfio ship}, usable on its own.
 *
 * <p>Thread model: one thread calls {@link #poll}; {@link #wakeup()} and {@link #close()} may be called from any
 * thread, {@link #watch}, {@link #watchTree} and {@link #unwatch} too (they are serialized with event processing).
 * Create instances with {@link FileWatchers}.
 *
 * <p>Watching a directory reports changes to its entries, not to entries of its subdirectories ({@link #watchTree}
 * does that). Nothing is reported for what exists when a watch is added: the caller lists it itself, after adding
 * the watch, so nothing created in between is missed. Events are at-least-once: the same creation can be reported
 * twice (once by the kernel, once by the scan of a directory that joined a tree), never not at all, except where
 * {@link FileEvent.Kind#OVERFLOW} says so.
 */
public interface FileWatcher extends AutoCloseable {

    /**
     * Watches a directory (changes to its entries and to itself) or a file (changes to it). A path already watched
     * is not watched twice. Symbolic links are followed.
     *
     * @param path the directory or file to watch
     * @throws java.nio.file.NoSuchFileException when the path does not exist
     * @throws InotifyLimitException              when the inotify watch limit is reached and this watcher does not
     *                                            fall back to polling
     * @throws WatcherClosedException             after {@link #close()}
     */
    void watch(Path path) throws IOException;

    /**
     * Watches a directory and every directory below it, including directories created or moved in later: their
     * entries, found by a scan right after their watch was added, are reported as {@link FileEvent.Kind#CREATE}.
     * Symbolic links to directories below the root are not followed.
     *
     * @param dir the root of the tree to watch
     * @throws java.nio.file.NotDirectoryException when the path is not a directory
     * @throws InotifyLimitException               as for {@link #watch}
     * @throws WatcherClosedException              after {@link #close()}
     */
    void watchTree(Path dir) throws IOException;

    /**
     * Stops watching a path given to {@link #watch} or {@link #watchTree} (for a tree: the whole tree). Nothing more
     * is reported for it; no {@link FileEvent.Kind#UNWATCHED} either.
     *
     * @param path a path given to {@link #watch} or {@link #watchTree}
     * @return false when the path was not watched
     * @throws IOException if the watch cannot be removed (the message names the errno), or
     *     {@link WatcherClosedException} when the watcher is closed
     */
    boolean unwatch(Path path) throws IOException;

    /**
     * Waits up to {@code timeout} for changes and returns them, in the order they happened (an empty list when the
     * time ran out or {@link #wakeup()} was called). Returns as soon as there is at least one event; what else is
     * ready at that moment comes in the same batch. A zero timeout does not wait but still collects what has come
     * (the inotify watcher reads the kernel's queue once; the polling one scans if its interval is up).
     *
     * @param timeout the longest time to wait; zero returns what is there without waiting
     * @return the changes, possibly none
     * @throws WatcherClosedException      when the watcher is closed, before or during the call
     * @throws java.io.InterruptedIOException when the thread was interrupted (its interrupt status is kept); an
     *                                     interrupt is noticed when the call starts or wakes, so use {@link #wakeup()}
     *                                     to end a wait
     * @throws IllegalStateException       when another thread is in {@code poll} already
     */
    List<FileEvent> poll(Duration timeout) throws IOException;

    /**
     * As {@link #poll(Duration)}, but appends the changes to {@code into} instead of returning a list of its own, so
     * that a caller that polls often can reuse one list. The inotify watcher then allocates nothing for a wake-up
     * whose events are writes to names it reported before: their events are the same immutable objects again.
     *
     * @param timeout the longest time to wait; zero returns what is there without waiting
     * @param into    the list the changes are appended to, in the order they happened
     * @return how many changes were appended
     * @throws WatcherClosedException      as for {@link #poll(Duration)}
     * @throws java.io.InterruptedIOException as for {@link #poll(Duration)}
     * @throws IllegalStateException       as for {@link #poll(Duration)}
     */
    default int poll(Duration timeout, List<FileEvent> into) throws IOException {
        List<FileEvent> got = poll(timeout);
        into.addAll(got);
        return got.size();
    }

    /**
     * Makes {@link #poll} sleep in {@code ring} instead of a wait of its own, so that what the polling thread queued
     * on the ring (a socket send) goes with the sleep in one system call. Called by the polling thread, which owns the
     * ring and keeps it open while it polls this watcher. By default nothing: the watcher keeps its own wait.
     *
     * @param ring the polling thread's ring
     * @return whether the watcher waits in the ring from now on
     */
    default boolean waitIn(io.jfio.core.engine.EventRing ring) {
        return false;
    }

    /** Makes a {@link #poll} in progress (or the next one) return at once. Any thread; does nothing once closed. */
    void wakeup();

    /**
     * Releases everything: a {@link #poll} in progress is woken and throws {@link WatcherClosedException}, and its
     * descriptors are closed when it has returned. Any thread; idempotent.
     */
    @Override
    void close();

    /**
     * How this watcher detects changes, for logs: {@code "inotify"}, {@code "polling every 250 ms (reason)"}.
     *
     * @return the mechanism, as words
     */
    String mechanism();

    /**
     * The watched paths that are polled rather than watched by the kernel, each with the reason.
     *
     * @return the polled paths and why each is polled; empty when the kernel watches every path
     */
    Map<Path, String> polled();
}
