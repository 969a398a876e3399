package io.jfio.bench.suite.experiments;

import io.jfio.bench.suite.Experiment;
import io.jfio.bench.suite.ExperimentResult;
import io.jfio.bench.suite.FioCheck;
import io.jfio.bench.suite.Plot;
import io.jfio.bench.suite.SuiteContext;
import io.jfio.bench.suite.SuiteOptions;
import io.jfio.bench.suite.Table;
import io.jfio.bench.uring.CacheMode;
import io.jfio.bench.uring.CellResult;
import io.jfio.bench.uring.Method;
import io.jfio.bench.uring.UringBench;
import io.jfio.bench.uring.UringBenchOptions;
import io.jfio.bench.uring.UringBenchResult;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.time.Duration;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Experiment 9: {@code jfio bench uring} inside the suite. Runs {@link UringBench} with sizes and depths for the
 * scale (4 KiB random reads: jfio io_uring and thread engines, FileChannel on 1 and N threads, RandomAccessFile,
 * mmap, fio io_uring and psync) and turns its cells into the suite's table, plot and fio checks.
 *
 * <p>Thread-safe; stateless.
 */
public final class UringExperiment implements Experiment {
    @Override
    public String name() {
        return "uring";
    }

    @Override
    public String description() {
        return "4 KiB random reads: jfio io_uring vs jfio threads vs FileChannel (1 and N threads) vs "
                + "RandomAccessFile vs mmap, by queue depth, with fio io_uring and psync as references";
    }

    @Override
    public boolean fioExpressible() {
        return true;
    }

    @Override
    public Duration quickBudget() {
        return Duration.ofSeconds(45);
    }

    static long fileSize(SuiteOptions.Scale scale) {
        return switch (scale) {
            case TINY -> 1L << 20;
            case QUICK -> 128L << 20;
            case FULL -> 1L << 30;
        };
    }

    @Override
    public long bytesNeeded(SuiteOptions.Scale scale) {
        return fileSize(scale) + (64L << 20);
    }

    /** The UringBench options for this scale. */
    static UringBenchOptions options(SuiteContext ctx) {
        SuiteOptions.Scale s = ctx.scale();
        UringBenchOptions.Builder b = UringBenchOptions.builder().dir(ctx.scratch()).fileSize(fileSize(s))
                .reps(SuiteOptions.REPS).seed(ctx.options().seed()).fio(ctx.fio().isPresent()).installFio(false);
        switch (s) {
            case TINY -> b.duration(Duration.ofMillis(40)).warmup(Duration.ofMillis(20)).depths(List.of(1, 4))
                    .modes(EnumSet.of(CacheMode.HOT, CacheMode.COLD)).fileChannelThreads(4);
            case QUICK -> b.duration(Duration.ofMillis(150)).warmup(Duration.ofMillis(75)).depths(List.of(1, 32))
                    .modes(EnumSet.of(CacheMode.HOT, CacheMode.COLD)).fileChannelThreads(32);
            case FULL -> b.duration(Duration.ofSeconds(1)).depths(List.of(1, 32, 128));
            default -> throw new IllegalStateException();
        }
        if (s == SuiteOptions.Scale.QUICK) {
            // The quick budget has no room for the slow single-threaded mmap/RAF rows twice over plus O_DIRECT.
            Set<Method> m = EnumSet.allOf(Method.class);
            m.remove(Method.URING);
            b.methods(m);
        }
        return b.build();
    }

    @Override
    public ExperimentResult run(SuiteContext ctx) throws Exception {
        ExperimentResult r = new ExperimentResult(name(), description());
        UringBenchOptions o = options(ctx);
        StringWriter md = new StringWriter();
        PrintWriter progress = new PrintWriter(new Writer() {
            private final StringBuilder line = new StringBuilder();

            @Override
            public void write(char[] c, int off, int len) {
                for (int i = off; i < off + len; i++) {
                    if (c[i] == '\n') {
                        if (!line.isEmpty()) ctx.status(line.toString().strip());
                        line.setLength(0);
                    } else {
                        line.append(c[i]);
                    }
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        });
        UringBenchResult u = UringBench.run(o, new PrintWriter(md), progress);
        Table t = r.table(new Table("4 KiB random reads (" + o + ")", "cache", "method", "depth", "iops_median",
                "spread_pct", "p50_us", "p99_us", "resident_before_pct", "resident_after_pct", "vs_fio", "errors"));
        Map<String, double[][]> lines = new LinkedHashMap<>();
        List<CellResult> cells = u.sortedCells();
        for (CellResult c : cells) {
            double ratio = u.fioRatio(c);
            t.add(c.mode().label(), c.method().label(), c.depth(), c.medianIops(), c.summary().relativeSpread() * 100,
                    c.latency().p50() / 1e3, c.latency().p99() / 1e3, c.residencyBefore() * 100,
                    c.residencyAfter() * 100, ratio, c.errors());
            Optional<CellResult> peer = u.fioPeer(c);
            if (peer.isPresent()) {
                r.fio(new FioCheck(c.mode().label() + " 4 KiB randread depth " + c.depth(), c.method().label(),
                        peer.get().method().label() + " depth " + peer.get().depth(), "IOPS", c.medianIops(),
                        peer.get().medianIops(), true));
            }
            if (c.method().takesDepth()) {
                String key = c.method().label() + " " + c.mode().label();
                double[][] xy = lines.computeIfAbsent(key, k -> new double[][] {new double[0], new double[0]});
                xy[0] = append(xy[0], c.depth());
                xy[1] = append(xy[1], c.medianIops());
            }
        }
        Plot p = Plot.lines("uring: 4 KiB random reads by depth", "queue depth (threads for FileChannel N)",
                "IOPS (median)", true, true);
        for (var e : lines.entrySet()) p.line(e.getKey(), e.getValue()[0], e.getValue()[1]);
        r.plot(p);
        for (String w : u.warnings()) r.note("warning: " + w);
        for (String s : u.setup()) r.note(s);
        for (UringBenchResult.Check c : u.checks()) r.note("target: " + c.line());
        r.note(String.format(Locale.ROOT, "002 (JUring README) reports ~1250 vs ~987 ops/ms for 4 KiB reads with 32 "
                + "threads (io_uring vs FileChannel); its cache state is not stated, so it is not set beside a cell"));
        r.note("not yet measured here (issue 3, experiment 9): writes, block sizes other than 4 KiB and FileChannel "
                + "on virtual threads; `bin/jfio bench uring --help` runs the standalone version with every option");
        if (u.errors() > 0) {
            r.note("ERRORS: " + u.errors() + " reads failed or returned wrong data");
        }
        return r;
    }

    private static double[] append(double[] a, double v) {
        double[] b = java.util.Arrays.copyOf(a, a.length + 1);
        b[a.length] = v;
        return b;
    }
}
