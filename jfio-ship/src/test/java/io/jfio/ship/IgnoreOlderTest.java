package io.jfio.ship;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.ship.config.ConfigException;
import io.jfio.ship.log.ShipLog;
import io.jfio.ship.sink.DirSink;
import io.jfio.ship.testing.ShipRun;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ignore-older}: a file never shipped that was last changed before the limit starts at its end (its old lines
 * are left out), a recent one is shipped whole, and the old one's lines appended later are shipped: a file that
 * becomes active again is not lost. The run and the dry run decide alike. A real shipper, a real dir sink.
 */
class IgnoreOlderTest {
    @TempDir
    Path tmp;

    @Test
    void shouldStartAnOldFileAtItsEndAndShipWhatIsAppendedToItLater() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path old = Files.writeString(logs.resolve("old.log"), "old 1\nold 2\n");
        Files.setLastModifiedTime(old, FileTime.from(Instant.now().minus(2, ChronoUnit.DAYS)));
        Files.writeString(logs.resolve("new.log"), "new 1\n");
        Path out = tmp.resolve("out");
        var cfg = ShipRun.config(List.of(logs.resolve("*.log").toString()), out, tmp.resolve("state"),
                Map.of("ignore-older", "24h"));

        List<String> dry = Shipper.dryRun(cfg, quiet());
        assertTrue(dry.stream().anyMatch(l -> l.contains("path=" + old) && l.contains("from=12 bytes=0")
                && l.endsWith("why=ignored-older")), dry.toString());
        assertTrue(dry.stream().anyMatch(l -> l.contains("new.log") && l.endsWith("why=new")), dry.toString());

        try (ShipRun run = ShipRun.start(cfg)) {
            RotationTest.waitFor(out, "new 1\n");
            Files.writeString(old, "old 3\n", StandardOpenOption.APPEND);
            RotationTest.waitFor(out, "old 3\n");
            String shipped = new String(DirSink.readAll(out), StandardCharsets.UTF_8);
            assertTrue(!shipped.contains("old 1") && !shipped.contains("old 2"), shipped);
            assertEquals(2, shipped.lines().count(), shipped);
            assertTrue(run.log().contains("why=ignored-older"), run.log());
        }
    }

    @Test
    void shouldTakeAFileFromBefore1677ForOlderAndOneFromAfter2262ForRecent() throws Exception {
        // ext4 keeps 1901 to 2446 only; tmpfs keeps any time.
        Path shm = Path.of("/dev/shm");
        Assumptions.assumeTrue(Files.isDirectory(shm) && Files.isWritable(shm), "no writable /dev/shm");
        Path logs = Files.createTempDirectory(shm, "jfio-ignore-older-");
        try {
            Path past = Files.writeString(logs.resolve("past.log"), "p\n");
            Path future = Files.writeString(logs.resolve("future.log"), "f\n");
            // touch(1): the JDK sets a time before 1677 as the epoch.
            Process touch = new ProcessBuilder("touch", "-m", "-d", "1600-01-01T00:00:00Z", past.toString()).start();
            assertEquals(0, touch.waitFor());
            touch = new ProcessBuilder("touch", "-m", "-d", "2400-01-01T00:00:00Z", future.toString()).start();
            assertEquals(0, touch.waitFor());
            Process stat = new ProcessBuilder("stat", "-c", "%Y", past.toString()).start();
            String secs = new String(stat.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
            assertEquals(0, stat.waitFor());
            Assumptions.assumeTrue(secs.equals("-11676096000"), "/dev/shm does not keep a time from 1600: " + secs);
            var cfg = ShipRun.config(List.of(logs.resolve("*.log").toString()), tmp.resolve("out"),
                    tmp.resolve("state"), Map.of("ignore-older", "24h"));
            List<String> dry = Shipper.dryRun(cfg, quiet());
            assertTrue(dry.stream().anyMatch(l -> l.contains("past.log") && l.endsWith("why=ignored-older")),
                    dry.toString());
            assertTrue(dry.stream().anyMatch(l -> l.contains("future.log") && l.endsWith("why=new")), dry.toString());
        } finally {
            try (var s = Files.list(logs)) {
                for (Path p : s.toList()) Files.delete(p);
            }
            Files.delete(logs);
        }
    }

    @Test
    void shouldRefuseALimitThatIsNotAPositiveDuration() {
        for (String bad : List.of("0s", "soon", "-5m")) {
            ConfigException e = assertThrows(ConfigException.class, () -> ShipRun.config(
                    List.of(tmp.resolve("*.log").toString()), tmp.resolve("out"), tmp.resolve("state"),
                    Map.of("ignore-older", bad)));
            assertTrue(e.getMessage().contains("ignore-older"), e.getMessage());
        }
    }

    private static ShipLog quiet() {
        return new ShipLog(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), false);
    }
}
