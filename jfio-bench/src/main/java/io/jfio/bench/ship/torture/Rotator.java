package io.jfio.bench.ship.torture;

import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Rotates the writers' files at random moments (seeded): every 0.3-1.5 s one writer, one mode out of the chosen
 * ones ({@link Mode}). Counts what it did and what it skipped; every action goes to the event log.
 *
 * <p>Thread-safe: runs on its own thread ({@link #start}); the counts may be read from any thread.
 */
final class Rotator {
    /** Rotation modes. */
    enum Mode {
        /** rename w.log -> w.log.GEN, the writer reopens a new w.log. */
        RENAME,
        /**
         * copy w.log -> w.log.GEN, truncate w.log to 0: half of the time under the writer's lock (no write in
         * between), half of the time with the writer going on between the two ({@link #copyTruncateLive}).
         */
        COPYTRUNCATE,
        /**
         * Truncate w.log in place, only when the sink holds its last record and the same shipper run stayed up
         * for {@link #SETTLE_NANOS} after that (else skipped): what is truncated away was delivered.
         */
        TRUNCATE,
        /**
         * Delete rotated files (w.log.*) made more than {@link #DELETE_AGE_NANOS} ago whose last record the sink
         * holds (unread data deleted while no shipper runs is lost to any shipper; deletion with unread data while
         * one runs is the rotation tests' part).
         */
        DELETE;

        String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** A mode by its label. */
        static Mode of(String s) {
            for (Mode m : values()) {
                if (m.label().equals(s)) return m;
            }
            throw new IllegalArgumentException("unknown rotation mode: " + s + " (known: rename, copytruncate, "
                    + "truncate, delete, all)");
        }
    }

    /** How long a shipper run must stay up after the sink held a record before its file may be truncated. */
    static final long SETTLE_NANOS = 1_500_000_000L;
    /** Rotated files older than this are deleted by {@link Mode#DELETE}. */
    static final long DELETE_AGE_NANOS = 4_000_000_000L;
    /**
     * How long a live copytruncate waits for the records written after its copy to be delivered: the truncation
     * comes soon after the copy, as logrotate's does (a shipper takes a copy whose original is not truncated within
     * a second of the copy's last growth for a file of its own).
     */
    private static final long LIVE_PATIENCE_NANOS = 300_000_000L;
    /** The shipper's fingerprint length: a copytruncate copy shorter than this cannot be told from a new file. */
    static final long COPY_MIN_BYTES = 1024;
    /** How long a truncate waits for a shipper run that proves the file's last record delivered. */
    private static final long TRUNCATE_PATIENCE_NANOS = 6_000_000_000L;

    private final List<LogWriter> writers;
    private final List<Mode> modes;
    private final SplittableRandom rnd;
    private final Killer killer;
    private final Target target;
    private final Events events;
    // Concurrent: a failed run reads them while the rotator may still be at work.
    private final Map<Mode, Integer> done = new ConcurrentHashMap<>();
    private final Map<Mode, Integer> skipped = new ConcurrentHashMap<>();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean stop;
    private Thread thread;

    Rotator(List<LogWriter> writers, List<Mode> modes, SplittableRandom rnd, Killer killer, Target target,
            Events events) {
        this.writers = writers;
        this.modes = modes;
        this.rnd = rnd;
        this.killer = killer;
        this.target = target;
        this.events = events;
    }

    void start() {
        thread = Thread.ofPlatform().daemon().name("jfio-torture-rotator").start(this::loop);
    }

    /** Stops after the rotation in progress; throws what the rotator failed with. */
    void stop() throws IOException, InterruptedException {
        stop = true;
        // Not interrupted: an interrupt during a rotation's file operation would close the writer's channel.
        if (thread != null) thread.join();
        Throwable t = failure.get();
        if (t != null) throw new IOException("the rotator failed: " + t, t);
    }

    private void loop() {
        try {
            while (!stop) {
                Thread.sleep(300 + rnd.nextInt(1200));
                if (stop) return;
                LogWriter w = writers.get(rnd.nextInt(writers.size()));
                Mode m = modes.get(rnd.nextInt(modes.size()));
                if (rotate(w, m)) done.merge(m, 1, Integer::sum);
                else skipped.merge(m, 1, Integer::sum);
            }
        } catch (InterruptedException e) {
            // stopped
        } catch (IOException | RuntimeException e) {
            failure.compareAndSet(null, e);
        }
    }

    private boolean rotate(LogWriter w, Mode m) throws IOException, InterruptedException {
        switch (m) {
            case RENAME -> {
                LogWriter.Rotated r = w.rename();
                events.log("rotate", "mode=rename file=" + w.file.getFileName() + " to=" + r.path.getFileName()
                        + " records=" + range(w.id, r.first, r.end));
                return true;
            }
            case COPYTRUNCATE -> {
                // A copy shorter than 1 KiB is never taken for a copy (docs/ship.md, content identity): it would be
                // shipped again, a documented limit this run does not measure. The file only grows until rotated.
                if (w.liveBytes() < COPY_MIN_BYTES) return false;
                if (rnd.nextBoolean()) return copyTruncateLive(w);
                LogWriter.Rotated r = w.copyTruncate();
                events.log("rotate", "mode=copytruncate file=" + w.file.getFileName() + " copy=" + r.path.getFileName()
                        + " records=" + range(w.id, r.first, r.end));
                return true;
            }
            case TRUNCATE -> {
                return truncate(w);
            }
            case DELETE -> {
                // Only what the sink holds: unread data deleted while the shipper is down is lost to any shipper.
                List<LogWriter.Rotated> gone = w.deleteOlderThan(DELETE_AGE_NANOS, r -> delivered(w, r));
                for (LogWriter.Rotated r : gone) {
                    events.log("delete", "file=" + r.path.getFileName() + " records=" + range(w.id, r.first, r.end));
                }
                return !gone.isEmpty();
            }
            default -> throw new AssertionError(m);
        }
    }

    /**
     * Truncates in place when it is safe by construction: with the writer held (so the file's last record stays its
     * last), a shipper run that is up finds that record in the sink and is still the one up {@link #SETTLE_NANOS}
     * later (so it had the time to commit and checkpoint it). Runs are killed often, so this is tried again, run
     * after run, for up to {@link #TRUNCATE_PATIENCE_NANOS} (the writer waits meanwhile and catches up after);
     * then the rotation is skipped, and the event log says why.
     */
    private boolean truncate(LogWriter w) throws IOException, InterruptedException {
        w.lock();
        try {
            long last = w.lastInFile();
            if (last < 0) return skip(w, "file empty");
            byte[] rec = TortureRecord.format(w.id, last);
            long deadline = System.nanoTime() + TRUNCATE_PATIENCE_NANOS;
            String why = "no shipper up";
            while (System.nanoTime() < deadline && !stop) {
                int run = killer.upRun();
                if (run < 0) {
                    why = "no shipper up";
                } else if (!target.holds(rec)) {
                    why = "last record w=" + w.id + " n=" + last + " not in the sink";
                } else {
                    long seen = System.nanoTime();
                    while (killer.upRun() == run && System.nanoTime() - seen < SETTLE_NANOS) Thread.sleep(20);
                    if (killer.upRun() == run) {
                        long first = w.ledgerFileStart();
                        w.truncateInPlace();
                        events.log("rotate", String.format(Locale.ROOT, "mode=truncate file=%s records=%s run=%d "
                                + "in-sink-for=%.3fs", w.file.getFileName(), range(w.id, first, last + 1), run,
                                (System.nanoTime() - seen) / 1e9));
                        return true;
                    }
                    why = "shipper killed within " + SETTLE_NANOS / 1_000_000 + " ms of finding the record in the sink";
                }
                Thread.sleep(50);
            }
            return skip(w, why);
        } finally {
            w.unlock();
        }
    }

    /**
     * copytruncate while the writer goes on, as with logrotate and a busy application: copy, let the writer append
     * for a while, then truncate. The records appended after the copy are then in no file but the sink: the truncation
     * waits (writer held) up to {@link #LIVE_PATIENCE_NANOS} for a shipper run to have delivered the last of them, and
     * otherwise gives the copy the rest first (a cp that read on to the end). A copy that ends before what was shipped
     * of its content must not be shipped again.
     */
    private boolean copyTruncateLive(LogWriter w) throws IOException, InterruptedException {
        LogWriter.Copied c = w.copy();
        Thread.sleep(20 + rnd.nextInt(200));
        w.lock();
        try {
            long last = w.lastInFile();
            boolean delivered = false;
            if (last >= c.end()) {
                byte[] rec = TortureRecord.format(w.id, last);
                long deadline = System.nanoTime() + LIVE_PATIENCE_NANOS;
                while (!stop && System.nanoTime() < deadline && !(delivered = target.holds(rec))) Thread.sleep(50);
            }
            LogWriter.Rotated r = w.truncateAfterCopy(c, !delivered);
            events.log("rotate", "mode=copytruncate file=" + w.file.getFileName() + " copy=" + r.path.getFileName()
                    + " records=" + range(w.id, r.first, r.end) + " live=" + (last < c.end() ? "no-writes"
                    : delivered ? "written-after-copy-delivered " + range(w.id, c.end(), last + 1) : "copy-caught-up"));
            return true;
        } finally {
            w.unlock();
        }
    }

    /** Whether the sink holds the last record of {@code r} (records of one file arrive in its order). */
    private boolean delivered(LogWriter w, LogWriter.Rotated r) {
        if (r.end <= r.first) return true;
        try {
            if (target.holds(TortureRecord.format(w.id, r.end - 1))) return true;
        } catch (IOException e) {
            // not known to be delivered: kept
        }
        events.log("delete-skipped", "file=" + r.path.getFileName() + " why=\"last record w=" + w.id + " n="
                + (r.end - 1) + " not in the sink\"");
        return false;
    }

    private boolean skip(LogWriter w, String why) {
        events.log("rotate-skipped", "mode=truncate file=" + w.file.getFileName() + " why=\"" + why + "\"");
        return false;
    }

    private static String range(int w, long first, long end) {
        return first >= end ? "none" : "w=" + w + ":" + first + "-" + (end - 1);
    }

    /** Rotations done per mode (deletions: runs that deleted at least one file). */
    Map<Mode, Integer> done() {
        return done;
    }

    /** Rotations skipped per mode (truncate: not provably delivered; delete: nothing old enough). */
    Map<Mode, Integer> skipped() {
        return skipped;
    }
}
