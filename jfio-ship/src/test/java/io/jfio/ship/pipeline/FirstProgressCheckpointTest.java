package io.jfio.ship.pipeline;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.ship.log.ShipLog;
import io.jfio.ship.state.Checkpoint;
import io.jfio.ship.state.CheckpointStore;
import io.jfio.ship.testing.ShipRun;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run's first acknowledged progress is checkpointed at once, not at the end of a checkpoint interval: a shipper
 * killed soon after each start (a crash loop) must still move forward. A real shipper in this JVM, a real dir sink.
 */
class FirstProgressCheckpointTest {
    @TempDir
    Path tmp;

    @Test
    void shouldCheckpointTheFirstAcknowledgedBatchWithoutWaitingForTheInterval() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 4000; i++) {
            b.append("line ").append(i).append(" of a log that must be shipped\n");
        }
        Files.writeString(logs.resolve("app.log"), b);
        Path state = tmp.resolve("state");
        try (ShipRun run = ShipRun.start(ShipRun.config(List.of(logs.resolve("*.log").toString()), tmp.resolve("out"),
                state, Map.of("checkpoint-interval", "1h")))) {
            Path file = state.resolve("checkpoints-main.bin");
            long deadline = System.nanoTime() + 30_000_000_000L;
            long offset = 0;
            while (offset == 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
                offset = checkpointed(file);
            }
            assertTrue(offset > 0, "no acknowledged progress checkpointed within 30 s with a 1 h interval:\n"
                    + run.log());
        }
    }

    private static long checkpointed(Path file) {
        if (!Files.exists(file)) return 0;
        try {
            ShipLog quiet = new ShipLog(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                    false);
            return new CheckpointStore(file).load(quiet, false).entries().stream().mapToLong(Checkpoint::offset)
                    .max().orElse(0);
        } catch (java.io.IOException e) {
            return 0; // being replaced right now
        }
    }
}
