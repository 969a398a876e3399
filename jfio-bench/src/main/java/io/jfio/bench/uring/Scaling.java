package io.jfio.bench.uring;

import io.jfio.bench.Stats;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code bench uring}'s scaling table: hot 4 KiB random reads at one depth by the io_uring engine and by plain
 * threads, each in a JVM of its own confined with {@code taskset} first to one CPU, then to every CPU this process
 * may use; the scaling factor is the all-CPU IOPS over the one-CPU IOPS. Each child is a {@link ScalingChild}.
 *
 * <p>Not thread-safe; used by one benchmark run.
 */
public final class Scaling {
    /** The methods of the table. */
    public enum Kind {
        ENGINE("jfio io_uring readFixed, callbacks"),
        ENGINE_VIRTUAL("jfio io_uring, virtual threads (execute)"),
        FILECHANNEL("FileChannel, platform threads");

        /** How the table names it. */
        public final String label;

        Kind(String label) {
            this.label = label;
        }
    }

    /**
     * One method's row.
     *
     * @param kind     the method
     * @param depth    reads in flight (threads, for the thread methods)
     * @param cpus     the CPUs of the all-CPU run
     * @param oneCpu   each repetition's IOPS confined to one CPU
     * @param allCpus  each repetition's IOPS on all {@code cpus}
     * @param rings    the engine's ring count on one CPU, or 0 for the thread methods
     * @param ringsAll the engine's ring count on all CPUs, or 0 for the thread methods
     */
    public record Row(Kind kind, int depth, int cpus, double[] oneCpu, double[] allCpus, int rings, int ringsAll) {
        /** Median IOPS on one CPU. */
        public double oneMedian() {
            return Stats.median(oneCpu);
        }

        /** Median IOPS on all CPUs. */
        public double allMedian() {
            return Stats.median(allCpus);
        }

        /** All-CPU IOPS over one-CPU IOPS, medians. */
        public double factor() {
            return allMedian() / oneMedian();
        }

        Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("method", kind.label);
            m.put("depth", depth);
            m.put("cpus", cpus);
            m.put("one_cpu_iops", oneMedian());
            m.put("all_cpus_iops", allMedian());
            m.put("scaling", factor());
            if (rings > 0) {
                m.put("rings_one_cpu", rings);
                m.put("rings_all_cpus", ringsAll);
            }
            return m;
        }
    }

    private final Path file;
    private final long blocks;
    private final long seed;
    private final int depth;
    private final Duration duration;
    private final Duration warmup;
    private final int reps;
    private final PrintWriter err;

    Scaling(Path file, long blocks, long seed, int depth, Duration duration, Duration warmup, int reps,
            PrintWriter err) {
        this.file = file;
        this.blocks = blocks;
        this.seed = seed;
        this.depth = depth;
        this.duration = duration;
        this.warmup = warmup;
        this.reps = reps;
        this.err = err;
    }

    /** The first CPU of a list such as {@code 0-3,8}. */
    static String firstCpu(String list) {
        String first = list.split(",")[0];
        int dash = first.indexOf('-');
        return dash < 0 ? first : first.substring(0, dash);
    }

    /**
     * Runs every method on one CPU and on all; a method whose child fails is left out with a warning.
     *
     * @param warnings where failures are reported
     * @return the rows that ran
     */
    List<Row> run(List<String> warnings) {
        String all = io.jfio.bench.system.SystemInfo.allowedCpus();
        int cpus = Runtime.getRuntime().availableProcessors();
        List<Row> rows = new ArrayList<>();
        if (all == null || cpus < 2) {
            warnings.add("scaling table skipped: it needs at least 2 CPUs (this process may use " + cpus + ")");
            return rows;
        }
        String one = firstCpu(all);
        err.printf(Locale.ROOT, "== scaling: hot, depth %d, taskset -c %s vs -c %s, %d x %s per cell%n", depth, one,
                all, reps, io.jfio.bench.Units.formatDuration(duration));
        err.flush();
        for (Kind k : Kind.values()) {
            try {
                Child a = child(k, one);
                Child b = child(k, all);
                rows.add(new Row(k, depth, cpus, a.iops, b.iops, a.rings, b.rings));
                err.printf(Locale.ROOT, "    %-42s 1 CPU %s IOPS, %d CPUs %s IOPS: %.2fx%n", k.label,
                        io.jfio.bench.Units.formatCount(Stats.median(a.iops)), cpus,
                        io.jfio.bench.Units.formatCount(Stats.median(b.iops)),
                        Stats.median(b.iops) / Stats.median(a.iops));
                err.flush();
            } catch (IOException e) {
                warnings.add("scaling: " + k.label + " failed: " + e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                warnings.add("scaling: interrupted");
                break;
            }
        }
        return rows;
    }

    private record Child(double[] iops, int rings) {
    }

    private Child child(Kind kind, String cpuList) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("taskset", "-c", cpuList, javaExecutable(),
                "--enable-native-access=ALL-UNNAMED"));
        for (String p : System.getProperties().stringPropertyNames()) {
            if (p.startsWith("jfio.")) cmd.add("-D" + p + "=" + System.getProperty(p));
        }
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), ScalingChild.class.getName(),
                file.toString(), Long.toString(blocks), Long.toString(seed), kind.name(), Integer.toString(depth),
                Long.toString(duration.toMillis()), Long.toString(warmup.toMillis()), Integer.toString(reps)));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        List<Double> iops = new ArrayList<>();
        int rings = 0;
        StringBuilder other = new StringBuilder();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
                StandardCharsets.UTF_8))) {
            String l;
            while ((l = r.readLine()) != null) {
                if (l.startsWith("iops ")) {
                    iops.add(Double.parseDouble(l.substring(5)));
                } else if (l.startsWith("rings ")) {
                    rings = Integer.parseInt(l.substring(6).trim());
                } else if (other.length() < 2000) {
                    other.append(l).append('\n');
                }
            }
        } finally {
            if (!p.waitFor(duration.toMillis() * (reps + 2) + 120_000, TimeUnit.MILLISECONDS)) p.destroyForcibly();
        }
        int rc = p.exitValue();
        if (rc != 0 || iops.size() != reps) {
            throw new IOException("taskset -c " + cpuList + " " + kind + ": exit=" + rc + " reps=" + iops.size()
                    + " output=" + other.toString().strip());
        }
        double[] v = new double[iops.size()];
        for (int i = 0; i < v.length; i++) v[i] = iops.get(i);
        return new Child(v, rings);
    }

    private static String javaExecutable() {
        return ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }
}
