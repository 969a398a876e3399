package io.jfio.bench.suite.experiments;

import io.jfio.bench.Stats;
import io.jfio.bench.Units;
import io.jfio.bench.suite.CacheState;
import io.jfio.bench.suite.Experiment;
import io.jfio.bench.suite.ExperimentResult;
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
import io.jfio.core.copy.CopyOptions;
import io.jfio.core.copy.CopyResult;
import io.jfio.core.copy.TreeCopy;
import io.jfio.core.engine.IoArena;
import io.jfio.core.engine.UringEngine;
import io.jfio.core.sys.ErrnoException;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * Experiment 11: copying one large file and a tree of small files through jfio's io_uring engine (read then write
 * per slot, {@code depth} slots in flight, driven by completion callbacks: {@link UringCopy}) by block size and
 * depth, from a cold source. Every repetition checks the bytes written; each cell's copy is compared byte for byte
 * with its source.
 *
 * <p>Thread-safe; stateless.
 */
public final class CopyTuningExperiment implements Experiment {
    static final String[] WORKLOADS = {"large file", "small-file tree"};
    private static final long MAX_BUFFERS = 256L << 20;
    static final String FILES_COPY = "Files.copy per file";
    static final String TREE_COPY = "jfio TreeCopy";

    @Override
    public String name() {
        return "copy-tuning";
    }

    @Override
    public String description() {
        return "copying a large file and a small-file tree through io_uring by block size x queue depth, MB/s, "
                + "copies verified";
    }

    @Override
    public boolean fioExpressible() {
        return false;
    }

    @Override
    public Duration quickBudget() {
        // the capped grid took 15-31 s at load 4-12; 20 s keeps the whole quick suite within 3 minutes
        return Duration.ofSeconds(20);
    }

    static long fileSize(SuiteOptions.Scale s) {
        return switch (s) {
            case TINY -> 1L << 20;
            case QUICK -> 128L << 20;
            case FULL -> 2L << 30;
        };
    }

    static int treeFiles(SuiteOptions.Scale s) {
        return switch (s) {
            case TINY -> 20;
            case QUICK -> 500;
            case FULL -> 5000;
        };
    }

    static int[] blocks(SuiteOptions.Scale s) {
        return s == SuiteOptions.Scale.TINY ? new int[] {4096, 65536} : new int[] {4096, 65536, 1 << 20, 4 << 20};
    }

    static int[] depths(SuiteOptions.Scale s) {
        return switch (s) {
            case TINY -> new int[] {1, 4};
            case QUICK -> new int[] {1, 4, 16, 64};
            case FULL -> new int[] {1, 4, 16, 64, 256};
        };
    }

    /** Whether the small-file tree runs at {@code depth}: under --quick only depths 4 and 64 of the grid. */
    static boolean treeDepth(SuiteOptions.Scale s, int depth) {
        return s != SuiteOptions.Scale.QUICK || depth == 4 || depth == 64;
    }

    /**
     * Requests of one large-file cell: it copies the first {@code block x} this many bytes (the whole file where that
     * is less), so that with read-ahead off the small blocks, one device request each, take no longer than the large.
     */
    static long largeFileRequests(SuiteOptions.Scale s) {
        return switch (s) {
            case TINY -> Long.MAX_VALUE;
            case QUICK -> 1024;
            case FULL -> 65536;
        };
    }

    static long largeFileBytes(SuiteOptions.Scale s, int block) {
        long n = largeFileRequests(s);
        return n > fileSize(s) / block ? fileSize(s) : block * n;
    }

    static int reps(SuiteOptions.Scale s) {
        return s == SuiteOptions.Scale.QUICK ? 3 : SuiteOptions.REPS;
    }

    @Override
    public long bytesNeeded(SuiteOptions.Scale scale) {
        return 2 * (fileSize(scale) + treeFiles(scale) * (64L << 10));
    }

    @Override
    public ExperimentResult run(SuiteContext ctx) throws Exception {
        ExperimentResult r = new ExperimentResult(name(), description());
        SuiteOptions.Scale scale = ctx.scale();
        int reps = reps(scale);
        long size = fileSize(scale);
        int[] blocks = blocks(scale);
        int[] depths = depths(scale);
        Table t = r.table(new Table("Copy through the io_uring engine (callback-driven, ring only), source cold with "
                + "read-ahead off (POSIX_FADV_RANDOM on every source descriptor), MB/s (10^6 bytes/s)", "workload",
                "block_bytes", "depth", "cache", "mb_per_s_median", "spread_pct", "bytes_per_rep", "verified"));
        Path src = ctx.dataFile("copy-src", size);
        Path dst = ctx.scratch().resolve("copy-dst");
        Path treeSrc = Files.createDirectory(ctx.scratch().resolve("tree-src"));
        Path treeDst = ctx.scratch().resolve("tree-dst");
        SplittableRandom rnd = ctx.random(1100);
        List<Path> files = new ArrayList<>();
        long treeBytes = 0;
        for (int i = 0; i < treeFiles(scale); i++) {
            long n = 4096 + rnd.nextLong(60 * 1024 + 1);
            Path f = ctx.dataFile("tree-src/f" + i, n);
            files.add(f);
            treeBytes += n;
        }
        Map<String, double[][]> lines = new LinkedHashMap<>();
        // Ring only: completions submit the next request; no platform-thread inline shortcut is involved.
        try (UringEngine engine = new UringEngine(UringEngine.DEFAULT_ENTRIES, UringEngine.DEFAULT_FLAGS, false)) {
            // the tree first: it decides the small-file copy line, and the quick budget may not reach both
            for (int w = WORKLOADS.length - 1; w >= 0; w--) {
                boolean tree = w == 1;
                long treeTotal = treeBytes;
                if (!ctx.withinBudget()) {
                    r.note("skipped for the time budget: " + WORKLOADS[w]);
                    continue;
                }
                ctx.status(WORKLOADS[w] + ", cells interleaved");
                Interleave g = ctx.interleave(reps);
                List<int[]> cells = new ArrayList<>();
                double[][] residency = new double[blocks.length * depths.length + 2][1];
                // the arms run one at a time, so they share one slab of buffers (sized for the largest)
                long slabBytes = 0;
                for (int block : blocks) {
                    for (int depth : depths) {
                        if ((long) block * depth <= MAX_BUFFERS && !(tree && block > 65536)) {
                            slabBytes = Math.max(slabBytes, (long) block * depth);
                        }
                    }
                }
                IoArena arena = IoArena.ofShared();
                MemorySegment slab = arena.allocate(Math.max(slabBytes, 4096), 4096);
                for (int block : blocks) {
                    long bytes = tree ? treeBytes : largeFileBytes(scale, block);
                    if (tree && block > 65536) continue; // every tree file fits in one 64 KiB block
                    for (int depth : depths) {
                        // --quick: the tree's arms all run once started, so it keeps two depths of its grid
                        if (tree && !treeDepth(scale, depth)) continue;
                        String cell = WORKLOADS[w] + " " + Units.formatSize(block) + " depth " + depth;
                        if ((long) block * depth > MAX_BUFFERS) {
                            r.note("not run: " + cell + " (would need " + Units.formatSize((long) block * depth)
                                    + " of buffers; the cap is " + Units.formatSize(MAX_BUFFERS) + ")");
                            continue;
                        }
                        MemorySegment[] bufs = new MemorySegment[depth];
                        for (int i = 0; i < depth; i++) bufs[i] = slab.asSlice((long) i * block, block);
                        int arm = cells.size();
                        cells.add(new int[] {block, depth});
                        g.arm(cell, () -> residency[arm][0] = prepareCold(ctx, tree, src, dst, files, treeDst), () -> {
                            long t0 = System.nanoTime();
                            long n = tree ? copyTree(engine, files, treeDst, bufs) : copyFile(engine, src, dst,
                                    bytes, bufs);
                            long dt = System.nanoTime() - t0;
                            if (n != bytes) throw new IllegalStateException(cell + ": wrote " + n + " of "
                                    + bytes + " bytes");
                            verify(cell, tree, src, dst, bytes, files, treeDst);
                            return n / (double) dt * 1e3;
                        });
                    }
                }
                int filesCopy = -1;
                int treeCopy = -1;
                if (tree) {
                    int a = cells.size();
                    filesCopy = g.arm(FILES_COPY, () -> residency[a][0] = prepareCold(ctx, true, src, dst, files,
                            treeDst), () -> {
                                long t0 = System.nanoTime();
                                for (Path f : files) Files.copy(f, treeDst.resolve(f.getFileName()));
                                long dt = System.nanoTime() - t0;
                                verify(FILES_COPY, true, src, dst, treeTotal, files, treeDst);
                                return treeTotal / (double) dt * 1e3;
                            });
                    treeCopy = g.arm(TREE_COPY, () -> {
                        residency[a + 1][0] = prepareCold(ctx, true, src, dst, files, treeDst);
                        Files.delete(treeDst); // TreeCopy creates the target directory itself
                    }, () -> {
                        long t0 = System.nanoTime();
                        CopyResult res = TreeCopy.of(List.of(treeSrc), treeDst, CopyOptions.builder()
                                .recursive(true).build(), null).run();
                        long dt = System.nanoTime() - t0;
                        if (!res.ok()) {
                            throw new IllegalStateException(TREE_COPY + ": " + res.failureCount() + " failed"
                                    + (res.failures().isEmpty() ? "" : ", first: " + res.failures().get(0)));
                        }
                        verify(TREE_COPY, true, src, dst, treeTotal, files, treeDst);
                        return treeTotal / (double) dt * 1e3;
                    });
                }
                if (tree) g.decides(Workload.SMALL_FILE_COPY, true);
                g.run();
                List<Contender> contenders = new ArrayList<>();
                int armCount = cells.size() + (tree ? 2 : 0);
                for (int i = 0; i < armCount; i++) {
                    Stats.Summary s = g.summary(i);
                    CacheState cs = new CacheState(CacheState.Cache.COLD, residency[i][0]);
                    boolean grid = i < cells.size();
                    String name = grid ? Units.formatSize(cells.get(i)[0]) + " x depth " + cells.get(i)[1]
                            : i == filesCopy ? FILES_COPY : TREE_COPY;
                    if (!cs.ok()) r.note("residency mismatch: " + WORKLOADS[w] + " " + name + " " + cs.label());
                    long bytes = tree ? treeBytes : largeFileBytes(scale, cells.get(i)[0]);
                    t.add(grid ? WORKLOADS[w] : WORKLOADS[w] + " (" + name + ")", grid ? cells.get(i)[0] : null,
                            grid ? cells.get(i)[1] : null, cs.label(), s.median(), Measure.spreadPct(s), bytes,
                            "identical");
                    if (grid) {
                        String key = WORKLOADS[w] + " " + Units.formatSize(cells.get(i)[0]);
                        double[][] xy = lines.computeIfAbsent(key, k -> new double[][] {new double[0],
                            new double[0]});
                        xy[0] = append(xy[0], cells.get(i)[1]);
                        xy[1] = append(xy[1], s.median());
                    }
                    if (tree) {
                        Call c = grid ? Call.JFIO_URING_COPY : i == filesCopy ? Call.FILES_COPY : Call.JFIO_TREE_COPY;
                        contenders.add(c.contender(grid ? "io_uring " + name : name, i == filesCopy, g.samples(i)));
                    }
                }
                arena.close();
                if (tree) {
                    r.contest(new Contest(Workload.SMALL_FILE_COPY, files.size() + " files of 4-64 KiB ("
                            + Units.formatSize(treeBytes) + "), MB/s", "MB/s", true, contenders));
                }
            }
        }
        ctx.delete(dst);
        deleteTree(treeDst);
        deleteTree(treeSrc);
        ctx.delete(src);
        Table ref = r.table(new Table("the eio notes' copy (Linux 6.1 laptop; file size and cache state not stated)",
                "copy", "mb_per_s"));
        ref.add("eio Flow.copy, before (\"OLD\")", 288.79);
        ref.add("eio with io_uring batching (\"NEW\")", 462.35);
        Plot p = Plot.lines("copy-tuning: io_uring copy by depth (source cold, read-ahead off)", "queue depth",
                "MB/s (median)", true, false);
        for (var e : lines.entrySet()) p.line(e.getKey(), e.getValue()[0], e.getValue()[1]);
        r.plot(p);
        r.note(String.format(Locale.ROOT, "large file: %s, of which a cell copies %s "
                        + "(bytes_per_rep), so that small blocks, one device request each with read-ahead off, take "
                        + "no longer than large ones; tree: %d files of 4-64 KiB (%s in all), seeded sizes. "
                        + "Each slot reads a block and writes it at the same offset, then takes the next block (large "
                        + "file) or the rest of its file (tree); depth = slots = requests in flight. The tree's "
                        + "descriptors are opened (open(2), on the calling thread) before and closed after the "
                        + "copy, inside the timed region; block sizes above 64 KiB are not run for the tree (every "
                        + "file fits in one block)", Units.formatSize(size),
                scale == SuiteOptions.Scale.TINY ? "all" : "the first block x " + largeFileRequests(scale)
                        + " bytes or the whole file, whichever is less", files.size(),
                Units.formatSize(treeBytes)));
        r.note("source cold means not in the page cache at the start (mincore-checked, worst file for the tree) and "
                + "read-ahead off: every source descriptor is advised POSIX_FADV_RANDOM right after open (inside the "
                + "timed region), so each read request goes to the device for exactly its block (with read-ahead on, "
                + "read_ahead_kb=" + ctx.system().readAheadKb() + " here, the kernel would fetch the following blocks "
                + "ahead of the requests and hide the effect of block size and depth)");
        r.note("the destination is written into the page cache and not fsync'ed: the rates are the cold source's "
                + "read rate plus page-cache writes; every repetition checks the bytes written, and each cell's "
                + "copy is compared byte for byte with its source");
        if (scale == SuiteOptions.Scale.QUICK) {
            r.note("--quick trims the grid: depth 256 is not run, the small-file tree runs depths 4 and 64 only "
                    + "(--full runs depths 1, 4, 16, 64, 256 for both and a 2 GiB file), and each cell has " + reps
                    + " measured repetitions instead of " + SuiteOptions.REPS);
        }
        return r;
    }

    /** Makes the source cold and the destination absent; returns the (worst) residency of the source. */
    private static double prepareCold(SuiteContext ctx, boolean tree, Path src, Path dst, List<Path> files,
                                      Path treeDst) throws IOException {
        if (tree) {
            deleteTree(treeDst);
            Files.createDirectory(treeDst);
            double max = 0;
            for (Path f : files) max = Math.max(max, CacheState.prepare(f, CacheState.Cache.COLD).resident());
            return max;
        }
        ctx.delete(dst);
        return CacheState.prepare(src, CacheState.Cache.COLD).resident();
    }

    private static long copyFile(UringEngine engine, Path src, Path dst, long size, MemorySegment[] bufs)
            throws Exception {
        int in = openColdSource(src);
        try {
            int out = Native.open(dst, Fcntl.O_WRONLY | Fcntl.O_CREAT | Fcntl.O_TRUNC);
            try {
                return new UringCopy(engine, UringCopy.chunks(in, out, size, bufs[0].byteSize()), bufs).run();
            } finally {
                LibC.close(out);
            }
        } finally {
            LibC.close(in);
        }
    }

    private static long copyTree(UringEngine engine, List<Path> files, Path dstDir, MemorySegment[] bufs)
            throws Exception {
        int[] fds = new int[files.size() * 2];
        Arrays.fill(fds, -1);
        try {
            List<UringCopy.Unit> units = new ArrayList<>();
            for (int i = 0; i < files.size(); i++) {
                Path f = files.get(i);
                fds[2 * i] = openColdSource(f);
                fds[2 * i + 1] = Native.open(dstDir.resolve(f.getFileName()), Fcntl.O_WRONLY | Fcntl.O_CREAT
                        | Fcntl.O_TRUNC);
                units.add(new UringCopy.Unit(fds[2 * i], fds[2 * i + 1], 0, Files.size(f)));
            }
            return new UringCopy(engine, units, bufs).run();
        } finally {
            for (int fd : fds) {
                if (fd >= 0) LibC.close(fd);
            }
        }
    }

    /** Opens a source read-only with read-ahead off, so every read request is served from the device as asked. */
    private static int openColdSource(Path file) throws ErrnoException {
        int fd = Native.open(file, Fcntl.O_RDONLY);
        int rc = LibC.posixFadvise(fd, 0, 0, Fcntl.POSIX_FADV_RANDOM);
        if (rc != 0) {
            LibC.close(fd);
            throw new ErrnoException("posix_fadvise", rc, file.toString());
        }
        return fd;
    }

    private static void verify(String cell, boolean tree, Path src, Path dst, long bytes, List<Path> files,
                               Path treeDst) throws IOException {
        if (!tree) {
            long m = mismatchPrefix(src, dst, bytes);
            if (m != -1) throw new IllegalStateException(cell + ": copy differs from the source at byte " + m);
            return;
        }
        for (Path f : files) {
            long m = Files.mismatch(f, treeDst.resolve(f.getFileName()));
            if (m != -1) throw new IllegalStateException(cell + ": " + f.getFileName() + " differs at byte " + m);
        }
    }

    /** Where {@code dst} differs from the first {@code n} bytes of {@code src} (its size too), or -1. */
    static long mismatchPrefix(Path src, Path dst, long n) throws IOException {
        if (Files.size(dst) != n) return Math.min(n, Files.size(dst));
        try (var a = new java.io.BufferedInputStream(Files.newInputStream(src), 1 << 20);
             var b = new java.io.BufferedInputStream(Files.newInputStream(dst), 1 << 20)) {
            byte[] x = new byte[1 << 16];
            byte[] y = new byte[1 << 16];
            long pos = 0;
            while (pos < n) {
                int k = (int) Math.min(x.length, n - pos);
                int ka = a.readNBytes(x, 0, k);
                int kb = b.readNBytes(y, 0, k);
                int m = java.util.Arrays.mismatch(x, 0, ka, y, 0, kb);
                if (m >= 0) return pos + m;
                if (ka < k) return pos + ka;
                pos += k;
            }
            return -1;
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) return;
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : s.toList()) Files.deleteIfExists(p);
        }
        Files.deleteIfExists(dir);
    }

    private static double[] append(double[] a, double v) {
        double[] b = Arrays.copyOf(a, a.length + 1);
        b[a.length] = v;
        return b;
    }
}
