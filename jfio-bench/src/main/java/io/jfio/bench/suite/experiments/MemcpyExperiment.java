package io.jfio.bench.suite.experiments;

import io.jfio.bench.Stats;
import io.jfio.bench.suite.Experiment;
import io.jfio.bench.suite.ExperimentResult;
import io.jfio.bench.suite.Measure;
import io.jfio.bench.suite.Plot;
import io.jfio.bench.suite.SuiteContext;
import io.jfio.bench.suite.SuiteOptions;
import io.jfio.bench.suite.Table;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Experiment 8: copying memory, System.arraycopy vs MemorySegment.copy (heap to heap, heap to native, native to
 * native), 8 KiB to 32 MiB, in µs per copy. The JVM file I/O talk reports memcpy vs System.arraycopy for the
 * same sizes; its figures stand beside ours.
 *
 * <p>Thread-safe; stateless.
 */
public final class MemcpyExperiment implements Experiment {
    private static final int[] SIZES = {8 << 10, 128 << 10, 1 << 20, 8 << 20, 16 << 20, 32 << 20};
    /** The JVM file I/O talk, i7-8565U: memcpy µs / System.arraycopy µs. */
    private static final Map<Integer, String> SOURCE = Map.of(8 << 10, "0.172 / 0.132", 128 << 10, "3.439 / 4.171",
            8 << 20, "542.921 / 959.101", 16 << 20, "1393.213 / 2209.657", 32 << 20, "3128.653 / 4702.299");
    private static final String[] METHODS = {"System.arraycopy heap->heap", "MemorySegment.copy heap->heap",
        "MemorySegment.copy heap->native", "MemorySegment.copy native->native"};

    @Override
    public String name() {
        return "memcpy";
    }

    @Override
    public String description() {
        return "System.arraycopy vs MemorySegment.copy (heap to heap, heap to native, native to native), 8 KiB to "
                + "32 MiB, µs per copy";
    }

    @Override
    public boolean fioExpressible() {
        return false;
    }

    @Override
    public Duration quickBudget() {
        return Duration.ofSeconds(10);
    }

    @Override
    public long bytesNeeded(SuiteOptions.Scale scale) {
        return 0;
    }

    @Override
    public ExperimentResult run(SuiteContext ctx) throws Exception {
        ExperimentResult r = new ExperimentResult(name(), description());
        int max = ctx.scale() == SuiteOptions.Scale.TINY ? 1 << 20 : 32 << 20;
        Table t = r.table(new Table("Copy time by size (no file I/O: cache column n/a)", "size_bytes", "method",
                "us_per_copy_median", "spread_pct", "gb_per_s", "talk_memcpy_us_vs_arraycopy_us"));
        Map<String, double[][]> lines = new LinkedHashMap<>();
        int n = 0;
        for (int s : SIZES) {
            if (s <= max) n++;
        }
        for (String m : METHODS) lines.put(m, new double[][] {new double[n], new double[n]});
        byte[] src = new byte[max];
        byte[] dst = new byte[max];
        ctx.random(8).nextBytes(src);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment nsrc = a.allocate(max, 64);
            MemorySegment ndst = a.allocate(max, 64);
            MemorySegment.copy(MemorySegment.ofArray(src), 0, nsrc, 0, max);
            MemorySegment hsrc = MemorySegment.ofArray(src);
            MemorySegment hdst = MemorySegment.ofArray(dst);
            int i = 0;
            for (int size : SIZES) {
                if (size > max) continue;
                if (!ctx.withinBudget()) {
                    r.note("skipped for the time budget: sizes from " + size + " bytes up");
                    break;
                }
                ctx.status("size " + size);
                // Enough copies per repetition for ~20 ms, so the clock's resolution does not matter.
                int copies = Math.max(3, (int) Math.min(200_000, (ctx.scale() == SuiteOptions.Scale.TINY ? 2e6 : 2e8)
                        / size));
                for (int mi = 0; mi < METHODS.length; mi++) {
                    final int method = mi;
                    Stats.Summary st = Measure.repeat(SuiteOptions.REPS, () -> { }, () -> {
                        long t0 = System.nanoTime();
                        for (int k = 0; k < copies; k++) {
                            switch (method) {
                                case 0 -> System.arraycopy(src, 0, dst, 0, size);
                                case 1 -> MemorySegment.copy(hsrc, 0, hdst, 0, size);
                                case 2 -> MemorySegment.copy(hsrc, 0, ndst, 0, size);
                                default -> MemorySegment.copy(nsrc, 0, ndst, 0, size);
                            }
                        }
                        return (System.nanoTime() - t0) / 1e3 / copies;
                    });
                    t.add((long) size, METHODS[mi], st.median(), Measure.spreadPct(st), size / st.median() / 1e3,
                            SOURCE.getOrDefault(size, "-"));
                    lines.get(METHODS[mi])[0][i] = size;
                    lines.get(METHODS[mi])[1][i] = st.median();
                }
                // Keep the copies observable so the JIT cannot drop them.
                if (dst[size - 1] != src[size - 1] || ndst.get(ValueLayout.JAVA_BYTE, size - 1) != src[size - 1]) {
                    throw new IllegalStateException("copy check failed at size " + size);
                }
                i++;
            }
        }
        Plot p = Plot.lines("memcpy: µs per copy", "bytes", "µs per copy (median)", true, true);
        for (var e : lines.entrySet()) p.line(e.getKey(), e.getValue()[0], e.getValue()[1]);
        r.plot(p);
        r.note("the JVM file I/O talk's table compares a JNI memcpy with System.arraycopy (i7-8565U): memcpy "
                + "543 µs vs arraycopy 959 µs at 8 MB. jfio has no JNI; MemorySegment.copy heap->native is the FFM "
                + "path that a native memcpy "
                + "would serve. Compare our arraycopy column with the talk's second number: a different CPU");
        r.note("copies are repeated on the same buffers, so sizes up to the CPU's last-level cache run from cache");
        return r;
    }

    /** The sizes measured at {@code scale} (for tests). */
    public static List<Integer> sizes(SuiteOptions.Scale scale) {
        int max = scale == SuiteOptions.Scale.TINY ? 1 << 20 : 32 << 20;
        return java.util.Arrays.stream(SIZES).filter(s -> s <= max).boxed().toList();
    }
}
