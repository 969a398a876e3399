package io.jfio.bench;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * Statistics for repeated measurements: median and spread of per-repetition throughput, and latency percentiles
 * from an HdrHistogram.
 *
 * <p>Thread-safe; stateless.
 */
public final class Stats {
    private Stats() {
    }

    /**
     * Five-number summary of repeated measurements.
     *
     * @param n      repetitions
     * @param min    smallest value
     * @param q1     first quartile
     * @param median the median (mean of the two middle values for an even count)
     * @param q3     third quartile
     * @param max    largest value
     */
    public record Summary(int n, double min, double q1, double median, double q3, double max) {
        /** Interquartile range. */
        public double iqr() {
            return q3 - q1;
        }

        /** {@code (max - min) / median}, 0 for a single value, NaN when the median is 0. */
        public double relativeSpread() {
            return median == 0 ? Double.NaN : (max - min) / median;
        }

        /** The summary as a JSON-ready map. */
        public Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("n", n);
            m.put("min", min);
            m.put("q1", q1);
            m.put("median", median);
            m.put("q3", q3);
            m.put("max", max);
            return m;
        }
    }

    /** Summarizes {@code values} (not modified). Quartiles interpolate linearly between order statistics. */
    public static Summary summarize(double... values) {
        if (values.length == 0) throw new IllegalArgumentException("no values to summarize");
        double[] v = values.clone();
        Arrays.sort(v);
        return new Summary(v.length, v[0], quantile(v, 0.25), quantile(v, 0.5), quantile(v, 0.75), v[v.length - 1]);
    }

    /** The median of {@code values} (not modified). */
    public static double median(double... values) {
        return summarize(values).median();
    }

    /**
     * The {@code q} quantile (0..1) of sorted values, interpolating between the two nearest order statistics (the
     * "type 7" definition of R and NumPy's default), so the median of an even count is the mean of the middle two.
     */
    public static double quantile(double[] sorted, double q) {
        if (sorted.length == 0) throw new IllegalArgumentException("no values");
        if (q < 0 || q > 1) throw new IllegalArgumentException("quantile out of 0..1: q=" + q);
        double pos = q * (sorted.length - 1);
        int lo = (int) Math.floor(pos);
        int hi = Math.min(lo + 1, sorted.length - 1);
        double frac = pos - lo;
        return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
    }

    /**
     * Latency percentiles in nanoseconds.
     *
     * @param count samples
     * @param p50   median
     * @param p99   99th percentile
     * @param p999  99.9th percentile
     * @param max   largest sample
     * @param mean  mean
     */
    public record Latency(long count, double p50, double p99, double p999, double max, double mean) {
        /** No samples. */
        public static final Latency NONE = new Latency(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN);

        /** Extracts percentiles from a histogram of nanosecond values. */
        public static Latency of(Histogram h) {
            if (h.getTotalCount() == 0) return NONE;
            return new Latency(h.getTotalCount(), h.getValueAtPercentile(50), h.getValueAtPercentile(99),
                    h.getValueAtPercentile(99.9), h.getMaxValue(), h.getMean());
        }

        /** The percentiles as a JSON-ready map, in nanoseconds. */
        public Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("count", count);
            m.put("p50_ns", p50);
            m.put("p99_ns", p99);
            m.put("p99_9_ns", p999);
            m.put("max_ns", max);
            m.put("mean_ns", mean);
            return m;
        }
    }

    /** A histogram for nanosecond latencies from 1 ns to 60 s with two significant digits (1% resolution). */
    public static Histogram newLatencyHistogram() {
        return new Histogram(1, 60_000_000_000L, 2);
    }
}
