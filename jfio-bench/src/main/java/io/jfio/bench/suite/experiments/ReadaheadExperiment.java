package io.jfio.bench.suite.experiments;

import io.jfio.bench.Offsets;
import io.jfio.bench.Stats;
import io.jfio.bench.Units;
import io.jfio.bench.suite.CacheState;
import io.jfio.bench.suite.Experiment;
import io.jfio.bench.suite.ExperimentResult;
import io.jfio.bench.suite.FioCheck;
import io.jfio.bench.suite.Measure;
import io.jfio.bench.suite.Plot;
import io.jfio.bench.suite.SuiteContext;
import io.jfio.bench.suite.SuiteOptions;
import io.jfio.bench.suite.Table;
import io.jfio.core.file.PageCache;
import io.jfio.core.sys.ErrnoException;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Experiment 3: sequential and random reads of 4 KiB to 128 KiB (pread into a native buffer) from a cold file
 * under each posix_fadvise hint, given on a fresh descriptor right before the reads (the advice call is inside the
 * timed region: WILLNEED starts its read-ahead there). Each cell starts cold (fdatasync + DONTNEED, residency
 * checked with mincore) and records how much of the file read-ahead had brought in when the reads ended.
 *
 * <p>Thread-safe; stateless.
 */
public final class ReadaheadExperiment implements Experiment {
    static final String[] HINTS = {"NORMAL", "RANDOM", "SEQUENTIAL", "WILLNEED", "DONTNEED", "NOREUSE"};
    static final int[] ADVICE = {Fcntl.POSIX_FADV_NORMAL, Fcntl.POSIX_FADV_RANDOM, Fcntl.POSIX_FADV_SEQUENTIAL,
        Fcntl.POSIX_FADV_WILLNEED, Fcntl.POSIX_FADV_DONTNEED, Fcntl.POSIX_FADV_NOREUSE};
    /** fio's --fadvise_hint for each hint, null where fio has no equivalent. */
    static final String[] FIO_HINT = {"0", "random", "sequential", null, null, null};
    static final String[] PATTERNS = {"sequential", "random"};

    @Override
    public String name() {
        return "readahead";
    }

    @Override
    public String description() {
        return "sequential and random reads of 4 KiB to 128 KiB from a cold file under each posix_fadvise hint, "
                + "MB/s and how much read-ahead pulled in";
    }

    @Override
    public boolean fioExpressible() {
        return true;
    }

    @Override
    public Duration quickBudget() {
        return Duration.ofSeconds(19); // the whole quick suite must stay within 3 minutes on 2 cores
    }

    static long fileSize(SuiteOptions.Scale s) {
        return switch (s) {
            case TINY -> 1L << 20;
            case QUICK -> 64L << 20;
            case FULL -> 1L << 30;
        };
    }

    /** Bytes a sequential repetition reads from the start of the file. */
    static long sequentialBytes(SuiteOptions.Scale s) {
        return switch (s) {
            case TINY -> 1L << 20;
            case QUICK -> 16L << 20;
            case FULL -> 256L << 20;
        };
    }

    /** Random requests per repetition: at most one per block of the file, so no block is read twice. */
    static int randomOps(SuiteOptions.Scale s, int block) {
        int n = switch (s) {
            case TINY -> 32;
            case QUICK -> 400;
            case FULL -> 4000;
        };
        return (int) Math.min(n, fileSize(s) / block);
    }

    static int[] blocks(SuiteOptions.Scale s) {
        return s == SuiteOptions.Scale.FULL ? new int[] {4096, 16384, 65536, 131072} : new int[] {4096, 131072};
    }

    @Override
    public long bytesNeeded(SuiteOptions.Scale scale) {
        return fileSize(scale);
    }

    @Override
    public ExperimentResult run(SuiteContext ctx) throws Exception {
        ExperimentResult r = new ExperimentResult(name(), description());
        SuiteOptions.Scale scale = ctx.scale();
        long size = fileSize(scale);
        int[] blocks = blocks(scale);
        String ra = ctx.system().readAheadKb();
        Table t = r.table(new Table("pread from a cold " + Units.formatSize(size) + " file under posix_fadvise hints "
                + "(read_ahead_kb=" + ra + ", device " + ctx.system().device() + ")", "pattern", "block_bytes",
                "hint", "cache", "mb_per_s_median", "spread_pct", "bytes_per_rep", "resident_after_pct"));
        Path file = ctx.dataFile("readahead", size);
        List<String> series = new ArrayList<>();
        double[][] y = new double[PATTERNS.length * blocks.length][HINTS.length];
        try (Arena arena = Arena.ofShared()) {
            MemorySegment buf = arena.allocate(blocks[blocks.length - 1], 4096);
            for (int p = 0; p < PATTERNS.length; p++) {
                for (int b = 0; b < blocks.length; b++) {
                    int block = blocks[b];
                    int row = p * blocks.length + b;
                    series.add(PATTERNS[p] + " " + Units.formatSize(block));
                    java.util.Arrays.fill(y[row], Double.NaN);
                    for (int h = 0; h < HINTS.length; h++) {
                        if (!ctx.withinBudget()) {
                            r.note("skipped for the time budget: " + PATTERNS[p] + " " + Units.formatSize(block) + " "
                                    + HINTS[h]);
                            continue;
                        }
                        String cell = PATTERNS[p] + " " + Units.formatSize(block) + " " + HINTS[h];
                        ctx.status(cell);
                        boolean random = p == 1;
                        long bytes = random ? (long) block * randomOps(scale, block) : sequentialBytes(scale);
                        CacheState[] before = new CacheState[1];
                        double[] after = new double[1];
                        final int advice = ADVICE[h];
                        // A permutation of the file's blocks: a random read of the file touches each block at
                        // most once (with replacement, a repeated block would be a page-cache hit in a cold cell).
                        long[] offsets = random ? new Offsets(size / block, block, ctx.options().seed() * 31 + 300
                                + row).first(randomOps(scale, block)) : null;
                        MemorySegment slice = buf.asSlice(0, block);
                        // fio runs interleaved with the repetitions (fio, Java, fio, Java, ...), so both see the
                        // same machine: load and the host's caching of a virtual disk drift over a run.
                        boolean check = b == blocks.length - 1 && FIO_HINT[h] != null && ctx.fio().isPresent();
                        List<Double> fioRuns = new ArrayList<>();
                        final int fh = h;
                        Stats.Summary s = Measure.repeat(SuiteOptions.REPS, () -> {
                            if (check) {
                                fioRuns.add(ctx.fio(10_000, "read", "--filename=" + file, "--readonly",
                                        "--rw=" + (random ? "randread" : "read"), "--bs=" + block, "--size=" + size,
                                        "--io_size=" + bytes, "--ioengine=psync", "--iodepth=1", "--invalidate=1",
                                        "--randrepeat=0", "--randseed=" + ctx.options().seed(),
                                        "--fadvise_hint=" + FIO_HINT[fh]).bandwidth() / 1e6);
                            }
                            before[0] = CacheState.prepare(file, CacheState.Cache.COLD);
                        }, () -> {
                            long t0 = System.nanoTime();
                            long n = readAll(file, advice, slice, offsets, bytes);
                            long dt = System.nanoTime() - t0;
                            if (n != bytes) throw new IllegalStateException(cell + ": read " + n + " of "
                                    + bytes);
                            after[0] = PageCache.residency(file).fraction();
                            return n / (double) dt * 1e3;
                        });
                        if (!before[0].ok()) r.note("residency mismatch: " + cell + " " + before[0].label());
                        t.add(PATTERNS[p], block, HINTS[h], before[0].label(), s.median(), Measure.spreadPct(s),
                                bytes, after[0] * 100);
                        y[row][h] = s.median();
                        if (check) {
                            // the first fio run pairs with the warm-up, like the first Java one
                            double[] fv = fioRuns.subList(1, fioRuns.size()).stream().mapToDouble(d -> d).toArray();
                            Stats.Summary fs = Stats.summarize(fv);
                            r.fio(new FioCheck(cell + " cold", "pread after posix_fadvise " + HINTS[h],
                                    "fio psync --fadvise_hint=" + FIO_HINT[h] + " (median of " + SuiteOptions.REPS
                                    + " runs interleaved with ours)", "MB/s", s.median(), fs.median(), true, s.min(),
                                    s.max(), fs.min(), fs.max()));
                        }
                    }
                }
            }
        }
        ctx.delete(file);
        Plot plot = Plot.bars("readahead: cold reads by posix_fadvise hint (read_ahead_kb=" + ra + ")",
                "MB/s (median, 10^6 bytes/s)", false, List.of(HINTS));
        for (int i = 0; i < series.size(); i++) plot.bars(series.get(i), y[i]);
        r.plot(plot);
        r.note("read_ahead_kb=" + ra + " for device " + ctx.system().device() + " (/sys/block/DEV/queue); the "
                + "kernel's read-ahead window for a descriptor starts from it: SEQUENTIAL doubles it, RANDOM turns it "
                + "off, WILLNEED reads the advised range (here the whole file) at the advice call");
        r.note(String.format(Locale.ROOT, "sequential: %s from offset 0 in block-sized preads; random: up to %d "
                + "block-sized preads at seeded block-aligned offsets, a permutation of the file's blocks (each block "
                + "at most once, as fio's random map does; fio keeps its map on too); one fresh descriptor per "
                + "repetition, advised (offset 0, length 0 = whole file) right after open, inside the timed region",
                Units.formatSize(sequentialBytes(ctx.scale())), randomOps(ctx.scale(), blocks[0])));
        r.note("resident_after_pct: share of the file in the page cache after the reads (mincore); above the share "
                + "read, it is what read-ahead brought in beyond the request");
        r.note("fio cross-checks (largest block size, psync, depth 1, --invalidate=1): NORMAL = --fadvise_hint=0 "
                + "(no advice, the kernel default), RANDOM = --fadvise_hint=random, SEQUENTIAL = "
                + "--fadvise_hint=sequential; fio cannot express WILLNEED, DONTNEED or NOREUSE (its --fadvise_hint "
                + "takes 0, 1, sequential, random), so those rows have no fio check");
        return r;
    }

    /**
     * Opens, advises, reads {@code bytes} (sequentially from 0, or at {@code offsets} when not null) and closes;
     * returns the bytes read.
     */
    private static long readAll(Path file, int advice, MemorySegment buf, long[] offsets, long bytes)
            throws ErrnoException {
        int fd = Native.open(file, Fcntl.O_RDONLY);
        try {
            int rc = LibC.posixFadvise(fd, 0, 0, advice);
            if (rc != 0) throw new ErrnoException("posix_fadvise", rc, file.toString());
            long block = buf.byteSize();
            long done = 0;
            int i = 0;
            for (long off = 0; done < bytes; off += block, i++) {
                long pos = offsets != null ? offsets[i] : off;
                long n = Native.preadFully(fd, buf, pos);
                if (n == 0) break;
                done += n;
            }
            return done;
        } finally {
            LibC.close(fd);
        }
    }
}
