package io.jfio.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class StatsTest {
    @Test
    void medianOfAnOddCountIsTheMiddleValue() {
        assertEquals(3.0, Stats.median(5, 1, 3, 4, 2));
    }

    @Test
    void medianOfAnEvenCountIsTheMeanOfTheMiddleTwo() {
        assertEquals(2.5, Stats.median(4, 1, 3, 2));
    }

    @Test
    void summaryReportsMinMaxAndInterpolatedQuartiles() {
        Stats.Summary s = Stats.summarize(10, 50, 20, 40, 30);
        assertEquals(5, s.n());
        assertEquals(10, s.min());
        assertEquals(20, s.q1());
        assertEquals(30, s.median());
        assertEquals(40, s.q3());
        assertEquals(50, s.max());
        assertEquals(20, s.iqr());
        assertEquals(40.0 / 30.0, s.relativeSpread(), 1e-12);
    }

    @Test
    void quartilesInterpolateBetweenOrderStatistics() {
        double[] sorted = {1, 2, 3, 4};
        assertEquals(1.75, Stats.quantile(sorted, 0.25), 1e-12);
        assertEquals(2.5, Stats.quantile(sorted, 0.5), 1e-12);
        assertEquals(3.25, Stats.quantile(sorted, 0.75), 1e-12);
        assertEquals(1, Stats.quantile(sorted, 0), 1e-12);
        assertEquals(4, Stats.quantile(sorted, 1), 1e-12);
    }

    @Test
    void singleValueHasNoSpread() {
        Stats.Summary s = Stats.summarize(7);
        assertEquals(7, s.median());
        assertEquals(0, s.relativeSpread());
    }

    @Test
    void summarizeDoesNotReorderTheCallersArray() {
        double[] v = {3, 1, 2};
        Stats.summarize(v);
        assertEquals(3, v[0]);
        assertEquals(1, v[1]);
    }

    @Test
    void emptyInputIsRejected() {
        assertThrows(IllegalArgumentException.class, Stats::summarize);
        assertThrows(IllegalArgumentException.class, () -> Stats.quantile(new double[] {1}, 1.5));
    }

    @Test
    void latencyPercentilesComeFromTheHistogramWithinItsResolution() {
        Histogram h = Stats.newLatencyHistogram();
        // 1..1000 microseconds, once each: p50 = 500 us, p99 = 990 us, max = 1000 us.
        for (int us = 1; us <= 1000; us++) h.recordValue(us * 1000L);
        Stats.Latency l = Stats.Latency.of(h);
        assertEquals(1000, l.count());
        assertEquals(500_000, l.p50(), 500_000 * 0.01);
        assertEquals(990_000, l.p99(), 990_000 * 0.01);
        assertEquals(999_000, l.p999(), 999_000 * 0.01);
        assertEquals(1_000_000, l.max(), 1_000_000 * 0.01);
        assertEquals(500_500, l.mean(), 500_500 * 0.01);
    }

    @Test
    void emptyHistogramHasNoPercentiles() {
        Stats.Latency l = Stats.Latency.of(Stats.newLatencyHistogram());
        assertSame(Stats.Latency.NONE, l);
        assertTrue(Double.isNaN(l.p50()));
    }
}
