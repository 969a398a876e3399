package io.jfio.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** {@code jfio bench} and {@code jfio bench uring} through {@link Cli#commandLine}, as main runs them. */
class BenchCommandTest {
    @Test
    void unknownExperimentIsAUsageErrorNamingTheExperiments() {
        CliTest.Run r = CliTest.run("bench", "nosuch", "--no-fio");
        assertEquals(ExitCodes.USAGE, r.exit());
        assertTrue(r.err().contains("unknown experiment 'nosuch'") && r.err().contains("metadata"), r.err());
    }

    @Test
    void onlyTakesTheUringExperimentAsAValueNotAsTheSubcommand() {
        // Validation of the names runs before any experiment: "nosuch" stops the run, and the message shows that
        // "uring" was taken as --only's value (picocli would otherwise refuse it as the subcommand's name).
        CliTest.Run r = CliTest.run("bench", "--only", "uring", "--only", "nosuch", "--no-fio");
        assertEquals(ExitCodes.USAGE, r.exit());
        assertTrue(r.err().contains("unknown experiment 'nosuch'"), r.err());
    }

    @Test
    void compareOfTwoFilesPrintsThemSideBySideWithoutMeasuring(@org.junit.jupiter.api.io.TempDir Path tmp)
            throws Exception {
        Path old = results(tmp, "old.json", new double[] {1, 1.01, 0.99, 1, 1},
                new double[] {2, 2.02, 1.98, 2, 2}, false);
        Path neu = results(tmp, "new.json", new double[] {1, 1.01, 0.99, 1, 1},
                new double[] {3, 3.03, 2.97, 3, 3}, false);
        CliTest.Run r = CliTest.run("bench", "--compare", old.toString(), neu.toString());
        assertEquals(ExitCodes.OK, r.exit(), r.err());
        assertTrue(r.out().contains("sequential read, cold: same answer: jfio io_uring wins in both"), r.out());
        assertTrue(r.out().contains("better in the new run"), r.out());
    }

    /** A results.json whose sequential-read contest has these samples. */
    private static Path results(Path dir, String name, double[] fileChannel, double[] uring, boolean unused)
            throws IOException {
        var e = new io.jfio.bench.suite.ExperimentResult("load-types", "load types");
        e.contest(new io.jfio.bench.verdict.Contest(io.jfio.bench.verdict.Workload.SEQUENTIAL_READ_COLD, "GB/s",
                "GB/s", true, List.of(io.jfio.bench.verdict.Call.FILECHANNEL_READ.contender("FileChannel", true,
                        fileChannel), io.jfio.bench.verdict.Call.JFIO_READ_ASYNC.contender("jfio io_uring", false,
                        uring))));
        var sys = new io.jfio.bench.system.SystemInfo("6.8.0", "ext4", "vda", "1", "none", "128", "4 GiB", "cpu", 2,
                "25", "0.1 0.1 0.1");
        var r = new io.jfio.bench.suite.SuiteResult(io.jfio.bench.suite.SuiteOptions.defaults(dir, 1), sys,
                List.of(), List.of(e), List.of(), "2026-11-27T01:00", 10);
        return Files.writeString(dir.resolve(name), io.jfio.bench.suite.Report.json(r, java.util.Map.of()));
    }

    @Test
    void compareRefusesAnOldSchemaBeforeMeasuring(@org.junit.jupiter.api.io.TempDir Path tmp) throws Exception {
        Path old = Files.writeString(tmp.resolve("results.json"), "{\"schema_version\": 3, \"tool\": \"jfio bench\"}");
        CliTest.Run r = CliTest.run("bench", "--compare", old.toString(), "--no-fio");
        assertEquals(ExitCodes.USAGE, r.exit());
        assertTrue(r.err().contains("has schema_version 3; comparing needs 4 or newer"), r.err());
    }

    @Test
    void stableBudgetWithoutRepeatUntilStableIsAUsageError() {
        CliTest.Run r = CliTest.run("bench", "--stable-budget", "1m", "--no-fio");
        assertEquals(ExitCodes.USAGE, r.exit());
        assertTrue(r.err().contains("--stable-budget needs --repeat-until-stable"), r.err());
    }

    @Test
    void uringHelpNamesTheOptions() {
        CliTest.Run r = CliTest.run("bench", "uring", "--help");
        assertEquals(ExitCodes.OK, r.exit(), r.err());
        for (String o : List.of("--dir", "--size", "--duration", "--reps", "--depths", "--modes", "--no-fio",
                "--json", "--quick")) {
            assertTrue(r.out().contains(o), o + " missing from help:\n" + r.out());
        }
    }

    @Test
    void badValuesAreUsageErrors() {
        assertEquals(ExitCodes.USAGE, CliTest.run("bench", "uring", "--depths", "0").exit());
        assertEquals(ExitCodes.USAGE, CliTest.run("bench", "uring", "--modes", "lukewarm").exit());
        CliTest.Run r = CliTest.run("bench", "uring", "--size", "huge");
        assertEquals(ExitCodes.USAGE, r.exit());
        assertTrue(r.err().contains("--size: 'huge' is not a size: use a number with B, kB"), r.err());
        r = CliTest.run("bench", "uring", "--duration", "5x");
        assertEquals(ExitCodes.USAGE, r.exit());
        assertTrue(r.err().contains("--duration: '5x' is not a duration"), r.err());
    }

    @Test
    void sizesAndDurationsMeanWhatTheirUnitsSay() {
        assertEquals(1L << 20, uring("--size", "1MiB").fileSize());
        assertEquals(1L << 20, uring("--size", "1m").fileSize());
        assertEquals(3L << 29, uring("--size", "1.5GiB").fileSize());
        assertEquals(4_096_000_000L, uring("--size", "4.096GB").fileSize());
        assertEquals(java.time.Duration.ofMillis(1500), uring("--duration", "1.5s").duration());
        assertEquals(java.time.Duration.ofMinutes(2), uring("--duration", "2m").duration());
        // 1MB is 10^6 bytes, not a whole number of 4 KiB blocks
        CliException e = org.junit.jupiter.api.Assertions.assertThrows(CliException.class,
                () -> uring("--size", "1MB"));
        assertEquals(ExitCodes.USAGE, e.exitCode());
        assertTrue(e.getMessage().contains("size=1000000"), e.getMessage());
    }

    private static io.jfio.bench.uring.UringBenchOptions uring(String... args) {
        UringBenchCommand c = new UringBenchCommand();
        new picocli.CommandLine(c).parseArgs(args);
        return c.options();
    }

    @Test
    void tmpfsIsRefusedWithAReason() throws IOException {
        Path shm = Path.of("/dev/shm");
        assumeTrue(Files.isDirectory(shm) && Files.getFileStore(shm).type().equals("tmpfs"), "no tmpfs at /dev/shm");
        CliTest.Run r = CliTest.run("bench", "uring", "--dir", shm.toString(), "--no-fio", "--size", "16m");
        assertEquals(ExitCodes.USAGE, r.exit(), r.err());
        assertTrue(r.err().contains("refusing to benchmark on tmpfs"), r.err());
    }

    @Test
    void tinyRunPrintsTheTableAndLeavesNoFiles() throws IOException {
        Path dir = Path.of("target", "cli-bench");
        Files.createDirectories(dir);
        String type = Files.getFileStore(dir).type().toLowerCase(Locale.ROOT);
        assumeTrue(!type.equals("tmpfs") && !type.equals("ramfs"), "target/ is on " + type);
        CliTest.Run r = CliTest.run("bench", "uring", "--dir", dir.toString(), "--size", "16m", "--duration",
                "30ms", "--warmup", "0ms", "--reps", "1", "--depths", "1,2", "--fc-threads", "2", "--modes",
                "hot,direct", "--no-fio", "--seed", "3");
        assertEquals(ExitCodes.OK, r.exit(), r.err());
        assertTrue(r.out().contains("| mode"), r.out());
        assertTrue(r.out().contains("| hot    | FileChannel 2 threads"), r.out());
        assertTrue(r.out().contains("| direct | jfio threads"), r.out());
        assertTrue(r.err().contains("seed=3"), r.err());
        try (Stream<Path> s = Files.list(dir)) {
            assertTrue(s.noneMatch(p -> p.getFileName().toString().startsWith("jfio-bench-")));
        }
    }
}
