package io.jfio.bench.suite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jfio.bench.JsonText;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs every experiment once at the tiny scale (without fio) and checks its tables, PNG and JSON. */
class ExperimentsTinyTest {
    static SuiteResult result;
    static Path out;

    @BeforeAll
    static void runAll(@TempDir Path tmp) throws IOException {
        Path dir = CacheStateTest.diskDir();
        out = tmp.resolve("report");
        SuiteOptions o = SuiteOptions.defaults(dir, 42).withScale(SuiteOptions.Scale.TINY).withFio(false, false);
        StringWriter err = new StringWriter();
        result = SuiteRunner.run(o, out, new PrintWriter(err), false);
        try (Stream<Path> s = Files.list(dir)) {
            assertTrue(s.noneMatch(p -> p.getFileName().toString().startsWith("jfio-bench-suite-")),
                    "test files left behind in " + dir);
        }
    }

    private static ExperimentResult of(String name) {
        return result.results().stream().filter(r -> r.name().equals(name)).findFirst().orElseThrow();
    }

    private static void assertTable(String experiment, int table, List<String> columns, int rows) {
        ExperimentResult r = of(experiment);
        assertEquals(ExperimentResult.Status.OK, r.status(), experiment + ": " + r.reason());
        Table t = r.tables().get(table);
        assertEquals(columns, t.columns().subList(0, columns.size()), experiment);
        assertEquals(rows, t.rows().size(), experiment + " rows:\n" + t.markdown());
    }

    @Test
    void everyExperimentRanOrSaidWhyNot() {
        assertEquals(Experiments.all().size(), result.results().size());
        for (ExperimentResult r : result.results()) {
            assertEquals(ExperimentResult.Status.OK, r.status(), r.name() + ": " + r.reason());
        }
    }

    @Test
    void tablesHaveTheExpectedRowsAndColumns() {
        assertTable("metadata", 0, List.of("call", "cache", "ns_per_call_median"), 5);
        assertTable("memcpy", 0, List.of("size_bytes", "method", "us_per_copy_median"), 4 * 3);
        assertTable("buffers", 0, List.of("size_bytes", "method", "cache", "gb_per_s_median"), 3 * 2);
        assertTable("alignment", 0, List.of("offsets", "cache", "reads", "p0_us", "p50_us", "p90_us", "p95_us",
                "p99_us", "p99_9_us", "p99_99_us", "max_us"), 4);
        // 1 size x (2 reads x 2 cache states + 2 writes) x 3 methods
        assertTable("load-types", 0, List.of("load", "file_size_bytes", "method", "cache", "gb_per_s_median"), 18);
        assertTable("uring", 0, List.of("cache", "method", "depth", "iops_median"),
                of("uring").tables().get(0).rows().size());
        assertFalse(of("uring").tables().get(0).rows().isEmpty());
        // random read and write x 2 block sizes x (jfio io_uring, FileChannel 1 thread, FileChannel virtual threads)
        assertTable("uring", 1, List.of("op", "block_bytes", "method", "depth", "cache", "iops_median",
                "mb_per_s_median"), 12);
        // file: 11 methods x 2 cache states; socket: 9 methods (no transferFrom, copy_file_range) x 2
        assertTable("transfer", 0, List.of("dest", "method", "file_size_bytes", "cache", "gb_per_s_median",
                "spread_pct", "bytes_moved", "content_check"), 40);
        assertTable("transfer", 1, List.of("zero_copy_notes_method", "bytes", "elapsed_ms", "gb_per_s"), 5);
        // 4 methods x 1 and 3 passes x cold and hot
        assertTable("mmap", 0, List.of("method", "passes", "cache", "gb_per_s_median"), 16);
        // (large file + tree) x 2 block sizes x 2 depths, and the tree by Files.copy and TreeCopy, every copy verified
        assertTable("copy-tuning", 0, List.of("workload", "block_bytes", "depth", "cache", "mb_per_s_median",
                "spread_pct", "bytes_per_rep", "verified"), 10);
        assertTable("copy-tuning", 1, List.of("copy", "mb_per_s"), 2);
        // 5 workloads x 4 watchers
        assertTable("watch", 0, List.of("workload", "watcher", "writes", "detected", "thread_cpu_ms_per_s",
                "process_cpu_ms_per_s", "p50_ms", "p90_ms", "p99_ms", "max_ms"), 20);
        // 2 patterns x 2 block sizes x 6 hints
        assertTable("readahead", 0, List.of("pattern", "block_bytes", "hint", "cache", "mb_per_s_median"), 24);
    }

    @Test
    void everyWorkloadHasItsInterleavedContestWithTheJdkWayAndOneSamplePerRound() {
        for (io.jfio.bench.verdict.Workload w : io.jfio.bench.verdict.Workload.values()) {
            ExperimentResult e = of(w.experiment());
            List<io.jfio.bench.verdict.Contest> cs = e.contests().stream().filter(c -> c.workload() == w).toList();
            assertEquals(1, cs.size(), w + " in " + w.experiment() + ": " + e.contests());
            io.jfio.bench.verdict.Contest c = cs.get(0);
            assertTrue(c.contenders().size() >= 2, w + ": " + c.contenders());
            assertEquals(1, c.contenders().stream().filter(io.jfio.bench.verdict.Contender::jdkDefault).count(),
                    w + ": " + c.contenders());
            assertTrue(c.paired() && !c.events(), w + ": every contest's contenders ran in interleaved rounds");
            for (io.jfio.bench.verdict.Contender k : c.contenders()) {
                assertTrue(k.measured(), w + ": " + k);
                assertFalse(k.code().isBlank() || k.link().isBlank(), w + ": " + k);
                assertEquals(SuiteOptions.REPS, k.samples().length, w + ": " + k);
            }
        }
    }

    @Test
    void buffersShowTheJdkTemporaryCopyOnlyWhereItHappens() {
        Table t = of("buffers").tables().get(0);
        for (int i = 0; i < t.rows().size(); i++) {
            Object copy = t.cell(i, "jdk_temp_copy_us");
            if (t.cell(i, "method").toString().startsWith("heap")) {
                assertTrue(copy instanceof Double d && d > 0, "heap row without a copy time:\n" + t.markdown());
                assertTrue((Double) t.cell(i, "jdk_temp_copy_gb_per_s") > 0, t.markdown());
            } else {
                assertTrue(copy instanceof Double d && d.isNaN(), "a copy where none happens:\n" + t.markdown());
            }
        }
    }

    @Test
    void uringRunsTheODirectRowsWhereTheFileSystemTakesODirect() throws IOException {
        assumeTrue(DirectIo.probe(CacheStateTest.diskDir()).supported(), "no O_DIRECT under target/");
        assertTrue(result.setup().stream().anyMatch(s -> s.startsWith("O_DIRECT: supported")), result.setup()
                .toString());
        Table t = of("uring").tables().get(0);
        boolean direct = false;
        for (int i = 0; i < t.rows().size(); i++) direct |= t.cell(i, "cache").equals("direct");
        assertTrue(direct, "no direct rows:\n" + t.markdown());
    }

    @Test
    void watchSawEveryWriteWithInotifyAndNoneInIdleRows() {
        Table t = of("watch").tables().get(0);
        int checked = 0;
        for (int i = 0; i < t.rows().size(); i++) {
            String load = t.cell(i, "workload").toString();
            int writes = ((Number) t.cell(i, "writes")).intValue();
            if (load.endsWith("idle")) {
                assertEquals(0, writes, load);
                assertTrue(Double.isNaN(((Number) t.cell(i, "p50_ms")).doubleValue()), load);
                continue;
            }
            assertTrue(writes > 0, load + "\n" + t.markdown());
            if (!t.cell(i, "watcher").equals("inotify+epoll")) continue;
            assertEquals(writes, ((Number) t.cell(i, "detected")).intValue(), load + "\n" + t.markdown());
            checked++;
        }
        assertEquals(4, checked, t.markdown());
    }

    @Test
    void everyReadCellSaysColdOrHotWithItsResidency() {
        for (String e : List.of("alignment", "buffers", "metadata", "load-types", "readahead", "mmap",
                "transfer")) {
            Table t = of(e).tables().get(0);
            for (int i = 0; i < t.rows().size(); i++) {
                String c = t.cell(i, "cache").toString();
                if (e.equals("transfer") && t.cell(i, "dest").equals("socket") && c.endsWith(" NOT COLD")) {
                    // The kernel can keep a small file's pages referenced after a zero-copy send to a socket; the
                    // report must then say why.
                    assertTrue(of(e).notes().contains(
                            io.jfio.bench.suite.experiments.TransferExperiment.SOCKET_PINNED), c);
                    continue;
                }
                assertTrue(c.matches("(cold|hot) \\(\\d+\\.\\d% resident\\)") || c.startsWith("write"),
                        e + ": " + c + "\n" + t.markdown());
            }
        }
    }

    @Test
    void pngsDecodeAndReportsAreWritten() throws IOException {
        for (ExperimentResult r : result.results()) {
            if (r.status() != ExperimentResult.Status.OK) continue;
            Path png = out.resolve(r.name() + ".png");
            BufferedImage img = ImageIO.read(new ByteArrayInputStream(Files.readAllBytes(png)));
            assertNotNull(img, png + " does not decode");
            assertTrue(img.getWidth() > 100 && img.getHeight() > 100);
        }
        String md = Files.readString(out.resolve("report.md"));
        assertTrue(md.contains("## metadata") && md.contains("| call | cache |"), md);
        String html = Files.readString(out.resolve("report.html"));
        assertTrue(html.contains("src=\"data:image/png;base64,"));
        Object json = JsonText.parse(Files.readString(out.resolve("results.json")));
        assertEquals(Report.SCHEMA_VERSION, ((Number) JsonText.at(json, "schema_version")).intValue());
        assertTrue(JsonText.at(json, "experiments", 0, "tables", 0, "columns") instanceof List);
        assertTrue(JsonText.at(json, "system") instanceof Map);
    }
}
