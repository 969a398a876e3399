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
    void shouldKeepTheSinksOffsetOfEachContentOnceAndEveryOtherContent() {
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
    void shouldResumeWhereTheSinksDataEndsWhenACheckpointIsAheadOfIt() {
        // The sink lost what it had acknowledged (a damaged commit record, a restored copy): its data ends at 2000.
        Checkpoint sink = new Checkpoint(1, 2, 1024, 77, 2000, 10, "/l/a.log");
        Checkpoint ahead = new Checkpoint(1, 2, 1024, 77, 3000, 20, "/l/a.log");
        // A short file's position from before its fingerprint grew, in the sink; the checkpoint saw it grown.
        Checkpoint shortInSink = new Checkpoint(1, 3, 100, 5, 100, 10, "/l/b.log");
        Checkpoint grown = new Checkpoint(1, 3, 900, 6, 900, 20, "/l/b.log");
        // A file the sink never got a byte of (started at its end): only the checkpoint knows it.
        Checkpoint onlyHere = new Checkpoint(1, 4, 1024, 8, 7000, 20, "/l/c.log");
        // A gzip file: its batches hold none of its own bytes (the sink's entry at 0), the checkpoint its end.
        Checkpoint gzInSink = new Checkpoint(1, 5, 1024, 9, 0, 10, "/l/d.log.1.gz");
        Checkpoint gzDone = new Checkpoint(1, 5, 1024, 9, 4096, 20, "/l/d.log.1.gz");
        List<Checkpoint> all = Pipeline.positions("main", List.of(sink, shortInSink, gzInSink),
                List.of(ahead, grown, onlyHere, gzDone), log);
        assertEquals(List.of(sink, shortInSink, gzDone, onlyHere), all);
    }

    @Test
    void shouldTakeTheCheckpointsAloneForASinkWithoutPositions() {
        List<Checkpoint> cps = List.of(new Checkpoint(1, 2, 1024, 77, 3000, 20, "/l/a.log"));
        assertSame(cps, Pipeline.positions("main", null, cps, log));
    }
}
