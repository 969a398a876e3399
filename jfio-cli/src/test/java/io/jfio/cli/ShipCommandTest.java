package io.jfio.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code jfio ship}: exit codes, dry run, and a real process stopped by SIGTERM. */
class ShipCommandTest {
    @TempDir
    Path tmp;

    @Test
    void invalidConfigExitsTwoWithClearMessage() throws Exception {
        Path cfg = tmp.resolve("ship.yaml");
        Files.writeString(cfg, "state: " + tmp.resolve("s") + "\nto: dir:" + tmp.resolve("o") + "\nfrom: /x\n"
                + "poll: often\n");
        CliResult r = CliResult.run("ship", "--config", cfg.toString());
        assertEquals(ExitCodes.USAGE, r.exit(), r.err());
        assertTrue(r.err().contains("invalid poll") && r.err().contains("often"), r.err());
        r = CliResult.run("ship", "--from", "/x", "--state", tmp.toString());
        assertEquals(ExitCodes.USAGE, r.exit(), r.err());
        assertTrue(r.err().contains("no sink"), r.err());
        r = CliResult.run("ship", "--config", tmp.resolve("missing.toml").toString());
        assertEquals(ExitCodes.USAGE, r.exit(), r.err());
        assertTrue(r.err().contains("cannot read config file " + tmp.resolve("missing.toml")
                + ": No such file or directory (--config)"), r.err());
        r = CliResult.run("ship", "--from", "/x", "--state", tmp.toString(), "--to", "kafka:k:9092/logs",
                "--kafka-compression", "brotli");
        assertEquals(ExitCodes.USAGE, r.exit(), r.err());
        assertTrue(r.err().contains("invalid kafka-compression"), r.err());
        r = CliResult.run("ship", "--from", "/x", "--state", tmp.toString(), "--to", "kafka:k:9092/no spaces");
        assertEquals(ExitCodes.USAGE, r.exit(), r.err());
        assertTrue(r.err().contains("kafka topic"), r.err());
        r = CliResult.run("receive", "--listen", "nope", "--to", tmp.toString());
        assertEquals(ExitCodes.USAGE, r.exit(), r.err());
        assertTrue(r.err().contains("invalid --listen"), r.err());
    }

    @Test
    void onceShipsAndDryRunReportsOffsets() throws Exception {
        Path file = tmp.resolve("a.log");
        Files.writeString(file, "one\ntwo\n");
        String[] base = {"ship", "--from", file.toString(), "--to", "dir:" + tmp.resolve("out"), "--state",
            tmp.resolve("state").toString()};
        CliResult r = CliResult.run(concat(base, "--dry-run"));
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("from=0 bytes=8 why=new"), r.out());
        r = CliResult.run(concat(base, "--once"));
        assertEquals(0, r.exit(), r.err());
        Files.writeString(file, "three\n", java.nio.file.StandardOpenOption.APPEND);
        r = CliResult.run(concat(base, "--dry-run"));
        assertTrue(r.out().contains("from=8 bytes=6 why=resumed"), r.out());
    }

    @Test
    void sigtermFlushesCheckpointsAndExitsZero() throws Exception {
        Path file = tmp.resolve("a.log");
        Files.writeString(file, "one\ntwo\n");
        Path out = tmp.resolve("out");
        String java = ProcessHandle.current().info().command().orElseThrow();
        List<String> cmd = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED", "-cp",
                System.getProperty("java.class.path"), Main.class.getName(), "ship", "--from", file.toString(),
                "--to", "dir:" + out, "--state", tmp.resolve("state").toString()));
        Path logFile = tmp.resolve("ship.log");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(logFile.toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline && !(Files.isDirectory(out) && new String(
                io.jfio.ship.sink.DirSink.readAll(out), StandardCharsets.US_ASCII).contains("two\n"))) {
            Thread.sleep(20);
        }
        // A second shipper on the same state directory is refused with exit code 3.
        CliResult second = CliResult.run("ship", "--from", file.toString(), "--to", "dir:" + tmp.resolve("out2"),
                "--state", tmp.resolve("state").toString());
        assertEquals(ExitCodes.ENVIRONMENT, second.exit(), second.err());
        assertTrue(second.err().contains("pid=" + p.pid()), second.err());
        p.destroy(); // SIGTERM
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        String log = Files.readString(logFile);
        assertEquals(0, p.exitValue(), log);
        assertTrue(log.toString().contains("event=signal signal=TERM"), log);
        CliResult dry = CliResult.run("ship", "--from", file.toString(), "--to", "dir:" + out, "--state",
                tmp.resolve("state").toString(), "--dry-run");
        assertTrue(dry.out().contains("from=8 bytes=0 why=resumed"), dry.out());
    }

    @Test
    void onceLeavesOutTheShippersOwnOutputWhereTheGlobReachesIt() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs/app"));
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < 200; i++) lines.append("line ").append(i).append('\n');
        Files.writeString(logs.resolve("a.log"), lines);
        // The sink and the state directory lie below the glob's base, named through a symlink to it.
        Path link = Files.createSymbolicLink(tmp.resolve("link"), tmp.resolve("logs"));
        Path out = link.resolve("shipped");
        String java = ProcessHandle.current().info().command().orElseThrow();
        List<String> cmd = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED", "-cp",
                System.getProperty("java.class.path"), Main.class.getName(), "ship", "--once", "--from",
                tmp.resolve("logs") + "/**/*", "--to", "dir:" + out, "--state", link.resolve("state").toString()));
        Path logFile = tmp.resolve("ship.log");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(logFile.toFile()).start();
        boolean ended = p.waitFor(60, TimeUnit.SECONDS);
        if (!ended) p.destroyForcibly().waitFor();
        String log = Files.readString(logFile);
        assertTrue(ended, "a --once run ends\n" + log);
        assertEquals(0, p.exitValue(), log);
        assertEquals(lines.toString(), new String(io.jfio.ship.sink.DirSink.readAll(out), StandardCharsets.US_ASCII),
                "the source's lines, once each, and nothing of what the shipper wrote");
        assertEquals(2, log.lines().filter(l -> l.contains("event=own-output-skipped")).count(), log);
    }

    private static String[] concat(String[] a, String... b) {
        String[] r = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }
}
