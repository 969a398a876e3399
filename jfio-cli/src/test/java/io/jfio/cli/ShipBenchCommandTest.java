package io.jfio.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.bench.ship.ShipBenchOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code jfio bench ship}: options and usage errors (the benchmark runs in ShipBenchTest). */
class ShipBenchCommandTest {

    @Test
    void shouldRejectBadOptionsWithExitTwo(@TempDir Path dir) {
        // Each with a directory and an output of its own: an option let through must not start a benchmark in the
        // current directory, and the message must name what is wrong.
        String[] at = {"--dir", dir.toString(), "--out", dir.resolve("r").toString()};
        assertUsage("--quick and --full exclude each other", at, "--quick", "--full");
        assertUsage("unknown workload: warp", at, "--workloads", "single,warp");
        assertUsage("invalid --idle-files: lots", at, "--idle-files", "lots");
        assertUsage("invalid --shipper-cpus: one \\(expected a CPU list such as 1 or 0,2-3\\)", at, "--shipper-cpus",
                "one");
        assertUsage("sizes must be positive \\(files at most 999\\)", at, "--files", "0");
        assertUsage("measured windows must be at least 1 s: latency=0s", at, "--seconds", "0");
        assertUsage("measured windows must be at least 1 s: latency=\\d+s idle=0s", at, "--idle-seconds", "0");
        assertUsage("rate at most " + ShipBenchOptions.MAX_RATE + " lines per second: rate=2000000000", at,
                "--rate", "2000000000");
        assertUsage(Pattern.quote("not a directory: dir=" + dir.resolve("missing")), new String[] {"--dir",
                dir.resolve("missing").toString(), "--out", dir.resolve("r").toString()});
        assertTrue(Files.notExists(dir.resolve("r")), "a report was written");
        CliTest.Run help = CliTest.run("bench", "--help");
        assertTrue(help.out().contains("ship"), "bench lists its ship subcommand: " + help.out());
    }

    @Test
    void shouldRejectBadTortureOptionsWithExitTwo(@TempDir Path dir) {
        String[] at = {"--torture", "--dir", dir.toString()};
        assertUsage("--sinks: unknown sink smtp", at, "--sinks", "dir,smtp");
        assertUsage("--sinks kafka needs --kafka-bootstrap HOST:PORT", at, "--sinks", "kafka");
        assertUsage("unknown rotation mode: shred", at, "--modes", "rename,shred");
        assertUsage("--kills must not be negative: -1", at, "--kills", "-1");
        assertUsage("--writers must be 1-1000: 0", at, "--writers", "0");
        assertUsage("--rate must be 1-100000: 0", at, "--rate", "0");
        assertUsage("--seconds must be at least 1: 0", at, "--seconds", "0");
        assertUsage("invalid --kafka-bootstrap: nohost", at, "--kafka-bootstrap", "nohost");
        assertUsage("--sinks s3 needs --s3-endpoint URL and --s3-bucket NAME", at, "--sinks", "s3");
        assertUsage("--s3-bucket: none given", at, "--s3-endpoint", "http://127.0.0.1:9");
        assertUsage("--s3-endpoint must be an http or https URL: s3.local", at, "--s3-endpoint", "s3.local",
                "--s3-bucket", "b");
        assertUsage("--outages with a kafka or s3 sink needs --server-pid PID", at, "--outages", "--kafka-bootstrap",
                "127.0.0.1:9");
        assertUsage("go with --torture", new String[] {"--dir", dir.toString()}, "--outages");
        assertUsage("--torture takes --seconds", at, "--json");
        assertUsage("go with --torture", new String[] {"--dir", dir.toString()}, "--kills", "3");
        assertUsage("--kills", at, "--kills", "many");
        try (var s = Files.list(dir)) {
            assertEquals(0, s.count(), "a bad option started a run");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * Runs {@code jfio bench ship} with {@code at} and {@code args}: exit 2 and a message on stderr in which
     * {@code message} (a regular expression) is found.
     */
    private static void assertUsage(String message, String[] at, String... args) {
        List<String> cmd = new ArrayList<>(List.of("bench", "ship"));
        cmd.addAll(List.of(at));
        cmd.addAll(List.of(args));
        CliTest.Run r = CliTest.run(cmd.toArray(String[]::new));
        assertEquals(ExitCodes.USAGE, r.exit(), cmd + ": " + r.err());
        assertTrue(r.err().startsWith("jfio bench ship: "), cmd + ": " + r.err());
        assertTrue(Pattern.compile(message).matcher(r.err()).find(), cmd + ": " + message + ": " + r.err());
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
