package io.jfio.bench.verdict;

/**
 * One way of doing a workload, with the value of each of its measured repetitions and the code a user writes to
 * use it.
 *
 * <p>Immutable (the samples array is copied in and out).
 *
 * @param name       as the report names it, e.g. {@code "jfio io_uring"}
 * @param code       the call to use, e.g. {@code "IoFile.readAsync(segment, position)"}
 * @param link       where that call is documented: a URL, or a path relative to the jfio source tree
 * @param jdkDefault true for the JDK's default way (FileChannel, Files.copy, WatchService)
 * @param samples    one value per measured repetition, in the unit of its contest
 */
public record Contender(String name, String code, String link, boolean jdkDefault, double[] samples) {
    public Contender {
        if (name == null || name.isBlank()) throw new IllegalArgumentException("a contender needs a name");
        samples = samples.clone();
    }

    @Override
    public double[] samples() {
        return samples.clone();
    }

    /** The median of the samples, NaN when there are none. */
    public double median() {
        return samples.length == 0 ? Double.NaN : Bootstrap.median(samples.clone());
    }

    /** {@code (max - min) / median}; 0 for one sample, NaN without samples or with a zero median. */
    public double relativeSpread() {
        if (samples.length == 0) return Double.NaN;
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        for (double d : samples) {
            min = Math.min(min, d);
            max = Math.max(max, d);
        }
        double med = median();
        return med == 0 ? Double.NaN : (max - min) / med;
    }

    /**
     * The {@code q} quantile of the samples (type 7, linear between order statistics), NaN when there are none: for
     * contests of events, whose spread is quoted as the 25th to 75th percentile.
     */
    public double quantile(double q) {
        if (samples.length == 0) return Double.NaN;
        double[] s = samples.clone();
        java.util.Arrays.sort(s);
        double pos = q * (s.length - 1);
        int lo = (int) Math.floor(pos);
        int hi = Math.min(lo + 1, s.length - 1);
        return s[lo] + (s[hi] - s[lo]) * (pos - lo);
    }

    /** {@code (p75 - p25) / median}; NaN without samples or with a zero median. */
    public double interquartileSpread() {
        double med = median();
        return samples.length == 0 || med == 0 ? Double.NaN : (quantile(0.75) - quantile(0.25)) / med;
    }

    /** True when every sample is a finite number (a contender that failed has none). */
    public boolean measured() {
        if (samples.length == 0) return false;
        for (double d : samples) {
            if (!Double.isFinite(d)) return false;
        }
        return true;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Contender c && c.name.equals(name) && c.code.equals(code) && c.link.equals(link)
                && c.jdkDefault == jdkDefault && java.util.Arrays.equals(c.samples, samples);
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(name, code, link, jdkDefault, java.util.Arrays.hashCode(samples));
    }

    @Override
    public String toString() {
        return "Contender[" + name + " n=" + samples.length + " median=" + median() + "]";
    }
}
