package io.jfio.bench.copy;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * What {@link CopyBench} measures. Immutable; build with {@link #builder()}.
 *
 * @param dir         where the workspace directory ({@code jfio-bench-copy-*}) is created; not tmpfs
 * @param files       files in the generated tree
 * @param bigSize     bytes of the large file
 * @param reps        measured repetitions per cell (the median is reported)
 * @param seed        seed of the tree and file contents
 * @param contenders  which tools to run: {@code cp}, {@code jfio}, {@code fcp}, {@code xcp}
 * @param workloads   {@code tree}, {@code big}
 * @param modes       {@code cold}, {@code hot}
 * @param install     install missing peers ({@code cargo install fcp xcp}) when cargo exists
 * @param jfio        the command that runs jfio (e.g. {@code [.../bin/jfio]}); {@code copy -a SRC DST} is appended
 * @param quick       the quick shape was asked for (for the report)
 * @param variants    extra jfio rows, each the arguments added to {@code copy -a} (e.g. {@code --sequential}), to
 *                    compare jfio's own strategies in the same run
 */
public record CopyBenchOptions(Path dir, int files, long bigSize, int reps, long seed, List<String> contenders,
                               List<String> workloads, List<String> modes, boolean install, List<String> jfio,
                               boolean quick, List<String> variants) {
    /** Files in the default tree: 20,000 of 512 B to 64 KiB, about 324 MB. */
    public static final int FILES_DEFAULT = 20_000;
    public static final int FILES_QUICK = 4_000;
    public static final long BIG_DEFAULT = 4L << 30;
    public static final long BIG_QUICK = 1L << 30;
    public static final int REPS_DEFAULT = 3;
    public static final long SEED_DEFAULT = 20_250_101L;
    public static final List<String> ALL_CONTENDERS = List.of("cp", "jfio", "fcp", "xcp");
    public static final List<String> ALL_WORKLOADS = List.of("tree", "big");
    public static final List<String> ALL_MODES = List.of("cold", "hot");

    public CopyBenchOptions {
        if (files < 1 || files > 10_000_000) throw new IllegalArgumentException("files out of range: files=" + files);
        if (bigSize < (1 << 20)) throw new IllegalArgumentException("large file below 1 MiB: size=" + bigSize);
        if (reps < 1 || reps > 100) throw new IllegalArgumentException("reps out of range: reps=" + reps);
        check("contender", contenders, ALL_CONTENDERS);
        check("workload", workloads, ALL_WORKLOADS);
        check("mode", modes, ALL_MODES);
        if (contenders.contains("jfio") && (jfio == null || jfio.isEmpty())) {
            throw new IllegalArgumentException("no command to run jfio with");
        }
        contenders = List.copyOf(contenders);
        workloads = List.copyOf(workloads);
        modes = List.copyOf(modes);
        jfio = jfio == null ? List.of() : List.copyOf(jfio);
        variants = variants == null ? List.of() : List.copyOf(variants);
        if (!variants.isEmpty() && (jfio == null || jfio.isEmpty())) {
            throw new IllegalArgumentException("jfio variants need a command to run jfio with");
        }
    }

    private static void check(String what, List<String> got, List<String> allowed) {
        if (got.isEmpty()) throw new IllegalArgumentException("no " + what + " chosen: expected some of " + allowed);
        for (String g : got) {
            if (!allowed.contains(g)) {
                throw new IllegalArgumentException("unknown " + what + ": " + what + "=" + g + " expected="
                        + String.join("|", allowed));
            }
        }
        if (Set.copyOf(got).size() != got.size()) throw new IllegalArgumentException(what + " listed twice: " + got);
    }

    /** Splits a comma-separated list, lower-cased. */
    public static List<String> parseList(String s) {
        return List.of(s.trim().toLowerCase(Locale.ROOT).split("\\s*,\\s*"));
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Builds {@link CopyBenchOptions}; not thread-safe. */
    public static final class Builder {
        private Path dir = Path.of(".");
        private Integer files;
        private Long bigSize;
        private int reps = REPS_DEFAULT;
        private long seed = SEED_DEFAULT;
        private List<String> contenders = ALL_CONTENDERS;
        private List<String> workloads = ALL_WORKLOADS;
        private List<String> modes = ALL_MODES;
        private boolean install = true;
        private List<String> jfio = List.of();
        private boolean quick;
        private List<String> variants = List.of();

        private Builder() {
        }

        public Builder dir(Path v) {
            dir = v;
            return this;
        }

        public Builder files(int v) {
            files = v;
            return this;
        }

        public Builder bigSize(long v) {
            bigSize = v;
            return this;
        }

        public Builder reps(int v) {
            reps = v;
            return this;
        }

        public Builder seed(long v) {
            seed = v;
            return this;
        }

        public Builder contenders(List<String> v) {
            contenders = v;
            return this;
        }

        public Builder workloads(List<String> v) {
            workloads = v;
            return this;
        }

        public Builder modes(List<String> v) {
            modes = v;
            return this;
        }

        public Builder install(boolean v) {
            install = v;
            return this;
        }

        public Builder jfio(List<String> v) {
            jfio = v;
            return this;
        }

        /** Extra jfio rows: arguments added to {@code copy -a}, one string per row. */
        public Builder variants(List<String> v) {
            variants = v;
            return this;
        }

        /** Smaller defaults: 4,000 files, a 1 GiB file. */
        public Builder quick(boolean v) {
            quick = v;
            return this;
        }

        public CopyBenchOptions build() {
            return new CopyBenchOptions(dir, files != null ? files : quick ? FILES_QUICK : FILES_DEFAULT,
                    bigSize != null ? bigSize : quick ? BIG_QUICK : BIG_DEFAULT, reps, seed, contenders, workloads,
                    modes, install, jfio, quick, variants);
        }
    }
}
