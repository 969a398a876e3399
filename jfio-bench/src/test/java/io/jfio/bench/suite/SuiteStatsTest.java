package io.jfio.bench.suite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.bench.Stats;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class SuiteStatsTest {
    @Test
    void shouldTakeTheP99OfOneToHundredAsNinetyNineNotTheValueOneIndexLater() {
        // The classic off-by-one: sorted[(int) (0.99 * n)] gives 100 for 1..100; the 99th percentile is 99.
        Histogram h = Stats.newLatencyHistogram();
        for (int i = 1; i <= 100; i++) h.recordValue(i * 1000L);
        assertEquals(99_000, h.getValueAtPercentile(99), 500, "must be 99, not the next value 100");
        assertEquals(50_000, h.getValueAtPercentile(50), 500);
        assertEquals(1_000, h.getValueAtPercentile(0), 10);
        double[] sorted = new double[100];
        for (int i = 0; i < 100; i++) sorted[i] = i + 1;
        assertEquals(50.5, Stats.quantile(sorted, 0.5), 1e-9);
        assertEquals(99.01, Stats.quantile(sorted, 0.99), 1e-9);
    }

    @Test
    void shouldReportMedianAndSpreadOfFiveRepetitionsAfterAnUnmeasuredWarmUp() throws Exception {
        int[] calls = {0};
        double[] values = {100, 1, 2, 3, 4, 5}; // the first (warm-up) value must not count
        Stats.Summary s = Measure.repeat(5, () -> { }, () -> values[calls[0]++]);
        assertEquals(6, calls[0]);
        assertEquals(5, s.n());
        assertEquals(3, s.median(), 1e-9);
        assertEquals(1, s.min(), 1e-9);
        assertEquals(100.0 * 4 / 3, Measure.spreadPct(s), 1e-9);
    }

    @Test
    void shouldComputeGigabytesPerSecondInDecimalUnits() {
        assertEquals(1.0, Measure.gbPerSecond(1_000_000_000L, 1_000_000_000L), 1e-12);
        assertEquals(2.0, Measure.gbPerSecond(1L << 30, 536_870_912L), 1e-12);
        assertTrue(Double.isNaN(Measure.gbPerSecond(1, 0)));
    }

    @Test
    void shouldFlagFioRatiosBeyondTenPercentEitherWay() {
        assertFalse(new FioCheck("c", "FileChannel", "fio psync", "GB/s", 1.09, 1.0, true).flagged());
        assertFalse(new FioCheck("c", "FileChannel", "fio psync", "GB/s", 0.91, 1.0, true).flagged());
        assertTrue(new FioCheck("c", "FileChannel", "fio psync", "GB/s", 1.11, 1.0, true).flagged());
        assertTrue(new FioCheck("c", "jfio io_uring", "fio io_uring", "GB/s", 0.5, 1.0, true).flagged());
        assertTrue(new FioCheck("c", "x", "y", "GB/s", 1, 0, true).flagged(), "a zero fio value cannot agree");
    }

    @Test
    void aFlaggedDifferenceSaysWhetherTheRunsOverlap() {
        FioCheck noise = new FioCheck("c", "FileChannel", "fio psync", "GB/s", 1.5, 1.2, true, 0.9, 1.9, 0.8, 1.7);
        assertTrue(noise.flagged() && noise.withinSpread());
        assertTrue(noise.line().contains("runs: ours 0.900–1.90, fio 0.800–1.70") && noise.line().contains(
                "within the run-to-run spread"), noise.line());
        FioCheck real = new FioCheck("c", "FileChannel", "fio psync", "GB/s", 1.8, 0.3, true, 1.7, 1.9, 0.28, 0.35);
        assertTrue(real.flagged() && !real.withinSpread());
        assertTrue(real.line().endsWith("beyond the run-to-run spread"), real.line());
        FioCheck single = new FioCheck("c", "x", "y", "GB/s", 1.8, 0.3, true);
        assertFalse(single.withinSpread());
        assertTrue(single.line().endsWith("DIFFERS by more than 10%"), single.line());
    }

    @Test
    void shouldJudgeResidencyAgainstTheWantedCacheState() {
        assertTrue(new CacheState(CacheState.Cache.COLD, 0.0).ok());
        assertFalse(new CacheState(CacheState.Cache.COLD, 0.5).ok());
        assertTrue(new CacheState(CacheState.Cache.COLD, 0.5).label().contains("NOT COLD"));
        assertTrue(new CacheState(CacheState.Cache.HOT, 1.0).ok());
        assertFalse(new CacheState(CacheState.Cache.HOT, 0.9).ok());
    }

    @Test
    void shouldFormatTableNumbersAndRejectRowsOfTheWrongWidth() {
        Table t = new Table("t", "a_bytes", "b_gb_per_s");
        t.add(1_048_576L, 1.23456);
        assertTrue(t.markdown().contains("| 1,048,576 | 1.23 |"), t.markdown());
        assertEquals("-", Table.format(Double.NaN));
        try {
            t.add(1);
            throw new AssertionError("a short row was accepted");
        } catch (IllegalArgumentException expected) {
            assertTrue(expected.getMessage().contains("1 cells"));
        }
    }
}
