package io.jfio.ship;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.ship.log.ShipLog;
import io.jfio.ship.state.Checkpoint;
import io.jfio.ship.state.CheckpointStore;
import io.jfio.ship.testing.Records;
import io.jfio.ship.testing.ShipMain;
import io.jfio.ship.testing.ShipRun;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exactly once into the directory sink, at chosen kill points: a real shipper process is SIGKILLed after the sink
 * committed data but before any checkpoint said so (the checkpoint interval is an hour), the files are rotated while
 * it is down, and a second run must deliver every record exactly once. Each case fails when the resume point comes
 * from the checkpoint instead of the sink, or when a copy or a renamed file is shipped again.
 */
class ExactlyOnceTest {
    @TempDir
    Path tmp;

    private Path logs;
    private Path out;
    private Path state;

    private static String record(int n) {
        return "g=1 n=" + n + " " + "x".repeat(n % 50) + "\n";
    }

    private static void append(Path file, int from, int to) throws IOException {
        StringBuilder b = new StringBuilder();
        for (int n = from; n <= to; n++) b.append(record(n));
        Files.writeString(file, b, StandardCharsets.US_ASCII, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    private void setUp() throws IOException {
        logs = Files.createDirectories(tmp.resolve("logs"));
        out = tmp.resolve("out");
        state = tmp.resolve("state");
    }

    private String glob() {
        return logs.resolve("*.log*").toString();
    }

    /**
     * Runs a shipper on {@code file} (which holds records 1..first) until the sink holds them and its first checkpoint
     * is written (a run checkpoints its first acknowledged progress at once), appends records up to {@code total},
     * waits until the sink holds them too, then SIGKILLs it: with a 1 h interval the checkpoint is then stale.
     */
    private void shipThenKill(Path file, int first, int total) throws Exception {
        Path err = tmp.resolve("ship.err");
        Process p = startShipper("1h", err);
        try {
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (System.nanoTime() < deadline && (count() < first || checkpointed() == 0)) Thread.sleep(10);
            assertEquals(first, count(), "delivered before the kill; " + ShipRun.tail(err, 20));
            append(file, first + 1, total);
            while (System.nanoTime() < deadline && count() < total) Thread.sleep(10);
            assertEquals(total, count(), "delivered before the kill; " + ShipRun.tail(err, 20));
        } finally {
            p.destroyForcibly();
            p.waitFor();
        }
        // The point of the kill: the sink has it all, the checkpoint says less.
        long checkpointed = checkpointed();
        assertTrue(checkpointed < Files.size(file), "checkpoint not stale: " + checkpointed);
    }

    /** A shipper process with the given checkpoint interval, once it has said it started. */
    private Process startShipper(String checkpointInterval, Path err) throws IOException {
        return ShipRun.started(ShipRun.java(ShipMain.class, List.of("-Xmx128m"), glob(), out.toString(),
                state.toString(), "64MiB", "1MiB", "1MiB", "run", "checkpoint-interval=" + checkpointInterval)
                .redirectError(err.toFile()), err);
    }

    private long checkpointed() throws java.io.IOException {
        return checkpoint().stream().mapToLong(Checkpoint::offset).sum();
    }

    /** The shipper's checkpoint entries as saved now; none before its first save. */
    private List<Checkpoint> checkpoint() throws IOException {
        Path f = state.resolve("checkpoints-main.bin");
        return Files.exists(f) ? new CheckpointStore(f).load(ShipLog.stderr(), false).entries() : List.of();
    }

    private int count() {
        String all = new String(io.jfio.ship.sink.DirSink.readAll(out), StandardCharsets.US_ASCII);
        int lines = 0;
        for (int i = 0; i < all.length(); i++) {
            if (all.charAt(i) == '\n') lines++;
        }
        return lines;
    }

    private void shipOnce() throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        var cfg = ShipRun.config(List.of(glob()), out, state, Map.of());
        assertTrue(ShipRun.once(cfg, log), log.toString(StandardCharsets.UTF_8));
    }

    @Test
    void shouldResumeFromTheSinksCommitWhenTheCheckpointIsStale() throws Exception {
        setUp();
        append(logs.resolve("app.log"), 1, 1000);
        shipThenKill(logs.resolve("app.log"), 1000, 3000);
        append(logs.resolve("app.log"), 3001, 4000);
        shipOnce();
        Records.read(out, 4000, true).assertComplete().assertNoDuplicates();
    }

    /** The sink's commit record damaged while stopped, each way: every record must still arrive. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"emptied", "torn", "restored"})
    void shouldSendAgainWhatTheSinkLostWhenItsCommitGoesBehindTheCheckpoint(String damage) throws Exception {
        setUp();
        Path app = logs.resolve("app.log");
        append(app, 1, 2000);
        shipOnce();
        Path saved = tmp.resolve("sink-copy");
        if (damage.equals("restored")) copyTree(out, saved);
        append(app, 2001, 3000);
        shipOnce(); // a second commit, and checkpoints that record it
        Path commit = out.resolve("ship.commit");
        switch (damage) {
            case "emptied" -> Files.write(commit, new byte[0]);
            case "torn" -> {
                try (RandomAccessFile f = new RandomAccessFile(commit.toFile(), "rw")) {
                    f.setLength(f.length() - 20);
                }
            }
            default -> {
                // The sink directory put back as it was after the first run; the checkpoints stay newer.
                try (var l = Files.list(out)) {
                    for (Path q : l.toList()) Files.delete(q);
                }
                try (var l = Files.list(saved)) {
                    for (Path q : l.toList()) Files.copy(q, out.resolve(q.getFileName()));
                }
            }
        }
        append(app, 3001, 3500);
        shipOnce();
        // Bytes the sink still held are not lost; what it lost is sent again (a torn or emptied record may leave
        // bytes it cannot vouch for, shipped twice at worst).
        Records r = Records.read(out, 3500, false).assertComplete();
        if (damage.equals("restored")) r.assertNoDuplicates();
    }

    private static void copyTree(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        try (var l = Files.list(from)) {
            for (Path q : l.toList()) {
                if (Files.isRegularFile(q)) Files.copy(q, to.resolve(q.getFileName()));
            }
        }
    }

    @Test
    void shouldShipACopytruncateCopyMadeWhileStoppedOnlyOnce() throws Exception {
        setUp();
        Path app = logs.resolve("app.log");
        append(app, 1, 1000);
        shipThenKill(app, 1000, 3000);
        append(app, 3001, 3500); // not shipped yet: only the copy will hold these
        Files.copy(app, logs.resolve("app.log.1"));
        try (RandomAccessFile f = new RandomAccessFile(app.toFile(), "rw")) {
            f.setLength(0);
        }
        append(app, 3501, 4000);
        shipOnce();
        Records.read(out, 4000, false).assertComplete().assertNoDuplicates();
    }

    @Test
    void shouldShipACopyThatCpHadOnlyCreatedWhenTheShipperWasKilledOnlyOnce() throws Exception {
        setUp();
        Path app = logs.resolve("app.log");
        Path copy = logs.resolve("app.log.1");
        append(app, 1, 3000);
        Path err = tmp.resolve("ship.err");
        Process p = startShipper("50ms", err);
        try {
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (System.nanoTime() < deadline && count() < 3000) Thread.sleep(10);
            assertEquals(3000, count(), "delivered before the copy; " + ShipRun.tail(err, 20));
            // cp has created the copy and not written it yet: the shipper takes it for a new, empty file, and its
            // checkpoint says so; then the kill.
            Files.createFile(copy);
            long ino = (Long) Files.getAttribute(copy, "unix:ino");
            while (System.nanoTime() < deadline && !checkpointHolds(ino)) Thread.sleep(10);
            assertTrue(checkpointHolds(ino), "the empty copy checkpointed; " + ShipRun.tail(err, 20));
        } finally {
            p.destroyForcibly();
            p.waitFor();
        }
        // While it is down, cp writes the copy and the original is truncated and written again.
        Files.write(copy, Files.readAllBytes(app));
        try (RandomAccessFile f = new RandomAccessFile(app.toFile(), "rw")) {
            f.setLength(0);
        }
        append(app, 3001, 4000);
        shipOnce();
        Records.read(out, 4000, false).assertComplete().assertNoDuplicates();
    }

    private boolean checkpointHolds(long inode) throws IOException {
        return checkpoint().stream().anyMatch(c -> c.inode() == inode);
    }

    @Test
    void shouldShipAFileMovedToAnotherFileSystemWhileStoppedOnlyOnce() throws Exception {
        setUp();
        Path app = logs.resolve("app.log");
        append(app, 1, 3000);
        shipOnce();
        // A move across file systems while stopped is a copy, then the original's deletion.
        Path moved = logs.resolve("app.log.old");
        Files.copy(app, moved);
        Files.delete(app);
        append(moved, 3001, 3500);
        var cfg = ShipRun.config(List.of(glob()), out, state, Map.of());
        List<String> dry = Shipper.dryRun(cfg, new ShipLog(new java.io.PrintStream(new ByteArrayOutputStream(), true,
                StandardCharsets.UTF_8), false));
        assertTrue(dry.stream().anyMatch(l -> l.contains("path=" + moved) && l.endsWith("why=copy-of-shipped")),
                dry.toString());
        shipOnce();
        Records.read(out, 3500, false).assertComplete().assertNoDuplicates();
    }

    @Test
    void shouldShipEveryOneOfSeveralFilesThatHoldTheSameLines() throws Exception {
        setUp();
        for (int i = 0; i < 5; i++) append(logs.resolve("f" + i + ".log"), 1, 2000);
        shipOnce();
        assertEquals(5 * 2000, count(), "independent files with the same bytes are each shipped");
        // And while running, as they grow side by side.
        Path out2 = tmp.resolve("out2");
        var cfg = ShipRun.config(List.of(logs.resolve("g*.log").toString()), out2, tmp.resolve("state2"), Map.of());
        try (ShipRun run = ShipRun.start(cfg)) {
            for (int k = 0; k < 10; k++) {
                for (int i = 0; i < 4; i++) append(logs.resolve("g" + i + ".log"), k * 300 + 1, k * 300 + 300);
                Thread.sleep(20);
            }
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (System.nanoTime() < deadline && lines(out2) < 4 * 3000) Thread.sleep(20);
            assertEquals(4 * 3000, lines(out2), run.log());
        }
    }

    private static int lines(Path dir) {
        String all = new String(io.jfio.ship.sink.DirSink.readAll(dir), StandardCharsets.US_ASCII);
        int n = 0;
        for (int i = 0; i < all.length(); i++) {
            if (all.charAt(i) == '\n') n++;
        }
        return n;
    }

    @Test
    void shouldShipAFileRenamedWhileStoppedOnlyOnce() throws Exception {
        setUp();
        Path app = logs.resolve("app.log");
        append(app, 1, 1000);
        shipThenKill(app, 1000, 3000);
        append(app, 3001, 3500);
        Files.move(app, logs.resolve("app.log.1"));
        append(app, 3501, 4000);
        shipOnce();
        Records.read(out, 4000, false).assertComplete().assertNoDuplicates();
    }
}
