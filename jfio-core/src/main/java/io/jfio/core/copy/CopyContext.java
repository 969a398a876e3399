package io.jfio.core.copy;

import io.jfio.core.engine.IoEngine;
import io.jfio.core.sys.Errno;
import io.jfio.core.sys.ErrnoException;
import io.jfio.core.sys.LibC;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the workers of one copy share: options, listener, counters, what is known about pairs of devices, the hard
 * link groups, and the queues.
 *
 * <p>Thread-safe.
 */
final class CopyContext {
    final CopyOptions options;
    final CopyListener listener;
    final boolean events;
    final Work work = new Work();
    final int euid = LibC.geteuid();
    final int egid = LibC.getegid();
    final int umask = Storage.umask();
    final long pid = ProcessHandle.current().pid();
    final long startNanos = System.nanoTime();
    /** The most worker threads this copy may use. */
    volatile int jobs = 1;
    /** Workers start with one per CPU and more are added while the CPUs wait for the disk. */
    volatile boolean adaptive;
    /** Worker threads started so far. */
    volatile int workersStarted;
    /** One worker and no split files (rotational storage, or asked for). */
    volatile boolean sequential;
    /** Whether workers open a batch's small files ahead and advise WILLNEED (when descriptors allow it). */
    volatile boolean readAhead;
    /** Directories queued or being listed; the walk is complete when none is. */
    private final java.util.concurrent.atomic.AtomicInteger dirsPending =
            new java.util.concurrent.atomic.AtomicInteger();
    private IoEngine uring;
    private boolean uringTried;
    private String uringUnavailable;

    final LongAdder filesFound = new LongAdder();
    final LongAdder bytesFound = new LongAdder();
    volatile boolean walkComplete;
    /** Set by {@link TreeCopy#cancel()}; long loops check it between chunks. */
    volatile boolean cancelled;
    final LongAdder entriesDone = new LongAdder();
    final LongAdder bytesWritten = new LongAdder();
    final LongAdder bytesAccounted = new LongAdder();
    /** Dry run: the bytes the copy would write (not those of entries it would skip, which progress counts too). */
    final LongAdder bytesWouldWrite = new LongAdder();
    final LongAdder files = new LongAdder();
    final LongAdder directories = new LongAdder();
    final LongAdder symlinks = new LongAdder();
    final LongAdder specials = new LongAdder();
    final LongAdder hardLinks = new LongAdder();
    final LongAdder skipped = new LongAdder();
    final AtomicLong failureCount = new AtomicLong();
    private final List<CopyFailure> failures = Collections.synchronizedList(new ArrayList<>());
    private final AtomicLong tempCounter = new AtomicLong();

    /** Hard-link groups by source (dev, ino). */
    final ConcurrentHashMap<InodeKey, LinkGroup> links = new ConcurrentHashMap<>();
    /** Device pairs where reflink did not work, and why. */
    final ConcurrentHashMap<DevPair, String> noReflink = new ConcurrentHashMap<>();
    /** Device pairs where copy_file_range did not work, and why. */
    final ConcurrentHashMap<DevPair, String> noCopyFileRange = new ConcurrentHashMap<>();
    /** Target devices without O_TMPFILE. */
    final Set<Long> noTmpfile = ConcurrentHashMap.newKeySet();
    /** linkat of an O_TMPFILE file: 0 = /proc/self/fd path (works unprivileged), 1 = AT_EMPTY_PATH, 2 = neither. */
    volatile int tmpfileLinkMode;
    /**
     * Directories the copy creates where they would be seen are built under a temporary name and renamed into
     * place once complete, and the files in them created directly ({@link CopyOptions#buildAside()}).
     */
    volatile boolean buildAside;
    /** The directories built aside so far: after a cancel, those not finished are renamed into place. */
    final java.util.Queue<DirNode> asideDirs = new java.util.concurrent.ConcurrentLinkedQueue<>();
    /** Notices already given, so each is said once. */
    private final Set<String> noticed = ConcurrentHashMap.newKeySet();

    CopyContext(CopyOptions options, CopyListener listener) {
        this.options = options;
        this.listener = listener;
        this.events = listener.wantsEntries();
    }

    /** Queues a directory listing. */
    void submitDir(Work.Task t) {
        dirsPending.incrementAndGet();
        work.submitDir(t);
    }

    /** A directory listing finished (or was abandoned). */
    void dirListed() {
        if (dirsPending.decrementAndGet() == 0) walkComplete = true;
    }

    /** Marks the walk complete when no directory was queued at all. */
    void rootsSubmitted() {
        if (dirsPending.get() == 0) walkComplete = true;
    }

    /**
     * The io_uring engine for {@link CopyMethod#URING}, created on first use; null where io_uring cannot be used
     * ({@link #uringUnavailable()} says why).
     */
    synchronized IoEngine uringEngine() {
        if (!uringTried) {
            uringTried = true;
            try {
                IoEngine e = io.jfio.core.engine.Engines.create();
                if (e.name().equals("io_uring")) {
                    uring = e;
                } else {
                    uringUnavailable = io.jfio.core.engine.Engines.fallbackReason() != null
                            ? io.jfio.core.engine.Engines.fallbackReason() : "the thread engine is configured";
                    e.close();
                }
            } catch (IOException | RuntimeException e) {
                uringUnavailable = e.getMessage();
            }
        }
        return uring;
    }

    /** Why {@link #uringEngine()} is null. */
    synchronized String uringUnavailable() {
        return uringUnavailable;
    }

    /** Closes the io_uring engine if one was created. */
    synchronized void closeEngine() {
        if (uring != null) uring.close();
        uring = null;
    }

    /** A (dev, ino) pair. */
    record InodeKey(long dev, long ino) {
    }

    /** A (source device, target device) pair. */
    record DevPair(long src, long dst) {
    }

    void fail(byte[] src, byte[] dst, String message, int errno) {
        failureCount.incrementAndGet();
        CopyFailure f = new CopyFailure(src == null ? null : Names.show(src), dst == null ? null : Names.show(dst),
                message, errno);
        if (failures.size() < TreeCopy.MAX_FAILURES_KEPT) failures.add(f);
        listener.onFailure(f);
    }

    void fail(byte[] src, byte[] dst, ErrnoException e) {
        fail(src, dst, e.getMessage(), e.errno());
    }

    /** A failed call as a failure of the entry: {@code call failed: errno=... path=...}. */
    void fail(byte[] src, byte[] dst, String call, int negErrno, byte[] path) {
        fail(src, dst, new ErrnoException(call, -negErrno, path == null ? null : Names.show(path)));
    }

    List<CopyFailure> failures() {
        synchronized (failures) {
            return List.copyOf(failures);
        }
    }

    /** Says {@code message} once per {@code key}. */
    void noticeOnce(String key, String message) {
        if (noticed.add(key)) listener.onNotice(message);
    }

    void event(CopyEvent.Kind kind, CopyEvent.Outcome outcome, Entry e, CopyMethod method, long bytes,
               boolean sparse, int chunks) {
        if (!events) return;
        DirNode d = e.dir();
        String src = d.topSrc != null ? Names.show(d.topSrc) : e.showSrc();
        String dst = d.topDst != null ? Names.show(d.topDst) : e.showDst();
        listener.onEntry(new CopyEvent(kind, outcome, src, dst, method, bytes, e.meta().size(), sparse, chunks));
    }

    /** A temporary name in the target directory: {@code .jfio-PID-N.part}, always short. */
    byte[] tempName() {
        return (".jfio-" + pid + "-" + Long.toHexString(tempCounter.incrementAndGet()) + ".part")
                .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

    /**
     * True for a temporary name left by a jfio copy that is no longer running ({@code .jfio-PID-N.part} whose PID
     * is not a live process), which a later run may remove.
     */
    static boolean isStaleTemp(byte[] name, long ourPid) {
        String s = new String(name, java.nio.charset.StandardCharsets.ISO_8859_1);
        if (!s.startsWith(".jfio-") || !s.endsWith(".part")) return false;
        String mid = s.substring(6, s.length() - 5);
        int dash = mid.indexOf('-');
        if (dash <= 0 || dash == mid.length() - 1) return false;
        try {
            long p = Long.parseLong(mid.substring(0, dash));
            Long.parseLong(mid.substring(dash + 1), 16);
            return p != ourPid && !Storage.processAlive(p);
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /** errno values of a reflink attempt that mean "not here" rather than "this file failed". */
    static boolean reflinkUnsupported(int negErrno) {
        return negErrno == -Errno.EOPNOTSUPP || negErrno == -Errno.EXDEV || negErrno == -Errno.EINVAL
                || negErrno == -Errno.ENOTTY || negErrno == -Errno.ENOSYS || negErrno == -Errno.EPERM
                || negErrno == -Errno.EBADF;
    }

    /** errno values of copy_file_range that mean "not between these files" rather than a real I/O error. */
    static boolean copyFileRangeUnsupported(int negErrno) {
        return negErrno == -Errno.EXDEV || negErrno == -Errno.ENOSYS || negErrno == -Errno.EINVAL
                || negErrno == -Errno.EOPNOTSUPP || negErrno == -Errno.EBADF;
    }
}
