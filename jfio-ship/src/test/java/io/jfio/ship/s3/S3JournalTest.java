package io.jfio.ship.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.ship.log.ShipLog;
import io.jfio.ship.state.Checkpoint;
import io.jfio.ship.state.StateDir;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The s3 sink's journal on real files: intents and dones replay into positions and open intents, a torn or damaged
 * line is skipped and said once, the numbers never repeat, compaction keeps what is open, and a symbolic link at
 * the journal's name is refused, never written through.
 */
class S3JournalTest {
    @TempDir
    Path dir;

    private static final long NOW = System.currentTimeMillis();

    private final ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
    private final ShipLog log = new ShipLog(new PrintStream(logBytes, true, StandardCharsets.UTF_8), false);

    private static S3Journal.Intent intent(long seq, long start, long end) {
        return new S3Journal.Intent(seq, "p/host/app.log." + start + "-" + end + "." + seq + ".log.gz", 7, 42, 1024,
                99L, "/var/log/app.log", start, end, NOW + seq);
    }

    @Test
    void shouldReplayDoneIntentsAsPositionsAndKeepOpenOnesForRedo() throws IOException {
        try (S3Journal j = new S3Journal(dir, "j.log", log)) {
            for (long s = 1; s <= 3; s++) {
                assertEquals(s, j.takeSeq());
                j.intent(intent(s, (s - 1) * 100, s * 100));
            }
            j.done(1, System.currentTimeMillis());
            j.done(2, System.currentTimeMillis());
        }
        try (S3Journal j = new S3Journal(dir, "j.log", log)) {
            List<Checkpoint> p = j.positions();
            assertEquals(1, p.size());
            assertEquals(200, p.get(0).offset());
            assertEquals("/var/log/app.log", p.get(0).path());
            assertEquals(List.of(intent(3, 200, 300)), j.openIntents());
            assertEquals(4, j.takeSeq(), "numbers are never reused");
        }
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("j.log"))));
    }

    private static S3Journal.Intent gzipIntent(long seq, long start, long end) {
        return new S3Journal.Intent(seq, "p/host/app.log.1.gz." + start + "-" + end + "." + seq + ".log.gz", 7, 43,
                1024, 77L, "/var/log/app.log.1.gz", start, end, NOW + seq, false, null, 5000);
    }

    @Test
    void shouldKeepGzipFilesDecompressedPositionsApartFromTheFilesPositionsThroughReplayAndCompaction()
            throws IOException {
        try (S3Journal j = new S3Journal(dir, "j.log", log, 1)) {
            j.takeSeq();
            j.intent(intent(1, 0, 100));
            j.done(1, NOW);
            for (long s = 2; s <= 4; s++) {
                j.takeSeq();
                j.intent(gzipIntent(s, (s - 2) * 2000, (s - 1) * 2000));
            }
            j.done(2, NOW); // compacts (bound 1): the snapshot holds the gzip position and the open gzip intents
            assertEquals(2000, j.gzipPosition(7, 43, 1024, 77L));
        }
        try (S3Journal j = new S3Journal(dir, "j.log", log)) {
            assertEquals(List.of(new Checkpoint(7, 42, 1024, 99L, 100, NOW, "/var/log/app.log")), j.positions(),
                    "the pipeline's positions are the files' own offsets only");
            assertEquals(2000, j.gzipPosition(7, 43, 1024, 77L));
            assertEquals(0, j.gzipPosition(7, 43, 1024, 78L), "another content of that inode has none");
            assertEquals(List.of(gzipIntent(3, 2000, 4000), gzipIntent(4, 4000, 6000)), j.openIntents());
            assertTrue(j.openIntents().get(0).gzip());
            assertEquals(1, j.gzipPositions().size());
            assertTrue(!j.gzipPositions().get(0).complete());
            j.abandon(3);
            j.abandon(4);
            j.gzipGone(7, 43);
        }
        try (S3Journal j = new S3Journal(dir, "j.log", log)) {
            assertTrue(j.gzipPositions().get(0).complete(), "a gzip file gone is complete: reported once");
            assertEquals(2000, j.gzipPosition(7, 43, 1024, 77L));
            assertEquals(List.of(), j.openIntents());
        }
    }

    @Test
    void shouldWriteAnOpenIntentAgainOnlyWhenItsEndChangedAndReplayTheNewEnd() throws IOException {
        try (S3Journal j = new S3Journal(dir, "j.log", log)) {
            j.takeSeq();
            j.intent(intent(1, 0, 100));
        }
        try (S3Journal j = new S3Journal(dir, "j.log", log, 1 << 20)) {
            long size = Files.size(dir.resolve("j.log"));
            j.intent(intent(1, 0, 100));
            assertEquals(size, Files.size(dir.resolve("j.log")), "an open intent as it is is not written again");
            j.intent(intent(1, 0, 100).ending(130));
            assertTrue(Files.size(dir.resolve("j.log")) > size, "an open intent with another end is");
            assertEquals(List.of(intent(1, 0, 100).ending(130)), j.openIntents());
        }
        try (S3Journal j = new S3Journal(dir, "j.log", log)) {
            assertEquals(List.of(intent(1, 0, 100).ending(130)), j.openIntents());
            j.done(1, NOW);
            assertEquals(130, j.positions().get(0).offset());
        }
    }

    @Test
    void shouldReplayAMultipartIntentCutShortAsItsNewEndAndKeyWithThePlannedKeyToDelete() throws IOException {
        S3Journal.Intent planned = new S3Journal.Intent(1, "p/app.log.0-1000.1.log", 7, 42, 1024, 99L,
                "/var/log/app.log", 0, 1000, NOW, true, null);
        try (S3Journal j = new S3Journal(dir, "j.log", log, 1)) {
            j.takeSeq();
            j.intent(planned);
            j.takeSeq();
            j.intent(new S3Journal.Intent(2, "p/other.log.0-10.2.log", 7, 43, 1024, 98L, "/var/log/other.log", 0,
                    10, NOW, true, null));
            j.replan(1, 600, "p/app.log.0-600.1.log");
            assertThrows(IllegalStateException.class, () -> j.replan(1, 500, "p/x"), "once cut, not multipart");
        }
        S3Journal.Intent cut = new S3Journal.Intent(1, "p/app.log.0-600.1.log", 7, 42, 1024, 99L, "/var/log/app.log",
                0, 600, NOW, false, "p/app.log.0-1000.1.log");
        // Replayed from the appended lines, then from the snapshot the open compacted them into.
        for (int round = 0; round < 2; round++) {
            try (S3Journal j = new S3Journal(dir, "j.log", log)) {
                assertEquals(cut, j.openIntents().get(0));
                assertTrue(j.openIntents().get(1).multipart());
                if (round == 1) {
                    j.done(1, NOW);
                    assertEquals(600, j.positions().get(0).offset(), "the position moves to the new end");
                }
            }
        }
    }

    @Test
    void shouldReadIntentLinesWrittenBeforeMultipartExisted() throws IOException {
        // An intent line of ten fields, as an earlier version wrote it: a single-request object.
        String body = "I 5 7 42 1024 99 0 100 " + NOW + " " + java.util.HexFormat.of().formatHex(
                "p/k".getBytes(StandardCharsets.US_ASCII)) + " " + java.util.HexFormat.of().formatHex(
                "/var/log/app.log".getBytes(StandardCharsets.US_ASCII));
        java.util.zip.CRC32C c = new java.util.zip.CRC32C();
        c.update(body.getBytes(StandardCharsets.US_ASCII));
        Files.writeString(dir.resolve("j.log"), String.format("%08x", c.getValue()) + " " + body + "\n");
        try (S3Journal j = new S3Journal(dir, "j.log", log)) {
            assertEquals(List.of(new S3Journal.Intent(5, "p/k", 7, 42, 1024, 99L, "/var/log/app.log", 0, 100, NOW)),
                    j.openIntents());
            assertEquals(6, j.takeSeq());
        }
    }

    @Test
    void shouldSkipATornLastLineAndADamagedOneAndSaySo() throws IOException {
        try (S3Journal j = new S3Journal(dir, "j.log", log)) {
            j.takeSeq();
            j.intent(intent(1, 0, 100));
            j.done(1, System.currentTimeMillis());
            j.takeSeq();
            j.intent(intent(2, 100, 200));
        }
        Path f = dir.resolve("j.log");
        String text = Files.readString(f);
        // A flipped character in the intent of 2, and a torn done of 2 after it.
        int at = text.lastIndexOf(" 100 200 ");
        String damaged = text.substring(0, at) + " 100 201 " + text.substring(at + 9);
        Files.writeString(f, damaged + "0123abcd D 2 17");
        try (S3Journal j = new S3Journal(dir, "j.log", log)) {
            assertEquals(100, j.positions().get(0).offset());
            assertEquals(List.of(), j.openIntents(), "the damaged intent is not trusted");
        }
        assertTrue(logBytes.toString(StandardCharsets.UTF_8).contains("s3-journal-lines-skipped")
                && logBytes.toString(StandardCharsets.UTF_8).contains("lines=2"), logBytes.toString());
    }

    @Test
    void shouldCompactToTheOpenIntentsAndPositions() throws IOException {
        try (S3Journal j = new S3Journal(dir, "j.log", log, 4096)) {
            // Enough records to pass the compaction bound several times.
            long seq = 0;
            for (int i = 0; i < 300; i++) {
                seq = j.takeSeq();
                j.intent(intent(seq, i * 10L, i * 10L + 10));
                j.done(seq, System.currentTimeMillis());
            }
            j.takeSeq();
            j.intent(intent(seq + 1, 3000, 3010));
        }
        assertTrue(Files.size(dir.resolve("j.log")) < 3 * 4096, "compacted: " + Files.size(dir.resolve("j.log")));
        try (S3Journal j = new S3Journal(dir, "j.log", log)) {
            assertEquals(3000, j.positions().get(0).offset());
            assertEquals(1, j.openIntents().size());
            assertEquals(3000, j.openIntents().get(0).start());
            assertEquals(302, j.takeSeq());
        }
        assertTrue(Files.size(dir.resolve("j.log")) < 1000, "a snapshot at open");
    }

    @Test
    void shouldKeepWritingInTheStateDirectoryItOpenedWhenItsNameIsSwappedForASymbolicLink() throws IOException {
        Path state = Files.createDirectory(dir.resolve("state"));
        Path elsewhere = Files.createDirectory(dir.resolve("elsewhere"));
        try (StateDir sd = StateDir.open(state); S3Journal j = new S3Journal(sd, "j.log", log, 1)) {
            j.takeSeq();
            j.intent(intent(1, 0, 100));
            // Whoever can write the state directory's parent moves it away and puts a link to their own in its place.
            Files.move(state, dir.resolve("state.moved"));
            Files.createSymbolicLink(state, elsewhere);
            j.done(1, NOW); // appends, then compacts (bound 1): a temporary, a rename, the journal opened again
            j.takeSeq();
            j.intent(intent(2, 100, 200));
            assertTrue(j.file().startsWith(state), "messages name the directory as configured: " + j.file());
        }
        try (var left = Files.list(elsewhere)) {
            assertEquals(List.of(), left.toList(), "nothing written through the link");
        }
        try (S3Journal j = new S3Journal(dir.resolve("state.moved"), "j.log", log)) {
            assertEquals(100, j.positions().get(0).offset());
            assertEquals(List.of(intent(2, 100, 200)), j.openIntents());
        }
    }

    @Test
    void shouldRefuseASymbolicLinkAtTheJournalsName() throws IOException {
        Path target = Files.writeString(dir.resolve("elsewhere"), "precious\n");
        Files.createSymbolicLink(dir.resolve("j.log"), target.getFileName());
        assertThrows(IOException.class, () -> new S3Journal(dir, "j.log", log));
        assertEquals("precious\n", Files.readString(target));
        Files.delete(dir.resolve("j.log"));
        Files.createSymbolicLink(dir.resolve("j.log.tmp"), target.getFileName());
        assertThrows(IOException.class, () -> new S3Journal(dir, "j.log", log));
        assertEquals("precious\n", Files.readString(target), "never written through");
        assertTrue(Files.notExists(dir.resolve("j.log")) || !Files.isSymbolicLink(dir.resolve("j.log")));
        Files.writeString(target, "x", StandardOpenOption.APPEND);
    }
}
