package io.jfio.bench.suite.experiments;

import io.jfio.bench.Offsets;
import io.jfio.bench.Stats;
import io.jfio.bench.Units;
import io.jfio.bench.suite.CacheState;
import io.jfio.bench.suite.Experiment;
import io.jfio.bench.suite.ExperimentResult;
import io.jfio.bench.suite.FioCheck;
import io.jfio.bench.suite.Interleave;
import io.jfio.bench.suite.Measure;
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
import io.jfio.bench.verdict.Call;
import io.jfio.bench.verdict.Contender;
import io.jfio.bench.verdict.Contest;
import io.jfio.bench.verdict.Judge;
import io.jfio.bench.verdict.Noise;
import io.jfio.bench.verdict.Workload;
import io.jfio.core.engine.IoArena;
import io.jfio.core.engine.UringEngine;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.time.Duration;
import java.util.ArrayList;
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
                + "RandomAccessFile vs mmap, by queue depth, with fio io_uring and psync as references; then random "
                + "reads and writes by block size: jfio io_uring vs FileChannel on 1 thread and on N virtual threads";
    }

    @Override
    public boolean fioExpressible() {
        return true;
    }

    @Override
    public Duration quickBudget() {
        return Duration.ofSeconds(30); // the whole quick suite must stay within 3 minutes on 2 cores
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
        return Math.max(fileSize(scale), extensionFileSize(scale)) + (64L << 20);
    }

    /** True when this scale runs O_DIRECT rows (all but quick) and the file system refuses O_DIRECT. */
    static boolean wantsDirectButCannot(SuiteContext ctx) {
        return ctx.scale() != SuiteOptions.Scale.QUICK && !ctx.directIo().supported();
    }

    /** The UringBench options for this scale. */
    static UringBenchOptions options(SuiteContext ctx) {
        SuiteOptions.Scale s = ctx.scale();
        UringBenchOptions.Builder b = UringBenchOptions.builder().dir(ctx.scratch()).fileSize(fileSize(s))
                .reps(SuiteOptions.REPS).seed(ctx.options().seed()).fio(ctx.fio().isPresent()).installFio(false)
                .allowMemoryFs(ctx.options().allowTmpfs())
                // The scaling table starts JVMs of its own under taskset: bench uring's, not the suite's.
                .scaling(false);
        switch (s) {
            // TINY runs O_DIRECT too (where the file system takes it), so the tests cover that path.
            case TINY -> b.duration(Duration.ofMillis(40)).warmup(Duration.ofMillis(20)).depths(List.of(1, 4))
                    .modes(EnumSet.allOf(CacheMode.class)).fileChannelThreads(4);
            case QUICK -> b.duration(Duration.ofMillis(150)).warmup(Duration.ofMillis(75)).depths(List.of(1, 32))
                    .modes(EnumSet.of(CacheMode.HOT, CacheMode.COLD)).fileChannelThreads(32);
            case FULL -> b.duration(Duration.ofSeconds(1)).depths(List.of(1, 32, 128));
            default -> throw new IllegalStateException();
        }
        if (wantsDirectButCannot(ctx)) b.modes(EnumSet.of(CacheMode.HOT, CacheMode.COLD));
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
        if (wantsDirectButCannot(ctx)) r.note(ctx.directIo().skippedNote("table 1's direct (O_DIRECT) rows"));
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
        // --repeat-until-stable: a group (cache mode, depth) that decides a line gets more rounds while undecided
        long[] last = {0};
        UringBenchResult u = UringBench.run(o, new PrintWriter(md), progress, (mode, depth, iops) -> {
            long now = System.nanoTime();
            if (last[0] != 0) ctx.spendStable(now - last[0]);
            last[0] = 0;
            if (!ctx.options().untilStable() || ctx.stableNanosLeft() <= 0) return false;
            Workload w = mode == CacheMode.DIRECT || (depth != 1 && depth != o.fileChannelThreads()) ? null
                    : workload(mode, depth == 1);
            if (w == null || iops.size() < 2) return false;
            List<Contender> cs = new ArrayList<>();
            for (var e : iops.entrySet()) cs.add(new Contender(e.getKey().label(), "", "", false, e.getValue()));
            boolean more = !Judge.judge(new Contest(w, "", "", true, cs), Noise.UNKNOWN, ctx.options().seed())
                    .decided();
            if (more) {
                ctx.status("--repeat-until-stable: " + w.title() + ", repetition "
                        + (iops.values().iterator().next().length + 1));
                last[0] = now;
            }
            return more;
        });
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
                // fio ran in the same rounds as the Java cells of its depth (UringBench interleaves them)
                Stats.Summary fs = peer.get().summary();
                r.fio(new FioCheck(c.mode().label() + " 4 KiB randread depth " + c.depth(), c.method().label(),
                        peer.get().method().label() + " depth " + peer.get().depth() + " (median of " + fs.n()
                        + " runs in the same rounds as ours)", "IOPS", c.medianIops(), fs.median(), true,
                        c.summary().min(), c.summary().max(), fs.min(), fs.max()));
            }
            if (c.method().takesDepth()) {
                String key = c.method().label() + " " + c.mode().label();
                double[][] xy = lines.computeIfAbsent(key, k -> new double[][] {new double[0], new double[0]});
                xy[0] = append(xy[0], c.depth());
                xy[1] = append(xy[1], c.medianIops());
            }
        }
        contests(r, cells, o.fileChannelThreads());
        extensions(ctx, r, lines);
        Plot p = Plot.lines("uring: 4 KiB random reads by depth", "queue depth (threads for FileChannel N)",
                "IOPS (median)", true, true);
        for (var e : lines.entrySet()) p.line(e.getKey(), e.getValue()[0], e.getValue()[1]);
        r.plot(p);
        for (String w : u.warnings()) r.note("warning: " + w);
        for (String s : u.setup()) r.note(s);
        for (UringBenchResult.Check c : u.checks()) r.note("target: " + c.line());
        r.note(String.format(Locale.ROOT, "the JUring README reports ~1250 vs ~987 ops/ms for 4 KiB reads with 32 "
                + "threads (io_uring vs FileChannel); its cache state is not stated, so it is not set beside a cell"));
        r.note("`bin/jfio bench uring --help` runs the standalone version of the first table with every option");
        if (u.errors() > 0) {
            r.note("ERRORS: " + u.errors() + " reads failed or returned wrong data");
        }
        return r;
    }

    /** The random-read lines of "What wins here": each cache mode at depth 1 and at the FileChannel thread count. */
    static void contests(ExperimentResult r, List<CellResult> cells, int deep) {
        for (CacheMode mode : List.of(CacheMode.COLD, CacheMode.HOT)) {
            for (int depth : new int[] {1, deep}) {
                Workload w = workload(mode, depth == 1);
                if (w == null) continue;
                List<Contender> cs = new ArrayList<>();
                for (CellResult c : cells) {
                    if (c.mode() != mode || c.depth() != depth || c.method().isFio() || c.errors() > 0) continue;
                    Call call = switch (c.method()) {
                        case URING -> Call.JFIO_READ_ASYNC;
                        case URING_FIXED -> Call.JFIO_READ_FIXED;
                        case THREADS -> Call.JFIO_THREADS;
                        case FILECHANNEL -> Call.FILECHANNEL_READ;
                        case FILECHANNEL_THREADS -> Call.FILECHANNEL_READ_THREADS;
                        case RAF -> Call.RANDOM_ACCESS_FILE;
                        case MMAP -> Call.FILECHANNEL_MAP;
                        default -> Call.NATIVE;
                    };
                    String name = c.method() == Method.FILECHANNEL_THREADS ? "FileChannel " + depth + " threads"
                            : c.method().label();
                    boolean jdk = c.method() == (depth == 1 ? Method.FILECHANNEL : Method.FILECHANNEL_THREADS);
                    cs.add(call.contender(name, jdk, c.iops()));
                }
                if (!cs.isEmpty()) {
                    r.contest(new Contest(w, "4 KiB random reads of a 128 MiB file (--full: 1 GiB) at depth " + depth
                            + ", IOPS", "IOPS", true, cs));
                }
            }
        }
    }

    /** The line a cache mode decides at depth 1 or at the deep depth (32; 4 in the tests' tiny scale). */
    private static Workload workload(CacheMode mode, boolean depth1) {
        return switch (mode) {
            case COLD -> depth1 ? Workload.RANDOM_READ_COLD_DEPTH_1 : Workload.RANDOM_READ_COLD_DEPTH_32;
            case HOT -> depth1 ? Workload.RANDOM_READ_HOT_DEPTH_1 : Workload.RANDOM_READ_HOT_DEPTH_32;
            default -> null;
        };
    }

    static int extensionDepth(SuiteOptions.Scale s) {
        return s == SuiteOptions.Scale.TINY ? 4 : 32;
    }

    static int[] extensionBlocks(SuiteOptions.Scale s) {
        return s == SuiteOptions.Scale.FULL ? new int[] {512, 4096, 16384, 65536} : new int[] {4096, 65536};
    }

    /** Requests per repetition: 256 MiB (FULL: 1 GiB) of blocks, at most 50,000 (FULL: 200,000); TINY: 64. */
    static int extensionOps(SuiteOptions.Scale s, int block) {
        if (s == SuiteOptions.Scale.TINY) return 64;
        boolean full = s == SuiteOptions.Scale.FULL;
        return (int) Math.min(full ? 200_000 : 50_000, (full ? 1L << 30 : 256L << 20) / block);
    }

    static long extensionFileSize(SuiteOptions.Scale s) {
        return switch (s) {
            case TINY -> 1L << 20;
            case QUICK -> 64L << 20;
            case FULL -> 1L << 30;
        };
    }

    static final String[] EXT_METHODS = {"jfio io_uring (ring, callback-driven)", "FileChannel 1 thread",
        "FileChannel N virtual threads"};

    /**
     * The second table: random reads and writes by block size on a hot file, jfio io_uring at depth N (ring only,
     * callback-driven) against FileChannel on one thread and on N virtual threads.
     */
    private static void extensions(SuiteContext ctx, ExperimentResult r, Map<String, double[][]> lines)
            throws Exception {
        SuiteOptions.Scale scale = ctx.scale();
        int depth = extensionDepth(scale);
        long size = extensionFileSize(scale);
        int[] blocks = extensionBlocks(scale);
        Table t = r.table(new Table("Random reads and writes by block size, hot " + Units.formatSize(size)
                + " file, depth " + depth, "op", "block_bytes", "method", "depth", "cache", "iops_median",
                "mb_per_s_median", "spread_pct", "ops_per_rep"));
        Path file = ctx.dataFile("uring-ext", size);
        try (UringEngine engine = new UringEngine(UringEngine.DEFAULT_ENTRIES, UringEngine.DEFAULT_FLAGS, false);
             FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
             IoArena arena = IoArena.ofShared()) {
            int fd = Native.open(file, Fcntl.O_RDWR);
            try {
                LibC.posixFadvise(fd, 0, 0, Fcntl.POSIX_FADV_RANDOM);
                for (boolean write : new boolean[] {false, true}) {
                    for (int block : blocks) {
                        MemorySegment[] bufs = new MemorySegment[depth];
                        for (int i = 0; i < depth; i++) {
                            bufs[i] = arena.allocate(block, 4096);
                            bufs[i].fill((byte) (0x41 + i));
                        }
                        int ops = extensionOps(scale, block);
                        String op = write ? "random write" : "random read";
                        String group = op + " " + Units.formatSize(block);
                        if (!ctx.withinBudget()) {
                            r.note("skipped for the time budget: " + group);
                            continue;
                        }
                        ctx.status(group + ", methods interleaved");
                        // A permutation of the file's blocks (passes over the whole file start over).
                        long[] offsets = new Offsets(size / block, block, ctx.options().seed() * 31 + 900 + block
                                + (write ? 1 : 0)).first(ops);
                        CacheState[][] before = new CacheState[EXT_METHODS.length][1];
                        Interleave g = ctx.interleave(SuiteOptions.REPS);
                        for (int m = 0; m < EXT_METHODS.length; m++) {
                            String cell = group + " " + EXT_METHODS[m];
                            int threads = m == 1 ? 1 : depth;
                            final int fm = m;
                            g.arm(EXT_METHODS[m], () -> before[fm][0] = CacheState.prepare(file,
                                    CacheState.Cache.HOT), () -> {
                                        long t0 = System.nanoTime();
                                        long n = fm == 0 ? DepthIo.run(engine, fd, write, offsets, bufs)
                                                : fileChannel(ch, write, offsets, bufs, threads, fm == 2);
                                        long dt = System.nanoTime() - t0;
                                        if (n != (long) ops * block) {
                                            throw new IllegalStateException(cell + ": moved " + n + " of "
                                                    + (long) ops * block);
                                        }
                                        return ops * 1e9 / dt;
                                    });
                        }
                        g.run();
                        for (int m = 0; m < EXT_METHODS.length; m++) {
                            String cell = group + " " + EXT_METHODS[m];
                            int threads = m == 1 ? 1 : depth;
                            Stats.Summary s = g.summary(m);
                            if (!before[m][0].ok()) r.note("residency mismatch: " + cell + " " + before[m][0].label());
                            t.add(op, block, EXT_METHODS[m], threads, before[m][0].label(), s.median(),
                                    s.median() * block / 1e6, Measure.spreadPct(s), ops);
                            if (block == 4096 && m != 1) {
                                String key = EXT_METHODS[m].replace("N virtual", depth + " virtual") + " " + op
                                        + " hot (table 2)";
                                lines.put(key, new double[][] {{threads}, {s.median()}});
                            }
                        }
                    }
                }
            } finally {
                LibC.close(fd);
            }
        }
        ctx.delete(file);
        r.note("table 2: " + EXT_METHODS[0] + " = UringEngine in ring-only mode, " + depth + " slots each submitting "
                + "its next request from its completion; FileChannel: read/write(direct ByteBuffer, position) on one "
                + "platform thread, and on " + depth + " virtual threads sharing one channel (depth N = N virtual "
                + "threads). Offsets: seeded, block-aligned, a permutation of the file's blocks (each block once per "
                + "pass over the file). Writes overwrite the hot file in the page cache and are not fsync'ed (dirty "
                + "pages); reads check the byte count only");
    }

    /** read/write at each offset with {@code threads} threads (virtual or one platform) sharing {@code ch}. */
    private static long fileChannel(FileChannel ch, boolean write, long[] offsets, MemorySegment[] bufs, int threads,
                                    boolean virtual) throws Exception {
        java.util.concurrent.atomic.AtomicInteger next = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicLong moved = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicReference<Throwable> failure =
                new java.util.concurrent.atomic.AtomicReference<>();
        Thread[] ts = new Thread[threads];
        for (int k = 0; k < threads; k++) {
            java.nio.ByteBuffer bb = bufs[k].asByteBuffer();
            Runnable body = () -> {
                try {
                    int i;
                    long local = 0;
                    while ((i = next.getAndIncrement()) < offsets.length) {
                        bb.clear();
                        while (bb.hasRemaining()) {
                            int n = write ? ch.write(bb, offsets[i] + bb.position())
                                    : ch.read(bb, offsets[i] + bb.position());
                            if (n < 0) throw new java.io.EOFException("end of file at " + offsets[i]);
                        }
                        local += bb.position();
                    }
                    moved.addAndGet(local);
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            };
            if (threads == 1 && !virtual) {
                body.run();
            } else {
                ts[k] = Thread.ofVirtual().name("jfio-bench-fc-" + k).start(body);
            }
        }
        for (Thread th : ts) {
            if (th != null) th.join();
        }
        if (failure.get() != null) throw new java.io.IOException("FileChannel failed: " + failure.get(),
                failure.get());
        return moved.get();
    }

    private static double[] append(double[] a, double v) {
        double[] b = java.util.Arrays.copyOf(a, a.length + 1);
        b[a.length] = v;
        return b;
    }
}
