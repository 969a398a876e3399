package io.jfio.bench.suite.experiments;

import io.jfio.bench.Offsets;
import io.jfio.bench.Stats;
import io.jfio.bench.Units;
import io.jfio.bench.fio.FioResult;
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
import io.jfio.bench.verdict.Call;
import io.jfio.bench.verdict.Contender;
import io.jfio.bench.verdict.Contest;
import io.jfio.bench.verdict.Workload;
import io.jfio.core.engine.IoArena;
import io.jfio.core.engine.UringEngine;
import io.jfio.core.sys.ErrnoException;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Experiment 1: sequential read (1 MiB requests), append-only write (1 MiB requests, then fdatasync), random read
 * and random write (4 KiB at seeded random offsets, a permutation of the file's blocks so no block is touched twice
 * in a repetition; writes end with fdatasync) across file sizes,
 * in GB/s (10^9 bytes/s), reads cold and hot, for FileChannel, jfio io_uring (through the ring, callback-driven:
 * {@value #SEQ_DEPTH} x 1 MiB requests in flight for the sequential loads, {@value #RANDOM_DEPTH} x 4 KiB for the
 * random ones) and mmap. fio runs the reads of the largest file cold with psync and io_uring.
 *
 * <p>Thread-safe; stateless.
 */
public final class LoadTypesExperiment implements Experiment {
    static final String[] LOADS = {"sequential read", "append-only write", "random read", "random write"};
    static final String[] METHODS = {"FileChannel", "jfio io_uring (ring; seq 4 x 1 MiB, random depth 32)", "mmap"};
    /** jfio io_uring's requests in flight: 1 MiB requests for the sequential loads, 4 KiB ones for the random. */
    static final int SEQ_DEPTH = 4;
    /** The methods' names in "What wins here". */
    static final String[] SHORT = {"FileChannel", "jfio io_uring", "mmap"};
    static final int RANDOM_DEPTH = 32;
    /** The NIO article's "Load type (GB per sec)" table, by file size 1, 2, 4, 8 GB. */
    private static final String[] SOURCE = {"0.084, 0.194, 0.902, 1.71", "0.288, 0.719, 1.183, 2.484",
        "0.337, 0.628, 0.949, 2.048", "1.342, 2.538, 4.955, 9.819"};

    @Override
    public String name() {
        return "load-types";
    }

    @Override
    public String description() {
        return "sequential read, append-only write, random read, random write across file sizes, GB/s, cold and "
                + "hot, FileChannel vs jfio io_uring vs mmap";
    }

    @Override
    public boolean fioExpressible() {
        return true;
    }

    @Override
    public Duration quickBudget() {
        return Duration.ofSeconds(45);
    }

    static long[] sizes(SuiteOptions.Scale s) {
        return switch (s) {
            case TINY -> new long[] {1L << 20};
            // 1 GiB is left out of quick: its hot reads alone took 8 s, and with the watch experiment (about 28 s)
            // the suite ran 3 min 43 s; the 3-minute budget has no room (--full runs 1, 2, 4 and 8 GiB)
            case QUICK -> new long[] {64L << 20, 256L << 20};
            case FULL -> new long[] {1L << 30, 2L << 30, 4L << 30, 8L << 30};
        };
    }

    /** Random requests per repetition: a fixed count, so small and large files take the same time. */
    static int randomOps(SuiteOptions.Scale s, long size) {
        int n = s == SuiteOptions.Scale.FULL ? 20_000 : s == SuiteOptions.Scale.QUICK ? 2_000 : 100;
        return (int) Math.min(n, size / 4096);
    }

    @Override
    public long bytesNeeded(SuiteOptions.Scale scale) {
        long[] s = sizes(scale);
        return 2 * s[s.length - 1];
    }

    @Override
    public ExperimentResult run(SuiteContext ctx) throws Exception {
        ExperimentResult r = new ExperimentResult(name(), description());
        Table t = r.table(new Table("Throughput by load type, GB/s (10^9 bytes/s)", "load", "file_size_bytes",
                "method", "cache", "gb_per_s_median", "spread_pct", "bytes_per_rep",
                "nio_article_gb_per_s_1_2_4_8_gb"));
        long[] sizes = sizes(ctx.scale());
        Map<String, double[][]> lines = new LinkedHashMap<>();
        Map<Workload, Contest> contests = new java.util.EnumMap<>(Workload.class);
        // Ring only (no inline pread on the calling thread): these rows measure io_uring itself.
        try (UringEngine uring = new UringEngine(UringEngine.DEFAULT_ENTRIES, UringEngine.DEFAULT_FLAGS, false);
             IoArena arena = IoArena.ofShared()) {
            MemorySegment big = arena.allocate(1 << 20, 4096);
            MemorySegment small = arena.allocate(4096, 4096);
            MemorySegment[] seqBufs = new MemorySegment[SEQ_DEPTH];
            MemorySegment[] randBufs = new MemorySegment[RANDOM_DEPTH];
            for (int i = 0; i < SEQ_DEPTH; i++) seqBufs[i] = arena.allocate(1 << 20, 4096);
            for (int i = 0; i < RANDOM_DEPTH; i++) randBufs[i] = arena.allocate(4096, 4096);
            for (MemorySegment b : seqBufs) b.copyFrom(big);
            for (int i = 0; i < (1 << 20); i += 8) big.set(java.lang.foreign.ValueLayout.JAVA_LONG, i, i | 1L);
            for (int si = 0; si < sizes.length; si++) {
                long size = sizes[si];
                Path file = ctx.dataFile("load-" + size, size);
                for (int load = 0; load < LOADS.length; load++) {
                    boolean write = load == 1 || load == 3;
                    CacheState.Cache[] states = write ? new CacheState.Cache[] {CacheState.Cache.COLD}
                            : CacheState.Cache.values();
                    for (CacheState.Cache cache : states) {
                        String group = LOADS[load] + " " + Units.formatSize(size) + " " + cache.label();
                        if (!ctx.withinBudget()) {
                            r.note("skipped for the time budget: " + group);
                            continue;
                        }
                        ctx.status(group + ", " + METHODS.length + " methods interleaved");
                        final int fl = load;
                        long bytes = load == 0 || load == 1 ? size : 4096L * randomOps(ctx.scale(), size);
                        Path target = load == 1 ? ctx.scratch().resolve("append") : file;
                        // A permutation of the blocks, the same for every repetition and method: a cold
                        // repetition never meets a block an earlier read of it brought in.
                        long[] offsets = load >= 2 ? new Offsets(size / 4096, 4096, ctx.options().seed() * 31
                                + 100 + load).first(randomOps(ctx.scale(), size)) : null;
                        // The methods run in turn, repetition by repetition, and fio (cold reads of the largest
                        // file) in the same rounds: other jobs' load and the host's caching of the virtual disk
                        // drift over a run, and one fio run against five Java ones differed up to 6x.
                        boolean check = si == sizes.length - 1 && !write && cache == CacheState.Cache.COLD
                                && ctx.fio().isPresent();
                        Interleave g = ctx.interleave(SuiteOptions.REPS);
                        CacheState[][] before = new CacheState[METHODS.length][1];
                        int[] fioArm = {-1, -1};
                        for (int m = 0; m < METHODS.length; m++) {
                            final int fm = m;
                            String cell = group + " " + METHODS[m];
                            g.arm(METHODS[m], () -> {
                                if (fl == 1) ctx.delete(target);
                                else before[fm][0] = CacheState.prepare(file, cache);
                            }, () -> {
                                long t0 = System.nanoTime();
                                long n = runOne(fl, fm, target, size, offsets, uring, big, small, seqBufs,
                                        randBufs);
                                long dt = System.nanoTime() - t0;
                                if (n != bytes) throw new IllegalStateException(cell + ": moved " + n + " of " + bytes);
                                return Measure.gbPerSecond(n, dt);
                            });
                        }
                        if (check) {
                            for (int m = 0; m < 2; m++) {
                                final int fm = m;
                                fioArm[m] = g.reference(fioLabel(load, m), () -> { }, () -> fioRun(ctx, file, size,
                                        fl, fm));
                            }
                        }
                        Workload w = workload(load, cache);
                        if (w != null && si == sizes.length - 1) g.decides(w, true);
                        g.run();
                        List<Contender> contenders = new ArrayList<>();
                        for (int m = 0; m < METHODS.length; m++) {
                            Stats.Summary s = g.summary(m);
                            String cell = group + " " + METHODS[m];
                            String cacheLabel = write ? "write, fdatasync included" : before[m][0].label();
                            if (!write && !before[m][0].ok()) {
                                r.note("residency mismatch: " + cell + " " + before[m][0].label());
                            }
                            t.add(LOADS[load], size, METHODS[m], cacheLabel, s.median(), Measure.spreadPct(s), bytes,
                                    si == 0 ? SOURCE[load] : "");
                            String key = LOADS[load] + " " + (write ? "" : cache.label() + " ") + METHODS[m];
                            double[][] xy = lines.computeIfAbsent(key, k -> new double[][] {
                                nans(sizes.length), nans(sizes.length)});
                            xy[0][si] = size / (double) (1 << 20);
                            xy[1][si] = s.median();
                            contenders.add(call(load, m).contender(SHORT[m], m == 0, g.samples(m)));
                            if (m < 2 && fioArm[m] >= 0) {
                                // the fio runs were measured in the same rounds as ours, after a warm-up round
                                Stats.Summary fs = g.summary(fioArm[m]);
                                r.fio(new FioCheck(LOADS[load] + " " + Units.formatSize(size) + " cold", METHODS[m],
                                        fioLabel(load, m), "GB/s", s.median(), fs.median(), true, s.min(), s.max(),
                                        fs.min(), fs.max()));
                            }
                        }
                        if (w != null) {
                            // the largest file measured decides: a later size replaces an earlier one's contest
                            contests.put(w, new Contest(w, Units.formatSize(size) + " file, " + (load >= 2 ? "4 KiB"
                                    : "1 MiB") + " requests, GB/s", "GB/s", true, contenders));
                        }
                    }
                }
                ctx.delete(file);
            }
        }
        contests.values().forEach(r::contest);
        Plot p = Plot.lines("load-types: GB/s by file size", "file size (MiB)", "GB/s (median)", true, true);
        for (var e : lines.entrySet()) p.line(e.getKey(), e.getValue()[0], e.getValue()[1]);
        r.plot(p);
        r.note("the NIO article's table (GB per sec, 1/2/4/8 GB files) grows with the file size and has random "
                + "write 10x faster than sequential read: those look like elapsed times, not rates; they are "
                + "quoted as printed. "
                + "The quick run uses 64 and 256 MiB files: a 1 GiB file's cold reads and writes would move 18 GiB "
                + "through the disk, and even its hot reads alone (8 s) do not fit the 3-minute quick suite (--full: "
                + "1, 2, 4, 8 GiB, every cell)");
        r.note("random reads and writes: 4 KiB at seeded random 4 KiB-aligned offsets, a fixed count per repetition "
                + "taken from a permutation of the file's blocks (no block twice, like fio's random map; fio keeps "
                + "its default random map too); reads through a descriptor advised POSIX_FADV_RANDOM except "
                + "FileChannel (the JDK cannot advise)");
        r.note("jfio io_uring: UringEngine in ring-only mode (no inline pread on the calling thread), callback-driven: "
                + "each completion submits the slot's next request, " + SEQ_DEPTH + " x 1 MiB requests in flight for "
                + "sequential read and append-only write, " + RANDOM_DEPTH + " x 4 KiB for random read and write; "
                + "FileChannel and mmap run one request at a time on one thread, so the rows differ in depth as well "
                + "as in path");
        r.note("writes: append-only writes a new file in 1 MiB requests, random writes overwrite the existing file; "
                + "both include fdatasync, so they measure the device, and have no hot/cold state");
        return r;
    }

    private static double[] nans(int n) {
        double[] d = new double[n];
        java.util.Arrays.fill(d, Double.NaN);
        return d;
    }

    /** One repetition; {@code offsets} are the random loads' 4 KiB offsets (null for the sequential ones). */
    private static long runOne(int load, int method, Path file, long size, long[] offsets, UringEngine uring,
                               MemorySegment big, MemorySegment small, MemorySegment[] seqBufs,
                               MemorySegment[] randBufs) throws Exception {
        boolean write = load == 1 || load == 3;
        boolean random = load >= 2;
        int ops = random ? offsets.length : (int) (size >> 20);
        if (method == 2) {
            StandardOpenOption[] opts = write
                    ? new StandardOpenOption[] {StandardOpenOption.READ, StandardOpenOption.WRITE,
                        StandardOpenOption.CREATE}
                    : new StandardOpenOption[] {StandardOpenOption.READ};
            try (FileChannel ch = FileChannel.open(file, opts);
                 Arena a = Arena.ofConfined()) {
                if (load == 1) ch.truncate(0);
                MemorySegment map = ch.map(write ? FileChannel.MapMode.READ_WRITE : FileChannel.MapMode.READ_ONLY, 0,
                        size, a);
                MemorySegment buf = random ? small : big;
                long moved = 0;
                for (int i = 0; i < ops; i++) {
                    long off = random ? offsets[i] : (long) i << 20;
                    if (write) MemorySegment.copy(buf, 0, map, off, buf.byteSize());
                    else MemorySegment.copy(map, off, buf, 0, buf.byteSize());
                    moved += buf.byteSize();
                }
                if (write) map.force();
                return moved;
            }
        }
        if (method == 0) {
            try (FileChannel ch = FileChannel.open(file, write ? new StandardOpenOption[] {StandardOpenOption.WRITE,
                StandardOpenOption.CREATE} : new StandardOpenOption[] {StandardOpenOption.READ})) {
                ByteBuffer bb = (random ? small : big).asByteBuffer();
                long moved = 0;
                for (int i = 0; i < ops; i++) {
                    long off = random ? offsets[i] : (long) i << 20;
                    bb.clear();
                    while (bb.hasRemaining()) {
                        int n = write ? ch.write(bb, off + bb.position()) : ch.read(bb, off + bb.position());
                        if (n < 0) break;
                    }
                    moved += bb.position();
                }
                if (write) ch.force(false);
                return moved;
            }
        }
        int fd = Native.open(file, write ? Fcntl.O_WRONLY | Fcntl.O_CREAT : Fcntl.O_RDONLY);
        try {
            if (random && !write) LibC.posixFadvise(fd, 0, 0, Fcntl.POSIX_FADV_RANDOM);
            long[] offs = offsets;
            if (!random) {
                offs = new long[ops];
                for (int i = 0; i < ops; i++) offs[i] = (long) i << 20;
            }
            long moved = DepthIo.run(uring, fd, write, offs, random ? randBufs : seqBufs);
            if (write) ErrnoException.check(LibC.fdatasync(fd), "fdatasync", fd, file.toString());
            return moved;
        } finally {
            LibC.close(fd);
        }
    }

    /** The workload line a load and cache state decide (on the largest file), or null. */
    static Workload workload(int load, CacheState.Cache cache) {
        return switch (load) {
            case 0 -> cache == CacheState.Cache.COLD ? Workload.SEQUENTIAL_READ_COLD : Workload.SEQUENTIAL_READ_HOT;
            case 1 -> Workload.APPEND_FDATASYNC;
            case 3 -> Workload.RANDOM_WRITE;
            default -> null; // random reads: the uring experiment decides them, at depth 1 and 32
        };
    }

    private static Call call(int load, int method) {
        boolean write = load == 1 || load == 3;
        return switch (method) {
            case 0 -> write ? Call.FILECHANNEL_WRITE : Call.FILECHANNEL_READ;
            case 1 -> write ? Call.JFIO_WRITE_ASYNC : Call.JFIO_READ_ASYNC;
            default -> write ? Call.FILECHANNEL_MAP_FORCE : Call.FILECHANNEL_MAP;
        };
    }

    private static String fioLabel(int load, int method) {
        String engine = method == 0 ? "psync" : "io_uring";
        return "fio " + engine + " depth " + (method == 0 ? 1 : load == 2 ? RANDOM_DEPTH : SEQ_DEPTH) + " (median of "
                + SuiteOptions.REPS + " runs in the same rounds as ours)";
    }

    /** One cold fio run of the same reads as {@code method}'s cell; GB/s. */
    private static double fioRun(SuiteContext ctx, Path file, long size, int load, int method) throws Exception {
        boolean random = load == 2;
        String engine = method == 0 ? "psync" : "io_uring";
        long bytes = random ? 4096L * randomOps(ctx.scale(), size) : size;
        int depth = method == 0 ? 1 : random ? RANDOM_DEPTH : SEQ_DEPTH;
        FioResult f = ctx.fio(10_000, "read", "--filename=" + file, "--readonly",
                "--rw=" + (random ? "randread" : "read"),
                "--bs=" + (random ? "4k" : "1m"), "--size=" + size, "--io_size=" + bytes, "--ioengine=" + engine,
                "--iodepth=" + depth, "--invalidate=1", "--randrepeat=0",
                "--randseed=" + ctx.options().seed(), "--fadvise_hint=" + (method == 0 ? 0 : random ? 1 : 0));
        return f.bandwidth() / 1e9;
    }
}
