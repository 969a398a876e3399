package io.jfio.bench.uring;

import io.jfio.bench.JsonText;
import io.jfio.bench.system.SystemInfo;
import io.jfio.bench.Units;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Everything one {@code uring} benchmark run found: the machine, the setup, every cell, the fio cross-checks and
 * the targets, each computed from the measurements. Renders as Markdown and JSON.
 *
 * <p>Immutable.
 *
 * @param options  what was run
 * @param system   the machine
 * @param setup    how each method was set up (engine flags, threads, buffers), one line each
 * @param cells    every cell, in run order
 * @param warnings things that went wrong or look suspect, for the reader
 * @param elapsedSeconds wall time of the whole run
 * @param scaling  the scaling table's rows (empty when it did not run)
 */
public record UringBenchResult(UringBenchOptions options, SystemInfo system, List<String> setup,
                               List<CellResult> cells, List<String> warnings, double elapsedSeconds,
                               List<Scaling.Row> scaling) {
    /** The smallest scaling factor per CPU the engine's target asks for: 1.8x from 1 to 2 CPUs. */
    public static final double SCALING_PER_CPU = 0.9;

    /** The depth the targets are stated at. */
    public static final int TARGET_DEPTH = 32;
    /** A Java path and its fio equivalent are flagged when their IOPS differ by more than this fraction. */
    public static final double FLAG_THRESHOLD = 0.10;

    public UringBenchResult {
        setup = List.copyOf(setup);
        cells = List.copyOf(cells);
        warnings = List.copyOf(warnings);
        scaling = List.copyOf(scaling);
    }

    /** A result without a scaling table. */
    public UringBenchResult(UringBenchOptions options, SystemInfo system, List<String> setup, List<CellResult> cells,
                            List<String> warnings, double elapsedSeconds) {
        this(options, system, setup, cells, warnings, elapsedSeconds, List.of());
    }

    /** Status of a target check. */
    public enum Status { PASS, FAIL, SKIP }

    /**
     * One target, checked against this run's numbers.
     *
     * @param name   what is checked
     * @param status PASS, FAIL, or SKIP when a needed cell was not run
     * @param ratio  measured ratio (NaN when skipped)
     * @param needed the ratio the target asks for
     * @param detail the numbers behind it
     */
    public record Check(String name, Status status, double ratio, double needed, String detail) {
        /** {@code PASS cold buffered, depth 32: ...}. */
        public String line() {
            return status + " " + name + ": " + detail;
        }

        Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", name);
            m.put("status", status.name());
            m.put("ratio", ratio);
            m.put("needed", needed);
            m.put("detail", detail);
            return m;
        }
    }

    /** The cell for {@code mode}, {@code method} and {@code depth}, if it ran. */
    public Optional<CellResult> cell(CacheMode mode, Method method, int depth) {
        for (CellResult c : cells) {
            if (c.mode() == mode && c.method() == method && c.depth() == depth) return Optional.of(c);
        }
        return Optional.empty();
    }

    /** The fio cell a Java cell is compared with: fio io_uring at the same depth for jfio io_uring, psync for
     * FileChannel on one thread. */
    public Optional<CellResult> fioPeer(CellResult c) {
        if (c.method().isJfioUring()) return cell(c.mode(), Method.FIO_URING, c.depth());
        if (c.method() == Method.FILECHANNEL) return cell(c.mode(), Method.FIO_PSYNC, 1);
        return Optional.empty();
    }

    /** Java IOPS over fio IOPS for a cell with a fio peer, else NaN. */
    public double fioRatio(CellResult c) {
        return fioPeer(c).map(f -> c.medianIops() / f.medianIops()).orElse(Double.NaN);
    }

    /** Lines for every Java path that differs from its fio equivalent by more than {@link #FLAG_THRESHOLD}. */
    public List<String> flags() {
        List<String> out = new ArrayList<>();
        for (CellResult c : cells) {
            Optional<CellResult> f = fioPeer(c);
            if (f.isEmpty()) continue;
            double r = c.medianIops() / f.get().medianIops();
            if (Math.abs(r - 1) > FLAG_THRESHOLD) {
                out.add(String.format(Locale.ROOT, "FLAG %s, depth %d: %s %s IOPS vs %s %s IOPS (ratio %.2f, "
                                + "differs by more than %.0f%%)", c.mode(), c.depth(), c.method(),
                        Units.formatCount(c.medianIops()), f.get().method(),
                        Units.formatCount(f.get().medianIops()), r, FLAG_THRESHOLD * 100));
            }
        }
        return out;
    }

    /** The targets, computed from this run (with {@link UringBench#RECOMMENDED} as jfio's io_uring path). */
    public List<Check> checks() {
        Method jfio = UringBench.RECOMMENDED;
        List<Check> out = new ArrayList<>();
        out.add(ratioCheck("cold buffered, depth " + TARGET_DEPTH + ": " + jfio + " >= 0.95 x fio io_uring",
                CacheMode.COLD, jfio, Method.FIO_URING, TARGET_DEPTH, 0.95));
        out.add(ratioCheck("O_DIRECT, depth " + TARGET_DEPTH + ": " + jfio + " >= 0.95 x fio io_uring",
                CacheMode.DIRECT, jfio, Method.FIO_URING, TARGET_DEPTH, 0.95));
        out.add(ratioCheck("hot page cache, depth " + TARGET_DEPTH + ": " + jfio + " >= 0.9 x fio io_uring",
                CacheMode.HOT, jfio, Method.FIO_URING, TARGET_DEPTH, 0.9));
        Check fc = ratioCheck("cold buffered, depth " + TARGET_DEPTH + ": " + jfio + " >= 3 x FileChannel 1 thread",
                CacheMode.COLD, jfio, Method.FILECHANNEL, 1, 3.0);
        // How much depth can buy on this device at all: fio's own depth-32 over depth-1 ratio, for the reader.
        Optional<CellResult> fd = cell(CacheMode.COLD, Method.FIO_URING, TARGET_DEPTH);
        Optional<CellResult> f1 = cell(CacheMode.COLD, Method.FIO_PSYNC, 1);
        if (fc.status() != Status.SKIP && fd.isPresent() && f1.isPresent()) {
            fc = new Check(fc.name(), fc.status(), fc.ratio(), fc.needed(), fc.detail() + String.format(Locale.ROOT,
                    "; for reference fio io_uring depth %d / fio psync depth 1 = %.2fx on this device",
                    TARGET_DEPTH, fd.get().medianIops() / f1.get().medianIops()));
        }
        out.add(fc);
        // What the machine allowed in the same run: plain threads' scaling, for the reader of a FAIL on a busy machine.
        String threads = scaling.stream().filter(r -> r.kind() == Scaling.Kind.FILECHANNEL).findFirst()
                .map(r -> String.format(Locale.ROOT, "; FileChannel threads scaled %.2fx in the same run",
                        r.factor())).orElse("");
        for (Scaling.Row r : scaling) {
            if (r.kind() != Scaling.Kind.ENGINE) continue;
            double needed = SCALING_PER_CPU * r.cpus();
            double f = r.factor();
            out.add(new Check("scaling, hot, depth " + r.depth() + ": " + r.kind().label + " on " + r.cpus()
                    + " CPUs >= " + String.format(Locale.ROOT, "%.1f", needed) + " x on 1 CPU",
                    f >= needed ? Status.PASS : Status.FAIL, f, needed, String.format(Locale.ROOT,
                    "%s IOPS vs %s IOPS = %.2fx (needs %.2fx)", Units.formatCount(r.allMedian()),
                    Units.formatCount(r.oneMedian()), f, needed) + threads));
        }
        return out;
    }

    /** The scaling table as Markdown, or an empty string when it did not run. */
    public String scalingTable() {
        if (scaling.isEmpty()) return "";
        int cpus = scaling.get(0).cpus();
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "Scaling, hot page cache, depth %d: each method in a JVM of its own "
                + "under taskset, on 1 CPU and on %d CPUs (median of %d):%n%n", scaling.get(0).depth(), cpus,
                scaling.get(0).oneCpu().length));
        sb.append(String.format(Locale.ROOT, "| method | 1 CPU IOPS | %d CPUs IOPS | scaling |%n", cpus));
        sb.append("|:--|--:|--:|--:|\n");
        for (Scaling.Row r : scaling) {
            String label = r.kind().label + (r.rings() > 0 ? " (rings " + r.rings() + " / " + r.ringsAll() + ")" : "");
            sb.append(String.format(Locale.ROOT, "| %s | %s | %s | %.2fx |%n", label,
                    Units.formatCount(r.oneMedian()), Units.formatCount(r.allMedian()), r.factor()));
        }
        return sb.toString();
    }

    private Check ratioCheck(String name, CacheMode mode, Method jfio, Method ref, int refDepth, double needed) {
        Optional<CellResult> a = cell(mode, jfio, TARGET_DEPTH);
        Optional<CellResult> b = cell(mode, ref, refDepth);
        if (a.isEmpty() || b.isEmpty()) {
            String missing = a.isEmpty() ? jfio + " at depth " + TARGET_DEPTH : ref + " at depth " + refDepth;
            return new Check(name, Status.SKIP, Double.NaN, needed, "not measured in this run: " + missing + " ("
                    + mode + ")");
        }
        double ra = a.get().medianIops();
        double rb = b.get().medianIops();
        double ratio = ra / rb;
        Status s = ratio >= needed ? Status.PASS : Status.FAIL;
        String detail = String.format(Locale.ROOT, "%s IOPS vs %s IOPS = %.2fx (needs %.2fx)", Units.formatCount(ra),
                Units.formatCount(rb), ratio, needed);
        if (a.get().errors() > 0) {
            s = Status.FAIL;
            detail += "; " + a.get().errors() + " failed or wrong reads";
        }
        return new Check(name, s, ratio, needed, detail);
    }

    /** Cells sorted for the table: by mode, then depth, then method. */
    public List<CellResult> sortedCells() {
        List<CellResult> l = new ArrayList<>(cells);
        l.sort(Comparator.comparing(CellResult::mode).thenComparingInt(CellResult::depth)
                .thenComparing(CellResult::method));
        return l;
    }

    /** The header, table, flags and target checks as Markdown. */
    public String markdown() {
        StringBuilder sb = new StringBuilder();
        sb.append("# jfio bench uring: 4 KiB random reads\n\n");
        for (String l : system.lines()) sb.append("- ").append(l).append('\n');
        for (String l : setup) sb.append("- ").append(l).append('\n');
        sb.append('\n');
        sb.append(table());
        if (!scaling.isEmpty()) sb.append('\n').append(scalingTable());
        boolean first = true;
        for (CellResult c : sortedCells()) {
            for (String n : c.notes()) {
                if (first) sb.append('\n');
                first = false;
                sb.append("note: ").append(c.mode()).append(' ').append(c.method()).append(" depth ")
                        .append(c.depth()).append(": ").append(n).append('\n');
            }
        }
        List<String> flags = flags();
        sb.append('\n');
        if (flags.isEmpty()) {
            sb.append("No Java path differs from its fio equivalent by more than ")
                    .append(Math.round(FLAG_THRESHOLD * 100)).append("%")
                    .append(cells.stream().anyMatch(c -> c.method().isFio()) ? "." : " (fio did not run).")
                    .append('\n');
        } else {
            for (String f : flags) sb.append(f).append('\n');
        }
        sb.append('\n');
        for (Check c : checks()) sb.append(c.line()).append('\n');
        if (!warnings.isEmpty()) {
            sb.append('\n');
            for (String w : warnings) sb.append("WARNING ").append(w).append('\n');
        }
        sb.append(String.format(Locale.ROOT, "%nelapsed: %.0f s%n", elapsedSeconds));
        return sb.toString();
    }

    /** Just the Markdown table. */
    public String table() {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"mode", "method", "depth", "IOPS (median)", "min – max", "spread", "p50 µs", "p99 µs",
            "vs fio", "cache before → after", "errors"});
        for (CellResult c : sortedCells()) {
            double ratio = fioRatio(c);
            String vs;
            if (c.method().isFio()) {
                vs = "ref";
            } else if (Double.isNaN(ratio)) {
                vs = "";
            } else {
                vs = String.format(Locale.ROOT, "%.2f", ratio) + (Math.abs(ratio - 1) > FLAG_THRESHOLD ? " ⚠" : "");
            }
            String cache = c.mode() == CacheMode.DIRECT ? "O_DIRECT"
                    : Units.formatPercent(c.residencyBefore()) + " → " + Units.formatPercent(c.residencyAfter());
            String method = c.method() == Method.FILECHANNEL_THREADS ? "FileChannel " + c.depth() + " threads"
                    : c.method().label();
            if (c.method() == UringBench.RECOMMENDED) method += " (recommended)";
            rows.add(new String[] {c.mode().label(), method, Integer.toString(c.depth()),
                Units.formatCount(c.medianIops()),
                Units.formatCount(c.summary().min()) + " – " + Units.formatCount(c.summary().max()),
                Units.formatPercent(c.summary().relativeSpread()), Units.formatMicros(c.latency().p50()),
                Units.formatMicros(c.latency().p99()), vs, cache, Long.toString(c.errors())});
        }
        int cols = rows.get(0).length;
        int[] w = new int[cols];
        for (String[] r : rows) {
            for (int i = 0; i < cols; i++) w[i] = Math.max(w[i], r[i].length());
        }
        StringBuilder sb = new StringBuilder();
        for (int k = 0; k < rows.size(); k++) {
            String[] r = rows.get(k);
            sb.append('|');
            for (int i = 0; i < cols; i++) {
                boolean numeric = i == 2 || i == 3 || i == 6 || i == 7 || i == 10;
                String cell = numeric ? pad(r[i], w[i], true) : pad(r[i], w[i], false);
                sb.append(' ').append(cell).append(" |");
            }
            sb.append('\n');
            if (k == 0) {
                sb.append('|');
                for (int i = 0; i < cols; i++) {
                    boolean numeric = i == 2 || i == 3 || i == 6 || i == 7 || i == 10;
                    sb.append(numeric ? "-".repeat(w[i] + 1) + ":|" : ":" + "-".repeat(w[i] + 1) + "|");
                }
                sb.append('\n');
            }
        }
        return sb.toString();
    }

    private static String pad(String s, int width, boolean right) {
        int n = width - s.length();
        if (n <= 0) return s;
        return right ? " ".repeat(n) + s : s + " ".repeat(n);
    }

    /** The whole result as JSON. */
    public String toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("benchmark", "uring");
        m.put("options", options.toMap());
        m.put("system", system.toMap());
        m.put("setup", setup);
        m.put("recommended_uring_path", UringBench.RECOMMENDED.label());
        List<Object> cs = new ArrayList<>();
        for (CellResult c : sortedCells()) {
            Map<String, Object> cm = c.toMap();
            double r = fioRatio(c);
            if (!Double.isNaN(r)) cm.put("ratio_to_fio", r);
            cs.add(cm);
        }
        m.put("cells", cs);
        m.put("flags", flags());
        List<Object> ch = new ArrayList<>();
        for (Check c : checks()) ch.add(c.toMap());
        m.put("checks", ch);
        List<Object> sc = new ArrayList<>();
        for (Scaling.Row r : scaling) sc.add(r.toMap());
        m.put("scaling", sc);
        m.put("warnings", warnings);
        m.put("elapsed_s", elapsedSeconds);
        return JsonText.write(m) + "\n";
    }

    /** Total failed or wrong reads over all cells. */
    public long errors() {
        long n = 0;
        for (CellResult c : cells) n += c.errors();
        return n;
    }
}
