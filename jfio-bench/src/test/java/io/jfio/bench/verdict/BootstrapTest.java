package io.jfio.bench.verdict;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The bootstrap of a ratio of medians: exact point ratio, reproducible intervals, stable bounds, edge cases. */
class BootstrapTest {
    private static final double[] A = {2.0, 2.1, 1.9, 2.05, 1.95};
    private static final double[] B = {1.0, 1.05, 0.95, 1.02, 0.98};

    @Test
    void pointRatioIsTheRatioOfTheMedians() {
        RatioInterval r = Bootstrap.ratioOfMedians(A, B, 1);
        assertEquals(2.0 / 1.0, r.ratio(), 1e-12);
        assertTrue(r.low() <= r.ratio() && r.ratio() <= r.high(), r.text());
        assertTrue(r.above1(), r.text());
    }

    @Test
    void sameSeedGivesTheSameInterval() {
        assertEquals(Bootstrap.ratioOfMedians(A, B, 7), Bootstrap.ratioOfMedians(A, B, 7));
    }

    @Test
    void boundsBarelyMoveBetweenSeeds() {
        SplittableRandom rnd = new SplittableRandom(20261127L);
        double[] a = rnd.doubles(40, 90, 130).toArray();
        double[] b = rnd.doubles(40, 100, 140).toArray();
        RatioInterval x = Bootstrap.ratioOfMedians(a, b, 1);
        RatioInterval y = Bootstrap.ratioOfMedians(a, b, 2);
        assertEquals(x.low(), y.low(), x.ratio() * 0.01, x.text() + " vs " + y.text());
        assertEquals(x.high(), y.high(), x.ratio() * 0.01, x.text() + " vs " + y.text());
    }

    @Test
    void swappingTheSidesInvertsTheRatio() {
        RatioInterval r = Bootstrap.ratioOfMedians(A, B, 3);
        RatioInterval s = Bootstrap.ratioOfMedians(B, A, 3);
        assertEquals(1 / r.ratio(), s.ratio(), 1e-12);
        assertTrue(s.below1(), s.text());
    }

    @Test
    void identicalSamplesGiveADegenerateIntervalAtOne() {
        double[] v = {5, 5, 5, 5, 5};
        RatioInterval r = Bootstrap.ratioOfMedians(v, v.clone(), 1);
        assertEquals(1.0, r.ratio());
        assertEquals(1.0, r.low());
        assertEquals(1.0, r.high());
        assertFalse(r.excludes1());
    }

    @Test
    void singleValuesGiveTheirRatioWithNoWidth() {
        RatioInterval r = Bootstrap.ratioOfMedians(new double[] {3}, new double[] {2}, 1);
        assertEquals(1.5, r.ratio());
        assertEquals(1.5, r.low());
        assertEquals(1.5, r.high());
    }

    @Test
    void zeroMediansAndBadValuesHaveNoRatio() {
        assertFalse(Bootstrap.ratioOfMedians(new double[] {0, 0, 0}, new double[] {0, 0, 0}, 1).defined());
        assertFalse(Bootstrap.ratioOfMedians(A, new double[] {0, 0, 1}, 1).defined());
        assertFalse(Bootstrap.ratioOfMedians(A, new double[] {}, 1).defined());
        assertFalse(Bootstrap.ratioOfMedians(A, new double[] {1, Double.NaN, 1}, 1).defined());
        assertFalse(Bootstrap.ratioOfMedians(A, new double[] {1, -1, 1}, 1).defined());
    }

    @Test
    void aZeroInASideMakesTheUpperBoundUnboundedNotAnError() {
        RatioInterval r = Bootstrap.ratioOfMedians(A, new double[] {0, 1, 1}, 1);
        assertEquals(2.0, r.ratio(), 1e-12);
        assertTrue(r.high() > r.ratio(), r.text());
    }

    @Test
    void medianSelectionMatchesSorting() {
        SplittableRandom rnd = new SplittableRandom(99);
        for (int n = 1; n < 60; n++) {
            double[] v = rnd.doubles(n, 0, 10).map(Math::floor).toArray(); // ties included
            double[] s = v.clone();
            Arrays.sort(s);
            double want = (n & 1) == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
            assertEquals(want, Bootstrap.median(v.clone()), 0.0, "n=" + n + " " + Arrays.toString(v));
        }
    }

    @Test
    void boundsJustAboveOnePrintWithThreeDecimals() {
        assertEquals("1.004x (95% CI 1.001-1.14)", new RatioInterval(1.004, 1.0009, 1.14, 1).text());
        assertEquals("2.00x (95% CI 0.50-12.3)", new RatioInterval(2, 0.5, 12.3, 1).text());
        assertEquals("0.995", RatioInterval.fmt(0.995));
    }

    @Test
    void thousandsOfSamplesStayFast() {
        SplittableRandom rnd = new SplittableRandom(5);
        double[] a = rnd.doubles(2000, 1, 2).toArray();
        double[] b = rnd.doubles(2000, 1, 2).toArray();
        long t0 = System.nanoTime();
        RatioInterval r = Bootstrap.ratioOfMedians(a, b, 1);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(r.defined());
        // a generous bound: this guards against an accidental quadratic median, not a performance target
        assertTrue(ms < 20_000, "took " + ms + " ms");
    }
}
