package io.jfio.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code jfio bench ship}: options and usage errors (the benchmark runs in ShipBenchTest). */
class ShipBenchCommandTest {

    @Test
    void shouldRejectBadOptionsWithExitTwo(@TempDir Path dir) {
        List<List<String>> bad = List.of(
                List.of("bench", "ship", "--quick", "--full"),
                List.of("bench", "ship", "--workloads", "single,warp"),
                List.of("bench", "ship", "--idle-files", "lots"),
                List.of("bench", "ship", "--files", "0"),
                List.of("bench", "ship", "--seconds", "0"),
                List.of("bench", "ship", "--idle-seconds", "0"),
                List.of("bench", "ship", "--rate", "2000000000"),
                List.of("bench", "ship", "--dir", dir.resolve("missing").toString(), "--out",
                        dir.resolve("r").toString()));
        for (List<String> args : bad) {
            CliTest.Run r = CliTest.run(args.toArray(String[]::new));
            assertEquals(ExitCodes.USAGE, r.exit(), args + ": " + r.err());
            assertTrue(r.err().startsWith("jfio bench ship: "), args + ": " + r.err());
        }
        CliTest.Run help = CliTest.run("bench", "--help");
        assertTrue(help.out().contains("ship"), "bench lists its ship subcommand: " + help.out());
    }

    @Test
    void shouldRefuseTmpfsUnlessAllowed() throws Exception {
        Path shm = Path.of("/dev/shm");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isDirectory(shm)
                && Files.getFileStore(shm).type().equals("tmpfs"), "no tmpfs at /dev/shm");
        CliTest.Run r = CliTest.run("bench", "ship", "--dir", shm.toString(), "--no-rsyslog", "--out",
                shm.resolve("jfio-bench-ship-test-report").toString());
        assertEquals(ExitCodes.USAGE, r.exit(), r.err());
        assertTrue(r.err().contains("tmpfs") && r.err().contains("--allow-tmpfs"), r.err());
        assertTrue(Files.notExists(shm.resolve("jfio-bench-ship-test-report")));
    }
}
