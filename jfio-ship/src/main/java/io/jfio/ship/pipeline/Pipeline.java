package io.jfio.ship.pipeline;

import io.jfio.core.sys.Errno;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import io.jfio.core.watch.FileWatcher;
import io.jfio.core.watch.FileWatchers;
import io.jfio.ship.config.Framing;
import io.jfio.ship.config.InputConfig;
import io.jfio.ship.config.Overlong;
import io.jfio.ship.config.ShipConfig;
import io.jfio.ship.config.Start;
import io.jfio.ship.harvest.Fingerprint;
import io.jfio.ship.harvest.Framer;
import io.jfio.ship.log.ShipLog;
import io.jfio.ship.metrics.ShipMetrics;
import io.jfio.ship.metrics.ShipMetrics.Counter;
import io.jfio.ship.sink.Batch;
import io.jfio.ship.sink.Sink;
import io.jfio.ship.state.Checkpoint;
import io.jfio.ship.state.CheckpointStore;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Ships the inputs of one sink: discovery, harvesting, batching, acknowledgements and checkpoints, all on one
 * platform thread. One read buffer (native, {@code max(buffer-size, max-record + 1)}) is reused for every read: a
 * batch's bytes are valid only during {@link Sink#send} (the sink copies what it keeps), so memory does not grow with
 * files or load. A read asks for {@code buffer-size} bytes (1 MiB: they stay in the CPU's cache from the read through
 * the scan to the sink's copy), and for the whole buffer only when those hold no newline.
 *
 * <p>Changes come from a {@link ChangeFeed} (inotify, or polling with {@code --poll}) on its own thread: a write to a
 * file marks that file for a look (one fstat), a change of names asks for a rescan. There is no periodic full scan
 * besides a slow safety rescan; files that grew in the last seconds are checked every few milliseconds only where
 * nothing reports their writes (polling, and files renamed away or deleted, whose names no watch covers).
 *
 * <p>Per wake-up the work is proportional to the files that need attention (data to read, a partial line waiting,
 * recent growth, a rotation to finish), not to the files tracked: 10,000 idle files cost nothing between rescans.
 *
 * <p>The duty cycle: rescan when asked or due; read one buffer from each file that may have data
 * (round-robin, so one busy file cannot starve the others); hand each batch to the sink and queue its future;
 * advance acknowledged offsets from the completed futures, in order; write the checkpoint when due; when nothing
 * was read, flush the sink and sleep until the next poll, an acknowledgement or a stop. Reading pauses while more
 * than {@code max-in-flight} bytes are unacknowledged: the files on disk are the buffer.
 *
 * <p>Not thread-safe: {@link #run} runs on one thread; {@link #stop} and {@link #requestRescan} may be called from
 * any thread.
 */
public final class Pipeline {
    /** How the pipeline ends. */
    public enum Mode {
        /** Until {@link #stop}. */
        RUN,
        /** Ship what is there now, then stop. */
        ONCE
    }

    private static final long HOT_NANOS = TimeUnit.SECONDS.toNanos(2);
    private static final long HOT_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
    private static final long FLUSH_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    /** With a watcher, a full rescan this often catches anything events could not say (it costs little). */
    private static final long SAFETY_RESCAN_NANOS = TimeUnit.SECONDS.toNanos(60);
    /** A write to a matching file that is not tracked asks for a rescan at most this often. */
    private static final long UNKNOWN_RESCAN_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long SETTLE_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final long SHUTDOWN_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final long BACKOFF_MIN_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long BACKOFF_MAX_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final long FORGET_MILLIS = TimeUnit.DAYS.toMillis(7);
    private static final int ONCE_MAX_FAILURES = 5;

    private final String name;
    private final ShipConfig config;
    private final Sink sink;
    private final CheckpointStore store;
    private final ShipLog log;
    private final ShipMetrics metrics;
    /** This sink's counters, looked up once: adding to them per batch allocates nothing. */
    private final ShipMetrics.SinkCounters counters;
    private final Mode mode;
    private final long pollNanos;
    private final long flushBytes;

    private final Arena arena = Arena.ofShared();
    private final MemorySegment buffer;
    /** What one read asks for ({@code buffer-size}); the buffer may be larger, for a line of max-record bytes. */
    private final long readSize;
    private final MemorySegment scratch;
    private final Stx stx = new Stx(arena);
    private final Discovery discovery;
    private final Framer.Scan scan = new Framer.Scan();

    private final Map<TrackedFile.Id, TrackedFile> tracked = new LinkedHashMap<>();
    /** Tracked files that may need work at the next wake-up; the rest are idle. */
    private final ArrayList<TrackedFile> attention = new ArrayList<>();
    /** Tracked files by path (the file its path names now wins over one renamed away); rebuilt when stale. */
    private final Map<String, TrackedFile> byPath = new HashMap<>();
    private boolean byPathStale = true;
    private final ChangeFeed feed;
    private long lastUnknownRescanNanos;
    private final Map<TrackedFile.Id, Checkpoint> untracked = new HashMap<>();
    private final ArrayDeque<Pending> pending = new ArrayDeque<>();
    private boolean storeCorrupt;
    private boolean firstScanDone;
    private long scanGen;
    private int openFiles;
    private long inFlightBytes;
    private long unflushedBytes;
    private long firstUnflushedNanos;
    private boolean checkpointDirty;
    private long lastCheckpointNanos;
    private long backoffNanos = BACKOFF_MIN_NANOS;
    private int consecutiveFailures;
    private boolean capWarned;
    private int fileErrors;
    private String fatal;
    private volatile List<ShipMetrics.FileGauge> gauges = List.of();
    /** Sizes or acknowledged offsets changed since the gauges were last published. */
    private boolean gaugesStale = true;
    private static final long GAUGE_NANOS = TimeUnit.SECONDS.toNanos(1);
    private long lastGaugeNanos;

    private volatile boolean stopping;
    private volatile boolean woken;
    private volatile boolean rescanRequested;
    private volatile Thread runner;

    /** A batch handed to the sink and not yet acknowledged. */
    private record Pending(TrackedFile file, int epoch, long end, long length, long records,
                           CompletableFuture<Void> future) {
    }

    /**
     * Creates the pipeline of one sink; loads its checkpoints.
     *
     * @param name   the sink's name (checkpoint file, logs, metrics)
     * @param inputs the inputs that ship to this sink
     * @param sink   the open sink; closed by {@link #run} when it ends
     * @param store  the sink's checkpoint store
     */
    public Pipeline(String name, List<InputConfig> inputs, ShipConfig config, Sink sink, CheckpointStore store,
                    ShipLog log, ShipMetrics metrics, Mode mode) throws IOException {
        this(name, inputs, config, sink, store, log, metrics, mode, null);
    }

    /** As above, with the watcher to use in {@link Mode#RUN} (null: inotify, or polling when the config says). */
    Pipeline(String name, List<InputConfig> inputs, ShipConfig config, Sink sink, CheckpointStore store,
             ShipLog log, ShipMetrics metrics, Mode mode, FileWatcher watcher) throws IOException {
        this.name = name;
        this.config = config;
        this.sink = sink;
        this.store = store;
        this.log = log;
        this.metrics = metrics;
        this.counters = metrics.of(name);
        this.mode = mode;
        this.pollNanos = (config.poll() != null ? config.poll() : ShipConfigDefaults.POLL).toNanos();
        this.flushBytes = Math.max(1, config.maxInFlight() / 4);
        this.buffer = arena.allocate(config.bufferCapacity(), 4096);
        this.readSize = config.bufferSize();
        this.scratch = arena.allocate(Fingerprint.SIZE);
        this.discovery = new Discovery(inputs, stx, log);
        CheckpointStore.Loaded loaded = store.load(log, true);
        this.storeCorrupt = loaded.corrupt();
        for (Checkpoint c : loaded.entries()) untracked.put(new TrackedFile.Id(c.device(), c.inode()), c);
        if (mode == Mode.RUN) {
            FileWatcher w = watcher != null ? watcher : config.poll() != null ? FileWatchers.polling(config.poll())
                    : FileWatchers.open(ShipConfigDefaults.POLL);
            this.feed = new ChangeFeed(w, inputs, name, log);
        } else {
            this.feed = null; // --once looks at what is there now: nothing to wait for
        }
        metrics.register(() -> gauges);
    }

    /** The sink's name. */
    public String name() {
        return name;
    }

    /** Files that could not be opened or read during the run (for the exit code of {@code --once}). */
    public int fileErrors() {
        return fileErrors;
    }

    /** Why the pipeline gave up, or null. */
    public String fatal() {
        return fatal;
    }

    /** Asks the pipeline to finish: stop reading, flush, wait for acknowledgements, checkpoint, close. */
    public void stop() {
        stopping = true;
        wake();
    }

    /** Asks for a full rescan soon (a watcher saw a directory change or lost events). */
    public void requestRescan() {
        rescanRequested = true;
        wake();
    }

    private void wake() {
        woken = true;
        if (feed != null) feed.wakeup();
        Thread t = runner;
        if (t != null) LockSupport.unpark(t);
    }

    /** Sleeps up to {@code nanos}: in the watcher's poll (events end it too) or, without one, parked. */
    private void park(long nanos) {
        if (nanos <= 0) return;
        if (!woken) {
            if (feed != null && feed.usable()) {
                feed.poll(nanos);
            } else {
                LockSupport.parkNanos(this, nanos);
            }
        }
        woken = false;
    }

    /** Runs until stopped (or, in {@link Mode#ONCE}, until everything present was shipped). */
    public void run() {
        runner = Thread.currentThread();
        try {
            loop();
        } catch (RuntimeException | Error e) {
            fatal = e.toString();
            log.error("pipeline-failed", "sink", name, "error", e.toString());
            throw e;
        } finally {
            shutdown();
        }
    }

    private void loop() {
        long nextScan = 0;
        long rescanNanos = pollNanos;
        if (feed != null) {
            feed.start(); // before the first scan: what appears in between is reported, not missed
            rescanNanos = SAFETY_RESCAN_NANOS;
            log.info("watch", "sink", name, "change-detection", feed.mechanism(), "safety-rescan-s",
                    TimeUnit.NANOSECONDS.toSeconds(rescanNanos));
        }
        while (!stopping) {
            long now = System.nanoTime();
            if (feed != null) applyChanges(now);
            if (mode == Mode.RUN ? (now - nextScan >= 0 || rescanRequested) : !firstScanDone) {
                rescanRequested = false;
                scanNow();
                // A watch added now (a directory made since) missed what appeared before it: look once more.
                if (feed != null && feed.ensureWatches()) rescanRequested = true;
                // Likewise for the targets of symlinked directories the scan walked into.
                if (feed != null && feed.linked(discovery.linkedDirs())) rescanRequested = true;
                nextScan = System.nanoTime() + rescanNanos;
                // For debugging; tests wait for a scan that leaves no rescan pending, so that what they change next can
                // only be found through its event.
                log.debug("scanned", "sink", name, "tracked", tracked.size(), "rescan-pending", rescanRequested);
            }
            boolean progress = harvestRound();
            if (!collectAcks()) continue;
            if (inFlightBytes > config.maxInFlight()) {
                // Backpressure: reading waits for the sink; the files on disk hold the rest.
                flushSink();
                park(TimeUnit.MILLISECONDS.toNanos(5));
                collectAcks();
            } else if (unflushedBytes >= flushBytes
                    || (unflushedBytes > 0 && System.nanoTime() - firstUnflushedNanos >= FLUSH_NANOS)) {
                flushSink();
            }
            maybeCheckpoint(false);
            publishGauges(false);
            if (progress) continue;
            flushSink();
            if (!collectAcks()) continue;
            maybeCheckpoint(false);
            checkReleases();
            if (mode == Mode.ONCE && onceDone()) break;
            if (mode == Mode.ONCE && fatal != null) break;
            long wait = nextScan - System.nanoTime();
            if (mode == Mode.ONCE) wait = TimeUnit.MILLISECONDS.toNanos(5);
            if (!pending.isEmpty()) wait = Math.min(wait, TimeUnit.MILLISECONDS.toNanos(5));
            if (checkpointDirty) {
                wait = Math.min(wait, lastCheckpointNanos + config.checkpointInterval().toNanos() - System.nanoTime());
            }
            if (hasPartialTimers()) wait = Math.min(wait, TimeUnit.MILLISECONDS.toNanos(50));
            // The lag gauges say what changed within a second, without waking an idle pipeline for nothing.
            if (gaugesStale) wait = Math.min(wait, lastGaugeNanos + GAUGE_NANOS - System.nanoTime());
            if (pollHot()) continue;
            if (hasHotFiles()) wait = Math.min(wait, HOT_POLL_NANOS);
            // Asked for by this thread after its scan (a watch added, which missed what came before it): nothing
            // would wake the wait below for it, and the safety rescan is a minute away.
            if (rescanRequested && mode == Mode.RUN) wait = 0;
            park(wait);
            pollHot();
            checkPartialTimeouts();
            pruneAttention();
        }
    }

    // ---------------------------------------------------------------- changes reported by the watcher

    /** Takes what the watcher reported: a look at each written file (one fstat), a rescan when names changed. */
    private void applyChanges(long now) {
        feed.poll(0); // what came while the pipeline was busy
        if (feed.takeRescan()) rescanRequested = true;
        changesNow = now;
        feed.drainModified(onModified);
    }

    /** {@link #applyChanges}'s time, for {@link #onModified} (one consumer made once, not a lambda per call). */
    private long changesNow;
    private final java.util.function.Consumer<String> onModified = this::modified;

    /** The watcher says {@code path} was written to. */
    private void modified(String path) {
        long now = changesNow;
        TrackedFile t = trackedAt(path);
        if (t == null) {
            // A matching file not tracked: it could not be opened, or appeared before its directory's watch.
            if (now - lastUnknownRescanNanos >= UNKNOWN_RESCAN_NANOS) {
                lastUnknownRescanNanos = now;
                rescanRequested = true;
            }
            return;
        }
        if (t.fd < 0) {
            markReadable(t); // closed to stay under the cap: the read reopens it
        } else if (stx.ofFd(t.fd) == 0) {
            observeSize(t, stx.size(), now);
        }
    }

    private TrackedFile trackedAt(String path) {
        if (byPathStale) {
            byPath.clear();
            for (TrackedFile t : tracked.values()) {
                if (t.state != TrackedFile.State.ACTIVE) byPath.put(t.path, t);
            }
            for (TrackedFile t : tracked.values()) {
                if (t.state == TrackedFile.State.ACTIVE) byPath.put(t.path, t);
            }
            byPathStale = false;
        }
        return byPath.get(path);
    }

    /** {@code t} may need work soon: a read, a timer, a rotation to finish, a hot file to check. */
    private void attend(TrackedFile t) {
        if (!t.released && !t.attended) {
            t.attended = true;
            attention.add(t);
        }
    }

    /** Made once rather than a lambda per batch. */
    private final java.util.function.BiConsumer<Void, Throwable> wakeOnDone = (v, e) -> wake();

    /** Lets idle files out of {@link #attention}. */
    private void pruneAttention() {
        if (attention.isEmpty()) return;
        long now = System.nanoTime();
        attention.removeIf(t -> {
            boolean idle = t.released || (!t.readable && !t.partialPending && t.inFlight == 0
                    && t.state == TrackedFile.State.ACTIVE && now - t.lastGrowthNanos > HOT_NANOS);
            if (idle) t.attended = false;
            return idle;
        });
    }

    // ---------------------------------------------------------------- discovery and rotation

    private void scanNow() {
        scanGen++;
        long now = System.nanoTime();
        for (Discovery.Found f : discovery.scan()) {
            if (!f.regular()) {
                TrackedFile t = tracked.get(new TrackedFile.Id(f.device(), f.inode()));
                if (t == null) notRegular(f);
                continue;
            }
            TrackedFile t = tracked.get(new TrackedFile.Id(f.device(), f.inode()));
            if (t == null) {
                openNew(f, now);
                continue;
            }
            if (t.scanGen == scanGen) continue; // named twice (a symlink and its target): the first name wins
            t.scanGen = scanGen;
            if (!t.path.equals(f.path())) {
                log.info("rotation", "sink", name, "kind", "rename", "from", t.path, "to", f.path());
                metrics.rotation(name, "rename");
                t.path = f.path();
                byPathStale = true;
                gaugesStale = true;
            }
            if (t.state != TrackedFile.State.ACTIVE) {
                t.state = TrackedFile.State.ACTIVE;
                byPathStale = true;
                gaugesStale = true;
            }
            observeSize(t, f.size(), now);
        }
        // Files no path of an input names any more.
        for (TrackedFile t : new ArrayList<>(tracked.values())) {
            if (t.scanGen == scanGen) continue;
            if (t.state == TrackedFile.State.ACTIVE) leftPath(t, now);
            if (t.fd >= 0 && t.state != TrackedFile.State.ACTIVE) {
                if (stx.ofFd(t.fd) == 0) {
                    if (stx.nlink() == 0 && t.state != TrackedFile.State.DELETED) {
                        t.state = TrackedFile.State.DELETED;
                        attend(t);
                        byPathStale = true;
                        gaugesStale = true;
                        log.info("rotation", "sink", name, "kind", "delete", "path", t.path, "unread",
                                Math.max(0, stx.size() - t.readOffset));
                        metrics.rotation(name, "delete");
                    }
                    observeSize(t, stx.size(), now);
                }
            }
        }
        if (!firstScanDone) {
            firstScanDone = true;
            findRotatedWhileStopped(now);
        }
        forgetOld();
        publishGauges(true);
    }

    private void notRegular(Discovery.Found f) {
        if (discoveryWarned.add(f.path() + "|" + f.type())) {
            log.warn("skipped-not-regular", "sink", name, "path", f.path(), "type", f.type(),
                    "why", "only regular files are shipped; a FIFO or device is never opened");
            metrics.error(name, "not-regular");
        }
    }

    private final java.util.Set<String> discoveryWarned = new java.util.HashSet<>();

    /** The path that named {@code t} names something else now, or nothing. */
    private void leftPath(TrackedFile t, long now) {
        if (t.fd < 0) {
            // Closed to stay under the cap (idle at its end): find where it went by identity, or let it go.
            String moved = discovery.findByIdentity(parent(t.path), t.device, t.inode);
            if (moved == null || !reopen(t, moved)) {
                log.info("released", "sink", name, "path", t.path, "why", "gone while closed (idle)");
                release(t);
                return;
            }
        }
        if (stx.ofFd(t.fd) != 0) return;
        boolean deleted = stx.nlink() == 0;
        t.state = deleted ? TrackedFile.State.DELETED : TrackedFile.State.ROTATED;
        t.releaseAtNanos = now + config.rotateWait().toNanos();
        attend(t);
        byPathStale = true;
        gaugesStale = true;
        String kind = deleted ? "delete" : "rename";
        log.info("rotation", "sink", name, "kind", kind, "path", t.path, "unread",
                Math.max(0, stx.size() - t.readOffset), "action", "drain then close");
        metrics.rotation(name, kind);
    }

    /** At start: checkpointed files that no input path names: look beside their old name (rotated while stopped). */
    private void findRotatedWhileStopped(long now) {
        for (Checkpoint c : new ArrayList<>(untracked.values())) {
            String found = discovery.findByIdentity(parent(c.path()), c.device(), c.inode());
            if (found == null) continue;
            InputConfig input = inputFor(c.path());
            if (input == null) continue;
            int fd = openFd(found, input, false);
            if (fd < 0) continue;
            TrackedFile t = adopt(fd, found, input, now, true);
            if (t == null) continue;
            t.state = stx.ofFd(fd) == 0 && stx.nlink() == 0 ? TrackedFile.State.DELETED : TrackedFile.State.ROTATED;
            t.releaseAtNanos = now + config.rotateWait().toNanos();
            attend(t);
            byPathStale = true;
            gaugesStale = true;
            log.info("rotation", "sink", name, "kind", "rename-while-stopped", "was", c.path(), "now", found,
                    "from", t.readOffset, "action", "drain then close");
            metrics.rotation(name, "rename");
        }
    }

    private InputConfig inputFor(String path) {
        Path p = Path.of(path);
        for (InputConfig in : discoveryInputs()) {
            for (String g : in.paths()) {
                if (Glob.of(g).matches(p)) return in;
            }
        }
        List<InputConfig> all = discoveryInputs();
        return all.isEmpty() ? null : all.get(0);
    }

    private List<InputConfig> discoveryInputs() {
        return config.inputsOf(name);
    }

    private void forgetOld() {
        long cutoff = System.currentTimeMillis() - FORGET_MILLIS;
        if (untracked.values().removeIf(c -> c.seenAt() < cutoff)) checkpointDirty = true;
    }

    private static Path parent(String path) {
        return Path.of(path).getParent();
    }

    /** A path names a file not tracked yet: open it, identify it, find its checkpoint. */
    private void openNew(Discovery.Found f, long now) {
        int fd = openFd(f.path(), f.input(), true);
        if (fd < 0) return;
        adopt(fd, f.path(), f.input(), now, false);
    }

    private int openFd(String path, InputConfig input, boolean report) {
        // O_NONBLOCK: should the path have become a FIFO since the scan, open must not wait for a writer.
        int fd = LibC.openat(Fcntl.AT_FDCWD, path, Fcntl.O_RDONLY | Fcntl.O_CLOEXEC | Fcntl.O_NONBLOCK, 0);
        if (fd >= 0) return fd;
        if (fd == -Errno.ENOENT) return fd;
        fileErrors++;
        if (report && discoveryWarned.add(path + "|open|" + (-fd))) {
            log.warn("cannot-open", "sink", name, "input", input.name(), "path", path, "errno", Errno.name(-fd),
                    "action", "skipped; tried again at every rescan");
            metrics.error(name, "open");
        }
        return fd;
    }

    /** Tracks the file open as {@code fd}; null (and fd closed) when it is not a regular file or already known. */
    private TrackedFile adopt(int fd, String path, InputConfig input, long now, boolean rotatedAway) {
        if (stx.ofFd(fd) != 0 || !stx.isRegular()) {
            String type = stx.typeName();
            LibC.close(fd);
            if (discoveryWarned.add(path + "|" + type)) {
                log.warn("skipped-not-regular", "sink", name, "path", path, "type", type);
                metrics.error(name, "not-regular");
            }
            return null;
        }
        TrackedFile.Id id = new TrackedFile.Id(stx.dev(), stx.ino());
        long size = stx.size();
        if (tracked.containsKey(id)) {
            LibC.close(fd);
            return null;
        }
        TrackedFile t = new TrackedFile(input, path, id.device(), id.inode());
        t.fd = fd;
        openFiles++;
        t.scanGen = scanGen;
        t.lastGrowthNanos = now;
        t.lastUseNanos = now;
        Checkpoint c = untracked.remove(id);
        long start = 0;
        String why;
        if (c != null) {
            long fp = size >= c.fpLength() ? Fingerprint.of(fd, c.fpLength(), scratch) : Long.MIN_VALUE;
            if (fp != c.fpHash()) {
                why = size < c.fpLength() ? "shorter-than-fingerprint" : "fingerprint-differs";
                log.info("new-file-same-inode", "sink", name, "path", path, "why", why,
                        "action", "shipped from its beginning");
            } else if (size < c.offset()) {
                why = "truncated-while-stopped";
                log.info("rotation", "sink", name, "kind", "truncate", "path", path, "size", size, "offset",
                        c.offset(), "action", "shipped from its beginning");
                metrics.rotation(name, "truncate");
            } else {
                start = c.offset();
                why = "resumed";
            }
        } else if (!firstScanDone && !rotatedAway && input.start() == Start.END && !storeCorrupt) {
            start = size;
            why = "new-at-end";
        } else {
            why = "new";
        }
        t.readOffset = start;
        t.ackedOffset = start;
        t.lastSize = size;
        fingerprint(t, size);
        tracked.put(id, t);
        attend(t);
        byPathStale = true;
        gaugesStale = true;
        boolean watchedNow = false;
        if (feed != null && !feed.covers(Path.of(path))) {
            t.watchedLink = Path.of(path);
            feed.watchFile(t.watchedLink);
            watchedNow = true;
        }
        checkpointDirty = true;
        log.info("file", "sink", name, "input", input.name(), "path", path, "dev", id.device(), "ino", id.inode(),
                "size", size, "from", start, "why", why);
        // A write between the fstat above and the file's own watch is reported by no event: one read finds it.
        if (size > t.readOffset || watchedNow) markReadable(t);
        enforceOpenCap(now);
        return t;
    }

    private void fingerprint(TrackedFile t, long size) {
        int len = (int) Math.min(size, Fingerprint.SIZE);
        if (len <= t.fpLength && t.fpLength > 0) return;
        long fp = Fingerprint.of(t.fd, len, scratch);
        if (fp == Long.MIN_VALUE) return;
        t.fpLength = len;
        t.fpHash = fp;
        checkpointDirty = true;
    }

    private void observeSize(TrackedFile t, long size, long now) {
        if (size != t.lastSize) gaugesStale = true;
        if (size < t.readOffset || size < t.lastSize && size < t.fpLength) {
            truncated(t, size);
        } else if (size != t.lastSize && t.fd >= 0 && t.fpLength > 0
                && Fingerprint.of(t.fd, t.fpLength, scratch) != t.fpHash) {
            // Truncated and written past the old offset between two looks: the size alone cannot tell, the first
            // bytes can (one pread of at most 1 KiB when a file's size changed).
            truncated(t, size);
        } else if (size > t.lastSize) {
            t.lastGrowthNanos = now;
            t.releaseAtNanos = now + config.rotateWait().toNanos();
            attend(t);
        }
        t.lastSize = size;
        if (t.fpLength < Fingerprint.SIZE && size > t.fpLength && t.fd >= 0) fingerprint(t, size);
        if (size > t.readOffset) markReadable(t);
    }

    /** The file is shorter than what was read: copytruncate or a truncation in place. Start over at 0. */
    private void truncated(TrackedFile t, long size) {
        log.info("rotation", "sink", name, "kind", "truncate", "path", t.path, "size", size, "offset", t.readOffset,
                "action", "shipped again from its beginning");
        metrics.rotation(name, "truncate");
        t.epoch++;
        t.readOffset = 0;
        t.ackedOffset = 0;
        t.skipping = false;
        t.partialPending = false;
        t.fpLength = 0;
        t.fpHash = 0;
        if (t.fd >= 0) fingerprint(t, size);
        checkpointDirty = true;
    }

    private void markReadable(TrackedFile t) {
        t.readable = true;
        t.atEof = false;
        attend(t);
    }

    private boolean reopen(TrackedFile t, String path) {
        int fd = LibC.openat(Fcntl.AT_FDCWD, path, Fcntl.O_RDONLY | Fcntl.O_CLOEXEC | Fcntl.O_NONBLOCK, 0);
        if (fd < 0) return false;
        if (stx.ofFd(fd) != 0 || !stx.isRegular() || !t.sameFile(stx.dev(), stx.ino())) {
            LibC.close(fd);
            return false;
        }
        t.fd = fd;
        if (!t.path.equals(path)) byPathStale = true;
        t.path = path;
        openFiles++;
        return true;
    }

    /** Closes idle files (at their end, everything acknowledged, still named by their path) above the cap. */
    private void enforceOpenCap(long now) {
        if (openFiles <= config.maxOpenFiles()) return;
        List<TrackedFile> idle = new ArrayList<>();
        for (TrackedFile t : tracked.values()) {
            if (t.fd >= 0 && t.state == TrackedFile.State.ACTIVE && t.atEof && !t.readable && t.inFlight == 0
                    && !t.partialPending) {
                idle.add(t);
            }
        }
        idle.sort((a, b) -> Long.compare(a.lastUseNanos, b.lastUseNanos));
        for (TrackedFile t : idle) {
            if (openFiles <= config.maxOpenFiles()) break;
            LibC.close(t.fd);
            t.fd = -1;
            openFiles--;
        }
        if (openFiles > config.maxOpenFiles() && !capWarned) {
            capWarned = true;
            log.warn("open-files-over-cap", "sink", name, "open", openFiles, "cap", config.maxOpenFiles(),
                    "why", "files with unread data or in rotation stay open");
        }
    }

    private void release(TrackedFile t) {
        if (t.fd >= 0) {
            LibC.close(t.fd);
            t.fd = -1;
            openFiles--;
        }
        t.released = true; // leaves attention at the next prune: rounds over it may be running
        tracked.remove(t.id());
        byPathStale = true;
        gaugesStale = true;
        if (t.watchedLink != null && feed != null) feed.unwatchFile(t.watchedLink);
        checkpointDirty = true;
    }

    /** Lets go of drained rotated and deleted files. */
    private void checkReleases() {
        long now = System.nanoTime();
        for (int i = 0; i < attention.size(); i++) {
            TrackedFile t = attention.get(i);
            if (t.released) continue;
            if (t.state == TrackedFile.State.ACTIVE || !t.atEof || t.readable || t.inFlight > 0) continue;
            boolean due = t.state == TrackedFile.State.DELETED || mode == Mode.ONCE || now - t.releaseAtNanos >= 0;
            if (!due) continue;
            if (t.partialPending && t.input.framing() == Framing.LINES) {
                // No more bytes will come: the unterminated last line ships as it is.
                harvest(t, true);
                continue;
            }
            log.info("released", "sink", name, "path", t.path, "state", t.state, "offset", t.ackedOffset);
            release(t);
        }
    }

    // ---------------------------------------------------------------- harvesting

    private boolean harvestRound() {
        if (attention.isEmpty()) return false;
        boolean progress = false;
        for (int i = 0; i < attention.size(); i++) {
            TrackedFile t = attention.get(i);
            if (t.released) continue;
            if (stopping) break;
            if (!t.readable) continue;
            if (inFlightBytes > config.maxInFlight()) break;
            if (harvest(t, false)) progress = true;
            if (fatal != null) break;
        }
        return progress;
    }

    /** One read of one file; true when bytes moved (sent, skipped or split). */
    private boolean harvest(TrackedFile t, boolean flushPartial) {
        if (t.fd < 0 && !reopen(t, t.path)) {
            t.readable = false;
            return false;
        }
        long now = System.nanoTime();
        t.lastUseNanos = now;
        boolean lines = t.input.framing() == Framing.LINES && !t.skipping;
        long want = readSize; // at most the buffer's size: bufferCapacity() is never below bufferSize()
        long n = read(t, 0, want);
        if (lines && n == want && want < buffer.byteSize() && Framer.indexOfNewline(buffer, 0, n) < 0) {
            // A line longer than one read: read on, up to the whole buffer, where a line of max-record bytes fits.
            // Only the rest: the first n bytes are in the buffer already.
            long rest = read(t, n, buffer.byteSize() - n);
            n = rest < 0 ? rest : n + rest;
        }
        if (n < 0) {
            fileErrors++;
            log.warn("read-failed", "sink", name, "path", t.path, "offset", t.readOffset, "errno",
                    Errno.name((int) -n), "action", "tried again at the next rescan");
            metrics.error(name, "read");
            t.readable = false;
            return false;
        }
        if (n == 0) {
            t.readable = false;
            t.atEof = true;
            t.partialPending = false;
            return false;
        }
        if (t.readOffset + n > t.lastSize) {
            t.lastSize = t.readOffset + n;
            t.lastGrowthNanos = now;
        }
        if (t.input.framing() == Framing.RAW) {
            send(t, n, 0);
            return true;
        }
        if (t.skipping) {
            long nl = Framer.indexOfNewline(buffer, 0, n);
            long skip = nl < 0 ? n : nl + 1;
            t.readOffset += skip;
            if (nl >= 0) t.skipping = false;
            skipped(t);
            return true;
        }
        Framer.scan(buffer, n, config.maxRecord(), scan);
        if (scan.end > 0) {
            send(t, scan.end, scan.records);
            return true;
        }
        if (scan.overlong == 0) {
            if (config.onOverlong() == Overlong.SPLIT) {
                counters.add(Counter.RECORDS_SPLIT, 1);
                send(t, config.maxRecord(), 1);
            } else {
                counters.add(Counter.RECORDS_DROPPED, 1);
                log.warn("record-dropped", "sink", name, "path", t.path, "offset", t.readOffset, "why",
                        "longer than max-record", "max-record", config.maxRecord());
                t.skipping = true;
                t.readOffset += config.maxRecord();
                skipped(t);
            }
            return true;
        }
        // Only an unterminated line is left: it waits for its newline, unless it may ship as it is.
        Duration timeout = t.input.partialTimeout();
        if (flushPartial || (timeout != null && now - t.lastGrowthNanos >= timeout.toNanos())) {
            send(t, n, 1);
            t.partialPending = false;
            return true;
        }
        t.partialPending = true;
        attend(t);
        t.readable = false;
        t.atEof = true;
        return false;
    }

    /**
     * One pread of up to {@code want} bytes into the buffer from index {@code at}, of the file from its read offset
     * plus {@code at}; n, or -errno.
     */
    private long read(TrackedFile t, long at, long want) {
        MemorySegment into = at == 0 ? buffer : buffer.asSlice(at);
        long n;
        do {
            n = LibC.pread(t.fd, into, want, t.readOffset + at);
        } while (n == -Errno.EINTR);
        return n;
    }

    /** Bytes were skipped (a dropped record): the checkpoint may move past them once what precedes is acked. */
    private void skipped(TrackedFile t) {
        CompletableFuture<Void> done = CompletableFuture.completedFuture(null);
        pending.add(new Pending(t, t.epoch, t.readOffset, 0, 0, done));
        t.inFlight++;
    }

    private void send(TrackedFile t, long length, long records) {
        Batch b = new Batch(t.path, t.input.name(), t.fd, t.readOffset, length, records,
                buffer.asSlice(0, length));
        CompletableFuture<Void> f;
        try {
            f = sink.send(b);
        } catch (IOException | RuntimeException e) {
            sinkFailed(e);
            return;
        }
        t.readOffset += length;
        t.inFlight++;
        inFlightBytes += length;
        if (unflushedBytes == 0) firstUnflushedNanos = System.nanoTime();
        unflushedBytes += length;
        counters.add(Counter.BYTES_READ, length);
        counters.add(Counter.RECORDS_READ, records);
        pending.add(new Pending(t, t.epoch, t.readOffset, length, records, f));
        if (!f.isDone()) f.whenComplete(wakeOnDone);
    }

    // ---------------------------------------------------------------- acknowledgements and failures

    /** Advances acknowledged offsets from completed futures, in order; false after a sink failure. */
    private boolean collectAcks() {
        while (!pending.isEmpty()) {
            Pending p = pending.peekFirst();
            if (!p.future().isDone()) break;
            if (p.future().isCompletedExceptionally()) {
                sinkFailed(cause(p.future()));
                return false;
            }
            pending.removeFirst();
            ack(p);
        }
        return true;
    }

    private void ack(Pending p) {
        gaugesStale = true;
        TrackedFile t = p.file();
        inFlightBytes -= p.length();
        t.inFlight--;
        if (p.epoch() == t.epoch && p.end() > t.ackedOffset) {
            t.ackedOffset = p.end();
            checkpointDirty = true;
        }
        if (p.length() > 0) {
            counters.add(Counter.BYTES_SHIPPED, p.length());
            counters.add(Counter.RECORDS_SHIPPED, p.records());
            backoffNanos = BACKOFF_MIN_NANOS;
            consecutiveFailures = 0;
        }
    }

    private static Throwable cause(CompletableFuture<Void> f) {
        try {
            f.join();
            return new IllegalStateException("future not failed");
        } catch (java.util.concurrent.CompletionException | java.util.concurrent.CancellationException e) {
            return e.getCause() != null ? e.getCause() : e;
        }
    }

    /**
     * The sink failed: keep what it still acknowledges, then go back to the acknowledged offsets of every file and
     * send again after a backoff. Duplicates are possible, loss is not.
     */
    private void sinkFailed(Throwable e) {
        consecutiveFailures++;
        metrics.error(name, "sink");
        counters.add(Counter.SINK_RETRIES, 1);
        log.warn("sink-failed", "sink", name, "to", sink.describe(), "error", String.valueOf(e.getMessage()),
                "retry-in-ms", TimeUnit.NANOSECONDS.toMillis(backoffNanos), "failures", consecutiveFailures);
        try {
            sink.flush();
        } catch (IOException | RuntimeException ignored) {
            // The pending futures say what survived.
        }
        long deadline = System.nanoTime() + SETTLE_NANOS;
        boolean ok = true;
        while (!pending.isEmpty()) {
            Pending p = pending.peekFirst();
            if (ok) {
                try {
                    p.future().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (Exception ex) {
                    ok = false;
                }
            }
            pending.removeFirst();
            if (ok) {
                ack(p);
            } else {
                p.file().inFlight--;
                inFlightBytes -= p.length();
            }
        }
        inFlightBytes = 0;
        unflushedBytes = 0;
        for (TrackedFile t : tracked.values()) {
            t.inFlight = 0;
            if (t.readOffset != t.ackedOffset) {
                t.readOffset = t.ackedOffset;
                t.skipping = false;
                markReadable(t);
            }
        }
        maybeCheckpoint(true);
        if (mode == Mode.ONCE && consecutiveFailures >= ONCE_MAX_FAILURES) {
            fatal = "sink failed " + consecutiveFailures + " times in a row: " + e.getMessage();
            stopping = true;
            return;
        }
        long until = System.nanoTime() + backoffNanos;
        while (!stopping && until - System.nanoTime() > 0) park(until - System.nanoTime());
        backoffNanos = Math.min(BACKOFF_MAX_NANOS, backoffNanos * 2);
    }

    private void flushSink() {
        if (unflushedBytes == 0) return;
        unflushedBytes = 0;
        try {
            sink.flush();
        } catch (IOException | RuntimeException e) {
            sinkFailed(e);
        }
    }

    // ---------------------------------------------------------------- checkpoints

    /**
     * Writes the checkpoints when due. The write (temp file, fsync, rename, directory fsync: several device flushes)
     * runs on the checkpoint thread, so that harvesting does not stall behind the disk; {@code force} (shutdown, sink
     * failure) writes on this thread and returns when the checkpoints are durable.
     */
    private void maybeCheckpoint(boolean force) {
        if (checkpointer.failed) {
            checkpointer.failed = false;
            checkpointDirty = true;
        }
        if (!checkpointDirty) return;
        long now = System.nanoTime();
        if (!force && now - lastCheckpointNanos < config.checkpointInterval().toNanos()) return;
        long wall = System.currentTimeMillis();
        List<Checkpoint> entries = new ArrayList<>(tracked.size() + untracked.size());
        for (TrackedFile t : tracked.values()) {
            entries.add(new Checkpoint(t.device, t.inode, t.fpLength, t.fpHash, t.ackedOffset, wall, t.path));
        }
        entries.addAll(untracked.values());
        checkpointDirty = false;
        lastCheckpointNanos = now;
        if (force) {
            checkpointer.writeNow(entries);
        } else {
            checkpointer.submit(entries);
        }
    }

    /**
     * Writes checkpoints on its own thread, the newest submitted first and only (an older snapshot not yet written
     * is replaced). A lock orders its writes with forced ones, so an older snapshot never overwrites a newer one.
     */
    private final class Checkpointer {
        private final Object lock = new Object();
        private final java.util.concurrent.atomic.AtomicReference<List<Checkpoint>> next =
                new java.util.concurrent.atomic.AtomicReference<>();
        private final java.util.concurrent.Semaphore signal = new java.util.concurrent.Semaphore(0);
        private Thread thread;
        private volatile boolean closed;
        /** A write failed: the pipeline marks its checkpoints dirty again (retried after the interval). */
        volatile boolean failed;

        void submit(List<Checkpoint> entries) {
            if (thread == null) {
                thread = Thread.ofPlatform().daemon().name("jfio-ship-checkpoint-" + name).start(this::loop);
            }
            next.set(entries);
            signal.release();
        }

        void writeNow(List<Checkpoint> entries) {
            synchronized (lock) {
                next.set(null);
                write(entries);
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

        private void write(List<Checkpoint> entries) {
            try {
                store.write(entries);
                counters.add(Counter.CHECKPOINTS, 1);
            } catch (IOException e) {
                failed = true;
                metrics.error(name, "checkpoint");
                log.error("checkpoint-write-failed", "sink", name, "file", store.file(), "error", e.toString(),
                        "action", "kept in memory; written again at the next interval");
            }
        }

        /** Ends the thread after the write in progress; a forced write follows on the caller's thread. */
        void close() {
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

    private final Checkpointer checkpointer = new Checkpointer();

    // ---------------------------------------------------------------- idle-time checks

    /** Files that grew recently are polled often (fstat of the descriptor): low latency without inotify. */
    private boolean pollHot() {
        if (attention.isEmpty()) return false;
        boolean any = false;
        long now = System.nanoTime();
        for (int i = 0; i < attention.size(); i++) {
            TrackedFile t = attention.get(i);
            if (t.released) continue;
            if (t.fd < 0 || t.readable || now - t.lastGrowthNanos > HOT_NANOS || !pollsItself(t)) continue;
            if (stx.ofFd(t.fd) != 0) continue;
            long size = stx.size();
            if (size > t.lastSize || size < t.readOffset) {
                observeSize(t, size, now);
                any |= t.readable;
            }
        }
        return any;
    }

    private boolean hasHotFiles() {
        long now = System.nanoTime();
        for (int i = 0; i < attention.size(); i++) {
            TrackedFile t = attention.get(i);
            if (t.fd >= 0 && now - t.lastGrowthNanos <= HOT_NANOS && pollsItself(t)) return true;
        }
        return false;
    }

    /**
     * Whether the pipeline must look at {@code t}'s size itself: no watcher (--once), a watcher that polls, or a
     * file no longer named by a watched path (renamed away or deleted: inotify reports writes to it under a name
     * no glob matches, or not at all).
     */
    private boolean pollsItself(TrackedFile t) {
        return feed == null || feed.polls() || t.state != TrackedFile.State.ACTIVE;
    }

    private boolean hasPartialTimers() {
        for (int i = 0; i < attention.size(); i++) {
            TrackedFile t = attention.get(i);
            if (t.partialPending && t.input.partialTimeout() != null) return true;
        }
        return false;
    }

    private void checkPartialTimeouts() {
        long now = System.nanoTime();
        for (int i = 0; i < attention.size(); i++) {
            TrackedFile t = attention.get(i);
            Duration timeout = t.input.partialTimeout();
            if (t.partialPending && timeout != null && now - t.lastGrowthNanos >= timeout.toNanos()) {
                t.readable = true;
            }
        }
    }

    private boolean onceDone() {
        if (!firstScanDone || !pending.isEmpty()) return false;
        for (int i = 0; i < attention.size(); i++) {
            TrackedFile t = attention.get(i);
            if (t.released) continue;
            if (t.readable) return false;
            if (t.partialPending && t.input.partialTimeout() != null) {
                // In a run that ends now, a partial line that may ship on a timeout ships now.
                harvest(t, true);
                return false;
            }
        }
        return true;
    }

    private void publishGauges(boolean force) {
        long now = System.nanoTime();
        if (!force && (!gaugesStale || now - lastGaugeNanos < GAUGE_NANOS)) return;
        lastGaugeNanos = now;
        gaugesStale = false;
        List<ShipMetrics.FileGauge> g = new ArrayList<>(tracked.size());
        for (TrackedFile t : tracked.values()) {
            g.add(new ShipMetrics.FileGauge(name, t.path, Math.max(0, t.lastSize - t.ackedOffset), t.fd >= 0));
        }
        gauges = List.copyOf(g);
    }

    // ---------------------------------------------------------------- shutdown

    private void shutdown() {
        if (feed != null) feed.close();
        try {
            try {
                sink.flush();
            } catch (IOException | RuntimeException e) {
                log.warn("sink-flush-failed", "sink", name, "error", e.toString());
            }
            long deadline = System.nanoTime() + SHUTDOWN_NANOS;
            while (!pending.isEmpty() && deadline - System.nanoTime() > 0) {
                Pending p = pending.peekFirst();
                try {
                    p.future().get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (Exception e) {
                    break;
                }
                pending.removeFirst();
                ack(p);
            }
            if (!pending.isEmpty()) {
                log.warn("shutdown-unacknowledged", "sink", name, "batches", pending.size(),
                        "action", "not checkpointed; sent again at the next start");
            }
            checkpointer.close();
            checkpointDirty = true; // the last write is always this thread's own, whatever the other one did
            maybeCheckpoint(true);
        } finally {
            try {
                sink.close();
            } catch (IOException | RuntimeException e) {
                log.warn("sink-close-failed", "sink", name, "error", e.toString());
            }
            for (TrackedFile t : tracked.values()) {
                if (t.fd >= 0) LibC.close(t.fd);
                t.fd = -1;
            }
            openFiles = 0;
            publishGauges(true);
            arena.close();
        }
    }

    // ---------------------------------------------------------------- dry run

    /**
     * What a run would ship, without opening the sink or changing the state: one line per file,
     * {@code path=... dev=... ino=... size=... from=... bytes=... why=...}.
     */
    public static List<String> dryRun(String name, List<InputConfig> inputs, ShipConfig config,
                                      CheckpointStore store, ShipLog log) throws IOException {
        List<String> out = new ArrayList<>();
        CheckpointStore.Loaded loaded = store.load(log, false);
        Map<TrackedFile.Id, Checkpoint> cps = new HashMap<>();
        for (Checkpoint c : loaded.entries()) cps.put(new TrackedFile.Id(c.device(), c.inode()), c);
        try (Arena arena = Arena.ofConfined()) {
            Stx stx = new Stx(arena);
            MemorySegment scratch = arena.allocate(Fingerprint.SIZE);
            Discovery d = new Discovery(inputs, stx, log);
            java.util.Set<TrackedFile.Id> seen = new java.util.HashSet<>();
            for (Discovery.Found f : d.scan()) {
                if (!f.regular()) {
                    out.add("sink=" + name + " path=" + f.path() + " skip=not-a-regular-file type=" + f.type());
                    continue;
                }
                if (!seen.add(new TrackedFile.Id(f.device(), f.inode()))) continue;
                Checkpoint c = cps.get(new TrackedFile.Id(f.device(), f.inode()));
                long from = 0;
                String why = "new";
                int fd = LibC.openat(Fcntl.AT_FDCWD, f.path(), Fcntl.O_RDONLY | Fcntl.O_CLOEXEC
                        | Fcntl.O_NONBLOCK, 0);
                if (fd < 0) {
                    out.add("sink=" + name + " path=" + f.path() + " skip=cannot-open errno=" + Errno.name(-fd));
                    continue;
                }
                try {
                    if (c != null) {
                        long fp = f.size() >= c.fpLength() ? Fingerprint.of(fd, c.fpLength(), scratch)
                                : Long.MIN_VALUE;
                        if (fp != c.fpHash()) {
                            why = "new-file-same-inode";
                        } else if (f.size() < c.offset()) {
                            why = "truncated";
                        } else {
                            from = c.offset();
                            why = "resume";
                        }
                    } else if (f.input().start() == Start.END && !loaded.corrupt()) {
                        from = f.size();
                        why = "new-at-end";
                    }
                } finally {
                    LibC.close(fd);
                }
                out.add("sink=" + name + " path=" + f.path() + " dev=" + f.device() + " ino=" + f.inode() + " size="
                        + f.size() + " from=" + from + " bytes=" + Math.max(0, f.size() - from) + " why=" + why);
            }
        }
        return out;
    }
}
