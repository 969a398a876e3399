package io.jfio.ship.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.ship.log.ShipLog;
import io.jfio.ship.metrics.ShipMetrics;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The checkpoint writer: background writes of the newest snapshot, forced writes on the caller, failures told. */
class CheckpointerTest {
    @TempDir
    Path tmp;

    private static Checkpoint entry(long offset) {
        return new Checkpoint(1, 2, 3, 4, offset, 5, "/var/log/x.log");
    }

    @Test
    void shouldWriteTheNewestSnapshotAndLetAForcedWriteHaveTheLastWord() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ShipLog log = new ShipLog(new PrintStream(out, true, StandardCharsets.UTF_8), true);
        CheckpointStore store = new CheckpointStore(tmp.resolve("checkpoints-main.bin"));
        ShipMetrics metrics = new ShipMetrics();
        Checkpointer c = new Checkpointer("main", store, log, metrics);
        for (int i = 1; i <= 100; i++) c.submit(List.of(entry(i)));
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < deadline && (!Files.exists(store.file())
                || store.load(log, false).entries().get(0).offset() != 100)) {
            Thread.sleep(5);
        }
        assertEquals(100, store.load(log, false).entries().get(0).offset(), "the newest snapshot is written");
        c.close();
        assertTrue(c.writeNow(List.of(entry(101))));
        assertEquals(101, store.load(log, false).entries().get(0).offset());
        assertFalse(c.takeFailure());
    }

    @Test
    void shouldTellTheCallerThatAWriteFailed() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ShipLog log = new ShipLog(new PrintStream(out, true, StandardCharsets.UTF_8), true);
        CheckpointStore store = new CheckpointStore(tmp.resolve("gone").resolve("checkpoints-main.bin"));
        Checkpointer c = new Checkpointer("main", store, log, new ShipMetrics());
        assertFalse(c.writeNow(List.of(entry(1))), "the state directory does not exist");
        assertTrue(c.takeFailure());
        assertFalse(c.takeFailure(), "told once");
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("checkpoint-write-failed"));
        c.close();
    }

    @Test
    void shouldRetryAFailedWriteOnItsOwnAndSayEachReasonOnce() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ShipLog log = new ShipLog(new PrintStream(out, true, StandardCharsets.UTF_8), true);
        Path dir = tmp.resolve("later");
        CheckpointStore store = new CheckpointStore(dir.resolve("checkpoints-main.bin"));
        ShipMetrics metrics = new ShipMetrics();
        Checkpointer c = new Checkpointer("main", store, log, metrics, 10_000_000L);
        c.submit(List.of(entry(7)));
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < deadline && !metrics.render().contains("kind=\"checkpoint\"} 5")) {
            Thread.sleep(5);
        }
        String text = out.toString(StandardCharsets.UTF_8);
        assertEquals(1, text.lines().filter(l -> l.contains("event=checkpoint-write-failed")
                && l.contains("error=\"No such file or directory\"")).count(), text);
        assertEquals("No such file or directory", c.lastError());
        Files.createDirectories(dir); // the next retry, with no new submission, writes the snapshot
        while (System.nanoTime() < deadline && !Files.exists(store.file())) Thread.sleep(5);
        assertEquals(7, store.load(log, false).entries().get(0).offset());
        c.close();
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("event=checkpoint-write-recovered"));
        assertEquals(null, c.lastError());
    }
}
