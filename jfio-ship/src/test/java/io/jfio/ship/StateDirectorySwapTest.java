package io.jfio.ship;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.ship.log.ShipLog;
import io.jfio.ship.state.Checkpoint;
import io.jfio.ship.state.CheckpointStore;
import io.jfio.ship.testing.ShipRun;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A running shipper whose state directory is renamed away and replaced by a symbolic link to another directory (as
 * a user who may write the state directory's parent could do): every later checkpoint goes on into the directory
 * it opened at the start, next to its lock, and nothing is ever created in the link's target.
 */
class StateDirectorySwapTest {
    @TempDir
    Path tmp;

    private static void append(Path file, int from, int to) throws IOException {
        StringBuilder b = new StringBuilder();
        for (int n = from; n <= to; n++) b.append("n=").append(n).append('\n');
        Files.writeString(file, b, StandardCharsets.US_ASCII, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    private static List<Checkpoint> saved(Path file) throws IOException {
        ShipLog quiet = new ShipLog(new PrintStream(OutputStream.nullOutputStream()), false);
        return Files.exists(file) ? new CheckpointStore(file).load(quiet, false).entries() : List.of();
    }

    private static List<Path> listing(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.toList();
        }
    }

    @Test
    void shouldKeepCheckpointingIntoTheOpenedStateDirectoryAfterItIsSwappedForASymlink() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path out = tmp.resolve("out");
        Path state = tmp.resolve("state");
        Path elsewhere = Files.createDirectory(tmp.resolve("elsewhere"));
        Path app = logs.resolve("app.log");
        append(app, 1, 100);
        var cfg = ShipRun.config(List.of(logs.resolve("*.log").toString()), out, state, Map.of());
        Path old = tmp.resolve("state.old");
        Path checkpoints = old.resolve(CheckpointStore.fileName("main"));
        try (ShipRun run = ShipRun.start(cfg)) {
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (System.nanoTime() < deadline && saved(state.resolve(CheckpointStore.fileName("main"))).isEmpty()) {
                Thread.sleep(10);
            }
            Files.move(state, old);
            Files.createSymbolicLink(state, elsewhere);
            for (int round = 0; round < 20; round++) {
                append(app, 101 + round * 100, 200 + round * 100);
                Thread.sleep(50);
                assertEquals(List.of(), listing(elsewhere), "created through the link; " + run.log());
            }
            long size = Files.size(app);
            while (System.nanoTime() < deadline && (saved(checkpoints).isEmpty()
                    || saved(checkpoints).get(0).offset() < size)) {
                Thread.sleep(10);
            }
            assertEquals(size, saved(checkpoints).get(0).offset(), "checkpointed in the opened directory; "
                    + run.log());
            assertEquals(List.of(), listing(elsewhere), "created through the link; " + run.log());
            assertTrue(Files.exists(old.resolve("lock")));
        }
        assertEquals(List.of(), listing(elsewhere));
    }
}
