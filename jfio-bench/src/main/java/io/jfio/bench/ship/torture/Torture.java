package io.jfio.bench.ship.torture;

import io.jfio.bench.ship.Child;
import io.jfio.bench.ship.ShipBench;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * {@code jfio bench ship --torture}: proves (or disproves) that {@code jfio ship} loses nothing, and into the dir
 * sink duplicates nothing, through rotation and SIGKILL crashes. Per sink: {@link Writers} append numbered records,
 * the {@link Rotator} rotates their files, the {@link Killer} runs the real shipper as a child process and SIGKILLs
 * it K times at random moments; after the writers finish, the last run (not killed) ships until everything written
 * is in the sink, is stopped with SIGTERM, and the {@link Verifier} counts the sink's content.
 *
 * <p>Not thread-safe; one run at a time per JVM. Every child process is killed on the way out, also on errors and
 * Ctrl-C (a shutdown hook, which also removes a temporary work directory). Each sink's work directory keeps the
 * writers' files, the state, the sink's output, each shipper run's log ({@code runs/ship-NN.log}) and
 * {@code events.log} (rotations, deletions, starts, kills).
 */
public final class Torture {
    /** The last run gives up when the sink gained nothing for this long while records were still missing. */
    private static final long STALL_NANOS = 20_000_000_000L;

    private final TortureOptions o;
    private final PrintWriter progress;

    private Torture(TortureOptions o, PrintWriter progress) {
        this.o = o;
        this.progress = progress;
    }

    /**
     * One sink's outcome.
     *
     * @param sink         dir, tcp, kafka or s3
     * @param kills        SIGKILLs done
     * @param outages      pauses of the sink's server
     * @param runs         shipper runs started
     * @param counts       what the sink held (null when the run failed before it could be read)
     * @param boundPerKill duplicate bytes one kill may cause (at-least-once sinks)
     * @param rotations    what the rotator did, e.g. "rename 5, copytruncate 4, truncate 2 (3 skipped)"
     * @param reasons      why it failed; empty when it passed
     * @param work         its work directory
     */
    public record SinkResult(String sink, int kills, int outages, int runs, Verifier.Counts counts, long boundPerKill,
                             String rotations, List<String> reasons, Path work) {
        public boolean pass() {
            return reasons.isEmpty();
        }
    }

    /**
     * The outcome of a run.
     *
     * @param seed  the seed (replays the random choices: writer, mode and moment of each rotation, kill delays)
     * @param work  the work directory
     * @param kept  whether the work directory was kept
     * @param sinks one result per sink
     */
    public record Result(long seed, Path work, boolean kept, List<SinkResult> sinks) {
        public boolean pass() {
            return sinks.stream().allMatch(SinkResult::pass);
        }
    }

    /** Runs every sink of {@code o} in turn; progress on {@code progress}. */
    public static Result run(TortureOptions o, PrintWriter progress) throws IOException {
        return new Torture(o, progress).run();
    }

    private Result run() throws IOException {
        Path work = o.dir() == null ? Files.createTempDirectory("jfio-torture-")
                : Files.createTempDirectory(Files.createDirectories(o.dir()), "jfio-torture-");
        // Ctrl-C, SIGTERM: no child may outlive the run, and a temporary directory goes with it (one under --dir is
        // the user's to look at).
        Thread hook = new Thread(() -> {
            Child.killAll(true);
            if (o.dir() == null) {
                try {
                    ShipBench.deleteTree(work);
                } catch (IOException | RuntimeException e) {
                    // best effort: a writer thread may still be appending while the JVM goes down
                }
            }
        }, "jfio-torture-cleanup");
        Runtime.getRuntime().addShutdownHook(hook);
        say("torture: seed=%d work=%s sinks=%s modes=%s writers=%d rate=%d/s seconds=%d kills=%d", o.seed(), work,
                String.join(",", o.sinks()), String.join(",", o.modes()), o.writers(), o.rate(), o.seconds(),
                o.kills());
        List<SinkResult> results = new ArrayList<>();
        try {
            for (String sink : o.sinks()) results.add(sink(sink, work.resolve(sink)));
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs anyway
            }
        }
        boolean pass = results.stream().allMatch(SinkResult::pass);
        boolean keep = o.dir() != null || !pass;
        if (!keep) ShipBench.deleteTree(work);
        return new Result(o.seed(), work, keep, results);
    }

    /** The seed of one sink's random choices: the same for a seed whichever other sinks run. */
    static long sinkSeed(long seed, String sink) {
        return seed ^ (0x9E3779B97F4A7C15L * (TortureOptions.SINKS.indexOf(sink) + 1));
    }

    private SinkResult sink(String sink, Path dir) throws IOException {
        Files.createDirectories(dir);
        Path logs = Files.createDirectories(dir.resolve("logs"));
        Path runs = Files.createDirectories(dir.resolve("runs"));
        SplittableRandom rnd = new SplittableRandom(sinkSeed(o.seed(), sink));
        long bound = Verdict.defaultBoundPerKill(sink);
        Target target = null;
        Killer killer = null;
        Rotator rotator = null;
        Writers writers = null;
        Outages outages = null;
        try (Events events = new Events(dir.resolve("events.log"))) {
            say("%s: starting (work %s)", sink, dir);
            target = switch (sink) {
                case "dir" -> new DirTarget(dir.resolve("out"));
                case "tcp" -> TcpTarget.start(o.java(), Files.createDirectories(dir.resolve("received")),
                        dir.resolve("receive.log"));
                case "kafka" -> new KafkaTarget(o.kafkaBootstrap(), "jfio-torture-" + Long.toUnsignedString(o.seed())
                        + "-" + System.currentTimeMillis());
                case "s3" -> new S3Target(o.s3(), "jfio-torture-" + Long.toUnsignedString(o.seed()) + "-"
                        + System.currentTimeMillis() + "/", dir);
                default -> throw new IllegalArgumentException(sink);
            };
            List<String> cmd = new ArrayList<>(o.java());
            cmd.addAll(List.of("ship", "--from", logs + "/*.log*", "--to", target.to(), "--state",
                    dir.resolve("state").toString()));
            cmd.addAll(target.args());
            long serverPid = sink.equals("tcp") ? target.serverPid() : sink.equals("dir") ? 0 : o.serverPid();
            if (o.outages() && serverPid > 0) outages = new Outages(serverPid, rnd.split(), events);
            events.log("begin", "sink=" + sink + " seed=" + o.seed() + " command=\"" + String.join(" ", cmd) + "\"");
            writers = new Writers(logs, o.writers());
            killer = new Killer(cmd, runs, rnd.split(), o.killMinMs(), o.killMaxMs(), events);
            rotator = new Rotator(writers.writers(), o.modes().stream().map(Rotator.Mode::of).toList(), rnd.split(),
                    killer, target, events);
            killer.start();
            writers.start(o.rate(), (long) o.rate() * o.seconds());
            rotator.start();
            if (outages != null) outages.start();
            for (int i = 0; i < o.kills(); i++) {
                killer.sleepAndKill();
                say("%s: kill %d of %d, %,d records written", sink, i + 1, o.kills(), writers.written());
                killer.start();
            }
            // The run after the last kill is the last one: it is not killed.
            while (writers.running()) {
                if (!killer.alive()) throw new IOException("the last shipper run ended by itself:\n"
                        + Killer.tail(killer.log(), 20));
                Thread.sleep(50);
            }
            rotator.stop();
            writers.join();
            if (outages != null) outages.stop();
            List<Ledger> ledgers = writers.ledgers();
            events.log("writers-done", "records=" + writers.written());
            say("%s: writers done (%,d records); waiting for the last run to deliver everything", sink,
                    writers.written());
            drain(target, ledgers, killer);
            List<String> reasons = new ArrayList<>();
            int exit = killer.terminate();
            if (exit != 0) reasons.add("the last run exited with " + exit + " on SIGTERM");
            target.close();
            Verifier v = new Verifier(ledgers);
            target.read(v);
            Verifier.Counts c = v.counts();
            int paused = outages == null ? 0 : outages.pauses();
            reasons.addAll(0, Verdict.reasons(sink, killer.kills(), paused, c, bound));
            events.log("end", "lost=" + c.lost() + " duplicated=" + c.duplicated() + " damaged=" + c.damaged());
            return new SinkResult(sink, killer.kills(), paused, killer.runs(), c, bound, rotations(rotator), reasons,
                    dir);
        } catch (IOException | RuntimeException | InterruptedException e) {
            if (e instanceof InterruptedException) Thread.currentThread().interrupt();
            say("%s: the run failed: %s", sink, e.getMessage());
            return new SinkResult(sink, killer == null ? 0 : killer.kills(), outages == null ? 0 : outages.pauses(),
                    killer == null ? 0 : killer.runs(), null,
                    bound, rotator == null ? "" : rotations(rotator), List.of("the run failed: " + e.getMessage()),
                    dir);
        } finally {
            if (outages != null) {
                try {
                    outages.stop(); // the server runs again whatever happened
                } catch (IOException | InterruptedException ignored) {
                    // reported by the run already, or the run succeeded
                }
            }
            if (killer != null) killer.close();
            if (rotator != null) {
                try {
                    rotator.stop();
                } catch (IOException | InterruptedException ignored) {
                    // reported by the run already, or the run succeeded
                }
            }
            if (target != null) target.close();
        }
    }

    /**
     * Waits until the sink holds every record written at least once, while the last run ships; gives up after
     * {@code drainSeconds}, or after {@link #STALL_NANOS} in which the sink gained nothing.
     */
    private void drain(Target target, List<Ledger> ledgers, Killer killer) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + o.drainSeconds() * 1_000_000_000L;
        long lastLost = Long.MAX_VALUE;
        long lastGain = System.nanoTime();
        while (true) {
            Verifier v = new Verifier(ledgers);
            target.read(v);
            long lost = v.counts().lost();
            if (lost == 0) return;
            long now = System.nanoTime();
            if (lost < lastLost) {
                lastLost = lost;
                lastGain = now;
            }
            if (now > deadline || now - lastGain > STALL_NANOS || !killer.alive()) {
                say("missing %,d record(s) after %s; stopping the last run", lost,
                        now > deadline ? "the timeout" : !killer.alive() ? "it ended" : "20 s without progress");
                return;
            }
            Thread.sleep(1000);
        }
    }

    private static String rotations(Rotator r) {
        StringBuilder sb = new StringBuilder();
        for (Rotator.Mode m : Rotator.Mode.values()) {
            int d = r.done().getOrDefault(m, 0);
            int s = r.skipped().getOrDefault(m, 0);
            if (d == 0 && s == 0) continue;
            if (!sb.isEmpty()) sb.append(", ");
            sb.append(m.label()).append(' ').append(d);
            if (s > 0) sb.append(" (").append(s).append(" skipped)");
        }
        return sb.isEmpty() ? "none" : sb.toString();
    }

    private void say(String format, Object... args) {
        progress.println(String.format(Locale.ROOT, format, args));
        progress.flush();
    }
}
