package io.jfio.ship;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jfio.core.testing.Fds;
import io.jfio.ship.metrics.ShipMetrics;
import io.jfio.ship.pipeline.Pipeline;
import io.jfio.ship.sink.DirSink;
import io.jfio.ship.state.StateLock;
import io.jfio.ship.testing.Records;
import io.jfio.ship.testing.ShipMain;
import io.jfio.ship.testing.ShipRun;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad input: the shipper says what is wrong, keeps going where it can, loses nothing, leaks nothing. */
class BadInputTest {
    @TempDir
    Path tmp;

    private static String lines(int from, int to) {
        return RotationTest.lines(from, to, 1);
    }

    @Test
    void shouldSkipFifoAndDirectoryInPlaceOfFileWithoutBlocking() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path out = tmp.resolve("out");
        Files.writeString(logs.resolve("a.log"), lines(1, 10));
        try (ShipRun run = ShipRun.start(ShipRun.config(List.of(logs + "/*.log"), out, tmp.resolve("state"),
                Map.of()))) {
            RotationTest.waitFor(out, "n=10 ");
            Files.delete(logs.resolve("a.log"));
            assertEquals(0, new ProcessBuilder("mkfifo", logs.resolve("a.log").toString()).start().waitFor());
            Files.createDirectory(logs.resolve("d.log"));
            Files.writeString(logs.resolve("b.log"), lines(11, 20));
            RotationTest.waitFor(out, "n=20 ");
            assertTrue(run.log().contains("skipped-not-regular"), run.log());
            assertTrue(run.log().contains("type=fifo"), run.log());
            assertTrue(run.log().contains("type=directory"), run.log());
        }
        Records.read(out, 20, true).assertComplete().assertNoDuplicates();
    }

    @Test
    void shouldSplitHundredMegabyteLineWithoutChangingABbyte() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path file = logs.resolve("big.log");
        writeWithHugeLine(file);
        Path out = tmp.resolve("out");
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        assertTrue(ShipRun.once(ShipRun.config(List.of(file.toString()), out, tmp.resolve("state"), Map.of()), log));
        assertArrayEquals(Files.readAllBytes(file), DirSink.readAll(out), "split must keep the bytes");
    }

    @Test
    void shouldDropHundredMegabyteLineAndShipTheRest() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path file = logs.resolve("big.log");
        writeWithHugeLine(file);
        Path out = tmp.resolve("out");
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        assertTrue(ShipRun.once(ShipRun.config(List.of(file.toString()), out, tmp.resolve("state"),
                Map.of("on-overlong", "drop")), log));
        Records.read(out, 200, true).assertComplete().assertNoDuplicates();
        assertTrue(log.toString(StandardCharsets.UTF_8).contains("record-dropped"));
    }

    @Test
    void shouldFrameLinesLongerThanOneReadButWithinMaxRecordWhole() throws Exception {
        // One read takes 4 KiB; lines of 10 KiB, 30 KiB and exactly 64 KiB must still ship as one record each (the
        // read goes on into the rest of the buffer), and only the 70 KiB line is split (64 KiB + 6 KiB).
        Path file = Files.createDirectories(tmp.resolve("logs")).resolve("long.log");
        StringBuilder text = new StringBuilder(lines(1, 50));
        for (int len : new int[] {10 << 10, 30 << 10, 64 << 10, 70 << 10}) {
            text.append("L".repeat(len)).append('\n');
        }
        text.append(lines(51, 100));
        Files.writeString(file, text.toString(), StandardCharsets.US_ASCII);
        Path out = tmp.resolve("out");
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        assertTrue(ShipRun.once(ShipRun.config(List.of(file.toString()), out, tmp.resolve("state"),
                Map.of("buffer-size", "4KiB", "max-record", "64KiB")), log));
        assertArrayEquals(Files.readAllBytes(file), DirSink.readAll(out));
        String stop = log.toString(StandardCharsets.UTF_8);
        assertTrue(stop.contains("records-shipped=105 "), stop); // 100 short lines, 3 whole long ones, 2 pieces
    }

    private static void writeWithHugeLine(Path file) throws IOException {
        try (OutputStream o = Files.newOutputStream(file)) {
            o.write(lines(1, 100).getBytes(StandardCharsets.US_ASCII));
            byte[] chunk = new byte[1 << 20];
            for (int i = 0; i < chunk.length; i++) chunk[i] = (byte) (i % 251 == 10 ? 0 : i % 251); // NULs, no '\n'
            for (int i = 0; i < 100; i++) o.write(chunk);
            o.write('\n');
            o.write(lines(101, 200).getBytes(StandardCharsets.US_ASCII));
        }
    }

    @Test
    void shouldRecoverFromCorruptCheckpointWithoutLoss() throws Exception {
        Path file = Files.createDirectories(tmp.resolve("logs")).resolve("a.log");
        Path out = tmp.resolve("out");
        Path state = tmp.resolve("state");
        var cfg = ShipRun.config(List.of(file.toString()), out, state, Map.of("start", "end"));
        Files.writeString(file, "");
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        assertTrue(ShipRun.once(cfg, log));
        Files.writeString(file, lines(1, 100), StandardOpenOption.APPEND);
        assertTrue(ShipRun.once(cfg, log));
        Path cp = state.resolve("checkpoints-main.bin");
        byte[] b = Files.readAllBytes(cp);
        b[b.length / 2] ^= 0x40;
        Files.write(cp, b);
        Files.writeString(file, lines(101, 200), StandardOpenOption.APPEND);
        assertTrue(ShipRun.once(cfg, log));
        String text = log.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("checkpoint-corrupt"), text);
        try (Stream<Path> s = Files.list(state)) {
            assertTrue(s.anyMatch(p -> p.getFileName().toString().contains(".corrupt-")));
        }
        // Never "start at end" after corruption: everything is there, some of it twice.
        Records.read(out, 200, false).assertComplete();
    }

    @Test
    void shouldRefuseSecondShipperOnSameStateNamingThePid() throws Exception {
        Path file = Files.createDirectories(tmp.resolve("logs")).resolve("a.log");
        Files.writeString(file, lines(1, 5));
        var cfg = ShipRun.config(List.of(file.toString()), tmp.resolve("out"), tmp.resolve("state"), Map.of());
        try (ShipRun run = ShipRun.start(cfg)) {
            var cfg2 = ShipRun.config(List.of(file.toString()), tmp.resolve("out2"), tmp.resolve("state"), Map.of());
            StartException e = assertThrows(StartException.class,
                    () -> Shipper.open(cfg2, Pipeline.Mode.ONCE, io.jfio.ship.log.ShipLog.stderr()));
            assertTrue(e.getCause() instanceof StateLock.LockedException, String.valueOf(e.getCause()));
            assertEquals(StartException.Kind.ENVIRONMENT, e.kind());
            assertTrue(e.getMessage().contains("pid=" + ProcessHandle.current().pid())
                    && e.getMessage().endsWith("(--state, config key state)"), e.getMessage());
        }
    }

    @Test
    void shouldPickUpWatchedDirectoryDeletedAndRecreated() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path out = tmp.resolve("out");
        Files.writeString(logs.resolve("a.log"), lines(1, 10));
        try (ShipRun run = ShipRun.start(ShipRun.config(List.of(logs + "/*.log"), out, tmp.resolve("state"),
                Map.of()))) {
            RotationTest.waitFor(out, "n=10 ");
            Files.delete(logs.resolve("a.log"));
            Files.delete(logs);
            Thread.sleep(100);
            Files.createDirectories(logs);
            Files.writeString(logs.resolve("b.log"), lines(11, 20));
            RotationTest.waitFor(out, "n=20 ");
        }
        Records.read(out, 20, true).assertComplete().assertNoDuplicates();
    }

    @Test
    void shouldLeakNoDescriptors() throws Exception {
        Path file = Files.createDirectories(tmp.resolve("logs")).resolve("a.log");
        Files.writeString(file, lines(1, 50));
        int[] run = {0};
        Fds.assertNoLeak("ship --once", () -> {
            run[0]++;
            var cfg = ShipRun.config(List.of(file.toString()), tmp.resolve("out" + run[0]),
                    tmp.resolve("state" + run[0]), Map.of());
            assertTrue(ShipRun.once(cfg, new ByteArrayOutputStream()));
        });
    }

    @Test
    void shouldReportUnreadableFileAndShipTheOthers() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path denied = logs.resolve("a.log");
        Files.writeString(denied, lines(1, 10));
        Files.writeString(logs.resolve("b.log"), lines(11, 20));
        Files.setPosixFilePermissions(denied, java.util.Set.of());
        // Root reads anything; a child without CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH is really denied.
        boolean root = io.jfio.core.sys.LibC.geteuid() == 0;
        assumeTrue(!root || Files.isExecutable(Path.of("/usr/bin/setpriv")),
                "running as root and setpriv is missing: cannot deny root a read");
        List<String> prefix = root ? List.of("/usr/bin/setpriv", "--bounding-set=-dac_override,-dac_read_search")
                : List.of();
        ProcessBuilder pb = ShipRun.java(ShipMain.class, List.of(), logs + "/*.log", tmp.resolve("out").toString(),
                tmp.resolve("state").toString(), "1MiB", "64KiB", "16KiB", "once");
        List<String> cmd = new java.util.ArrayList<>(prefix);
        cmd.addAll(pb.command());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String outText = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(1, p.waitFor(), outText);
        assertTrue(outText.contains("errno=EACCES"), outText);
        String shipped = new String(DirSink.readAll(tmp.resolve("out")), StandardCharsets.US_ASCII);
        assertTrue(shipped.contains("n=20 ") && !shipped.contains("n=1 "), shipped);
    }

    @Test
    void shouldReadSourcesWithoutUpdatingTheirAccessTime() throws Exception {
        Path file = Files.createDirectories(tmp.resolve("logs")).resolve("a.log");
        Files.writeString(file, lines(1, 2000));
        // Accessed long before its last write: with relatime (the usual default) a read would update it.
        java.nio.file.attribute.FileTime old = java.nio.file.attribute.FileTime.fromMillis(1_000_000_000_000L);
        Files.setAttribute(file, "lastAccessTime", old);
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        assertTrue(ShipRun.once(ShipRun.config(List.of(file.toString()), tmp.resolve("out"), tmp.resolve("state"),
                Map.of("buffer-size", "4KiB")), log), log.toString(StandardCharsets.UTF_8));
        Records.read(tmp.resolve("out"), 2000, false).assertComplete();
        assertEquals(old, Files.getAttribute(file, "lastAccessTime"), "the shipper's reads left the access time");
    }

    @Test
    void shouldShipAFileItMayNotKeepTheAccessTimeOfAsUsual() throws Exception {
        // O_NOATIME is for the file's owner and CAP_FOWNER: root without CAP_FOWNER reading another user's file is
        // refused it, and must open the file the usual way.
        assumeTrue(io.jfio.core.sys.LibC.geteuid() == 0 && Files.isExecutable(Path.of("/usr/bin/setpriv")),
                "needs root (to own the file as another user) and setpriv");
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path file = logs.resolve("a.log");
        Files.writeString(file, lines(1, 500));
        Files.setAttribute(file, "unix:uid", 65534);
        ProcessBuilder pb = ShipRun.java(ShipMain.class, List.of(), logs + "/*.log", tmp.resolve("out").toString(),
                tmp.resolve("state").toString(), "1MiB", "64KiB", "16KiB", "once");
        List<String> cmd = new java.util.ArrayList<>(List.of("/usr/bin/setpriv", "--bounding-set=-fowner"));
        cmd.addAll(pb.command());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String outText = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), outText);
        Records.read(tmp.resolve("out"), 500, false).assertComplete();
    }

    @Test
    void shouldPauseOnFullSinkDiskAndResumeWithoutLoss() throws Exception {
        assumeTrue(io.jfio.core.sys.LibC.geteuid() == 0, "mounting a tmpfs needs root");
        Path out = Files.createDirectories(tmp.resolve("out"));
        Process m = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", out.toString())
                .redirectErrorStream(true).start();
        String mountOut = new String(m.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assumeTrue(m.waitFor() == 0, "cannot mount a tmpfs here: " + mountOut);
        try {
            Path file = Files.createDirectories(tmp.resolve("logs")).resolve("a.log");
            Files.writeString(file, lines(1, 60_000)); // about 2.5 MB: does not fit in 1 MiB
            try (ShipRun run = ShipRun.start(ShipRun.config(List.of(file.toString()), out, tmp.resolve("state"),
                    Map.of("buffer-size", "64KiB", "max-record", "16KiB")))) {
                long deadline = System.nanoTime() + 30_000_000_000L;
                while (!run.log().contains("ENOSPC") && System.nanoTime() < deadline) Thread.sleep(20);
                assertTrue(run.log().contains("event=sink-failed"), run.log());
                assertEquals(0, new ProcessBuilder("mount", "-o", "remount,size=64m", out.toString()).start()
                        .waitFor());
                RotationTest.waitFor(out, "n=60000 ");
                assertTrue(run.shipper().metrics().total(ShipMetrics.Counter.SINK_RETRIES) > 0);
            }
            Records.read(out, 60_000, false).assertComplete();
        } finally {
            new ProcessBuilder("umount", "-l", out.toString()).start().waitFor();
        }
    }
}
