package io.jfio.ship;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.ship.sink.DirSink;
import io.jfio.ship.testing.ShipRun;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code max-open-files} holds for files that went idle after they were read: a shipper of many files ends with at
 * most the cap open, and what is appended to a closed file later is still delivered, once. Under a descriptor limit
 * below the number of files, the sources leave the sinks what they need and every file is shipped.
 */
class OpenFileCapTest {
    private static final int FILES = 300;
    private static final int CAP = 50;

    @TempDir
    Path tmp;

    /** Descriptors of this process open on files below {@code dir}. */
    static int openBelow(Path dir) throws IOException {
        int n = 0;
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : fds.toList()) {
                try {
                    if (Files.readSymbolicLink(fd).startsWith(dir)) n++;
                } catch (IOException e) {
                    // Closed since the listing (the listing's own descriptor among them).
                }
            }
        }
        return n;
    }

    private static Map<String, Integer> delivered(Path out) {
        Map<String, Integer> seen = new HashMap<>();
        for (String line : new String(DirSink.readAll(out), StandardCharsets.US_ASCII).split("\n")) {
            if (!line.isEmpty()) seen.merge(line, 1, Integer::sum);
        }
        return seen;
    }

    private static void appendAll(Path logs, String round) throws IOException {
        for (int i = 0; i < FILES; i++) {
            Files.writeString(logs.resolve("f" + i + ".log"), "f" + i + " " + round + "\n", StandardCharsets.US_ASCII,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        }
    }

    private static void await(String what, ShipRun run, Check check) throws Exception {
        long deadline = System.nanoTime() + 40_000_000_000L;
        while (!check.ok()) {
            if (System.nanoTime() > deadline) throw new AssertionError("timed out: " + what + "; " + run.log());
            Thread.sleep(50);
        }
    }

    private interface Check {
        boolean ok() throws Exception;
    }

    @Test
    void shouldShipEveryFileWhenTheDescriptorLimitIsBelowTheNumberOfFiles() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs")).toRealPath();
        Path out = tmp.resolve("out");
        int files = 400;
        for (int i = 0; i < files; i++) {
            Files.writeString(logs.resolve("f" + i + ".log"), "f" + i + " r1\n", StandardCharsets.US_ASCII);
        }
        Path err = tmp.resolve("ship.err");
        ProcessBuilder pb = ShipRun.java(io.jfio.ship.testing.ShipMain.class, List.of("-Xmx128m"),
                logs.resolve("*.log").toString(), out.toString(), tmp.resolve("state").toString(), "64MiB", "1MiB",
                "1MiB", "run");
        pb.command().addAll(0, List.of("prlimit", "--nofile=256:256"));
        Process p = ShipRun.started(pb.redirectError(err.toFile()), err);
        try {
            long deadline = System.nanoTime() + 90_000_000_000L;
            while (System.nanoTime() < deadline && delivered(out).size() < files) Thread.sleep(100);
            Map<String, Integer> seen = delivered(out);
            assertEquals(files, seen.size(), ShipRun.tail(err, 30));
            assertTrue(seen.values().stream().allMatch(n -> n == 1), "each line once");
            assertTrue(Files.readString(err).contains("event=max-open-files-lowered"), ShipRun.tail(err, 30));
        } finally {
            p.destroyForcibly();
            p.waitFor();
        }
    }

    @Test
    @org.junit.jupiter.api.Timeout(60)
    void shouldShipEveryFileWithOnceWhenThereAreMoreFilesThanTheCap() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs")).toRealPath();
        Path out = tmp.resolve("out");
        appendAll(logs, "r1");
        // Files that end in an unterminated line (which --once leaves for a later run) must not hold their
        // descriptors from the files that wait for one.
        for (int i = 0; i < FILES; i += 2) {
            Files.writeString(logs.resolve("f" + i + ".log"), "unterminated", StandardCharsets.US_ASCII,
                    StandardOpenOption.APPEND);
        }
        var cfg = ShipRun.config(List.of(logs.resolve("*.log").toString()), out, tmp.resolve("state"),
                Map.of("max-open-files", String.valueOf(CAP)));
        java.io.ByteArrayOutputStream log = new java.io.ByteArrayOutputStream();
        assertTrue(ShipRun.once(cfg, log), log.toString(StandardCharsets.UTF_8));
        Map<String, Integer> seen = delivered(out);
        assertEquals(FILES, seen.size(), "every file found at the start is shipped by --once");
        assertTrue(seen.values().stream().allMatch(n -> n == 1), "each line once");
        assertEquals(0, openBelow(logs));
    }

    @Test
    void shouldCloseIdleFilesDownToTheCapAndStillDeliverWhatIsAppendedToThemOnce() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs")).toRealPath();
        Path out = tmp.resolve("out");
        appendAll(logs, "r1");
        var cfg = ShipRun.config(List.of(logs.resolve("*.log").toString()), out, tmp.resolve("state"),
                Map.of("max-open-files", String.valueOf(CAP)));
        try (ShipRun run = ShipRun.start(cfg)) {
            await("first lines delivered", run, () -> delivered(out).size() == FILES);
            await("open files down to the cap", run, () -> openBelow(logs) <= CAP);
            appendAll(logs, "r2");
            await("appended lines delivered", run, () -> delivered(out).size() == 2 * FILES);
            await("open files down to the cap again", run, () -> openBelow(logs) <= CAP);
            Map<String, Integer> seen = delivered(out);
            for (int i = 0; i < FILES; i++) {
                for (String round : List.of("r1", "r2")) {
                    assertEquals(1, seen.getOrDefault("f" + i + " " + round, 0), "f" + i + " " + round);
                }
            }
            assertEquals(2 * FILES, seen.values().stream().mapToInt(Integer::intValue).sum());
        }
        assertTrue(openBelow(logs) == 0);
    }
}
