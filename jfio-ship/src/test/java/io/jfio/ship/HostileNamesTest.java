package io.jfio.ship;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.jfio.core.sys.PathBytes;
import io.jfio.ship.sink.DirSink;
import io.jfio.ship.testing.Records;
import io.jfio.ship.testing.ShipMain;
import io.jfio.ship.testing.ShipRun;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * File names that are not valid UTF-8, and a JVM started without a UTF-8 locale (LANG unset, as under cron or
 * systemd): every file is shipped by its bytes, through renames and restarts, and two names that show the same
 * replacement character are two files.
 */
class HostileNamesTest {
    private static final int TOTAL = 3_000;
    private static final int ROTATE_EVERY = 400;

    @TempDir
    Path tmp;

    private static byte[] latin1(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static void append(Path file, int gen, int n) throws Exception {
        Files.writeString(file, "g=" + gen + " n=" + n + " " + "x".repeat(n % 50) + "\n", StandardCharsets.US_ASCII,
                StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    private static Records waitFor(Path out, int total) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        Records r = null;
        while (System.nanoTime() < deadline) {
            if (Files.isDirectory(out)) {
                r = Records.read(out, total, false);
                if (Arrays.stream(r.count).skip(1).allMatch(c -> c > 0)) return r;
            }
            Thread.sleep(20);
        }
        return r;
    }

    @Test
    void namesThatAreNotUtf8AreFollowedThroughRenamesAndResumedByTheirBytes() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path out = tmp.resolve("out");
        // 0xff and 0xfe are never UTF-8: the JDK shows both names as "bad\uFFFDx.log".
        byte[][] names = {latin1("bad\u00ffx.log"), latin1("bad\u00fex.log")};
        Path[] files = {PathBytes.resolve(logs, names[0]), PathBytes.resolve(logs, names[1])};
        // Rotated names match too: a file renamed before the shipper opened it is found under its new name, and one it
        // follows is known there by its identity, not shipped again.
        var cfg = ShipRun.config(List.of(logs + "/*.log*"), out, tmp.resolve("state"), Map.of());
        String log;
        try (ShipRun run = ShipRun.start(cfg)) {
            for (int n = 1; n <= TOTAL; n++) {
                int g = n % 2;
                if (n % ROTATE_EVERY == 0) {
                    // Renamed away (the shipper drains it by its descriptor) and started afresh under the same name.
                    byte[] suffix = latin1("." + n);
                    byte[] rotated = Arrays.copyOf(names[g], names[g].length + suffix.length);
                    System.arraycopy(suffix, 0, rotated, names[g].length, suffix.length);
                    Files.move(files[g], PathBytes.resolve(logs, rotated));
                }
                append(files[g], g + 1, n);
                if (n % 20 == 0) Thread.sleep(5);
            }
            waitFor(out, TOTAL);
            log = run.log();
        }
        Records.read(out, TOTAL, false).assertComplete().assertNoDuplicates();
        assertTrue(log.contains("bad\\xffx.log") && log.contains("bad\\xfex.log"), "names shown by bytes: " + log);

        // Stopped; more is written; a restart ships only what is new (the commit log found the files by their bytes).
        for (int n = TOTAL + 1; n <= TOTAL + 200; n++) append(files[n % 2], n % 2 + 1, n);
        ByteArrayOutputStream once = new ByteArrayOutputStream();
        assertTrue(ShipRun.once(cfg, once), once.toString(StandardCharsets.UTF_8));
        Records.read(out, TOTAL + 200, false).assertComplete().assertNoDuplicates();
    }

    @Test
    void withoutAUtf8LocaleEveryNameIsShipped() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Files.writeString(logs.resolve("plain.log"), "plain\n");
        Files.write(PathBytes.resolve(logs, "café.log".getBytes(StandardCharsets.UTF_8)), latin1("cafe\n"));
        Files.write(PathBytes.resolve(logs, latin1("bad\u00ffx.log")), latin1("bad\n"));
        Path out = tmp.resolve("out");
        ProcessBuilder pb = ShipRun.java(ShipMain.class, List.of(), logs + "/*.log", out.toString(),
                tmp.resolve("state").toString(), "4", "65536", "1048576", "once").redirectErrorStream(true);
        Map<String, String> env = pb.environment();
        env.keySet().removeIf(k -> k.equals("LANG") || k.startsWith("LC_"));
        env.put("LC_ALL", "C");
        ProcessBuilder probe = new ProcessBuilder(pb.command().get(0), "-XshowSettings:properties", "-version")
                .redirectErrorStream(true);
        probe.environment().clear();
        probe.environment().putAll(env);
        String settings = new String(probe.start().getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assumeFalse(settings.contains("sun.jnu.encoding = UTF-8"), "this JDK reads names as UTF-8 even under LC_ALL=C");
        Process p = pb.start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), output);
        String shipped = new String(DirSink.readAll(out), StandardCharsets.US_ASCII);
        for (String line : List.of("plain", "cafe", "bad")) {
            assertEquals(1, shipped.lines().filter(line::equals).count(), line + " in: " + shipped + "\n" + output);
        }
    }
}
