package io.jfio.ship.pipeline;

import io.jfio.core.engine.EventRing;
import io.jfio.core.file.StatBuffer;
import io.jfio.core.watch.FileWatcher;
import io.jfio.core.watch.FileWatchers;
import io.jfio.ship.config.Framing;
import io.jfio.ship.config.InputConfig;
import io.jfio.ship.config.ShipConfig;
import io.jfio.ship.log.ShipLog;
import io.jfio.ship.metrics.ShipMetrics;
import io.jfio.ship.metrics.ShipMetrics.Counter;
import io.jfio.ship.sink.Sink;
import io.jfio.ship.state.Checkpoint;
import io.jfio.ship.state.CheckpointStore;
import io.jfio.ship.state.Checkpointer;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Not thread-safe: {@link #run} runs on one thread; {@link #stop} and {@link #requestRescan} may be called from
 * any thread.
 *
 * <p>Ships the inputs of one sink: the duty cycle that ties the stages together, all on one platform thread. Each turn:
 * take what the watcher reported ({@link ChangeFeed}); rescan when asked or due ({@link FileTracker}); read one
 * buffer from each file that may have data, round-robin, and hand the batches to the sink ({@link Harvester},
 * {@link BatchWindow}); take the acknowledgements, in order; checkpoint when due ({@link Checkpointer}); and when
 * there was nothing to do, flush the sink and wait in the watcher's poll until an event, an acknowledgement, a timer
 * or a stop. Reading pauses while more than {@code max-in-flight} bytes are unacknowledged (the files on disk are the
 * buffer) and while the sink is backing off after a failure.
 *
 * <p>Where files start: a sink that stores source positions with its data ({@link Sink#committed()}, the directory
 * sink) is the truth, and the checkpoints are a cache of it; other sinks resume from the checkpoints alone.
 */
public final class Pipeline {
    /** How the pipeline ends. */
    public enum Mode {
        /** Until {@link #stop}. */
        RUN,
        /** Ship what is there now, then stop. */
        ONCE
    }

    private static final long HOT_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
    private static final long FLUSH_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    /** Unflushed bytes up to which a round that moved bytes is flushed at once (see the duty cycle). */
    private static final long SMALL_ROUND_BYTES = 256 << 10;
    /** With a watcher, a full rescan this often catches anything events could not say (it costs little). */
    private static final long SAFETY_RESCAN_NANOS = TimeUnit.SECONDS.toNanos(60);
    private static final long SETTLE_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final long SHUTDOWN_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final long BACKOFF_MIN_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long BACKOFF_MAX_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final long GAUGE_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long BUSY_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    private static final int ONCE_MAX_FAILURES = 5;

    private final String name;
    private final ShipConfig config;
    private final Sink sink;
    private final ShipLog log;
    private final ShipMetrics metrics;
    private final ShipMetrics.SinkCounters counters;
    private final Mode mode;
    private final long pollNanos;
    /** Unacknowledged bytes (with the sink's overhead) above which reading pauses: this sink's max-in-flight. */
    private final long maxInFlight;
    private final long flushBytes;

    private final Arena arena = Arena.ofShared();
    private final Discovery discovery;
    private final ChangeFeed feed;
    private final FileTracker files;
    private final BatchWindow window;
    private final Harvester harvester;
    private final Checkpointer checkpointer;

    private long checkpointedVersion = -1;
    /** The acknowledgements the last checkpoint submitted had seen. */
    private long checkpointedAcks;
    private long lastCheckpointNanos;
    private long gaugedVersion = -1;
    private long lastGaugeNanos;
    private long backoffNanos = BACKOFF_MIN_NANOS;
    /** Reading waits until then after a sink failure (0: not backing off). */
    private long backoffUntil;
    private long lastAcks;
    /** Set by each round that moved bytes, cleared at each wait: whether the work since the last wait moved any. */
    private boolean movedSinceIdle;
    /** This thread's io_uring, which the watcher sleeps in and the sink's flushes go with; null: none. */
    private EventRing ring;
    /** Whether the watcher was polled with a wait since the last {@link #takeChanges}. */
    private boolean justPolled;
    /** Whether waits currently let events gather ({@link #gather}). */
    private boolean gathering;
    /** Whether the last round left a file readable (its read filled the buffer): more is there now. */
    private boolean moreToRead;
    private long lastMovedNanos;
    /** The longest a gathered wait delays a line. */
    private final long gatherNanos;
    /** Waits so far, by kind, for tests that count work per wake-up. */
    private long gatheredWaits;
    private long eventWaits;
    private int consecutiveFailures;
    /** The sink's last failure while it has not acknowledged anything since (for readiness), or null. */
    private volatile String sinkProblem;
    /** Whether the last harvest round stopped at a full window before every readable file had its read. */
    private boolean roundCut;
    /** Whether the duty cycle has started (for readiness). */
    private volatile boolean started;
    private volatile String fatal;
    /** Why the checkpoint at shutdown could not be written, or null. */
    private volatile String checkpointFailure;
    private final java.nio.file.Path checkpointFile;
    private volatile List<ShipMetrics.FileGauge> gauges = List.of();
    /**
     * Whether anyone reads the per-file gauges (a metrics endpoint is configured): a snapshot holds an object per
     * tracked file, which a shipper of many idle files should not keep, nor rebuild every second, for no reader.
     */
    private final boolean gaugesWanted;

    private volatile boolean stopping;
    /**
     * Whether the cycle waits for acknowledgements now, so that each completed batch must end its wait: in
     * {@link Mode#ONCE}, while stopping, while reading is held back by a full window, before the first
     * acknowledged progress is checkpointed, or with a zero checkpoint interval. Otherwise the acknowledgements
     * that came are taken at the next turn, which a write event or the checkpoint timer brings: a sink that
     * acknowledges every batch would else wake the cycle a second time for each one.
     */
    private volatile boolean ackWanted = true;
    /** What the sink was last told by {@link #hurry}; it starts hurried (the loop tells it so first). */
    private boolean sinkHurried;
    private volatile boolean woken;
    private volatile boolean rescanRequested;
    private volatile Thread runner;

    /**
     * Creates the pipeline of one sink; loads its positions (the sink's committed ones, then the checkpoints).
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
        this.gaugesWanted = config.metrics() != null;
        this.sink = sink;
        this.log = log;
        this.metrics = metrics;
        this.counters = metrics.of(name);
        this.mode = mode;
        this.pollNanos = (config.poll() != null ? config.poll() : ShipConfigDefaults.POLL).toNanos();
        this.maxInFlight = config.maxInFlight(name);
        this.flushBytes = Math.max(1, maxInFlight / 4);
        this.gatherNanos = Long.getLong("jfio.ship.gatherMicros", 1000) * 1000;
        StatBuffer stx = new StatBuffer(arena);
        this.discovery = new Discovery(inputs, stx, log);
        CheckpointStore.Loaded loaded = store.load(log, true);
        List<Checkpoint> positions = positions(name, sink.committed(), loaded.entries(), log);
        if (mode == Mode.RUN) {
            FileWatcher w = watcher != null ? watcher : config.poll() != null ? FileWatchers.polling(config.poll())
                    : FileWatchers.open(ShipConfigDefaults.POLL);
            this.feed = new ChangeFeed(w, inputs, name, log);
        } else {
            this.feed = null; // --once looks at what is there now: nothing to wait for
        }
        this.files = new FileTracker(name, config, log, metrics, mode == Mode.ONCE, stx, arena.allocate(8192),
                discovery, feed, positions, loaded.corrupt());
        // An acknowledgement wakes the cycle only when it is waited for (see ackWanted); a failure always does.
        this.window = new BatchWindow(sink, counters, (v, e) -> {
            if (e != null || ackWanted) wake();
        });
        this.harvester = new Harvester(name, config, log, metrics, files, window,
                arena.allocate(config.bufferCapacity(), 4096));
        harvester.stopping(() -> stopping);
        this.checkpointer = new Checkpointer(name, store, log, metrics);
        this.checkpointFile = store.file();
        metrics.register(() -> gauges);
    }

    /**
     * The positions a run starts from: the sink's committed ones (the truth, where the sink has them) and the
     * checkpoints. Where both describe the same content the sink's offset counts, also when a checkpoint is ahead of
     * it: the checkpoints record what the sink acknowledged, so a checkpoint ahead of the sink means the sink lost
     * what it had (a damaged commit record cut back to an older one, a sink directory restored from a copy), and
     * those bytes must be sent again. (Bytes a run skipped without sending, the rest of an overlong line dropped,
     * are then read again and skipped again.) A checkpoint whose fingerprint is longer than the sink's entry of the
     * same inode and whose offset is ahead of it may be the same content seen when it had grown past a short file's
     * fingerprint: it goes too. Checkpoints of contents the sink does not hold are kept (files started at their end,
     * or of which nothing was sent), and so is the larger offset where the sink's entry is at 0 (a gzip file).
     */
    static List<Checkpoint> positions(String name, List<Checkpoint> committed, List<Checkpoint> checkpoints,
                                      ShipLog log) {
        if (committed == null) return checkpoints;
        log.info("positions", "sink", name, "from-sink", committed.size(), "from-checkpoints", checkpoints.size(),
                "why", "the sink stores what it committed with the data: shipping to it is exactly once");
        // One entry per content: the same position in both would otherwise be carried into every later checkpoint.
        java.util.Map<List<Long>, Checkpoint> byContent = new java.util.LinkedHashMap<>();
        java.util.Map<List<Long>, List<Checkpoint>> sinkByInode = new java.util.HashMap<>();
        for (Checkpoint c : committed) {
            byContent.merge(key(c), c, (a, b) -> b.offset() > a.offset() ? b : a);
            sinkByInode.computeIfAbsent(List.of(c.device(), c.inode()), k -> new ArrayList<>(1)).add(c);
        }
        java.util.Set<List<Long>> sinkKeys = new java.util.HashSet<>(byContent.keySet());
        int behind = 0;
        for (Checkpoint c : checkpoints) {
            Checkpoint sink = sinkKeys.contains(key(c)) ? byContent.get(key(c)) : null;
            // A sink entry at 0 holds none of the file's own bytes (a gzip file's batches carry decompressed records
            // and an empty source range; the checkpoint has the skip to its end): the larger offset counts there.
            if (sink != null && sink.offset() > 0) {
                if (c.offset() > sink.offset()) behind++;
                continue;
            }
            boolean grownAhead = false;
            for (Checkpoint s : sinkByInode.getOrDefault(List.of(c.device(), c.inode()), List.of())) {
                if (s.offset() > 0 && s.fpLength() < c.fpLength() && s.offset() < c.offset()) grownAhead = true;
            }
            if (grownAhead) {
                behind++;
                continue;
            }
            byContent.merge(key(c), c, (a, b) -> b.offset() > a.offset() ? b : a);
        }
        if (behind > 0) {
            log.info("positions-behind-checkpoints", "sink", name, "contents", behind,
                    "action", "resumed where the sink's data ends",
                    "why", "a checkpoint was ahead of the sink: bytes the sink no longer holds (its commit record "
                            + "damaged, or the sink restored from a copy) are sent again; bytes skipped before (the "
                            + "rest of an overlong line) are read and skipped again");
        }
        return new ArrayList<>(byContent.values());
    }

    private static List<Long> key(Checkpoint c) {
        return List.of(c.device(), c.inode(), (long) c.fpLength(), c.fpHash());
    }

    /** The sink's name. */
    public String name() {
        return name;
    }

    /**
     * Files that could not be opened or read during the run, and sources the sink can no longer complete (for the
     * exit code of {@code --once}).
     */
    public int fileErrors() {
        return files.fileErrors() + harvester.readErrors() + sink.sourcesLost();
    }

    /** The patterns of this sink's inputs that named no file when the run began. */
    public List<String> unmatchedAtStart() {
        return files.unmatchedAtStart();
    }

    /**
     * Why this pipeline is not ready, or null when it is: it has started, its sink acknowledged since its last
     * failure, and its checkpoints are being saved. Any thread may ask.
     */
    public String notReady() {
        if (fatal != null) return "sink " + name + ": stopped: " + fatal;
        if (!started) return "sink " + name + ": starting";
        String problem = sinkProblem;
        if (problem != null) return "sink " + name + ": not acknowledging: " + problem;
        String checkpoint = checkpointer.lastError();
        if (checkpoint != null) return "sink " + name + ": checkpoints not saved: " + checkpoint;
        return null;
    }

    /** Read system calls made on source files so far (pread, preadv): for tests that count work per wake-up. */
    long sourceReads() {
        return harvester.reads();
    }

    /** Waits so far (a wake-up ends each): for tests that count work per wake-up. */
    long waits() {
        return gatheredWaits + eventWaits;
    }

    /** Why the pipeline gave up, or null. */
    public String fatal() {
        return fatal;
    }

    /**
     * Why the checkpoint written at the end of {@link #run} failed ({@code cannot save checkpoints to FILE: REASON}),
     * or null when it was written. The file then holds an earlier checkpoint: the next start resumes there and
     * ships again what came after it.
     */
    public String checkpointFailure() {
        return checkpointFailure;
    }

    /** Asks the pipeline to finish: stop reading, flush, wait for acknowledgements, checkpoint, close. */
    public void stop() {
        stopping = true;
        ackWanted = true;
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

    /**
     * Whether the next wait lets write events gather instead of ending at the first one: while appends come faster
     * than {@link #gatherNanos} apart, a wait that ends at each event costs a wake-up, a read and a send per line;
     * one that lasts {@code gatherNanos} takes all the lines of that time with one wake-up, one read per file and one
     * send. It starts when two rounds of work came less than {@code gatherNanos} apart and lasts while each gathered
     * wait found work; a wait that found none goes back to waking at the first event, so a line that comes alone is
     * not delayed. What it costs a line is at most {@code gatherNanos} of latency.
     */
    private boolean gather(long now) {
        boolean moved = movedSinceIdle;
        movedSinceIdle = false;
        if (gatherNanos <= 0 || feed == null || mode != Mode.RUN) return false;
        if (!moved) {
            gathering = false;
            return false;
        }
        gathering = gathering || now - lastMovedNanos < gatherNanos;
        lastMovedNanos = now;
        return gathering;
    }

    /** Waits {@code nanos} without ending at write events (they are taken by the next turn's poll); a wake ends it. */
    private void pause(long nanos) {
        submitRing();
        if (nanos > 0 && !woken) LockSupport.parkNanos(this, nanos);
        woken = false;
        gatheredWaits++;
    }

    /** Tells the sink whether acknowledgements are waited for now ({@link Sink#acknowledgeSoon}), when that changed. */
    private void hurry(boolean soon) {
        if (soon == sinkHurried) return;
        sinkHurried = soon;
        sink.acknowledgeSoon(soon);
    }

    /** The idle strategy: sleeps up to {@code nanos} in the watcher's poll (events end it too) or parked. */
    private void idle(long nanos) {
        if (nanos <= 0) return;
        eventWaits++;
        if (!woken) {
            if (feed != null && feed.usable()) {
                feed.poll(nanos);
                justPolled = true;
            } else {
                submitRing();
                LockSupport.parkNanos(this, nanos);
            }
        }
        woken = false;
    }

    /** Runs until stopped (or, in {@link Mode#ONCE}, until everything present was shipped). */
    public void run() {
        runner = Thread.currentThread();
        try {
            openRing();
            loop();
        } catch (RuntimeException | Error e) {
            fatal = e.toString();
            log.error("pipeline-failed", "sink", name, "error", e.toString());
            throw e;
        } finally {
            try {
                shutdown();
            } finally {
                if (ring != null) ring.close();
            }
        }
    }

    /**
     * With a watcher that can sleep in an io_uring of this thread, lets the sink's flushes go with those sleeps (see
     * {@link EventRing}); without io_uring (or with {@code -Djfio.ship.ringWait=false}) the watcher waits in epoll and
     * the sink writes in its own calls.
     */
    private void openRing() {
        if (feed == null || !Boolean.parseBoolean(System.getProperty("jfio.ship.ringWait", "true"))) return;
        EventRing r = null;
        try {
            r = EventRing.open();
            if (!feed.waitIn(r)) {
                r.close();
                return;
            }
            ring = r;
            sink.sendsWith(r);
            log.debug("event-ring", "sink", name, "ring", r.toString());
        } catch (IOException | RuntimeException e) {
            if (r != null && ring == null) r.close();
            log.debug("event-ring-unavailable", "sink", name, "error", e.toString(), "action", "epoll");
        }
    }

    /** Submits what the sink left queued on the ring: before a wait that is not in the ring. */
    private void submitRing() {
        if (ring == null) return;
        try {
            ring.submit();
        } catch (IOException e) {
            sinkFailed(e);
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
        started = true;
        hurry(true); // until the start-up ramp is over, and always with --once
        while (!stopping) {
            long now = System.nanoTime();
            if (feed != null) takeChanges(now);
            // --once scans again only to open files found at its start that waited for a descriptor.
            if (mode == Mode.RUN ? (now - nextScan >= 0 || rescanRequested)
                    : !files.firstScanDone() || rescanRequested) {
                rescanRequested = false;
                files.scan(now);
                // A watch added now (a directory made since) missed what appeared before it: look once more.
                if (feed != null && feed.ensureWatches()) rescanRequested = true;
                // Likewise for the targets of symlinked directories the scan walked into.
                if (feed != null && feed.linked(discovery.linkedDirs())) rescanRequested = true;
                nextScan = System.nanoTime() + rescanNanos;
                // Tests wait for a scan that leaves no rescan pending, so that what they change next can only be
                // found through its event.
                log.debug("scanned", "sink", name, "tracked", files.size(), "rescan-pending", rescanRequested);
                publishGauges(true);
            }
            boolean backingOff = backingOff();
            roundCut = false;
            boolean progress = !backingOff && harvestRound();
            movedSinceIdle |= progress;
            if (!takeAcks()) continue;
            if (window.inFlightBytes() > maxInFlight) {
                // Backpressure: reading waits for the sink; the files on disk hold the rest.
                if (!flushSink()) continue;
                ackWanted = true;
                hurry(true);
                idle(BUSY_WAIT_NANOS);
                if (!takeAcks()) continue;
            } else if (window.unflushedBytes() >= flushBytes || (window.unflushedBytes() > 0
                    && System.nanoTime() - window.firstUnflushedNanos() >= FLUSH_NANOS)
                    || (progress && window.unflushedBytes() <= SMALL_ROUND_BYTES)) {
                // A round that moved little is flushed at once: the sinks hold its small batches until then to send
                // them together, and at such rates the latency is what matters, not the flushes.
                if (!flushSink()) continue;
            }
            checkpoint(false);
            publishGauges(false);
            // While events gather, a round that emptied every file it read ends the turn: what came meanwhile is
            // taken after the next gathered wait, with the rest, not by a round of its own. A round cut short by a
            // full window read nothing, yet files wait: not a reason to drain (a drain cuts what a sink holds open,
            // an s3 sink's objects short of their size).
            // A round that emptied every file it read goes on to the wait below even when events do not gather: the
            // wait ends at once when events came meanwhile, and a second round here would cost a look at the watcher
            // and a pass over the files for each line that comes alone. (--once, which has no watcher to wait in,
            // looks once more before it drains the sink.)
            if (roundCut || progress && (moreToRead || !gathering && mode == Mode.ONCE)) continue;
            if (!(mode == Mode.ONCE ? drainSink() : flushSink()) || !takeAcks()) continue;
            checkpoint(false);
            releaseDrained();
            if (mode == Mode.ONCE && (fatal != null || onceDone())) break;
            long wait = waitBudget(nextScan);
            if (wait == MORE_TO_READ) continue;
            // Acknowledgements that complete between the look above and the wait below still end it when wanted: the
            // flag is set before the wait, and a completion that saw it false is taken at the next turn.
            if (gather(System.nanoTime())) {
                pause(Math.min(wait, gatherNanos));
            } else {
                idle(wait);
            }
            now = System.nanoTime();
            files.pollHot(now);
            files.checkPartialTimeouts(now);
            files.checkCopies(now);
            files.prune(now);
            if (files.roomForDeferred()) rescanRequested = true; // new files waiting for a descriptor
        }
    }

    /** {@link #waitBudget}'s answer when a look at a hot file found bytes: no wait, another round. */
    private static final long MORE_TO_READ = Long.MIN_VALUE;

    /**
     * How long the turn may wait for work ({@code nextScan}: when the next rescan is due), or {@link #MORE_TO_READ};
     * tells the sink whether acknowledgements are waited for. A method of its own so that the loop, which runs for
     * every line, compiles within the launcher's limit on C2's memory.
     */
    private long waitBudget(long nextScan) {
        long wait = mode == Mode.ONCE ? BUSY_WAIT_NANOS : nextScan - System.nanoTime();
        boolean wantAcks = mode == Mode.ONCE || roundCut || window.inFlightBytes() > maxInFlight
                || checkpointedAcks == 0 || config.checkpointInterval().isZero()
                || window.acks() < Harvester.RAMP_ACKS;
        if (!window.isEmpty()) {
            // Unacknowledged batches: look again when the acknowledgements matter (a checkpoint is due by then).
            wait = Math.min(wait, wantAcks ? BUSY_WAIT_NANOS
                    : Math.min(GAUGE_NANOS, config.checkpointInterval().toNanos()));
        }
        ackWanted = wantAcks;
        hurry(wantAcks);
        if (checkpointedVersion != version()) {
            wait = Math.min(wait, lastCheckpointNanos + config.checkpointInterval().toNanos() - System.nanoTime());
        }
        if (files.hasTimers()) {
            wait = Math.min(wait, TimeUnit.MILLISECONDS.toNanos(50));
        }
        // The lag gauges say what changed within a second, without waking an idle pipeline for nothing.
        if (gaugesWanted && gaugedVersion != gaugeVersion()) {
            wait = Math.min(wait, lastGaugeNanos + GAUGE_NANOS - System.nanoTime());
        }
        // The backoff as it is now: a send that failed during this round started one after backingOff was read.
        if (backoffUntil != 0) wait = Math.min(wait, backoffUntil - System.nanoTime());
        // A round cut short by a full window left readable files unread; the window has room again.
        if (roundCut && window.inFlightBytes() <= maxInFlight) wait = 0;
        if (files.pollHot(System.nanoTime())) return MORE_TO_READ;
        if (files.hasHotFiles()) wait = Math.min(wait, HOT_POLL_NANOS);
        // Above the cap on open files, idle ones are closed by the prune after the wait: end it when one can be.
        long capWake = files.capWakeNanos(System.nanoTime());
        if (capWake >= 0) wait = Math.min(wait, capWake);
        // Asked for by this thread after its scan (a watch added, which missed what came before it): nothing
        // would wake the wait below for it, and the safety rescan is a minute away.
        if (rescanRequested && mode == Mode.RUN) wait = 0;
        return wait;
    }

    private long version() {
        return files.version() + window.acks();
    }

    private long gaugeVersion() {
        return files.gaugeVersion() + window.acks();
    }

    /** Takes what the watcher reported: a look at each written file (one fstat), a rescan when names changed. */
    private void takeChanges(long now) {
        // What came while the pipeline was busy; not right after a wait in the watcher, which took what there was.
        if (!justPolled) feed.poll(0);
        justPolled = false;
        if (feed.takeRescan()) rescanRequested = true;
        changesNow = now;
        feed.drainModified(onModified);
    }

    /** {@link #takeChanges}'s time, for {@link #onModified} (one consumer made once, not a lambda per call). */
    private long changesNow;
    private final java.util.function.Consumer<String> onModified = this::modified;

    private void modified(String path) {
        if (files.modified(path, changesNow)) rescanRequested = true;
    }

    /** One read from each file that may have data; true when bytes moved. */
    private boolean harvestRound() {
        List<TrackedFile> attention = files.attention();
        boolean progress = false;
        moreToRead = false;
        for (int i = 0; i < attention.size(); i++) {
            TrackedFile t = attention.get(i);
            if (t.released || !t.readable) continue;
            if (stopping) break;
            if (window.inFlightBytes() > maxInFlight) {
                roundCut = true;
                break;
            }
            Harvester.Result r = harvester.harvest(t, false);
            if (r == Harvester.Result.SINK_FAILED) {
                sinkFailed(harvester.sinkError());
                break;
            }
            if (r == Harvester.Result.MOVED) progress = true;
            if (t.readable) moreToRead = true;
        }
        return progress;
    }

    /** Lets go of drained rotated and deleted files; an unterminated last line ships first. */
    private void releaseDrained() {
        long now = System.nanoTime();
        List<TrackedFile> attention = files.attention();
        for (int i = 0; i < attention.size(); i++) {
            TrackedFile t = attention.get(i);
            if (!files.drained(t, now)) continue;
            if (t.primary() && t.stream.partialPending && t.input.framing() == Framing.LINES) {
                // No more bytes will come: the unterminated last line ships as it is.
                if (harvester.harvest(t, true) == Harvester.Result.SINK_FAILED) sinkFailed(harvester.sinkError());
                continue;
            }
            log.info("released", "sink", name, "path", t.path, "state", t.state, "offset", t.ackedOffset());
            files.release(t);
        }
    }

    // ---------------------------------------------------------------- acknowledgements and failures

    /** Takes the acknowledgements that came; false after a sink failure. */
    private boolean takeAcks() {
        Throwable failure = window.collect();
        if (window.acks() != lastAcks) {
            lastAcks = window.acks();
            backoffNanos = BACKOFF_MIN_NANOS;
            consecutiveFailures = 0;
            sinkProblem = null;
        }
        if (failure == null) return true;
        sinkFailed(failure);
        return false;
    }

    private boolean flushSink() {
        try {
            window.flush();
            return true;
        } catch (IOException | RuntimeException e) {
            sinkFailed(e);
            return false;
        }
    }

    /** {@link Sink#drain()}: in {@link Mode#ONCE}, nothing is left to read until the acknowledgements come. */
    private boolean drainSink() {
        try {
            window.flush();
            sink.drain();
            return true;
        } catch (IOException | RuntimeException e) {
            sinkFailed(e);
            return false;
        }
    }

    private boolean backingOff() {
        if (backoffUntil == 0) return false;
        if (System.nanoTime() - backoffUntil < 0) return true;
        backoffUntil = 0;
        return false;
    }

    /**
     * The sink failed: keep what it still acknowledges, go back to the acknowledged offset of every stream, and read
     * again after a backoff (the duty cycle waits it out; nothing sleeps here). Duplicates are possible, loss is not.
     */
    private void sinkFailed(Throwable e) {
        consecutiveFailures++;
        sinkProblem = sink.describe() + ": " + e.getMessage();
        metrics.error(name, "sink");
        counters.add(Counter.SINK_RETRIES, 1);
        log.warn("sink-failed", "sink", name, "to", sink.describe(), "error", String.valueOf(e.getMessage()),
                "retry-in-ms", TimeUnit.NANOSECONDS.toMillis(backoffNanos), "failures", consecutiveFailures);
        try {
            sink.flush();
        } catch (IOException | RuntimeException ignored) {
            // The pending futures say what survived.
        }
        window.settle(System.nanoTime() + SETTLE_NANOS);
        lastAcks = window.acks();
        files.rewindAll();
        checkpoint(true);
        if (mode == Mode.ONCE && consecutiveFailures >= ONCE_MAX_FAILURES) {
            fatal = "sink failed " + consecutiveFailures + " times in a row: " + e.getMessage();
            stopping = true;
            return;
        }
        backoffUntil = System.nanoTime() + backoffNanos;
        if (backoffUntil == 0) backoffUntil = 1;
        backoffNanos = Math.min(BACKOFF_MAX_NANOS, backoffNanos * 2);
    }

    // ---------------------------------------------------------------- checkpoints and gauges

    /** Writes the checkpoints when due: in the background, or now when {@code force} (shutdown, sink failure). */
    private void checkpoint(boolean force) {
        if (checkpointer.takeFailure()) checkpointedVersion = -1;
        long v = version();
        if (v == checkpointedVersion && !force) return;
        long now = System.nanoTime();
        // The first checkpoint that records acknowledged progress is written at once: a run killed within its first
        // checkpoint interval still keeps what the sink acknowledged.
        boolean firstProgress = checkpointedAcks == 0 && window.acks() > 0;
        if (!force && !firstProgress && now - lastCheckpointNanos < config.checkpointInterval().toNanos()) return;
        checkpointedVersion = v;
        checkpointedAcks = window.acks();
        lastCheckpointNanos = now;
        List<Checkpoint> entries = files.entries(System.currentTimeMillis());
        if (force) {
            if (!checkpointer.writeNow(entries)) checkpointedVersion = -1;
        } else {
            checkpointer.submit(entries);
        }
    }

    /** The last write, always this thread's own, whatever the writer thread did; a failure is the run's. */
    private void finalCheckpoint() {
        checkpointer.takeFailure();
        if (checkpointer.writeNow(files.entries(System.currentTimeMillis()))) return;
        checkpointFailure = "cannot save checkpoints to " + checkpointFile + ": " + checkpointer.lastError();
        log.error("checkpoint-final-failed", "sink", name, "file", checkpointFile, "error",
                checkpointer.lastError(), "consequence", "the next start resumes from the last checkpoint written; "
                        + "what was shipped after it is shipped again");
    }

    private void publishGauges(boolean force) {
        if (!gaugesWanted) return;
        long now = System.nanoTime();
        long v = gaugeVersion();
        if (!force && (v == gaugedVersion || now - lastGaugeNanos < GAUGE_NANOS)) return;
        lastGaugeNanos = now;
        gaugedVersion = v;
        gauges = files.gauges();
    }

    private boolean onceDone() {
        // A copy candidate is decided first (its original truncated, or it is shipped as a file of its own).
        if (!files.firstScanDone() || !window.isEmpty() || files.hasCopyCandidates()) return false;
        // Files found at the start that wait for a descriptor (more files than max-open-files) are still to ship.
        if (rescanRequested || files.deferredLeft()) return false;
        List<TrackedFile> attention = files.attention();
        for (int i = 0; i < attention.size(); i++) {
            TrackedFile t = attention.get(i);
            if (t.released || !t.primary()) continue;
            if (t.readable) return false;
            if (t.stream.partialPending && FileTracker.pendingTimeout(t) != null) {
                // In a run that ends now, a partial line that may ship on a timeout ships now.
                if (harvester.harvest(t, true) == Harvester.Result.SINK_FAILED) sinkFailed(harvester.sinkError());
                return false;
            }
        }
        return true;
    }

    // ---------------------------------------------------------------- shutdown

    private void shutdown() {
        if (ring != null) {
            try {
                sink.sendsWith(null); // the waits below are not in the ring
            } catch (IOException | RuntimeException e) {
                log.warn("sink-flush-failed", "sink", name, "error", e.toString());
            }
        }
        if (feed != null) feed.close();
        try {
            try {
                sink.finish();
            } catch (IOException | RuntimeException e) {
                log.warn("sink-flush-failed", "sink", name, "error", e.toString());
            }
            int left = window.drain(System.nanoTime() + SHUTDOWN_NANOS);
            if (left > 0) {
                log.warn("shutdown-unacknowledged", "sink", name, "batches", left,
                        "action", "not checkpointed; sent again at the next start");
            }
            checkpointer.close();
            finalCheckpoint();
        } finally {
            try {
                sink.close();
            } catch (IOException | RuntimeException e) {
                log.warn("sink-close-failed", "sink", name, "error", e.toString());
            }
            files.closeAll();
            publishGauges(true);
            arena.close();
        }
    }
}
