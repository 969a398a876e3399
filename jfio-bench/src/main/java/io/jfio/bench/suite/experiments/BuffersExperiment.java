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
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
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
 * temporary direct buffer (sun.nio.ch.Util): one extra copy, and a direct buffer of S bytes kept per thread, which
 * the "direct pool growth" column shows.
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
                "gb_per_s_median", "spread_pct", "jdk_direct_pool_growth_bytes"));
        double[][] y = new double[METHODS.length][sizes.size()];
        double[] x = new double[sizes.size()];
        BufferPoolMXBean direct = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
                .filter(b -> b.getName().equals("direct")).findFirst().orElseThrow();
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
                    for (int m = 0; m < METHODS.length; m++) {
                        ctx.status(METHODS[m] + " " + size);
                        CacheState cache = CacheState.prepare(file, CacheState.Cache.HOT);
                        ByteBuffer heap = m == 0 ? ByteBuffer.allocate((int) size) : null;
                        ByteBuffer dbuf = m == 1 ? ByteBuffer.allocateDirect((int) size) : null;
                        MemorySegment seg = m == 2 ? arena.allocate(size, 4096) : null;
                        long before = direct.getMemoryUsed() - (dbuf == null ? 0 : size);
                        final int method = m;
                        Stats.Summary s = Measure.repeat(SuiteOptions.REPS, () -> { }, () -> {
                            long t0 = System.nanoTime();
                            long n;
                            if (method == 2) {
                                n = Native.preadFully(fd, seg, 0);
                            } else {
                                ByteBuffer b = method == 0 ? heap : dbuf;
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
                            return Measure.gbPerSecond(n, dt);
                        });
                        long growth = Math.max(0, direct.getMemoryUsed() - before - (dbuf == null ? 0 : size));
                        t.add(size, METHODS[m], cache.label(), s.median(), Measure.spreadPct(s), growth);
                        y[m][si] = s.median();
                    }
                }
            } finally {
                LibC.close(fd);
            }
        }
        Plot p = Plot.lines("buffers: one read of N bytes, page cache hot", "read size (bytes)", "GB/s (median)",
                true, false);
        for (int m = 0; m < METHODS.length; m++) p.line(METHODS[m], x, y[m]);
        r.plot(p);
        r.note("jdk_direct_pool_growth_bytes: growth of the JVM's \"direct\" buffer pool (BufferPoolMXBean) while the "
                + "method ran, excluding the method's own buffer. The heap path copies through a temporary direct "
                + "buffer (sun.nio.ch.Util); when this column reads 0 this JDK did not account that buffer in the "
                + "pool, and the copy shows only as the heap path's lower GB/s");
        r.note("000's buffers table (heap 2708 … 4042, direct 3125 … 4250 for 1MB … 1GB, no unit) repeats its "
                + "alignment table digit for digit and has direct slower than heap, against its own text: it is not "
                + "a measurement of this, so it is not set beside ours");
        return r;
    }
}
