package io.jfio.bench.copy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import io.jfio.core.sys.Statx;
import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The copy benchmark's data, statistics and verdicts, and a tiny end-to-end run with cp against itself. */
class CopyBenchTest {

    @Test
    void shouldDrawSizesFrom512BytesTo64KibAveragingAbout16Kb() {
        SplittableRandom r = new SplittableRandom(1);
        long sum = 0;
        int n = 200_000;
        int min = Integer.MAX_VALUE;
        int max = 0;
        for (int i = 0; i < n; i++) {
            int s = TreeGenerator.size(r.nextDouble());
            sum += s;
            min = Math.min(min, s);
            max = Math.max(max, s);
        }
        double mean = (double) sum / n;
        assertTrue(min >= 512 && max <= 65536, min + ".." + max);
        assertTrue(mean > 15_900 && mean < 16_500, "mean " + mean + ": 20,000 files would make about 324 MB");
    }

    @Test
    void shouldGenerateTheSameTreeForTheSameSeed(@TempDir Path dir) throws Exception {
        TreeGenerator.Tree a = TreeGenerator.tree(dir.resolve("a"), 500, 7);
        TreeGenerator.Tree b = TreeGenerator.tree(dir.resolve("b"), 500, 7);
        assertEquals(500, a.files().size());
        assertEquals(a.bytes(), b.bytes());
        for (int i = 0; i < 500; i += 37) {
            Path fa = a.files().get(i);
            Path fb = b.files().get(i);
            assertEquals(-1, Files.mismatch(fa, fb), "same seed, same content: " + fa);
        }
        try (Stream<Path> s = Files.walk(dir.resolve("a"))) {
            assertEquals(200 + 25 + 1, s.filter(Files::isDirectory).count(), "25 x 8 leaf directories");
        }
        Path big = dir.resolve("big");
        TreeGenerator.bigFile(big, (20 << 20) + 5, 7);
        assertEquals((20 << 20) + 5, Files.size(big));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment sx = arena.allocate(Statx.LAYOUT);
            assertEquals(0, LibC.statx(Fcntl.AT_FDCWD, arena.allocateFrom(big.toString()), 0,
                    Statx.STATX_BASIC_STATS, sx));
            assertTrue(Statx.blocks(sx) * 512 >= Files.size(big), "no holes");
        }
    }

    @Test
    void shouldTakeMediansAndJudgeTheTargets() {
        CopyBenchOptions o = CopyBenchOptions.builder().jfio(List.of("jfio")).modes(List.of("hot"))
                .contenders(List.of("cp", "jfio", "xcp")).build();
        List<CopyBench.Contender> c = List.of(new CopyBench.Contender("cp", "cp -a", List.of(), List.of()),
                new CopyBench.Contender("jfio", "jfio copy -a", List.of(), List.of()),
                new CopyBench.Contender("xcp", "xcp", List.of(), List.of()));
        CopyBenchResult r = new CopyBenchResult(o, c, 324_000_000L, 20_000, 4L << 30, true);
        for (double d : new double[] {1.0, 3.0, 2.0}) r.add("tree", "hot", "cp", d);
        for (double d : new double[] {0.9, 0.5, 0.6}) r.add("tree", "hot", "jfio", d);
        for (double d : new double[] {0.7, 0.7, 0.7}) r.add("tree", "hot", "xcp", d);
        for (double d : new double[] {10, 10, 10}) r.add("big", "hot", "cp", d);
        for (double d : new double[] {10.5, 10.6, 10.7}) r.add("big", "hot", "jfio", d);
        assertEquals(2.0, r.median("tree", "hot", "cp"));
        assertEquals(0.6, r.median("tree", "hot", "jfio"));
        List<String> v = r.verdicts();
        assertTrue(v.contains("PASS: tree hot: jfio 3.33x as fast as cp -a (target >= 1.00x)"), v.toString());
        assertTrue(v.contains("PASS: tree hot: jfio 0.600 s vs xcp 0.700 s (target: not slower)"), v.toString());
        assertTrue(v.contains("FAIL: large file hot: jfio 0.94x cp -a's throughput (target >= 0.95x)"), v.toString());
        r.add("big", "hot", "xcp", Double.NaN);
        assertTrue(Double.isNaN(r.median("big", "hot", "xcp")), "a failed run fails the cell");
        assertTrue(r.anyFailed());
        r.verify("tree", null);
        assertTrue(r.copiesCorrect());
        r.verify("big", "content differs at offset 3: x");
        assertFalse(r.copiesCorrect());
        StringWriter out = new StringWriter();
        r.print(new PrintWriter(out));
        assertTrue(out.toString().contains(
                "| tree | hot | jfio copy -a | 0.600 | 0.900, 0.500, 0.600 | 540 | 3.33x | - |"), out.toString());
        r.addCpu("tree", "hot", "cp", 0.02, 0.30);
        r.addCpu("tree", "hot", "cp", 0.04, 0.50);
        r.addCpu("tree", "hot", "cp", 0.03, 0.40);
        StringWriter out2 = new StringWriter();
        r.print(new PrintWriter(out2));
        assertTrue(out2.toString().contains("| 162 | 1.00x | 0.03 + 0.40 |"), out2.toString());
        // A failed run fails the cell: no CPU from the runs that worked either.
        r.addCpu("tree", "hot", "xcp", 0.01, 0.20);
        r.add("tree", "hot", "xcp", Double.NaN);
        StringWriter out3 = new StringWriter();
        r.print(new PrintWriter(out3));
        assertTrue(out3.toString().contains("| tree | hot | xcp | failed | 0.700, 0.700, 0.700, failed | - | - | - |"),
                out3.toString());
    }

    @Test
    void shouldRejectBadOptions() {
        assertThrows(IllegalArgumentException.class, () -> CopyBenchOptions.builder().contenders(List.of("rsync"))
                .build());
        assertThrows(IllegalArgumentException.class, () -> CopyBenchOptions.builder().modes(List.of("warm"))
                .build());
        assertThrows(IllegalArgumentException.class, () -> CopyBenchOptions.builder().reps(0).build());
        assertThrows(IllegalArgumentException.class, () -> CopyBenchOptions.builder().contenders(List.of("jfio"))
                .build(), "jfio needs a command");
        assertEquals(List.of("cp", "jfio"), CopyBenchOptions.parseList(" CP, jfio "));
        CopyBenchOptions q = CopyBenchOptions.builder().quick(true).contenders(List.of("cp")).build();
        assertEquals(CopyBenchOptions.FILES_QUICK, q.files());
        assertEquals(CopyBenchOptions.BIG_QUICK, q.bigSize());
    }

    @Test
    void shouldRunEndToEndWithCpAgainstItself(@TempDir Path dir) throws Exception {
        assumeTrue(Tools.find("cp", null) != null, "no cp");
        // cp twice (as "cp" and as a jfio stand-in), hot only: no page cache dropping in a test
        CopyBenchOptions o = CopyBenchOptions.builder().dir(dir).files(300).bigSize(3 << 20).reps(1)
                .modes(List.of("hot")).contenders(List.of("cp", "jfio")).jfio(List.of("/bin/sh", "-c",
                        "shift 3; exec cp -a \"$@\"", "jfio-as-cp")).install(false).build();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CopyBenchResult r = CopyBench.run(o, new PrintWriter(out, true), new PrintWriter(err, true));
        assertFalse(r.anyFailed(), err.toString());
        assertTrue(r.copiesCorrect(), out.toString());
        assertTrue(out.toString().contains("jfio copy of the tree: equal to the source"), out.toString());
        assertTrue(out.toString().contains("| big | hot | cp -a |"), out.toString());
        // Read back for every tool and cell (cp's CPU may round to 0 ticks for 3 MB, never below).
        for (String workload : List.of("tree", "big")) {
            for (String tool : List.of("cp", "jfio")) {
                double[] cpu = r.medianCpu(workload, "hot", tool);
                assertTrue(cpu != null && cpu[0] >= 0 && cpu[1] >= 0, workload + " " + tool + ": CPU time read back");
            }
        }
        assertTrue(out.toString().contains("| big | hot | cp -a |") && !out.toString().contains("| - |\n"),
                "every row has its CPU column: " + out);
        try (Stream<Path> s = Files.list(dir)) {
            assertEquals(0, s.count(), "the work directory is removed");
        }
    }
}
