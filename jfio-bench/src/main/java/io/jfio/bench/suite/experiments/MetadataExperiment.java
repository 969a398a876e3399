package io.jfio.bench.suite.experiments;

import io.jfio.bench.Stats;
import io.jfio.bench.suite.CacheState;
import io.jfio.bench.suite.Experiment;
import io.jfio.bench.suite.ExperimentResult;
import io.jfio.bench.suite.Measure;
import io.jfio.bench.suite.Plot;
import io.jfio.bench.suite.SuiteContext;
import io.jfio.bench.suite.SuiteOptions;
import io.jfio.bench.suite.Table;
import io.jfio.core.sys.ErrnoException;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import io.jfio.core.sys.Stat;
import io.jfio.core.sys.Statx;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Experiment 7: the cost of identifying and touching a file, per call: stat on a path (statx), open + fstat +
 * close, fstat on an open descriptor, an 8 KiB pread and an 8 B pread (page cache hot). The JVM file I/O talk
 * reports the same calls in reference cycles; they are set beside ours, converted at this CPU's clock.
 *
 * <p>Thread-safe; stateless.
 */
public final class MetadataExperiment implements Experiment {
    /** The JVM file I/O talk's reference cycles (i7-8550U, kernel 5.3; "noflush" / with cache flush). */
    private static final String[][] SOURCE = {
        {"stat (statx on the path)", "2010 noflush, 2486"},
        {"open + fstat + close", "4265 noflush, 4699"},
        {"fstat", "1326 noflush, 1803"},
        {"pread 8 KiB", "2042 noflush, 10282"},
        {"pread 8 B", "1648 noflush, 1680"},
    };

    @Override
    public String name() {
        return "metadata";
    }

    @Override
    public String description() {
        return "stat vs open+fstat vs fstat vs 8 KiB pread vs 8 B pread, in ns per call (page cache hot)";
    }

    @Override
    public boolean fioExpressible() {
        return false;
    }

    @Override
    public Duration quickBudget() {
        return Duration.ofSeconds(8);
    }

    @Override
    public long bytesNeeded(SuiteOptions.Scale scale) {
        return 1 << 20;
    }

    @Override
    public ExperimentResult run(SuiteContext ctx) throws Exception {
        ExperimentResult r = new ExperimentResult(name(), description());
        Path file = ctx.dataFile("metadata", 1 << 20);
        CacheState cache = CacheState.prepare(file, CacheState.Cache.HOT);
        int calls = ctx.scale() == SuiteOptions.Scale.TINY ? 2_000 : 100_000;
        double mhz = Native.cpuMhz();
        Table t = r.table(new Table("Cost per call (" + calls + " calls per repetition)", "call", "cache",
                "ns_per_call_median", "spread_pct", "ref_cycles_at_cpu_mhz", "talk_ref_cycles"));
        List<String> names = new ArrayList<>();
        List<Double> values = new ArrayList<>();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment path = a.allocateFrom(file.toString());
            MemorySegment statx = a.allocate(Statx.LAYOUT);
            MemorySegment stat = a.allocate(Stat.LAYOUT);
            MemorySegment big = a.allocate(8192, 4096);
            MemorySegment small = a.allocate(8, 8);
            int fd = Native.open(file, Fcntl.O_RDONLY);
            try {
                Call[] callsOf = {
                    () -> check(LibC.statx(Fcntl.AT_FDCWD, path, 0, Statx.STATX_BASIC_STATS, statx), "statx"),
                    () -> {
                        int f = LibC.openat(Fcntl.AT_FDCWD, path, Fcntl.O_RDONLY | Fcntl.O_CLOEXEC, 0);
                        check(f, "open");
                        check(LibC.fstat(f, stat), "fstat");
                        LibC.close(f);
                    },
                    () -> check(LibC.fstat(fd, stat), "fstat"),
                    () -> check(LibC.pread(fd, big, 8192, 8192), "pread"),
                    () -> check(LibC.pread(fd, small, 8, 8192), "pread"),
                };
                for (int i = 0; i < callsOf.length; i++) {
                    if (!ctx.withinBudget()) {
                        r.note("skipped for the time budget: " + SOURCE[i][0] + " and later");
                        break;
                    }
                    ctx.status(SOURCE[i][0]);
                    Call c = callsOf[i];
                    Stats.Summary s = Measure.repeat(SuiteOptions.REPS, () -> { }, () -> {
                        long t0 = System.nanoTime();
                        for (int k = 0; k < calls; k++) c.call();
                        return (System.nanoTime() - t0) / (double) calls;
                    });
                    t.add(SOURCE[i][0], cache.label(), s.median(), Measure.spreadPct(s), s.median() * mhz / 1000,
                            SOURCE[i][1]);
                    names.add(SOURCE[i][0]);
                    values.add(s.median());
                }
            } finally {
                LibC.close(fd);
            }
        }
        double[] y = values.stream().mapToDouble(Double::doubleValue).toArray();
        r.plot(Plot.bars("metadata: ns per call (hot)", "ns per call", false, names).bars("median", y));
        r.note(String.format(Locale.ROOT, "the JVM file I/O talk gives reference cycles (TSC ticks) on an i7-8550U "
                + "with kernel 5.3, not ns; ours are converted at this CPU's reported %.0f MHz, so compare orders of "
                + "magnitude only", mhz));
        r.note("stat is statx(AT_FDCWD, path, STATX_BASIC_STATS), what glibc's stat uses on recent systems; all calls"
                + " are FFM downcalls, so each includes ~10-20 ns of Java-to-native transition");
        if (!cache.ok()) r.note("the file was not fully resident: " + cache.label());
        return r;
    }

    @FunctionalInterface
    private interface Call {
        void call() throws ErrnoException;
    }

    private static void check(long rc, String call) throws ErrnoException {
        ErrnoException.check(rc, call, -1, "metadata");
    }
}
