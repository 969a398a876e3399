package io.jfio.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code jfio ship} with a pattern that names no file, as a real process: a warning names each such pattern; with
 * {@code --once} the run exits 4 after shipping what the others named, without it the shipper keeps running.
 */
class ShipNoMatchTest {
    @TempDir
    Path tmp;

    private Process ship(Path log, String... args) throws IOException {
        String java = ProcessHandle.current().info().command().orElseThrow();
        List<String> cmd = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED", "-cp",
                System.getProperty("java.class.path"), Main.class.getName(), "ship"));
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    private static long warnings(String log, String pattern) {
        return log.lines().filter(l -> l.contains("level=warn event=no-file-matched sink=main input=main pattern="
                + pattern + " ")).count();
    }

    @Test
    void onceWarnsForEachPatternWithoutAFileAndExitsFour() throws Exception {
        Path file = Files.writeString(tmp.resolve("a.log"), "one\n");
        String none = tmp.resolve("nothing") + "/*.log";
        String alsoNone = tmp.resolve("b.log").toString();
        Path log = tmp.resolve("ship.log");
        Process p = ship(log, "--once", "--from", none, "--from", file.toString(), "--from", alsoNone, "--to",
                "dir:" + tmp.resolve("out"), "--state", tmp.resolve("state").toString());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        String text = Files.readString(log);
        assertEquals(ExitCodes.NOTHING_MATCHED, p.exitValue(), text);
        assertEquals(1, warnings(text, none), text);
        assertEquals(1, warnings(text, alsoNone), text);
        String[] lines = text.split("\\R");
        assertEquals("jfio ship: no file matched: " + none + " " + alsoNone
                + " (--from, config keys from and inputs.paths)", lines[lines.length - 1]);
        // What did match was shipped.
        assertEquals("one\n", new String(io.jfio.ship.sink.DirSink.readAll(tmp.resolve("out")),
                StandardCharsets.US_ASCII));
    }

    @Test
    void followingWarnsOnlyAndShipsTheFileWhenItAppears() throws Exception {
        Path file = tmp.resolve("later.log");
        Path out = tmp.resolve("out");
        Path log = tmp.resolve("ship.log");
        Process p = ship(log, "--from", file.toString(), "--to", "dir:" + out, "--state",
                tmp.resolve("state").toString());
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (warnings(Files.readString(log), file.toString()) == 0) {
                assertTrue(System.nanoTime() < deadline && p.isAlive(), Files.readString(log));
                Thread.sleep(20);
            }
            Files.writeString(file, "late\n");
            while (!Files.isDirectory(out) || !new String(io.jfio.ship.sink.DirSink.readAll(out),
                    StandardCharsets.US_ASCII).equals("late\n")) {
                assertTrue(System.nanoTime() < deadline && p.isAlive(), Files.readString(log));
                Thread.sleep(20);
            }
        } finally {
            p.destroy();
        }
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(ExitCodes.OK, p.exitValue(), Files.readString(log));
    }
}
