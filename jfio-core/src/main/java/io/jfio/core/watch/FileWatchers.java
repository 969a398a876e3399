package io.jfio.core.watch;

import io.jfio.core.sys.Statfs;
import java.io.IOException;
import java.time.Duration;

/**
 * Creates {@link FileWatcher}s: inotify where the kernel allows it, polling where it does not.
 *
 * {@snippet :
 * try (FileWatcher w = FileWatchers.open()) {     // inotify; polls what inotify cannot watch
 *     w.watchTree(Path.of("/var/log/app"));
 *     while (running) {
 *         for (FileEvent e : w.poll(Duration.ofSeconds(1))) {
 *             if (e.kind() == FileEvent.Kind.OVERFLOW) rescan(); else handle(e.kind(), e.path());
 *         }
 *     }
 * }
 * }
 *
 * <p>Thread-safe; stateless.
 */
public final class FileWatchers {
    private static final System.Logger LOG = System.getLogger("io.jfio.core.watch");

    /** The default interval of the polling fallback. */
    public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofMillis(250);

    private FileWatchers() {
    }

    /**
     * {@link #open(Duration)} with {@link #DEFAULT_POLL_INTERVAL}.
     *
     * @return a new watcher, which the caller closes
     */
    public static FileWatcher open() {
        return open(DEFAULT_POLL_INTERVAL);
    }

    /**
     * An inotify watcher that polls, every {@code pollInterval}, the paths inotify cannot watch (remote and FUSE
     * file systems; paths beyond the watch limit); or, when inotify cannot be set up at all (no instance left,
     * {@code EMFILE}, or no inotify in the kernel), a {@link PollingWatcher}. Either choice is logged at WARNING
     * and shows in {@link FileWatcher#mechanism()} and {@link FileWatcher#polled()}.
     *
     * @param pollInterval how often to poll what inotify cannot watch, and everything when inotify is unavailable
     * @return a new watcher, which the caller closes
     */
    public static FileWatcher open(Duration pollInterval) {
        try {
            return new InotifyWatcher(pollInterval);
        } catch (IOException e) {
            String reason = "inotify unavailable: " + e.getMessage();
            LOG.log(System.Logger.Level.WARNING, "polling every " + pollInterval.toMillis() + " ms: " + reason);
            return new PollingWatcher(pollInterval, reason);
        }
    }

    /**
     * A watcher that only polls, every {@code interval} (the caller's choice: {@code --poll 250ms}).
     *
     * @param interval the time between scans, at least 1 ms
     * @return a new polling watcher, which the caller closes
     */
    public static FileWatcher polling(Duration interval) {
        return new PollingWatcher(interval, "polling requested");
    }

    /**
     * Why inotify cannot be relied on for a file system of type {@code fsMagic} (statfs {@code f_type}), or null
     * when it can. On network file systems (NFS, SMB/CIFS, 9p, Ceph, AFS, Coda) and FUSE, inotify reports only the
     * changes this machine made through this mount; a writer on another machine, on the server, or below the FUSE
     * daemon is invisible to it.
     *
     * @param fsMagic the file system type, as statfs(2) reports it
     * @return the reason, or null when inotify works there
     */
    public static String inotifyUnsupportedReason(long fsMagic) {
        if (Statfs.isRemote(fsMagic)) {
            return "file system " + Statfs.name(fsMagic) + " does not report changes made elsewhere to inotify";
        }
        return null;
    }

    /**
     * {@code fs.inotify.max_user_watches}, or the user namespace's lower limit; -1 when unreadable.
     *
     * @return the limit, or -1
     */
    public static long maxUserWatches() {
        return Limits.WATCHES.value();
    }

    /**
     * {@code fs.inotify.max_queued_events}: events an instance holds until they are read; beyond it the kernel drops
     * them and queues IN_Q_OVERFLOW ({@link FileEvent.Kind#OVERFLOW}). -1 when unreadable.
     *
     * @return the limit, or -1 when unreadable
     */
    public static long maxQueuedEvents() {
        return Limits.read("fs.inotify.max_queued_events");
    }

    /**
     * {@code fs.inotify.max_user_instances}, or the user namespace's lower limit; -1 when unreadable.
     *
     * @return the limit, or -1
     */
    public static long maxUserInstances() {
        return Limits.INSTANCES.value();
    }
}
