package io.jfio.bench.ship.torture;

import io.jfio.bench.ship.Child;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Runs the shipper ({@code java ... io.jfio.cli.Main ship --from GLOB --to SINK --state DIR}, the JVM itself as the
 * child, no launcher script in between) and kills it with SIGKILL: start, wait for its {@code event=start} log line,
 * sleep a random time (seeded), kill, start again at once. Each run's output is kept ({@code runs/ship-NN.log}).
 *
 * <p>Thread-safe for {@link #upRun} (read by the rotator); everything else is called by the run's thread.
 */
final class Killer {
    /** How long a shipper may take to log its start (JVM start on a busy 2-core machine included). */
    private static final long START_TIMEOUT_NANOS = 90_000_000_000L;

    private final List<String> command;
    private final Path runs;
    private final SplittableRandom rnd;
    private final long minMs;
    private final long maxMs;
    private final Events events;
    private volatile int upRun = -1;
    private int started;
    private int kills;
    private Child current;

    /**
     * @param command the shipper's whole command line
     * @param runs    where each run's log goes
     * @param minMs   shortest time between a run's start line and its kill
     * @param maxMs   longest such time
     */
    Killer(List<String> command, Path runs, SplittableRandom rnd, long minMs, long maxMs, Events events) {
        this.command = command;
        this.runs = runs;
        this.rnd = rnd;
        this.minMs = minMs;
        this.maxMs = maxMs;
        this.events = events;
    }

    /** The number of the run that is up (has logged its start and was not killed since), or -1. */
    int upRun() {
        return upRun;
    }

    /** SIGKILLs done. */
    int kills() {
        return kills;
    }

    /** Shipper runs started. */
    int runs() {
        return started;
    }

    /** Starts a run and waits for its start line. */
    void start() throws IOException, InterruptedException {
        int n = started++;
        Path log = runs.resolve(String.format(Locale.ROOT, "ship-%02d.log", n));
        current = Child.start(command, log);
        events.log("ship-start", "run=" + n + " pid=" + current.pid() + " log=" + runs.getFileName() + "/"
                + log.getFileName());
        long deadline = System.nanoTime() + START_TIMEOUT_NANOS;
        while (!startLogged(log)) {
            if (!current.process().isAlive()) {
                int code = current.waitFor(10);
                throw new IOException("shipper run " + n + " exited with " + code + " before it started:\n"
                        + tail(log, 20));
            }
            if (System.nanoTime() > deadline) {
                throw new IOException("shipper run " + n + " did not log its start within "
                        + START_TIMEOUT_NANOS / 1_000_000_000L + " s: log=" + log);
            }
            Thread.sleep(10);
        }
        upRun = n;
        events.log("ship-up", "run=" + n);
    }

    /** Sleeps a random time (seeded), then SIGKILLs the running shipper, which must still be alive. */
    void sleepAndKill() throws IOException, InterruptedException {
        long ms = minMs + rnd.nextLong(maxMs - minMs + 1);
        Thread.sleep(ms);
        int n = upRun;
        if (!current.process().isAlive()) {
            int code = current.waitFor(10);
            throw new IOException("shipper run " + n + " ended by itself with " + code + " before its kill:\n"
                    + tail(current.log(), 20));
        }
        upRun = -1;
        current.process().destroyForcibly(); // SIGKILL to the JVM itself
        int code = current.waitFor(30);
        kills++;
        events.log("ship-killed", "run=" + n + " after-ms=" + ms + " exit=" + code);
        if (code != 128 + 9) {
            throw new IOException("shipper run " + n + " did not die of the SIGKILL (exit " + code + "):\n"
                    + tail(current.log(), 20));
        }
    }

    /** True while the current run's process lives. */
    boolean alive() {
        return current != null && current.process().isAlive();
    }

    /** Stops the current run with SIGTERM (it flushes and checkpoints) and returns its exit code. */
    int terminate() throws IOException {
        int n = upRun;
        upRun = -1;
        int code = current.stop();
        events.log("ship-stopped", "run=" + n + " signal=TERM exit=" + code);
        return code;
    }

    /** Kills the current run if it still lives (errors, the end). */
    void close() {
        upRun = -1;
        if (current != null) current.close();
    }

    /** The current run's log. */
    Path log() {
        return current == null ? null : current.log();
    }

    private static boolean startLogged(Path log) throws IOException {
        if (!Files.exists(log)) return false;
        for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
            if (line.contains(" event=start ")) return true;
        }
        return false;
    }

    /** The last {@code n} lines of a log, for error messages. */
    static String tail(Path log, int n) {
        try {
            List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", new ArrayList<>(all.subList(Math.max(0, all.size() - n), all.size())));
        } catch (IOException e) {
            return "(log unreadable: " + e + ")";
        }
    }
}
