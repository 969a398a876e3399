package io.jfio.bench.ship;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What {@code jfio bench ship} runs.
 *
 * @param dir           where the work directory goes
 * @param out           the report directory
 * @param jfio          how to run jfio (the launcher or {@code java -jar}), followed by {@code ship ...}
 * @param workloads     a subset of {@link #WORKLOADS} ("wide": the latency runs at {@link #wideFiles} files and
 *                      {@link #wideRate} lines/s)
 * @param lines         lines of the single file (92 bytes each)
 * @param reps          runs per sink of the single file (the median is reported)
 * @param files         files written concurrently in the latency and throughput runs
 * @param rate          lines per second, over all files, in the latency runs
 * @param latency       the measured part of each latency run (after a warm-up of {@link #warmup})
 * @param warmup        unrecorded writing before each latency run's measurement
 * @param throughput    how long the throughput run writes
 * @param idleDirs      directories of the idle tree
 * @param idleFiles     files per directory of the idle tree
 * @param idle          how long the idle shipper is watched
 * @param rsyslog       whether to run the peer rsyslog
 * @param syslogNg      whether to run the peer syslog-ng
 * @param install       whether a missing rsyslog may be installed (root only) and syslog-ng's packages fetched
 * @param allowTmpfs    whether a tmpfs {@code dir} is accepted
 * @param scale         "default", "full" or "custom" (tests), for the report
 * @param floor         whether the latency runs also run {@code min-shipper}, a C program that does only what any
 *                      shipper must per append (built with {@code cc}): the floor of CPU per line on this machine
 * @param shipperCpus   the CPUs every shipper (jfio, the peers, {@code min-shipper}) is started on, as taskset(1)
 *                      takes them (e.g. {@code 1} or {@code 2-3}); null: wherever the scheduler puts it
 */
public record ShipBenchOptions(Path dir, Path out, List<String> jfio, Set<String> workloads, long lines, int reps,
                               int files, int rate, Duration latency, Duration warmup, Duration throughput,
                               int idleDirs, int idleFiles, Duration idle, boolean rsyslog, boolean syslogNg,
                               boolean install, boolean allowTmpfs, String scale, boolean floor,
                               String shipperCpus) {
    /** The workloads, in the order they run. */
    public static final List<String> WORKLOADS = List.of("single", "records", "latency", "wide", "throughput", "idle");

    /** Files of the wide latency configuration: ten times {@code files}. */
    public int wideFiles() {
        return files * 10;
    }

    /** Lines per second of the wide latency configuration: ten times {@code rate}, at most {@link #MAX_RATE}. */
    public int wideRate() {
        return (int) Math.min(10L * rate, MAX_RATE);
    }

    /** The measured part of each wide latency run: half of {@code latency}, at least 1 s. */
    public Duration wideLatency() {
        Duration half = latency.dividedBy(2);
        return half.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : half;
    }

    /** The standard sizes, about 3 minutes on 2 cores. */
    public static ShipBenchOptions defaults(Path dir, Path out, List<String> jfio) {
        return new ShipBenchOptions(dir, out, jfio, Set.copyOf(WORKLOADS), 5_000_000, 3, 100, 10_000,
                Duration.ofSeconds(20), Duration.ofSeconds(3), Duration.ofSeconds(10), 100, 100, Duration.ofSeconds(15),
                true, true, true, false, "default", false, null);
    }

    /** Longer measurements: 5 runs per single-file cell, 60 s latency and idle windows, 30 s throughput. */
    public ShipBenchOptions full() {
        return new ShipBenchOptions(dir, out, jfio, workloads, lines, 5, files, rate, Duration.ofSeconds(60),
                Duration.ofSeconds(5), Duration.ofSeconds(30), idleDirs, idleFiles, Duration.ofSeconds(60), rsyslog,
                syslogNg, install, allowTmpfs, "full", floor, shipperCpus);
    }

    public ShipBenchOptions withWorkloads(Set<String> w) {
        for (String s : w) {
            if (!WORKLOADS.contains(s)) {
                throw new IllegalArgumentException("unknown workload: " + s + " (known: " + String.join(", ",
                        WORKLOADS) + ")");
            }
        }
        return new ShipBenchOptions(dir, out, jfio, Set.copyOf(w), lines, reps, files, rate, latency, warmup,
                throughput, idleDirs, idleFiles, idle, rsyslog, syslogNg, install, allowTmpfs, scale, floor,
                shipperCpus);
    }

    /** The highest latency-run rate: one line per microsecond over all files. */
    public static final int MAX_RATE = 1_000_000;

    /** Smaller sizes (for tests and first looks; the report says so). */
    public ShipBenchOptions withSizes(long lines, int reps, int files, int rate, Duration latency, Duration warmup,
                                      Duration throughput, int idleDirs, int idleFiles, Duration idle) {
        if (lines < 1 || reps < 1 || files < 1 || files > 999 || rate < 1 || idleDirs < 1 || idleFiles < 1) {
            throw new IllegalArgumentException("sizes must be positive (files at most 999)");
        }
        // The latency writer paces one line every 10^9 / rate ns, and the windows divide what they count by their
        // length: a rate above 10^6 lines/s or a zero window would make those 0 (and the report a division by zero).
        if (rate > MAX_RATE) {
            throw new IllegalArgumentException("rate at most " + MAX_RATE + " lines per second: rate=" + rate);
        }
        if (!latency.isPositive() || !throughput.isPositive() || !idle.isPositive() || warmup.isNegative()) {
            throw new IllegalArgumentException("measured windows must be at least 1 s: latency=" + latency.toSeconds()
                    + "s idle=" + idle.toSeconds() + "s");
        }
        return new ShipBenchOptions(dir, out, jfio, workloads, lines, reps, files, rate, latency, warmup, throughput,
                idleDirs, idleFiles, idle, rsyslog, syslogNg, install, allowTmpfs, "custom", floor, shipperCpus);
    }

    public ShipBenchOptions withPeer(boolean rsyslogOn, boolean installOn) {
        return withPeers(rsyslogOn, syslogNg, installOn);
    }

    public ShipBenchOptions withPeers(boolean rsyslogOn, boolean syslogNgOn, boolean installOn) {
        return new ShipBenchOptions(dir, out, jfio, workloads, lines, reps, files, rate, latency, warmup, throughput,
                idleDirs, idleFiles, idle, rsyslogOn, syslogNgOn, installOn, allowTmpfs, scale, floor, shipperCpus);
    }

    public ShipBenchOptions withAllowTmpfs(boolean allow) {
        return new ShipBenchOptions(dir, out, jfio, workloads, lines, reps, files, rate, latency, warmup, throughput,
                idleDirs, idleFiles, idle, rsyslog, syslogNg, install, allow, scale, floor, shipperCpus);
    }

    /** With or without the {@code min-shipper} rows in the latency runs. */
    public ShipBenchOptions withFloor(boolean on) {
        return new ShipBenchOptions(dir, out, jfio, workloads, lines, reps, files, rate, latency, warmup, throughput,
                idleDirs, idleFiles, idle, rsyslog, syslogNg, install, allowTmpfs, scale, on, shipperCpus);
    }

    /** A CPU list as taskset(1) takes it: numbers and ranges, comma-separated. */
    private static final Pattern CPU_LIST = Pattern.compile("\\d{1,4}(-\\d{1,4})?(,\\d{1,4}(-\\d{1,4})?)*");

    /**
     * With every shipper started on {@code cpus} (null: not pinned).
     *
     * @throws IllegalArgumentException naming the value when it is not a CPU list such as {@code 1} or {@code 0,2-3}
     */
    public ShipBenchOptions withShipperCpus(String cpus) {
        if (cpus != null && !CPU_LIST.matcher(cpus).matches()) {
            throw new IllegalArgumentException("invalid --shipper-cpus: " + cpus + " (expected a CPU list such as 1 "
                    + "or 0,2-3)");
        }
        return new ShipBenchOptions(dir, out, jfio, workloads, lines, reps, files, rate, latency, warmup, throughput,
                idleDirs, idleFiles, idle, rsyslog, syslogNg, install, allowTmpfs, scale, floor, cpus);
    }

    /**
     * Parses the idle tree {@code DIRSxFILES} of {@code --idle-files}, e.g. {@code 100x100}, to {dirs, files}.
     *
     * @throws IllegalArgumentException naming the value when it is not two numbers joined by x
     */
    public static int[] parseIdleTree(String tree) {
        String[] p = tree.toLowerCase(Locale.ROOT).split("x");
        try {
            if (p.length != 2) throw new NumberFormatException();
            return new int[] {Integer.parseInt(p[0]), Integer.parseInt(p[1])};
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("invalid --idle-files: " + tree + " (expected e.g. 100x100)");
        }
    }

    /** True when the single file has the standard size (5 million lines, 460 MB). */
    public boolean standardSizes() {
        return lines == 5_000_000 && files == 100 && rate == 10_000 && idleDirs * idleFiles == 10_000;
    }
}
