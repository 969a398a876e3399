package io.jfio.bench.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jfio.bench.JsonText;
import io.jfio.core.sys.Platform;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class UringBenchTest {
    private static Path diskDir(String name) throws IOException {
        Path d = Path.of("target", name);
        Files.createDirectories(d);
        String type = Files.getFileStore(d).type().toLowerCase(Locale.ROOT);
        assumeTrue(!type.equals("tmpfs") && !type.equals("ramfs"), "target/ is on " + type + ": skipped");
        return d;
    }

    @Test
    void moreRoundsGrowEveryCellOfTheGroupThatAskedAndNoOther() throws IOException {
        assumeTrue(Platform.isSupported(), "Linux x86_64/aarch64 only");
        Path dir = diskDir("bench-more");
        UringBenchOptions o = UringBenchOptions.builder().dir(dir).fileSize(8L << 20)
                .duration(Duration.ofMillis(20)).warmup(Duration.ofMillis(5)).reps(3).depths(List.of(1))
                .modes(EnumSet.of(CacheMode.HOT)).methods(EnumSet.of(Method.FILECHANNEL, Method.MMAP))
                .fileChannelThreads(4).fio(false).seed(7).build();
        List<Integer> asked = new ArrayList<>();
        UringBenchResult r = UringBench.run(o, new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()),
                (mode, depth, iops) -> {
                    int n = iops.values().iterator().next().length;
                    for (double[] v : iops.values()) assertEquals(n, v.length);
                    asked.add(n);
                    return depth == 1 && n < 5; // two extra rounds for depth 1
                });
        assertEquals(List.of(3, 4, 5), asked);
        for (CellResult c : r.cells()) {
            assertEquals(5, c.iops().length, c.toString());
            for (double v : c.iops()) assertTrue(v > 0, c.toString());
        }
    }

    @Test
    void tinyRunPrintsEveryExpectedRowAndColumnAndRemovesItsFiles() throws IOException {
        assumeTrue(Platform.isSupported(), "Linux x86_64/aarch64 only");
        Path dir = diskDir("bench-e2e");
        Path json = dir.resolve("result.json");
        UringBenchOptions o = UringBenchOptions.builder().dir(dir).fileSize(16L << 20)
                .duration(Duration.ofMillis(40)).warmup(Duration.ofMillis(10)).reps(1).depths(List.of(1, 4))
                .fileChannelThreads(4).fio(false).json(json).seed(99).build();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        UringBenchResult r = UringBench.run(o, new PrintWriter(out), new PrintWriter(err));
        String text = out.toString();

        String header = text.lines().filter(l -> l.startsWith("| mode")).findFirst().orElseThrow(() ->
                new AssertionError("no table header in:\n" + text + "\nstderr:\n" + err));
        for (String col : List.of("method", "depth", "IOPS (median)", "min – max", "p50 µs", "p99 µs", "vs fio",
                "cache before → after", "errors")) {
            assertTrue(header.contains(col), "column " + col + " missing: " + header);
        }
        for (String l : List.of("kernel:", "file system:", "device:", "memory:", "cpu:", "jdk:", "jfio threads:")) {
            assertTrue(text.contains(l), l + " missing from the header:\n" + text);
        }
        List<String> rows = text.lines().filter(l -> l.startsWith("| hot") || l.startsWith("| cold")
                || l.startsWith("| direct")).toList();
        List<String> expected = new ArrayList<>();
        boolean uring = r.cells().stream().anyMatch(c -> c.method() == Method.URING);
        for (CacheMode m : CacheMode.values()) {
            for (int d : List.of(1, 4)) {
                if (uring) {
                    expected.add(m + "|jfio io_uring|" + d);
                    expected.add(m + "|jfio io_uring readFixed (recommended)|" + d);
                }
                expected.add(m + "|jfio threads|" + d);
            }
            expected.add(m + "|FileChannel 1 thread|1");
            expected.add(m + "|FileChannel 4 threads|4");
            if (m != CacheMode.DIRECT) {
                expected.add(m + "|RandomAccessFile|1");
                expected.add(m + "|mmap|1");
            }
        }
        List<String> actual = new ArrayList<>();
        for (String row : rows) {
            String[] c = row.split("\\|");
            actual.add(c[1].trim() + "|" + c[2].trim() + "|" + c[3].trim());
            assertEquals("0", c[11].trim(), "no failed or wrong reads: " + row);
        }
        assertEquals(Set.copyOf(expected), Set.copyOf(actual), text);
        assertEquals(expected.size(), actual.size(), text);
        assertTrue(text.contains("SKIP cold buffered, depth 32"), "targets at depth 32 are skipped:\n" + text);
        assertEquals(0, r.errors());

        Object j = JsonText.parse(Files.readString(json));
        assertEquals((long) expected.size(), ((List<?>) JsonText.at(j, "cells")).size());
        assertEquals(99L, JsonText.at(j, "options", "seed"));

        try (Stream<Path> s = Files.list(dir)) {
            assertTrue(s.noneMatch(p -> p.getFileName().toString().startsWith("jfio-bench-")),
                    "the data directory is removed at the end");
        }
    }

    @Test
    void parsesTheCommandLineOptions() {
        UringBenchOptions o = UringBench.parse(new String[] {"--dir", "/data", "--size=2g", "--duration", "3s",
            "--reps", "7", "--depths", "128,1,32", "--modes", "cold,direct", "--no-fio", "--json", "r.json",
            "--seed", "5", "--methods", "uring,fio"});
        assertEquals(Path.of("/data"), o.dir());
        assertEquals(2L << 30, o.fileSize());
        assertEquals(Duration.ofSeconds(3), o.duration());
        assertEquals(Duration.ofMillis(1500), o.warmup());
        assertEquals(7, o.reps());
        assertEquals(List.of(1, 32, 128), o.depths());
        assertEquals(List.of(CacheMode.COLD, CacheMode.DIRECT), o.modeOrder());
        assertFalse(o.fio());
        assertEquals(Path.of("r.json"), o.json());
        assertEquals(5, o.seed());
        assertEquals(EnumSet.of(Method.URING, Method.FIO_URING, Method.FIO_PSYNC), EnumSet.copyOf(o.methods()));
    }

    @Test
    void quickChangesOnlyTheDefaultsNotWhatWasGiven() {
        UringBenchOptions q = UringBench.parse(new String[] {"--quick"});
        assertEquals(UringBenchOptions.SIZE_QUICK, q.fileSize());
        assertEquals(UringBenchOptions.DURATION_QUICK, q.duration());
        assertEquals(UringBenchOptions.REPS_QUICK, q.reps());
        UringBenchOptions q2 = UringBench.parse(new String[] {"--quick", "--reps", "9"});
        assertEquals(9, q2.reps());
        UringBenchOptions d = UringBench.parse(new String[0]);
        assertEquals(1L << 30, d.fileSize());
        assertEquals(5, d.reps());
        assertEquals(List.of(1, 32, 128), d.depths());
    }

    @Test
    void badUsageExitsWithTwoAndHelpWithZero() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        assertEquals(2, UringBench.main(new String[] {"--bogus"}, new PrintWriter(out), new PrintWriter(err)));
        assertTrue(err.toString().contains("unknown argument '--bogus'"), err.toString());
        assertEquals(2, UringBench.main(new String[] {"--depths", "0"}, new PrintWriter(out), new PrintWriter(err)));
        assertEquals(2, UringBench.main(new String[] {"--modes", "lukewarm"}, new PrintWriter(out),
                new PrintWriter(err)));
        assertEquals(0, UringBench.main(new String[] {"--help"}, new PrintWriter(out), new PrintWriter(err)));
        assertTrue(out.toString().contains("--depths"));
        assertNull(UringBench.parse(new String[] {"-h"}));
        assertThrows(IllegalArgumentException.class, () -> UringBench.parse(new String[] {"--size"}));
    }
}
