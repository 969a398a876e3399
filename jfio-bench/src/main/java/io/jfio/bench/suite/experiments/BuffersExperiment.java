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
import java.util.List;

/**
 * Experiment 4: one read of S bytes into a heap ByteBuffer, a direct ByteBuffer (both FileChannel.read) and a
 * native MemorySegment (jfio's pread), page cache hot, S from 1 MiB up. A heap buffer goes through the JDK's
 * temporary direct buffer (sun.nio.ch.IOUtil.read: the kernel fills a temporary native buffer, then
 * {@code dst.put(temp)} copies it into the array). That buffer is not visible in the BufferPoolMXBean "direct" pool
 * on JDK 25 (Util.getTemporaryDirectBuffer takes it from Unsafe.allocateMemory, which the pool does not count), so
 * the copy is shown by time: the heap read's extra time over the direct read of the same size, beside the same copy
 * ({@code heap.put(direct)}, S bytes) timed on its own.
 *
 * <p>Thread-safe; stateless.
 */
public final class BuffersExperiment implements Experiment {
    private static final String[] METHODS = {"heap ByteBuffer (FileChannel)", "direct ByteBuffer (FileChannel)",
        "MemorySegment (jfio pread)"};

    @Override
    public String name() {
        return "buffers";
    }

    @Override
    public String description() {
        return "heap ByteBuffer vs direct ByteBuffer vs MemorySegment reads of 1 MiB and up (hot), with the JDK's "
                + "temporary direct-buffer copy";
    }

    @Override
    public boolean fioExpressible() {
        return false;
    }

    @Override
    public Duration quickBudget() {
        return Duration.ofSeconds(12);
    }

    static long maxSize(SuiteOptions.Scale scale) {
        return switch (scale) {
            case TINY -> 4L << 20;
            case QUICK -> 64L << 20;
            case FULL -> 1L << 30;
        };
    }

    @Override
    public long bytesNeeded(SuiteOptions.Scale scale) {
        return maxSize(scale);
    }

    @Override
    public ExperimentResult run(SuiteContext ctx) throws Exception {
        ExperimentResult r = new ExperimentResult(name(), description());
        long max = maxSize(ctx.scale());
        List<Long> sizes = new ArrayList<>();
        for (long s = 1 << 20; s <= max; s *= 4) sizes.add(s);
        if (sizes.get(sizes.size() - 1) != max) sizes.add(max);
        Path file = ctx.dataFile("buffers", max);
        Table t = r.table(new Table("One read of size_bytes from a hot file", "size_bytes", "method", "cache",
                "gb_per_s_median", "spread_pct", "us_per_read_median", "extra_us_vs_direct", "jdk_temp_copy_us",
                "jdk_temp_copy_gb_per_s"));
        double[][] y = new double[METHODS.length][sizes.size()];
        double[] x = new double[sizes.size()];
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ); Arena arena = Arena.ofShared()) {
            int fd = Native.open(file, Fcntl.O_RDONLY);
            try {
                for (int si = 0; si < sizes.size(); si++) {
                    long size = sizes.get(si);
                    x[si] = size;
                    if (!ctx.withinBudget()) {
                        r.note("skipped for the time budget: sizes from " + size + " bytes up");
                        break;
                    }
                    Stats.Summary[] us = new Stats.Summary[METHODS.length];
                    String[] cache = new String[METHODS.length];
                    for (int m = 0; m < METHODS.length; m++) {
                        ctx.status(METHODS[m] + " " + size);
                        cache[m] = CacheState.prepare(file, CacheState.Cache.HOT).label();
                        us[m] = readMicros(m, ch, fd, arena, size);
                    }
                    // The heap path's extra step on its own: S bytes from a native buffer into a heap array, as
                    // IOUtil.read does with dst.put(temp) after the kernel filled the temporary buffer.
                    ctx.status("heap.put(direct) " + size);
                    ByteBuffer heap = ByteBuffer.allocate((int) size);
                    ByteBuffer temp = ByteBuffer.allocateDirect((int) size);
                    Stats.Summary copy = Measure.repeat(SuiteOptions.REPS, () -> {
                        heap.clear();
                        temp.clear();
                    }, () -> {
                        long t0 = System.nanoTime();
                        heap.put(temp);
                        return (System.nanoTime() - t0) / 1e3;
                    });
                    for (int m = 0; m < METHODS.length; m++) {
                        double med = us[m].median();
                        double gbps = size / (med * 1e3);
                        boolean copies = m == 0;
                        t.add(size, METHODS[m], cache[m], gbps, Measure.spreadPct(us[m]), med,
                                med - us[1].median(), copies ? copy.median() : Double.NaN,
                                copies ? size / (copy.median() * 1e3) : Double.NaN);
                        y[m][si] = gbps;
                    }
                }
            } finally {
                LibC.close(fd);
            }
        }
        Plot p = Plot.lines("buffers: one read of N bytes, page cache hot", "read size (MiB)", "GB/s (median)",
                true, false);
        for (int i = 0; i < x.length; i++) x[i] /= 1 << 20;
        for (int m = 0; m < METHODS.length; m++) p.line(METHODS[m], x, y[m]);
        r.plot(p);
        r.note("extra_us_vs_direct: this method's median time per read minus the direct ByteBuffer's at the same "
                + "size. For the heap ByteBuffer it is the JDK's extra work: IOUtil.read has the kernel fill a "
                + "temporary native buffer (Util.getTemporaryDirectBuffer, kept per thread and reused up to "
                + "jdk.nio.maxCachedBufferSize=" + System.getProperty("jdk.nio.maxCachedBufferSize", "unset, no cap")
                + ", allocated afresh for every read above it) and then copies it into the array "
                + "(dst.put(temp)). jdk_temp_copy_us times that copy on its own (heap.put(direct) of size_bytes, "
                + "median of " + SuiteOptions.REPS + "); '-' where no copy happens (direct ByteBuffer, MemorySegment)");
        r.note("the temporary buffer does not show in the BufferPoolMXBean \"direct\" pool: on this JDK it comes from "
                + "Unsafe.allocateMemory wrapped as a DirectByteBuffer, and only ByteBuffer.allocateDirect is counted "
                + "there; a pool-growth column would read 0 even though the buffer and the copy exist");
        r.note("the NIO article's buffers table (heap 2708 … 4042, direct 3125 … 4250 for 1MB … 1GB, no unit) "
                + "repeats its alignment table digit for digit and has direct slower than heap, against its own "
                + "text: it is not a measurement of this, so it is not set beside ours");
        return r;
    }

    /** Warm-up and {@link SuiteOptions#REPS} reads of {@code size} bytes at offset 0 with method {@code m}, µs each. */
    private static Stats.Summary readMicros(int m, FileChannel ch, int fd, Arena arena, long size) throws Exception {
        ByteBuffer heap = m == 0 ? ByteBuffer.allocate((int) size) : null;
        ByteBuffer dbuf = m == 1 ? ByteBuffer.allocateDirect((int) size) : null;
        MemorySegment seg = m == 2 ? arena.allocate(size, 4096) : null;
        return Measure.repeat(SuiteOptions.REPS, () -> { }, () -> {
            long t0 = System.nanoTime();
            long n;
            if (m == 2) {
                n = Native.preadFully(fd, seg, 0);
            } else {
                ByteBuffer b = m == 0 ? heap : dbuf;
                b.clear();
                n = 0;
                while (b.hasRemaining()) {
                    int k = ch.read(b, n);
                    if (k < 0) break;
                    n += k;
                }
            }
            long dt = System.nanoTime() - t0;
            if (n != size) throw new IllegalStateException("short read: " + n + " of " + size);
            return dt / 1e3;
        });
    }
}
