package io.jfio.bench.verdict;

import java.util.Locale;

/**
 * A ratio of two medians with its bootstrap confidence interval: {@code ratio} is the point estimate from all
 * samples, {@code low}..{@code high} the central {@link Bootstrap#CONFIDENCE} interval of the resampled ratios. NaN
 * throughout when no ratio exists (a median at or below zero, a value that is not finite, an empty side).
 *
 * <p>Immutable.
 *
 * @param ratio     median(numerator) / median(denominator)
 * @param low       lower bound of the interval
 * @param high      upper bound of the interval
 * @param resamples how many bootstrap resamples the interval comes from (0: none, a degenerate interval)
 */
public record RatioInterval(double ratio, double low, double high, int resamples) {
    /** No ratio exists. */
    public static final RatioInterval NONE = new RatioInterval(Double.NaN, Double.NaN, Double.NaN, 0);

    /** True when there is a ratio. */
    public boolean defined() {
        return Double.isFinite(ratio) && Double.isFinite(low) && Double.isFinite(high);
    }

    /** True when the whole interval lies above 1.0: the numerator is larger, beyond this run's noise. */
    public boolean above1() {
        return defined() && low > 1.0;
    }

    /** True when the whole interval lies below 1.0. */
    public boolean below1() {
        return defined() && high < 1.0;
    }

    /** True when the interval excludes 1.0 either way. */
    public boolean excludes1() {
        return above1() || below1();
    }

    /** The reciprocal ratio (denominator over numerator), its bounds swapped. */
    public RatioInterval inverse() {
        return defined() ? new RatioInterval(1 / ratio, 1 / high, 1 / low, resamples) : this;
    }

    /** {@code 1.83x (95% CI 1.52-2.10)}, or {@code n/a}. */
    public String text() {
        if (!defined()) return "n/a";
        return String.format(Locale.ROOT, "%sx (95%% CI %s-%s)", fmt(ratio), fmt(low), fmt(high));
    }

    /**
     * Two decimals below 10, one below 100, none above; three within 1% of 1.0, so that a bound just above 1.0 does
     * not print as 1.00.
     */
    public static String fmt(double x) {
        if (!Double.isFinite(x)) return "-";
        double a = Math.abs(x);
        if (a > 0.99 && a < 1.01) return String.format(Locale.ROOT, "%.3f", x);
        return String.format(Locale.ROOT, a < 10 ? "%.2f" : a < 100 ? "%.1f" : "%.0f", x);
    }
}
