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
        assertTrue(r.err().contains("invalid size 'huge'"), r.err());
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
