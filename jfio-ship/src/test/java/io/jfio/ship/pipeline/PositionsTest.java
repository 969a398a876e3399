package io.jfio.ship.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.jfio.ship.log.ShipLog;
import io.jfio.ship.state.Checkpoint;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Where a run starts from: the sink's committed positions and the checkpoints, one entry per content. */
class PositionsTest {
    private final ShipLog log = new ShipLog(new PrintStream(new ByteArrayOutputStream(), true,
            StandardCharsets.UTF_8), true);

    @Test
    void shouldKeepTheLargerOffsetOfEachContentOnceAndEveryOtherContent() {
        Checkpoint sink = new Checkpoint(1, 2, 1024, 77, 5000, 10, "/l/a.log");
        Checkpoint stale = new Checkpoint(1, 2, 1024, 77, 3000, 20, "/l/a.log");
        Checkpoint same = new Checkpoint(1, 2, 1024, 77, 5000, 30, "/l/a.log");
        Checkpoint older = new Checkpoint(1, 2, 1024, 55, 9000, 30, "/l/a.log"); // the inode's content before
        List<Checkpoint> all = Pipeline.positions("main", List.of(sink), List.of(stale, same, older), log);
        assertEquals(2, all.size(), all.toString());
        assertSame(sink, all.get(0), "the sink's position, once");
        assertSame(older, all.get(1));
    }

    @Test
    void shouldTakeTheCheckpointsAloneForASinkWithoutPositions() {
        List<Checkpoint> cps = List.of(new Checkpoint(1, 2, 1024, 77, 3000, 20, "/l/a.log"));
        assertSame(cps, Pipeline.positions("main", null, cps, log));
    }
}
