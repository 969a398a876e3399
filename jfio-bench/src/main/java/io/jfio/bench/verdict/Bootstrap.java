package io.jfio.bench.verdict;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The percentile bootstrap of a ratio of medians: both sides are resampled with replacement, independently, each
 * resample's median(numerator) / median(denominator) is kept, and the central {@link #CONFIDENCE} of those ratios
 * is the interval. Deterministic for a given seed ({@link SplittableRandom}); medians use a selection in linear
 * time, so {@link #RESAMPLES} resamples of a few thousand values take milliseconds.
 *
 * <p>Thread-safe; stateless.
 */
public final class Bootstrap {
    /** The confidence of the intervals. */
    public static final double CONFIDENCE = 0.95;
    /**
     * Resamples per interval: with 10,000 the bounds move by well under 1% from one seed to another (checked by
     * BootstrapTest), and five samples a side take about a millisecond.
     */
    public static final int RESAMPLES = 10_000;

    private Bootstrap() {
    }

    /** {@link #ratioOfMedians(double[], double[], long, int)} with {@link #RESAMPLES}. */
    public static RatioInterval ratioOfMedians(double[] numerator, double[] denominator, long seed) {
        return ratioOfMedians(numerator, denominator, seed, RESAMPLES);
    }

    /**
     * The ratio median(numerator) / median(denominator) with its {@link #CONFIDENCE} interval from
     * {@code resamples} resamples. {@link RatioInterval#NONE} when a side is empty, holds a value that is not finite,
     * or has a median at or below zero; a side with one value is resampled like any other (its median never moves),
     * so two single values give a degenerate interval at their ratio.
     */
    public static RatioInterval ratioOfMedians(double[] numerator, double[] denominator, long seed, int resamples) {
        if (resamples < 100) throw new IllegalArgumentException("too few resamples: resamples=" + resamples);
        if (!usable(numerator) || !usable(denominator)) return RatioInterval.NONE;
        double num = median(numerator.clone());
        double den = median(denominator.clone());
        if (!(num > 0) || !(den > 0)) return RatioInterval.NONE;
        SplittableRandom rnd = new SplittableRandom(seed);
        double[] a = new double[numerator.length];
        double[] b = new double[denominator.length];
        double[] ratios = new double[resamples];
        int n = 0;
        for (int i = 0; i < resamples; i++) {
            for (int k = 0; k < a.length; k++) a[k] = numerator[rnd.nextInt(a.length)];
            for (int k = 0; k < b.length; k++) b[k] = denominator[rnd.nextInt(b.length)];
            double mb = median(b);
            // a resample of a side whose values include zeros can have a zero median: that ratio is unbounded
            ratios[n++] = mb > 0 ? median(a) / mb : Double.POSITIVE_INFINITY;
        }
        Arrays.sort(ratios, 0, n);
        double tail = (1 - CONFIDENCE) / 2;
        double low = quantile(ratios, n, tail);
        double high = quantile(ratios, n, 1 - tail);
        return new RatioInterval(num / den, Math.min(low, num / den), Math.max(high, num / den), resamples);
    }

    /**
     * The same ratio of medians for paired samples: {@code numerator[i]} and {@code denominator[i]} were measured in
     * the same round of an interleaved run. Rounds are resampled as pairs (one index drawn for both sides), so what
     * a round did to both alike (another job starting, the disk's cache filling) stays within the pair and does not
     * widen the interval. Falls back to {@link #ratioOfMedians(double[], double[], long, int)} when the lengths
     * differ.
     */
    public static RatioInterval pairedRatioOfMedians(double[] numerator, double[] denominator, long seed,
                                                     int resamples) {
        if (numerator.length != denominator.length) {
            return ratioOfMedians(numerator, denominator, seed, resamples);
        }
        if (resamples < 100) throw new IllegalArgumentException("too few resamples: resamples=" + resamples);
        if (!usable(numerator) || !usable(denominator)) return RatioInterval.NONE;
        double num = median(numerator.clone());
        double den = median(denominator.clone());
        if (!(num > 0) || !(den > 0)) return RatioInterval.NONE;
        SplittableRandom rnd = new SplittableRandom(seed);
        int n = numerator.length;
        double[] a = new double[n];
        double[] b = new double[n];
        double[] ratios = new double[resamples];
        for (int i = 0; i < resamples; i++) {
            for (int k = 0; k < n; k++) {
                int j = rnd.nextInt(n);
                a[k] = numerator[j];
                b[k] = denominator[j];
            }
            double mb = median(b);
            ratios[i] = mb > 0 ? median(a) / mb : Double.POSITIVE_INFINITY;
        }
        Arrays.sort(ratios);
        double tail = (1 - CONFIDENCE) / 2;
        double low = quantile(ratios, resamples, tail);
        double high = quantile(ratios, resamples, 1 - tail);
        return new RatioInterval(num / den, Math.min(low, num / den), Math.max(high, num / den), resamples);
    }

    private static boolean usable(double[] v) {
        if (v == null || v.length == 0) return false;
        for (double d : v) {
            if (!Double.isFinite(d) || d < 0) return false;
        }
        return true;
    }

    /** The median of {@code v}, reordering it (the mean of the two middle values for an even count). */
    static double median(double[] v) {
        int n = v.length;
        double hi = select(v, n / 2);
        if ((n & 1) == 1) return hi;
        // after select, everything left of n/2 is <= v[n/2]: the lower middle is their maximum
        double lo = v[0];
        for (int i = 1; i < n / 2; i++) lo = Math.max(lo, v[i]);
        return (lo + hi) / 2;
    }

    /** Hoare's selection: puts the k-th smallest at index k, smaller ones left of it, larger ones right. */
    private static double select(double[] v, int k) {
        int lo = 0;
        int hi = v.length - 1;
        while (lo < hi) {
            double pivot = v[(lo + hi) >>> 1];
            int i = lo;
            int j = hi;
            while (i <= j) {
                while (v[i] < pivot) i++;
                while (v[j] > pivot) j--;
                if (i <= j) {
                    double t = v[i];
                    v[i] = v[j];
                    v[j] = t;
                    i++;
                    j--;
                }
            }
            if (k <= j) {
                hi = j;
            } else if (k >= i) {
                lo = i;
            } else {
                return v[k];
            }
        }
        return v[k];
    }

    /** Type-7 quantile of the first {@code n} sorted values. */
    private static double quantile(double[] sorted, int n, double q) {
        double pos = q * (n - 1);
        int lo = (int) Math.floor(pos);
        int hi = Math.min(lo + 1, n - 1);
        if (Double.isInfinite(sorted[hi]) || Double.isInfinite(sorted[lo])) return sorted[hi];
        return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
    }
}
