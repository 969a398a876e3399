package io.jfio.bench.copy;

import io.jfio.bench.Stats;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The measurements of one {@link CopyBench} run: seconds per (workload, cache mode, contender), the verification of
 * jfio's copies, notes, and the verdicts on the targets.
 *
 * <p>Not thread-safe; filled by the benchmark, then read.
 */
public final class CopyBenchResult {
    /** Tree never slower than cp -a (and, checked separately, not slower than xcp where it ran). */
    public static final double TREE_VS_CP = 1.0;
    /** Large file at least this fraction of cp -a's throughput. */
    public static final double BIG_VS_CP = 0.95;

    private final CopyBenchOptions options;
    private final List<CopyBench.Contender> contenders;
    private final long treeBytes;
    private final int treeFiles;
    private final long bigBytes;
    private final boolean droppedCaches;
    private final Map<String, List<Double>> cells = new LinkedHashMap<>();
    /** CPU seconds of each run: user and system time of the tool's process and its children. */
    private final Map<String, List<double[]>> cpu = new LinkedHashMap<>();
    private final Map<String, String> verified = new LinkedHashMap<>();
    private final List<String> notes = new ArrayList<>();
    private String loadBefore = "?";
    private String loadAfter = "?";
    private double stealPercent = Double.NaN;

    CopyBenchResult(CopyBenchOptions options, List<CopyBench.Contender> contenders, long treeBytes, int treeFiles,
                    long bigBytes, boolean droppedCaches) {
        this.options = options;
        this.contenders = List.copyOf(contenders);
        this.treeBytes = treeBytes;
        this.treeFiles = treeFiles;
        this.bigBytes = bigBytes;
        this.droppedCaches = droppedCaches;
    }

    private static String key(String workload, String mode, String contender) {
        return workload + "/" + mode + "/" + contender;
    }

    void add(String workload, String mode, String contender, double seconds) {
        cells.computeIfAbsent(key(workload, mode, contender), k -> new ArrayList<>()).add(seconds);
    }

    /** Records the CPU time of a successful run (user and system seconds, children included). */
    void addCpu(String workload, String mode, String contender, double userSeconds, double systemSeconds) {
        cpu.computeIfAbsent(key(workload, mode, contender), k -> new ArrayList<>())
                .add(new double[] {userSeconds, systemSeconds});
    }

    /** The median user and system seconds of a cell ({@code [user, sys]}), or null when none was recorded. */
    double[] medianCpu(String workload, String mode, String contender) {
        List<double[]> v = cpu.get(key(workload, mode, contender));
        if (v == null || v.isEmpty()) return null;
        // addCpu is called with measured values only: no NaN to leave out.
        return new double[] {Stats.median(v.stream().mapToDouble(a -> a[0]).toArray()),
            Stats.median(v.stream().mapToDouble(a -> a[1]).toArray())};
    }

    boolean verified(String workload) {
        return verified.containsKey(workload);
    }

    /** Records the comparison of jfio's copy with the source: null when equal, else what differs. */
    void verify(String workload, String difference) {
        verified.put(workload, difference == null ? "equal to the source" : "DIFFERS: " + difference);
    }

    void note(String n) {
        notes.add(n);
    }

    CopyBenchResult withEnvironment(String before, String after, double steal) {
        loadBefore = before;
        loadAfter = after;
        stealPercent = steal;
        return this;
    }

    /** The median seconds of a cell; NaN when it has no successful run. */
    public double median(String workload, String mode, String contender) {
        List<Double> v = cells.get(key(workload, mode, contender));
        if (v == null) return Double.NaN;
        // A failed run (NaN) fails the cell: a median of the runs that worked would flatter the tool.
        double[] ok = v.stream().filter(d -> !Double.isNaN(d)).mapToDouble(Double::doubleValue).toArray();
        if (ok.length == 0 || ok.length < v.size()) return Double.NaN;
        return Stats.median(ok);
    }

    /** True when jfio's copies were equal to their sources (or not verified because jfio did not run). */
    public boolean copiesCorrect() {
        return verified.values().stream().noneMatch(v -> v.startsWith("DIFFERS"));
    }

    /** True when some run failed. */
    public boolean anyFailed() {
        return cells.values().stream().anyMatch(v -> v.stream().anyMatch(d -> d.isNaN()));
    }

    /** The verdict lines: one per target and cache mode. */
    public List<String> verdicts() {
        List<String> out = new ArrayList<>();
        for (String mode : options.modes()) {
            if (options.workloads().contains("tree")) {
                double cp = median("tree", mode, "cp");
                double jf = median("tree", mode, "jfio");
                if (!Double.isNaN(cp) && !Double.isNaN(jf)) {
                    double ratio = cp / jf;
                    out.add(String.format(Locale.ROOT, "%s: tree %s: jfio %.2fx as fast as cp -a (target >= %.2fx)",
                            ratio >= TREE_VS_CP ? "PASS" : "FAIL", mode, ratio, TREE_VS_CP));
                }
                double xcp = median("tree", mode, "xcp");
                if (!Double.isNaN(xcp) && !Double.isNaN(jf)) {
                    out.add(String.format(Locale.ROOT, "%s: tree %s: jfio %.3f s vs xcp %.3f s (target: not slower)",
                            jf <= xcp ? "PASS" : "FAIL", mode, jf, xcp));
                }
            }
            if (options.workloads().contains("big")) {
                double cp = median("big", mode, "cp");
                double jf = median("big", mode, "jfio");
                if (!Double.isNaN(cp) && !Double.isNaN(jf)) {
                    double ratio = cp / jf;
                    out.add(String.format(Locale.ROOT, "%s: large file %s: jfio %.2fx cp -a's throughput "
                            + "(target >= %.2fx)", ratio >= BIG_VS_CP ? "PASS" : "FAIL", mode, ratio, BIG_VS_CP));
                }
            }
        }
        return out;
    }

    /** Prints the table, verdicts and notes as Markdown. */
    void print(PrintWriter out) {
        out.printf(Locale.ROOT, "## jfio bench copy%n%n");
        String data = (options.workloads().contains("tree") ? String.format(Locale.ROOT, "Tree: %,d files, %s. ",
                treeFiles, CopyBench.mb(treeBytes)) : "") + (options.workloads().contains("big")
                ? "Large file: " + CopyBench.mb(bigBytes) + ". " : "");
        out.printf(Locale.ROOT, "%s%d repetitions per cell, median. Cold: %s. "
                        + "Load average before %s, after %s; CPU steal %.1f%%; %d CPUs.%n%n", data,
                options.reps(), droppedCaches
                        ? "sync + drop_caches (data, inodes, directories), tools re-warmed"
                        : "sync + PageCache.evict per file (data only)", loadBefore, loadAfter, stealPercent,
                Runtime.getRuntime().availableProcessors());
        out.println("| workload | cache | tool | median s | all runs (s) | MB/s | vs cp -a | CPU s: user + sys |");
        out.println("|---|---|---|---:|---|---:|---:|---:|");
        for (String workload : options.workloads()) {
            long bytes = workload.equals("tree") ? treeBytes : bigBytes;
            for (String mode : options.modes()) {
                double cp = median(workload, mode, "cp");
                for (CopyBench.Contender c : contenders) {
                    List<Double> runs = cells.getOrDefault(key(workload, mode, c.name()), List.of());
                    double m = median(workload, mode, c.name());
                    String all = Arrays.toString(runs.stream().map(d -> d.isNaN() ? "failed"
                            : String.format(Locale.ROOT, "%.3f", d)).toArray());
                    // Only successful runs' CPU is recorded: shown for a failed cell, it would flatter it as a
                    // median time of the runs that worked would.
                    double[] cpuS = Double.isNaN(m) ? null : medianCpu(workload, mode, c.name());
                    out.printf(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s | %s |%n", workload, mode, c.label(),
                            Double.isNaN(m) ? "failed" : String.format(Locale.ROOT, "%.3f", m),
                            all.substring(1, all.length() - 1), Double.isNaN(m) ? "-"
                                    : String.format(Locale.ROOT, "%.0f", bytes / 1e6 / m),
                            Double.isNaN(m) || Double.isNaN(cp) ? "-"
                                    : String.format(Locale.ROOT, "%.2fx", cp / m),
                            cpuS == null ? "-" : String.format(Locale.ROOT, "%.2f + %.2f", cpuS[0], cpuS[1]));
                }
            }
        }
        out.println();
        out.println("\"vs cp -a\" is cp's time divided by the tool's: above 1 is faster than cp -a. CPU: medians of"
                + " the tool's user and system time (its children included, from /proc, 10 ms ticks); more CPU"
                + " seconds than wall seconds means more than one CPU was busy.");
        out.println();
        for (String v : verdicts()) out.println(v);
        for (Map.Entry<String, String> v : verified.entrySet()) {
            out.println("jfio copy of the " + v.getKey() + ": " + v.getValue());
        }
        if (!notes.isEmpty()) {
            out.println();
            out.println("Notes:");
            for (String n : notes) out.println("- " + n);
        }
        out.println();
        out.println("Tools:");
        for (CopyBench.Contender c : contenders) {
            out.println("- " + c.label() + ": " + CopyBench.notes().getOrDefault(c.name(), "a variant of jfio copy -a,"
                    + " to compare jfio's strategies"));
        }
    }
}
