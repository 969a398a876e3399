package io.jfio.ship.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.core.sys.FileNames;
import io.jfio.ship.log.ShipLog;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The checkpoint file's encoding keeps every path's bytes, UTF-8 or not; the file is written in the directory that
 * was opened, whatever is later put at its name.
 */
class CheckpointStoreTest {
    @TempDir
    Path tmp;

    @Test
    void shouldKeepWritingIntoTheOpenedDirectoryWhenItIsSwappedForASymlink() throws IOException {
        Path state = Files.createDirectory(tmp.resolve("state"));
        Path elsewhere = Files.createDirectory(tmp.resolve("elsewhere"));
        ShipLog quiet = new ShipLog(new PrintStream(OutputStream.nullOutputStream()), false);
        try (StateDir dir = StateDir.open(state)) {
            CheckpointStore store = new CheckpointStore(dir, "checkpoints-main.bin");
            store.write(List.of(new Checkpoint(1, 2, 3, 4, 5, 6, "/logs/a.log")));
            Path old = Files.move(state, tmp.resolve("state.old"));
            Files.createSymbolicLink(state, elsewhere);
            for (int i = 0; i < 5; i++) {
                store.write(List.of(new Checkpoint(1, 2, 3, 4, 100 + i, 6, "/logs/a.log")));
            }
            store.load(quiet, true);
            try (Stream<Path> s = Files.list(elsewhere)) {
                assertEquals(List.of(), s.toList(), "nothing is created through the link");
            }
            List<Checkpoint> saved = new CheckpointStore(old.resolve("checkpoints-main.bin")).load(quiet, false)
                    .entries();
            assertEquals(104, saved.get(0).offset(), "the newest checkpoint is in the directory opened");
            assertTrue(Files.isSymbolicLink(state) && !Files.exists(old.resolve("checkpoints-main.bin.tmp"),
                    LinkOption.NOFOLLOW_LINKS));
        }
    }

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
