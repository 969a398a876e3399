package io.jfio.ship;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.ship.testing.Records;
import io.jfio.ship.testing.ShipRun;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every rotation mode, with a real writer process appending numbered records while a real shipper (in this JVM,
 * watching with inotify; one test polls) ships them into a dir sink: every record arrives, in order per source file.
 */
class RotationTest {
    private static final int TOTAL = 20_000;
    private static final int EVERY = 4_000;

    @TempDir
    Path tmp;

    private Records runWriter(String mode, String glob, boolean allowDuplicates) throws Exception {
        return runWriter(mode, glob, allowDuplicates, Map.of());
    }

    private Records runWriter(String mode, String glob, boolean allowDuplicates, Map<String, String> extra)
            throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path out = tmp.resolve("out");
        Path file = logs.resolve("app.log");
        Files.createFile(file);
        String log;
        try (ShipRun run = ShipRun.start(ShipRun.config(List.of(logs.resolve(glob).toString()), out,
                tmp.resolve("state"), extra))) {
            ShipRun.write(file, mode, TOTAL, EVERY, out, 200);
            if (!extra.containsKey("poll")) {
                assertTrue(run.log().contains("change-detection=inotify"), run.log());
            }
            waitComplete(out);
            log = run.log();
        }
        Records r = Records.read(out, TOTAL, true);
        try {
            r.assertComplete();
            if (!allowDuplicates) r.assertNoDuplicates();
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "; the shipper's log:\n" + log, e);
        }
        return r;
    }

    private static void waitComplete(Path out) throws InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (System.nanoTime() < deadline) {
            if (Files.isDirectory(out)) {
                String all = new String(io.jfio.ship.sink.DirSink.readAll(out), StandardCharsets.US_ASCII);
                if (all.contains(" n=" + TOTAL + " ")) return;
            }
            Thread.sleep(20);
        }
    }

    @Test
    void shouldDrainRenamedFileBeforeReleasingIt() throws Exception {
        runWriter("rename", "app.log", false);
    }

    @Test
    void shouldDrainRenamedFileBeforeReleasingItWhenPolling() throws Exception {
        runWriter("rename", "app.log", false, Map.of("poll", "20ms"));
    }

    @Test
    void shouldFollowDeletedFileToItsEnd() throws Exception {
        runWriter("delete", "app.log", false);
    }

    @Test
    void shouldRestartTruncatedFileFromZero() throws Exception {
        runWriter("truncate", "app.log", false);
    }

    @Test
    void shouldShipCopytruncateWithCopiesWatched() throws Exception {
        // copytruncate is racy by nature: lines written between the shipper's last read and the truncation exist
        // only in the copy. With the copies watched too, nothing is lost, and a copy is recognised as the content
        // it copies: nothing of it is shipped again.
        runWriter("copytruncate", "app.log*", false);
    }

    @Test
    void shouldLoseNothingWhenTheApplicationWritesBetweenCopyAndTruncation() throws Exception {
        // The copy ends before what the shipper read from the original before the truncation, and is found while
        // the application writes on: it is recognised all the same, and nothing is lost or shipped twice.
        runWriter("copytruncate-live", "app.log*", false);
    }

    @Test
    void shouldFollowSymlinkedPathAndItsSwitch() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path out = tmp.resolve("out");
        Path a = logs.resolve("a.log");
        Path b = logs.resolve("b.log");
        Path link = logs.resolve("current.log");
        Files.writeString(a, "g=1 n=1 x\ng=1 n=2 xx\n");
        Files.createSymbolicLink(link, a.getFileName());
        try (ShipRun run = ShipRun.start(ShipRun.config(List.of(link.toString()), out, tmp.resolve("state"),
                Map.of("follow-symlinks", "true")))) {
            waitFor(out, "n=2 ");
            Files.writeString(a, "g=1 n=3 xxx\n", java.nio.file.StandardOpenOption.APPEND);
            Files.writeString(b, "g=2 n=4 xxxx\n");
            Path tmpLink = logs.resolve("current.tmp");
            Files.createSymbolicLink(tmpLink, b.getFileName());
            Files.move(tmpLink, link, java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            waitFor(out, "n=4 ");
            waitFor(out, "n=3 ");
        }
        Records.read(out, 4, true).assertComplete().assertNoDuplicates();
    }

    @Test
    void shouldFindFilesRotatedSeveralTimesWhileStopped() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path out = tmp.resolve("out");
        Path state = tmp.resolve("state");
        Path file = logs.resolve("app.log");
        var cfg = ShipRun.config(List.of(logs.resolve("app.log*").toString()), out, state, Map.of());
        Files.writeString(file, lines(1, 100, 1));
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        assertTrue(ShipRun.once(cfg, log));
        // While stopped: more lines, then three rotations (app.log -> .1 -> .2 -> .3), each new file written to.
        Files.writeString(file, lines(101, 200, 1), java.nio.file.StandardOpenOption.APPEND);
        int n = 201;
        for (int gen = 2; gen <= 4; gen++) {
            for (int k = gen - 1; k >= 1; k--) {
                Path from = logs.resolve("app.log." + k);
                if (Files.exists(from)) Files.move(from, logs.resolve("app.log." + (k + 1)));
            }
            Files.move(file, logs.resolve("app.log.1"));
            Files.writeString(file, lines(n, n + 99, gen));
            n += 100;
        }
        assertTrue(ShipRun.once(cfg, log), log.toString(StandardCharsets.UTF_8));
        Records.read(out, n - 1, true).assertComplete().assertNoDuplicates();
    }

    @Test
    void shouldFindRenamedFileBesideItsOldNameWhenOnlyTheActiveNameIsWatched() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path out = tmp.resolve("out");
        Path file = logs.resolve("app.log");
        var cfg = ShipRun.config(List.of(file.toString()), out, tmp.resolve("state"), Map.of());
        Files.writeString(file, lines(1, 100, 1));
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        assertTrue(ShipRun.once(cfg, log));
        Files.writeString(file, lines(101, 150, 1), java.nio.file.StandardOpenOption.APPEND);
        Files.move(file, logs.resolve("app.log.1"));
        Files.writeString(file, lines(151, 200, 2));
        assertTrue(ShipRun.once(cfg, log));
        Records.read(out, 200, true).assertComplete().assertNoDuplicates();
        assertTrue(log.toString(StandardCharsets.UTF_8).contains("rename-while-stopped"));
    }

    @Test
    void shouldRestartFileTruncatedAndRewrittenWhileStopped() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path out = tmp.resolve("out");
        Path file = logs.resolve("app.log");
        var cfg = ShipRun.config(List.of(file.toString()), out, tmp.resolve("state"), Map.of());
        Files.writeString(file, lines(1, 100, 1));
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        assertTrue(ShipRun.once(cfg, log));
        // Truncated and rewritten longer than before: only the fingerprint can tell.
        Files.writeString(file, lines(101, 400, 2));
        assertTrue(ShipRun.once(cfg, log));
        Records r = Records.read(out, 400, true).assertComplete().assertNoDuplicates();
        assertEquals(0, r.duplicates);
    }

    static String lines(int from, int to, int gen) {
        StringBuilder b = new StringBuilder();
        for (int n = from; n <= to; n++) {
            b.append("g=").append(gen).append(" n=").append(n).append(' ').append("x".repeat(n % 50)).append('\n');
        }
        return b.toString();
    }

    static void waitFor(Path out, String s) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (System.nanoTime() < deadline) {
            if (Files.isDirectory(out)
                    && new String(io.jfio.ship.sink.DirSink.readAll(out), StandardCharsets.US_ASCII).contains(s)) {
                return;
            }
            Thread.sleep(10);
        }
        throw new AssertionError("never arrived: " + s);
    }
}
