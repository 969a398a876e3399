package io.jfio.ship.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.core.sys.FileNames;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The checkpoint file's encoding keeps every path's bytes, UTF-8 or not. */
class CheckpointStoreTest {
    @Test
    void shouldKeepPathsThatAreNotUtf8ByTheirBytes() {
        String bad = FileNames.decode("/logs/bad\u00ffx.log".getBytes(StandardCharsets.ISO_8859_1));
        String other = FileNames.decode("/logs/bad\u00fex.log".getBytes(StandardCharsets.ISO_8859_1));
        List<Checkpoint> in = List.of(new Checkpoint(1, 2, 3, 4, 5, 6, bad), new Checkpoint(1, 3, 3, 4, 5, 6, other),
                new Checkpoint(1, 4, 3, 4, 5, 6, "/logs/café.log"));
        List<Checkpoint> out = new ArrayList<>();
        assertNull(CheckpointStore.parse(CheckpointStore.encode(in), out));
        assertEquals(in, out);
    }

    @Test
    void shouldNameEverySinksFileSoThatItsNameReadsBack() {
        for (String sink : List.of("main", "a b", "ä", "_41", "x/../y", "checkpoints-", "..", "s3.logs-1")) {
            String file = CheckpointStore.fileName(sink);
            assertTrue(file.matches("checkpoints-[A-Za-z0-9._-]+\\.bin"), file);
            assertEquals(sink, CheckpointStore.sinkOf(file), file);
        }
        assertEquals("checkpoints-a_20b.bin", CheckpointStore.fileName("a b"));
        for (String notOne : List.of("lock", "checkpoints-main.bin.tmp", "checkpoints-a_2.bin", "checkpoints-a_zz.bin",
                "s3-journal-main.log")) {
            assertNull(CheckpointStore.sinkOf(notOne), notOne);
        }
    }
}
