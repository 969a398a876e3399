package io.jfio.bench.uring;

import io.jfio.bench.Units;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;

/**
 * What {@link UringBench} runs: where, how big, how long, which depths and cache modes, and whether fio is the
 * cross-check. Validated in one place, the compact constructor; {@link #builder()} fills in the defaults, which
 * depend on {@link #quick()}.
 *
 * <p>Immutable.
 *
 * @param dir                where the {@code jfio-bench-*} directory with the data file is created
 * @param fileSize           bytes of the data file, a multiple of 4 KiB
 * @param duration           length of one measured repetition
 * @param warmup             length of the unmeasured warm-up run before each cell's repetitions
 * @param reps               measured repetitions per cell (at least 1; 5 or more for a real run)
 * @param depths             queue depths for jfio's engines and fio, ascending
 * @param modes              cache modes to run
 * @param fio                run fio with the same parameters and print ratios
 * @param installFio         install fio with apt-get when it is missing and the process is root
 * @param json               where to write the results as JSON, or null
 * @param seed               seed of the offset sequence (and fio's --randseed)
 * @param fileChannelThreads threads of the multi-threaded FileChannel row
 * @param quick              shorter defaults (for a first look, not for numbers to quote)
 * @param methods            methods to run (fio's rows need {@code fio} as well)
 * @param allowMemoryFs      run on tmpfs/ramfs too (the suite's --allow-tmpfs); refused otherwise
 * @param scaling            run the scaling table (hot reads on one CPU and on all, under taskset) when hot is
 *                           among the modes
 */
public record UringBenchOptions(Path dir, long fileSize, Duration duration, Duration warmup, int reps,
                                List<Integer> depths, Set<CacheMode> modes, boolean fio, boolean installFio,
                                Path json, long seed, int fileChannelThreads, boolean quick, Set<Method> methods,
                                boolean allowMemoryFs, boolean scaling) {
    /** Default data file size. */
    public static final long SIZE_DEFAULT = 1L << 30;
    /** Default data file size with --quick. */
    public static final long SIZE_QUICK = 256L << 20;
    /** Default repetition length. */
    public static final Duration DURATION_DEFAULT = Duration.ofSeconds(1);
    public static final Duration DURATION_QUICK = Duration.ofMillis(250);
    public static final int REPS_DEFAULT = 5;
    public static final int REPS_QUICK = 3;
    public static final List<Integer> DEPTHS_DEFAULT = List.of(1, 32, 128);
    public static final int FILECHANNEL_THREADS_DEFAULT = 32;
    /** Largest depth: the engine's ring and the buffer pool are sized for it. */
    public static final int MAX_DEPTH = 512;

    public UringBenchOptions {
        if (dir == null) throw new IllegalArgumentException("dir must be set");
        if (fileSize < 4096 * 16L || fileSize % 4096 != 0) {
            throw new IllegalArgumentException("file size must be a multiple of 4 KiB and at least 64 KiB: size="
                    + fileSize);
        }
        if (fileSize / 4096 > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("file size too large: size=" + fileSize);
        }
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException("duration must be positive: duration=" + duration);
        }
        if (warmup.isNegative()) throw new IllegalArgumentException("warm-up must not be negative: warmup=" + warmup);
        if (reps < 1) throw new IllegalArgumentException("reps must be at least 1: reps=" + reps);
        if (depths.isEmpty()) throw new IllegalArgumentException("at least one depth is needed");
        for (int d : depths) {
            if (d < 1 || d > MAX_DEPTH) {
                throw new IllegalArgumentException("depth out of range 1.." + MAX_DEPTH + ": depth=" + d);
            }
        }
        depths = List.copyOf(new TreeSet<>(depths));
        if (modes.isEmpty()) throw new IllegalArgumentException("at least one cache mode is needed");
        modes = Set.copyOf(EnumSet.copyOf(modes));
        if (methods.isEmpty()) throw new IllegalArgumentException("at least one method is needed");
        methods = Set.copyOf(EnumSet.copyOf(methods));
        if (fileChannelThreads < 1 || fileChannelThreads > 1024) {
            throw new IllegalArgumentException("FileChannel threads out of range 1..1024: threads="
                    + fileChannelThreads);
        }
    }

    /** Cache modes in the order they run: hot, cold, direct. */
    public List<CacheMode> modeOrder() {
        return List.copyOf(EnumSet.copyOf(modes));
    }

    /** A builder with the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** The options as a JSON-ready map. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("dir", dir.toString());
        m.put("file_size", fileSize);
        m.put("duration_ms", duration.toMillis());
        m.put("warmup_ms", warmup.toMillis());
        m.put("reps", reps);
        m.put("depths", new ArrayList<Object>(depths));
        List<Object> ms = new ArrayList<>();
        for (CacheMode c : modeOrder()) ms.add(c.label());
        m.put("modes", ms);
        m.put("fio", fio);
        m.put("seed", seed);
        m.put("filechannel_threads", fileChannelThreads);
        m.put("quick", quick);
        m.put("scaling", scaling);
        List<Object> me = new ArrayList<>();
        for (Method x : EnumSet.copyOf(methods)) me.add(x.name().toLowerCase(java.util.Locale.ROOT));
        m.put("methods", me);
        return m;
    }

    /**
     * Builds options; anything not set takes its default, and the defaults of size, duration, warm-up and reps are
     * the quick ones when {@link #quick(boolean)} was set.
     *
     * <p>Not thread-safe.
     */
    public static final class Builder {
        private Path dir = Path.of(".");
        private Long fileSize;
        private Duration duration;
        private Duration warmup;
        private Integer reps;
        private List<Integer> depths = DEPTHS_DEFAULT;
        private Set<CacheMode> modes = EnumSet.allOf(CacheMode.class);
        private boolean fio = true;
        private boolean installFio = true;
        private Path json;
        private Long seed;
        private int fileChannelThreads = FILECHANNEL_THREADS_DEFAULT;
        private boolean allowMemoryFs;
        private boolean quick;
        private Set<Method> methods = EnumSet.allOf(Method.class);
        private boolean scaling = true;

        private Builder() {
        }

        public Builder dir(Path v) {
            dir = v;
            return this;
        }

        public Builder fileSize(long v) {
            fileSize = v;
            return this;
        }

        public Builder duration(Duration v) {
            duration = v;
            return this;
        }

        public Builder warmup(Duration v) {
            warmup = v;
            return this;
        }

        public Builder reps(int v) {
            reps = v;
            return this;
        }

        public Builder depths(List<Integer> v) {
            depths = List.copyOf(v);
            return this;
        }

        public Builder modes(Set<CacheMode> v) {
            modes = EnumSet.copyOf(v);
            return this;
        }

        public Builder fio(boolean v) {
            fio = v;
            return this;
        }

        public Builder installFio(boolean v) {
            installFio = v;
            return this;
        }

        public Builder json(Path v) {
            json = v;
            return this;
        }

        public Builder seed(long v) {
            seed = v;
            return this;
        }

        public Builder fileChannelThreads(int v) {
            fileChannelThreads = v;
            return this;
        }

        public Builder quick(boolean v) {
            quick = v;
            return this;
        }

        /** Runs on tmpfs/ramfs too (cold and O_DIRECT rows then mean little; the caller says so). */
        public Builder allowMemoryFs(boolean v) {
            allowMemoryFs = v;
            return this;
        }

        public Builder methods(Set<Method> v) {
            methods = EnumSet.copyOf(v);
            return this;
        }

        /** Whether to run the scaling table (default true; it runs only with the hot mode). */
        public Builder scaling(boolean v) {
            scaling = v;
            return this;
        }

        /** The options; throws {@link IllegalArgumentException} naming the first invalid value. */
        public UringBenchOptions build() {
            Duration d = duration != null ? duration : quick ? DURATION_QUICK : DURATION_DEFAULT;
            Duration w = warmup != null ? warmup : d.dividedBy(2);
            long s = seed != null ? seed : new SplittableRandom().nextLong() & 0x7fff_ffff_ffffL;
            return new UringBenchOptions(dir, fileSize != null ? fileSize : quick ? SIZE_QUICK : SIZE_DEFAULT, d, w,
                    reps != null ? reps : quick ? REPS_QUICK : REPS_DEFAULT, depths, modes, fio, installFio, json,
                    s, fileChannelThreads, quick, methods, allowMemoryFs, scaling);
        }
    }

    /** Parses a comma-separated depth list such as {@code 1,32,128}. */
    public static List<Integer> parseDepths(String s) {
        List<Integer> l = new ArrayList<>();
        for (String p : s.split(",")) {
            if (p.isBlank()) continue;
            try {
                l.add(Integer.parseInt(p.trim()));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("invalid depth '" + p.trim() + "' in '" + s + "'");
            }
        }
        return l;
    }

    /** Parses a comma-separated cache mode list such as {@code hot,cold,direct}. */
    public static Set<CacheMode> parseModes(String s) {
        Set<CacheMode> m = EnumSet.noneOf(CacheMode.class);
        for (String p : s.split(",")) {
            if (!p.isBlank()) m.add(CacheMode.parse(p));
        }
        return m;
    }

    /**
     * Parses a comma-separated method list: {@code uring, uring_fixed, threads, filechannel, filechannel_threads,
     * raf, mmap, fio_uring, fio_psync}, or {@code fio} for both fio rows.
     */
    public static Set<Method> parseMethods(String s) {
        Set<Method> m = EnumSet.noneOf(Method.class);
        for (String p : s.split(",")) {
            String t = p.trim().toUpperCase(java.util.Locale.ROOT).replace('-', '_');
            if (t.isEmpty()) continue;
            if (t.equals("FIO")) {
                m.add(Method.FIO_URING);
                m.add(Method.FIO_PSYNC);
                continue;
            }
            try {
                m.add(Method.valueOf(t));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("invalid method '" + p.trim() + "': expected uring, uring_fixed,"
                        + " threads, filechannel, filechannel_threads, raf, mmap, fio_uring, fio_psync or fio");
            }
        }
        return m;
    }

    @Override
    public String toString() {
        return "UringBenchOptions[dir=" + dir + " size=" + Units.formatSize(fileSize) + " duration="
                + Units.formatDuration(duration) + " reps=" + reps + " depths=" + depths + " modes=" + modeOrder()
                + " fio=" + fio + " seed=" + seed + "]";
    }
}
