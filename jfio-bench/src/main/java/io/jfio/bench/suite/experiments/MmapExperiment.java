package io.jfio.bench.suite.experiments;

import io.jfio.bench.Stats;
import io.jfio.bench.Units;
import io.jfio.bench.suite.CacheState;
import io.jfio.bench.suite.Experiment;
import io.jfio.bench.suite.ExperimentResult;
import io.jfio.bench.suite.Measure;
import io.jfio.bench.suite.Plot;
import io.jfio.bench.suite.SuiteContext;
import io.jfio.bench.suite.SuiteOptions;
import io.jfio.bench.suite.Table;
import io.jfio.core.file.IoFile;
import io.jfio.core.file.Mapping;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;

/**
 * Experiment 6: reading a whole file into a 1 MiB buffer through a mapping (jfio {@link Mapping}, a
 * MemorySegment copied from) versus jfio {@link IoFile#readFully} and FileChannel.read, in one pass and in three
 * passes over the file, with the map and unmap calls inside the timed region and outside it, from a cold and from a
 * hot page cache. Every pass checksums one long per 4 KiB of what landed in the buffer, and every method must reach
 * the same checksum.
 *
 * <p>Thread-safe; stateless.
 */
public final class MmapExperiment implements Experiment {
    static final String[] METHODS = {"mmap incl. map+unmap", "mmap excl. map+unmap", "IoFile.readFully",
        "FileChannel.read"};
    static final int[] PASSES = {1, 3};
    private static final int CHUNK = 1 << 20;

    @Override
    public String name() {
        return "mmap";
    }

    @Override
    public String description() {
        return "mapped MemorySegment vs IoFile vs FileChannel reads of a whole file, 1 and 3 passes, map/unmap cost "
                + "in and out, cold and hot";
    }

    @Override
    public boolean fioExpressible() {
        return false;
    }

    @Override
    public Duration quickBudget() {
        return Duration.ofSeconds(20);
    }

    static long fileSize(SuiteOptions.Scale s) {
        return switch (s) {
            case TINY -> 2L << 20;
            case QUICK -> 128L << 20;
            case FULL -> 1L << 30;
        };
    }

    static int reps(SuiteOptions.Scale s) {
        return s == SuiteOptions.Scale.QUICK ? 3 : SuiteOptions.REPS;
    }

    @Override
    public long bytesNeeded(SuiteOptions.Scale scale) {
        return fileSize(scale);
    }

    @Override
    public ExperimentResult run(SuiteContext ctx) throws Exception {
        ExperimentResult r = new ExperimentResult(name(), description());
        long size = fileSize(ctx.scale());
        int reps = reps(ctx.scale());
        Path file = ctx.dataFile("mmap", size);
        Table t = r.table(new Table("Reading a " + Units.formatSize(size) + " file into a 1 MiB buffer, GB/s "
                + "(10^9 bytes/s, all passes' bytes over the whole time)", "method", "passes", "cache",
                "gb_per_s_median", "spread_pct", "bytes_per_rep"));
        String[] series = {"1 pass cold", "3 passes cold", "1 pass hot", "3 passes hot"};
        double[][] y = new double[series.length][METHODS.length];
        for (double[] a : y) java.util.Arrays.fill(a, Double.NaN);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment buf = arena.allocate(CHUNK, 4096);
            long reference = checksumFileChannel(file, size, buf.asByteBuffer().order(ByteOrder.nativeOrder()));
            for (CacheState.Cache cache : CacheState.Cache.values()) {
                for (int pi = 0; pi < PASSES.length; pi++) {
                    int passes = PASSES[pi];
                    for (int m = 0; m < METHODS.length; m++) {
                        String cell = METHODS[m] + " " + passes + " pass(es) " + cache.label();
                        if (!ctx.withinBudget()) {
                            r.note("skipped for the time budget: " + cell);
                            continue;
                        }
                        ctx.status(cell);
                        final int fm = m;
                        CacheState[] before = new CacheState[1];
                        Mapping[] premapped = new Mapping[1];
                        int fd = Native.open(file, Fcntl.O_RDONLY);
                        try {
                            Stats.Summary s = Measure.repeat(reps, () -> {
                                before[0] = CacheState.prepare(file, cache);
                                if (fm == 1) premapped[0] = Mapping.map(fd, file.toString(), 0, size, false, false);
                            }, () -> {
                                long t0 = System.nanoTime();
                                long sum = 0;
                                if (fm <= 1) {
                                    Mapping map = fm == 0 ? Mapping.map(fd, file.toString(), 0, size, false, false)
                                            : premapped[0];
                                    try {
                                        for (int p = 0; p < passes; p++) sum += passMapped(map.segment(), buf);
                                    } finally {
                                        if (fm == 0) map.close();
                                    }
                                } else if (fm == 2) {
                                    try (IoFile f = IoFile.open(file, StandardOpenOption.READ)) {
                                        for (int p = 0; p < passes; p++) sum += passIoFile(f, size, buf);
                                    }
                                } else {
                                    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
                                        ByteBuffer bb = buf.asByteBuffer().order(ByteOrder.nativeOrder());
                                        for (int p = 0; p < passes; p++) sum += passChannel(ch, size, bb);
                                    }
                                }
                                long dt = System.nanoTime() - t0;
                                if (fm == 1) premapped[0].close();
                                if (sum != reference * passes) {
                                    throw new IllegalStateException(cell + ": checksum " + sum + " != "
                                            + reference * passes);
                                }
                                return Measure.gbPerSecond(size * passes, dt);
                            });
                            if (!before[0].ok()) r.note("residency mismatch: " + cell + " " + before[0].label());
                            t.add(METHODS[m], passes, before[0].label(), s.median(), Measure.spreadPct(s),
                                    size * passes);
                            y[(cache == CacheState.Cache.HOT ? 2 : 0) + pi][m] = s.median();
                        } finally {
                            LibC.close(fd);
                        }
                    }
                }
            }
        }
        ctx.delete(file);
        Plot p = Plot.bars("mmap: reading a " + Units.formatSize(size) + " file into a 1 MiB buffer", "GB/s (median)",
                false, List.of(METHODS));
        for (int i = 0; i < series.length; i++) p.bars(series[i], y[i]);
        r.plot(p);
        r.note("each pass copies the whole file into one 1 MiB native buffer, chunk by chunk (mmap: "
                + "MemorySegment.copy from the mapping; the others: pread / FileChannel.read) and sums one long per "
                + "4 KiB of it; all methods must reach the same checksum. Cold: the file is evicted before the first "
                + "pass only, so passes 2 and 3 read what pass 1 cached");
        r.note("mmap = a jfio Mapping's MemorySegment; IoFile.readFully = jfio, default engine; FileChannel.read = a "
                + "direct ByteBuffer over the same native buffer");
        r.note("incl. map+unmap: mmap(2) and munmap(2) of the whole file inside the timed region; excl.: mapped "
                + "in the untimed set-up and unmapped after the clock stopped. No MAP_POPULATE, no madvise: pages "
                + "come in by page faults (with fault-around and the file's read-ahead)");
        if (reps != SuiteOptions.REPS) {
            r.note("--quick: " + reps + " measured repetitions per cell (after one warm-up) instead of "
                    + SuiteOptions.REPS);
        }
        return r;
    }

    private static long sum(MemorySegment buf, long n) {
        long s = 0;
        for (long i = 0; i + 8 <= n; i += 4096) s += buf.get(ValueLayout.JAVA_LONG_UNALIGNED, i);
        return s;
    }

    private static long passMapped(MemorySegment map, MemorySegment buf) {
        long s = 0;
        for (long off = 0; off < map.byteSize(); off += CHUNK) {
            long n = Math.min(CHUNK, map.byteSize() - off);
            MemorySegment.copy(map, off, buf, 0, n);
            s += sum(buf, n);
        }
        return s;
    }

    private static long passIoFile(IoFile f, long size, MemorySegment buf) throws Exception {
        long s = 0;
        for (long off = 0; off < size; off += CHUNK) {
            MemorySegment slice = buf.asSlice(0, Math.min(CHUNK, size - off));
            long n = f.readFully(slice, off);
            if (n != slice.byteSize()) throw new IllegalStateException("short read at " + off + ": " + n);
            s += sum(buf, n);
        }
        return s;
    }

    private static long passChannel(FileChannel ch, long size, ByteBuffer bb) throws Exception {
        bb.clear();
        MemorySegment seg = MemorySegment.ofBuffer(bb); // the whole buffer: ofBuffer covers position..limit
        long s = 0;
        for (long off = 0; off < size; off += CHUNK) {
            bb.clear();
            bb.limit((int) Math.min(CHUNK, size - off));
            while (bb.hasRemaining()) {
                if (ch.read(bb, off + bb.position()) < 0) break;
            }
            if (bb.position() != bb.limit()) throw new IllegalStateException("short read at " + off);
            s += sum(seg, bb.position());
        }
        return s;
    }

    private static long checksumFileChannel(Path file, long size, ByteBuffer bb) throws Exception {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            return passChannel(ch, size, bb);
        }
    }
}
