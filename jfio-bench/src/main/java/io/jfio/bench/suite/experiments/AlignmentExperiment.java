package io.jfio.bench.suite.experiments;

import io.jfio.bench.Offsets;
import io.jfio.bench.Stats;
import io.jfio.bench.suite.CacheState;
import io.jfio.bench.suite.Experiment;
import io.jfio.bench.suite.ExperimentResult;
import io.jfio.bench.suite.FioCheck;
import io.jfio.bench.suite.Interleave;
import io.jfio.bench.suite.Plot;
import io.jfio.bench.suite.SuiteContext;
import io.jfio.bench.suite.SuiteOptions;
import io.jfio.bench.suite.Table;
import io.jfio.core.sys.ErrnoException;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * Experiment 2: 4 KiB preads at page-aligned offsets ({@code k * 4096}) vs unaligned ones ({@code k * 4096 +
 * 2048}, spanning two pages), cold and hot, at seeded random even pages {@code k} (a permutation of the file's 8 KiB
 * pairs of pages: a repetition never touches a page twice, so a cold read never lands on a page an earlier read
 * brought in, and aligned and unaligned reads touch one and two pages of their own); latency percentiles from
 * an HdrHistogram over all measured repetitions. The descriptor is advised POSIX_FADV_RANDOM, like fio's default,
 * so cold reads are not helped by read-ahead. fio runs the same reads ({@code --offset=0|2048}, with its random map).
 *
 * <p>Thread-safe; stateless.
 */
public final class AlignmentExperiment implements Experiment {
    /** Percentiles reported, as HdrHistogram takes them (0..100). */
    public static final double[] PERCENTILES = {0, 50, 90, 95, 99, 99.9, 99.99};
    static final String[] COLUMNS = {"offsets", "cache", "reads", "p0_us", "p50_us", "p90_us", "p95_us", "p99_us",
        "p99_9_us", "p99_99_us", "max_us", "p50_spread_pct"};
    private static final int UNALIGNED_SHIFT = 2048;

    @Override
    public String name() {
        return "alignment";
    }

    @Override
    public String description() {
        return "4 KiB reads at page-aligned vs unaligned offsets: latency p0 … p99.99 and max, cold and hot";
    }

    @Override
    public boolean fioExpressible() {
        return true;
    }

    @Override
    public Duration quickBudget() {
        return Duration.ofSeconds(20);
    }

    static long fileSize(SuiteOptions.Scale s) {
        return switch (s) {
            case TINY -> 4L << 20;
            case QUICK -> 256L << 20;
            case FULL -> 1L << 30;
        };
    }

    static int reads(SuiteOptions.Scale s, CacheState.Cache c) {
        return switch (s) {
            case TINY -> 200;
            case QUICK -> c == CacheState.Cache.COLD ? 1500 : 50_000;
            case FULL -> c == CacheState.Cache.COLD ? 10_000 : 500_000;
        };
    }

    @Override
    public long bytesNeeded(SuiteOptions.Scale scale) {
        return fileSize(scale);
    }

    @Override
    public ExperimentResult run(SuiteContext ctx) throws Exception {
        ExperimentResult r = new ExperimentResult(name(), description());
        long size = fileSize(ctx.scale());
        Path file = ctx.dataFile("alignment", size);
        // One offset per 8 KiB pair of pages: an unaligned read (+2048) covers the second half of the pair's
        // first page and the first half of its second page, and no two reads share a page.
        Offsets pairs = new Offsets(size / 8192, 8192, ctx.options().seed() * 31 + 21);
        Table t = r.table(new Table("4 KiB pread latency, µs (HdrHistogram over " + SuiteOptions.REPS
                + " repetitions after a warm-up)", COLUMNS));
        // Percentiles as evenly spaced categories: on a numeric axis p90 … p99.99 would sit on top of each other.
        Plot plot = Plot.categoryLines("alignment: 4 KiB pread latency by percentile", "percentile", "latency µs (log)",
                true, List.of("p0", "p50", "p90", "p95", "p99", "p99.9", "p99.99", "max"));
        int fd = Native.open(file, Fcntl.O_RDONLY);
        try (Arena a = Arena.ofConfined()) {
            ErrnoException.check(LibC.posixFadvise(fd, 0, 0, Fcntl.POSIX_FADV_RANDOM), "posix_fadvise", fd,
                    file.toString());
            MemorySegment buf = a.allocate(4096, 4096);
            for (CacheState.Cache cache : CacheState.Cache.values()) {
                if (!ctx.withinBudget()) {
                    r.note("skipped for the time budget: " + cache.label());
                    continue;
                }
                ctx.status(cache.label() + ": aligned and unaligned reads and fio, interleaved");
                int n = reads(ctx.scale(), cache);
                // aligned, unaligned, then fio for each, in turn, repetition by repetition
                Interleave g = ctx.interleave(SuiteOptions.REPS);
                boolean[] kinds = {true, false};
                Histogram[] all = new Histogram[2];
                CacheState[] first = new CacheState[2];
                int[] fioArm = {-1, -1};
                for (int k = 0; k < 2; k++) {
                    boolean aligned = kinds[k];
                    String label = aligned ? "aligned" : "unaligned (+2048)";
                    long shift = aligned ? 0 : UNALIGNED_SHIFT;
                    final int fk = k;
                    all[k] = Stats.newLatencyHistogram();
                    boolean[] warm = {true};
                    g.arm(label, () -> {
                        CacheState st = CacheState.prepare(file, cache);
                        if (!warm[0] && first[fk] == null) first[fk] = st;
                        if (!st.ok()) r.note("residency mismatch before a repetition: " + label + " " + st.label());
                    }, () -> {
                        Histogram h = Stats.newLatencyHistogram();
                        for (int i = 0; i < n; i++) {
                            long off = pairs.offset(i) + shift;
                            long t0 = System.nanoTime();
                            long got = LibC.pread(fd, buf, 4096, off);
                            long dt = System.nanoTime() - t0;
                            if (got != 4096) {
                                ErrnoException.check(got, "pread", fd, file.toString(), off, 4096);
                                throw new IllegalStateException("short read at offset " + off + ": " + got);
                            }
                            h.recordValue(Math.max(1, dt));
                        }
                        if (warm[0]) warm[0] = false;
                        else all[fk].add(h);
                        return h.getValueAtPercentile(50) / 1e3;
                    });
                    if (ctx.fio().isPresent()) {
                        fioArm[k] = g.reference("fio psync " + label, () -> { }, () -> ctx.fio(5_000, "read",
                                "--filename=" + file, "--readonly", "--rw=randread", "--bs=4k", "--offset=" + shift,
                                "--size=" + (size - 4096), "--ioengine=psync", "--randrepeat=0",
                                "--randseed=" + ctx.options().seed(), "--number_ios=" + n, "--fadvise_hint=1",
                                "--invalidate=" + (cache == CacheState.Cache.COLD ? 1 : 0)).p50Ns() / 1e3);
                    }
                }
                g.run();
                for (int k = 0; k < 2; k++) {
                    String label = kinds[k] ? "aligned" : "unaligned (+2048)";
                    Stats.Summary p50 = g.summary(k);
                    Object[] row = new Object[COLUMNS.length];
                    row[0] = label;
                    row[1] = first[k].label();
                    row[2] = all[k].getTotalCount();
                    double[] ys = new double[PERCENTILES.length + 1];
                    for (int i = 0; i < PERCENTILES.length; i++) {
                        ys[i] = all[k].getValueAtPercentile(PERCENTILES[i]) / 1e3;
                        row[3 + i] = ys[i];
                    }
                    ys[PERCENTILES.length] = all[k].getMaxValue() / 1e3;
                    row[3 + PERCENTILES.length] = ys[PERCENTILES.length];
                    row[COLUMNS.length - 1] = p50.relativeSpread() * 100;
                    t.add(row);
                    plot.bars(label + " " + cache.label(), ys);
                    if (fioArm[k] >= 0) {
                        Stats.Summary f = g.summary(fioArm[k]);
                        r.fio(new FioCheck(label + " " + cache.label() + " p50", "jfio pread (FFM)", "fio psync "
                                + "(median of " + f.n() + " runs in the same rounds as ours)", "µs", p50.median(),
                                f.median(), false, p50.min(), p50.max(), f.min(), f.max()));
                    }
                }
            }
        } finally {
            LibC.close(fd);
        }
        r.plot(plot);
        Table src = r.table(new Table("the NIO article's figures for the same cells (its table gives no "
                + "unit and no cache state; ours above are µs)", "offsets", "p0", "p50", "p90", "p95", "p99", "p99_9",
                "p99_99"));
        src.add("aligned (NIO article)", "2708", "3000", "3125", "3125", "3125", "4042", "502413");
        src.add("not-aligned (NIO article)", "3125", "3417", "3541", "3542", "3542", "4250", "1889361");
        r.note("the NIO article labels its columns 0, 0.5, 0.9 … 0.9999 and gives no unit; if those are ns "
                + "its reads were served from the page cache (compare our hot rows), and its 'p0.9999' of 0.5 to "
                + "1.9 ms is one slow read in its sample, not a property of alignment");
        r.note("offsets: the first reads of a seeded permutation of the file's 8 KiB pairs of pages (seed in the "
                + "header), the same for aligned and unaligned, so no page is read twice in a repetition (a cold read "
                + "never hits a page an earlier one brought in; hot passes wrap around); aligned reads take the "
                + "pair's first page, unaligned ones (+2048) its two pages; fio reads 4 KiB blocks from offset 0 or "
                + "2048 with its random map (no block twice; neighbouring unaligned blocks can share a page); the "
                + "descriptor is advised POSIX_FADV_RANDOM, as fio does by default for random reads");
        return r;
    }
}
