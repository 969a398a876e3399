package io.jfio.bench.suite;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * What {@code jfio bench} runs and where. Validated in the compact constructor.
 *
 * <p>Immutable.
 *
 * @param dir        where the test files go (a {@code jfio-bench-suite-*} directory is created inside)
 * @param out        the report directory, or null for {@code jfio-report/<timestamp>}
 * @param scale      sizes and repetitions
 * @param only       experiment names to run, empty for all
 * @param allowTmpfs accept a memory file system for {@code dir}
 * @param fio        run fio cross-checks where fio is (or can be) installed
 * @param installFio install fio with apt-get when missing (root only)
 * @param seed       seed of every random offset sequence
 * @param plots      draw PNGs (tests may turn this off to save time)
 * @param stableBudget {@code --repeat-until-stable}: how much time in all the run may spend on extra interleaved
 *                   repetitions of undecided workloads ({@link Duration#ZERO}: none)
 */
public record SuiteOptions(Path dir, Path out, Scale scale, List<String> only, boolean allowTmpfs, boolean fio,
                           boolean installFio, long seed, boolean plots, Duration stableBudget) {
    /** Sizes and repetitions: TINY for tests, QUICK (default, at most ~3 minutes), FULL (the NIO article's sizes). */
    public enum Scale { TINY, QUICK, FULL }

    /** Measured repetitions per cell, after one unmeasured warm-up. */
    public static final int REPS = 5;

    /** Repetitions a contest may grow to under {@code --repeat-until-stable}. */
    public static final int MAX_REPS = 30;

    public SuiteOptions {
        if (dir == null) throw new IllegalArgumentException("dir must be set");
        if (scale == null) throw new IllegalArgumentException("scale must be set");
        if (stableBudget == null || stableBudget.isNegative()) {
            throw new IllegalArgumentException("stableBudget must be zero or positive: stableBudget=" + stableBudget);
        }
        only = List.copyOf(only);
    }

    /** Options without {@code --repeat-until-stable}. */
    public SuiteOptions(Path dir, Path out, Scale scale, List<String> only, boolean allowTmpfs, boolean fio,
                        boolean installFio, long seed, boolean plots) {
        this(dir, out, scale, only, allowTmpfs, fio, installFio, seed, plots, Duration.ZERO);
    }

    /** Default options for {@code dir}: quick, all experiments, fio on. */
    public static SuiteOptions defaults(Path dir, long seed) {
        return new SuiteOptions(dir, null, Scale.QUICK, List.of(), false, true, true, seed, true);
    }

    public SuiteOptions withScale(Scale s) {
        return new SuiteOptions(dir, out, s, only, allowTmpfs, fio, installFio, seed, plots, stableBudget);
    }

    public SuiteOptions withOnly(List<String> names) {
        return new SuiteOptions(dir, out, scale, names, allowTmpfs, fio, installFio, seed, plots, stableBudget);
    }

    public SuiteOptions withOut(Path o) {
        return new SuiteOptions(dir, o, scale, only, allowTmpfs, fio, installFio, seed, plots, stableBudget);
    }

    public SuiteOptions withFio(boolean f, boolean install) {
        return new SuiteOptions(dir, out, scale, only, allowTmpfs, f, install, seed, plots, stableBudget);
    }

    public SuiteOptions withAllowTmpfs(boolean a) {
        return new SuiteOptions(dir, out, scale, only, a, fio, installFio, seed, plots, stableBudget);
    }

    /** {@code --repeat-until-stable} with at most {@code budget} of extra repetitions ({@code ZERO}: off). */
    public SuiteOptions withStableBudget(Duration budget) {
        return new SuiteOptions(dir, out, scale, only, allowTmpfs, fio, installFio, seed, plots, budget);
    }

    /** True under {@code --repeat-until-stable}. */
    public boolean untilStable() {
        return !stableBudget.isZero();
    }

    public SuiteOptions withPlots(boolean p) {
        return new SuiteOptions(dir, out, scale, only, allowTmpfs, fio, installFio, seed, p, stableBudget);
    }

    /** {@code quick}, {@code tiny} or {@code full}. */
    public String scaleName() {
        return scale.name().toLowerCase(java.util.Locale.ROOT);
    }
}
