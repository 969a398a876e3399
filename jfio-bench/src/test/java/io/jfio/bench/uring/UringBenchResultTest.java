package io.jfio.bench.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.bench.JsonText;
import io.jfio.bench.Stats;
import io.jfio.bench.system.SystemInfo;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The computed target checks and fio flags, on made-up numbers (no timing). */
class UringBenchResultTest {
    private static CellResult cell(CacheMode mode, Method m, int depth, double... iops) {
        return new CellResult(mode, m, depth, iops, Stats.summarize(iops), Stats.Latency.NONE, Double.NaN,
                Double.NaN, 1000, 0, List.of());
    }

    private static UringBenchResult result(List<CellResult> cells) {
        UringBenchOptions o = UringBenchOptions.builder().dir(Path.of(".")).seed(1).reps(3).build();
        SystemInfo sys = new SystemInfo("6.18", "ext4 (/dev/vda)", "vda", "1", "mq-deadline", "8192", "24 GiB",
                "cpu", 2, "25", "0.00 0.00 0.00");
        return new UringBenchResult(o, sys, List.of("setup"), cells, List.of(), 1.0);
    }

    @Test
    void targetsPassAndFailOnTheMedianRatios() {
        List<CellResult> cells = new ArrayList<>();
        cells.add(cell(CacheMode.COLD, UringBench.RECOMMENDED, 32, 96, 100, 104));
        cells.add(cell(CacheMode.COLD, Method.FIO_URING, 32, 99, 100, 101));
        cells.add(cell(CacheMode.COLD, Method.FILECHANNEL, 1, 30, 35, 40));
        cells.add(cell(CacheMode.DIRECT, UringBench.RECOMMENDED, 32, 80, 90, 100));
        cells.add(cell(CacheMode.DIRECT, Method.FIO_URING, 32, 100, 100, 100));
        UringBenchResult r = result(cells);
        List<UringBenchResult.Check> checks = r.checks();
        assertEquals(4, checks.size());
        assertEquals(UringBenchResult.Status.PASS, checks.get(0).status(), checks.get(0).line());
        assertEquals(1.0, checks.get(0).ratio(), 1e-9);
        assertEquals(UringBenchResult.Status.FAIL, checks.get(1).status(), checks.get(1).line());
        assertEquals(0.9, checks.get(1).ratio(), 1e-9);
        assertEquals(UringBenchResult.Status.SKIP, checks.get(2).status(), "no hot cells: " + checks.get(2).line());
        assertEquals(UringBenchResult.Status.FAIL, checks.get(3).status(), "100 / 35 < 3: " + checks.get(3).line());
        String md = r.markdown();
        assertTrue(md.contains("PASS cold buffered, depth 32"), md);
        assertTrue(md.contains("FAIL O_DIRECT, depth 32"), md);
    }

    @Test
    void flagsJavaPathsMoreThanTenPercentFromTheirFioEquivalent() {
        List<CellResult> cells = new ArrayList<>();
        cells.add(cell(CacheMode.HOT, Method.FILECHANNEL, 1, 100));
        cells.add(cell(CacheMode.HOT, Method.FIO_PSYNC, 1, 120));
        cells.add(cell(CacheMode.HOT, Method.URING, 32, 95));
        cells.add(cell(CacheMode.HOT, Method.FIO_URING, 32, 100));
        cells.add(cell(CacheMode.HOT, Method.THREADS, 32, 10));
        UringBenchResult r = result(cells);
        List<String> flags = r.flags();
        assertEquals(1, flags.size(), flags.toString());
        assertTrue(flags.get(0).contains("FileChannel 1 thread") && flags.get(0).contains("fio psync"), flags.get(0));
        assertTrue(r.table().contains("0.83 ⚠"), r.table());
        assertTrue(r.table().contains("0.95 "), r.table());
    }

    @Test
    void jsonCarriesCellsChecksAndRatios() {
        List<CellResult> cells = List.of(cell(CacheMode.DIRECT, Method.URING, 32, 50),
                cell(CacheMode.DIRECT, Method.FIO_URING, 32, 100));
        Object j = JsonText.parse(result(cells).toJson());
        assertEquals("uring", JsonText.at(j, "benchmark"));
        assertEquals(0.5, JsonText.number(j, "cells", 0, "ratio_to_fio"), 1e-9);
        assertEquals("direct", JsonText.at(j, "cells", 0, "mode"));
        assertEquals("SKIP", JsonText.at(j, "checks", 0, "status"));
        assertEquals(1L, JsonText.at(j, "options", "seed"));
        assertTrue(JsonText.at(j, "system", "kernel") instanceof String);
        assertEquals(Set.of(), Set.copyOf((List<?>) JsonText.at(j, "warnings")));
    }

    @Test
    void scalingTableStatesEachFactorAndChecksTheEngineAgainstNinetyPercentPerCpu() {
        UringBenchOptions o = UringBenchOptions.builder().dir(Path.of(".")).seed(1).reps(3).build();
        SystemInfo sys = new SystemInfo("6.18", "ext4 (/dev/vda)", "vda", "1", "mq-deadline", "8192", "24 GiB",
                "cpu", 2, "25", "0.00 0.00 0.00");
        List<Scaling.Row> rows = List.of(
                new Scaling.Row(Scaling.Kind.ENGINE, 32, 2, new double[] {100, 90, 110}, new double[] {170, 190, 185},
                        1, 2),
                new Scaling.Row(Scaling.Kind.FILECHANNEL, 32, 2, new double[] {100, 100, 100},
                        new double[] {150, 150, 150}, 0, 0));
        UringBenchResult r = new UringBenchResult(o, sys, List.of("setup"), List.of(), List.of(), 1.0, rows);
        UringBenchResult.Check c = r.checks().get(r.checks().size() - 1);
        assertEquals(UringBenchResult.Status.PASS, c.status(), c.line());
        assertEquals(1.85, c.ratio(), 1e-9);
        assertTrue(c.detail().contains("FileChannel threads scaled 1.50x"), c.line());
        String md = r.markdown();
        assertTrue(md.contains("| jfio io_uring readFixed, callbacks (rings 1 / 2) | 100 | 185 | 1.85x |"), md);
        assertTrue(md.contains("| FileChannel, platform threads | 100 | 150 | 1.50x |"), md);
        assertTrue(r.toJson().contains("\"scaling\""), r.toJson());

        List<Scaling.Row> slow = List.of(new Scaling.Row(Scaling.Kind.ENGINE, 32, 2, new double[] {100},
                new double[] {170}, 1, 2));
        UringBenchResult f = new UringBenchResult(o, sys, List.of("setup"), List.of(), List.of(), 1.0, slow);
        assertEquals(UringBenchResult.Status.FAIL, f.checks().get(f.checks().size() - 1).status());
    }

    @Test
    void scalingPinsToTheFirstAllowedCpu() {
        assertEquals("0", Scaling.firstCpu("0-1"));
        assertEquals("4", Scaling.firstCpu("4,6-7"));
        assertEquals("12", Scaling.firstCpu("12"));
    }
}
