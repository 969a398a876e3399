package io.jfio.bench.suite;

import io.jfio.bench.Stats;

/**
 * Repeats a measurement: one unmeasured warm-up run, then {@link SuiteOptions#REPS} measured ones; the result is
 * the five-number summary of the measured values (median and spread).
 *
 * <p>Thread-safe; stateless.
 */
public final class Measure {
    private Measure() {
    }

    /** One repetition; returns its value (e.g. seconds, GB/s, ns per call). */
    @FunctionalInterface
    public interface Rep {
        double run() throws Exception;
    }

    /** Runs {@code setup} before each repetition, untimed; {@code rep} times itself and returns its value. */
    @FunctionalInterface
    public interface Setup {
        void run() throws Exception;
    }

    /** Warm-up once, then {@code reps} measured repetitions, each after {@code setup}. */
    public static Stats.Summary repeat(int reps, Setup setup, Rep rep) throws Exception {
        setup.run();
        rep.run();
        double[] v = new double[reps];
        for (int i = 0; i < reps; i++) {
            setup.run();
            v[i] = rep.run();
        }
        return Stats.summarize(v);
    }

    /** Bytes per second as decimal GB/s (10^9 bytes per second). */
    public static double gbPerSecond(long bytes, long nanos) {
        return nanos <= 0 ? Double.NaN : bytes / (double) nanos;
    }

    /** {@code (max - min) / median} as a percentage, for the "spread_pct" columns. */
    public static double spreadPct(Stats.Summary s) {
        return s.relativeSpread() * 100;
    }
}
