package io.jfio.bench.ship.torture;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Started and stopped by the run's thread; the pauses run on a thread of their own. {@link #stop} always leaves the
 * server running, and so does the JVM's end during a pause (a shutdown hook).
 *
 * <p>Sink outages: pauses the process that serves the sink (SIGSTOP) for a random time, lets it run (SIGCONT) for a
 * random time, and again, until stopped. A paused server keeps its connections open and answers nothing, the
 * outage a shipper finds hardest to tell from a slow one. Each pause and resume goes to the event log.
 */
final class Outages {
    /** Shortest and longest pause. */
    static final long PAUSE_MIN_MS = 300;
    static final long PAUSE_MAX_MS = 4_000;
    /** Shortest and longest time between two pauses. */
    static final long GAP_MIN_MS = 1_000;
    static final long GAP_MAX_MS = 6_000;

    /** Servers paused now, resumed by a shutdown hook when the JVM ends during a pause (Ctrl-C). */
    private static final Set<Long> PAUSED = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            for (long p : PAUSED) {
                try {
                    new ProcessBuilder("kill", "-CONT", Long.toString(p)).start().waitFor(5, TimeUnit.SECONDS);
                } catch (IOException | InterruptedException e) {
                    // best effort on the way out
                }
            }
        }, "jfio-torture-resume"));
    }

    private final long pid;
    private final SplittableRandom rnd;
    private final Events events;
    private final Thread thread;
    private volatile boolean stopping;
    private volatile int pauses;
    private volatile String failure;

    Outages(long pid, SplittableRandom rnd, Events events) {
        if (pid <= 0) throw new IllegalArgumentException("no server process to pause");
        this.pid = pid;
        this.rnd = rnd;
        this.events = events;
        this.thread = new Thread(this::run, "jfio-torture-outages");
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** Pauses done. */
    int pauses() {
        return pauses;
    }

    private void run() {
        try {
            while (!stopping) {
                sleep(GAP_MIN_MS + rnd.nextLong(GAP_MAX_MS - GAP_MIN_MS + 1));
                if (stopping) break;
                long ms = PAUSE_MIN_MS + rnd.nextLong(PAUSE_MAX_MS - PAUSE_MIN_MS + 1);
                PAUSED.add(pid);
                signal("STOP");
                pauses++;
                events.log("outage-start", "pid=" + pid + " ms=" + ms);
                try {
                    sleep(ms);
                } finally {
                    signal("CONT");
                    PAUSED.remove(pid);
                    events.log("outage-end", "pid=" + pid);
                }
            }
        } catch (IOException e) {
            failure = e.getMessage();
        } catch (InterruptedException e) {
            // stopping
        }
    }

    private void sleep(long ms) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
        for (long left = ms; left > 0 && !stopping; left = TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime())) {
            Thread.sleep(Math.min(left, 50));
        }
    }

    private void signal(String sig) throws IOException {
        try {
            Process p = new ProcessBuilder("kill", "-" + sig, Long.toString(pid)).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IOException("kill -" + sig + " " + pid + " failed: " + out.strip());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while sending SIG" + sig + " to " + pid, e);
        }
    }

    /** Ends the outages and leaves the server running; throws when a signal could not be sent. */
    void stop() throws IOException, InterruptedException {
        stopping = true;
        thread.join();
        signal("CONT");
        PAUSED.remove(pid);
        if (failure != null) throw new IOException("outages: " + failure);
    }
}
