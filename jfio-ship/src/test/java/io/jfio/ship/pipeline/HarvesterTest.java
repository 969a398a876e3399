package io.jfio.ship.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.core.file.StatBuffer;
import io.jfio.ship.config.ShipConfig;
import io.jfio.ship.log.ShipLog;
import io.jfio.ship.metrics.ShipMetrics;
import io.jfio.ship.sink.Batch;
import io.jfio.ship.sink.Sink;
import io.jfio.ship.state.Checkpoint;
import io.jfio.ship.testing.ShipRun;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The harvester alone, on real files: what one read turns into (whole records only, an unterminated line waiting,
 * overlong lines split or dropped, raw bytes as they are), each batch carrying its source's identity, and only the
 * primary of a content reading it. The sink is a recorder of the batches' bytes; the harvester is what is tested.
 */
class HarvesterTest {
    @TempDir
    Path tmp;

    private final Arena arena = Arena.ofShared();
    private final ShipLog log = new ShipLog(new PrintStream(new ByteArrayOutputStream(), true,
            StandardCharsets.UTF_8), true);

    @AfterEach
    void close() {
        arena.close();
    }

    /** Keeps a copy of each batch's bytes and its identity. */
    private static final class Recorder implements Sink {
        final List<String> batches = new ArrayList<>();
        final List<long[]> at = new ArrayList<>();
        final List<io.jfio.ship.sink.SourceId> ids = new ArrayList<>();

        @Override
        public String describe() {
            return "recorder";
        }

        @Override
        public CompletableFuture<Void> send(Batch b) {
            batches.add(new String(b.bytes().toArray(ValueLayout.JAVA_BYTE), StandardCharsets.ISO_8859_1));
            at.add(new long[] {b.offset(), b.length()});
            ids.add(b.id());
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    }

    private record Rig(FileTracker files, BatchWindow window, Harvester harvester, Recorder sink) {
    }

    private Rig rig(Map<String, String> extra) throws Exception {
        Map<String, String> e = new HashMap<>(Map.of("buffer-size", "4KiB"));
        e.putAll(extra);
        ShipConfig cfg = ShipRun.config(List.of(tmp.resolve("logs").resolve("*.log*").toString()), tmp.resolve("out"),
                tmp.resolve("state"), e);
        StatBuffer stx = new StatBuffer(arena);
        ShipMetrics metrics = new ShipMetrics();
        FileTracker files = new FileTracker(ShipConfig.MAIN, cfg, log, metrics, false, stx, arena.allocate(8192),
                new Discovery(cfg.inputsOf(ShipConfig.MAIN), stx, log), null, List.of(), false);
        Recorder sink = new Recorder();
        BatchWindow window = new BatchWindow(sink, metrics.of(ShipConfig.MAIN), (v, x) -> { });
        Harvester h = new Harvester(ShipConfig.MAIN, cfg, log, metrics, files, window,
                arena.allocate(cfg.bufferCapacity(), 4096));
        return new Rig(files, window, h, sink);
    }

    private Path file(String name, String content) throws IOException {
        Path p = Files.createDirectories(tmp.resolve("logs")).resolve(name);
        Files.writeString(p, content, StandardCharsets.ISO_8859_1, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        return p;
    }

    @Test
    void shouldShipWholeLinesAndKeepAnUnterminatedOneForLater() throws Exception {
        Rig r = rig(Map.of());
        Path p = file("app.log", "one\ntwo\nthr");
        r.files().scan(System.nanoTime());
        TrackedFile t = r.files().at(p.toString());
        assertEquals(Harvester.Result.MOVED, r.harvester().harvest(t, false));
        assertEquals(List.of("one\ntwo\n"), r.sink().batches);
        assertEquals(Harvester.Result.IDLE, r.harvester().harvest(t, false));
        assertTrue(t.stream.partialPending, "the rest waits for its newline");
        assertFalse(t.readable);
        file("app.log", "ee\n");
        r.files().observeSize(t, Files.size(p), System.nanoTime());
        assertEquals(Harvester.Result.MOVED, r.harvester().harvest(t, false));
        assertEquals("three\n", r.sink().batches.get(1));
        assertEquals(8, r.sink().at.get(1)[0]);
        assertEquals(t.inode, r.sink().ids.get(1).inode(), "each batch names its source");
        assertEquals(p.toString(), r.sink().ids.get(1).path());
        assertEquals(14, t.stream.read);
        assertEquals(Harvester.Result.IDLE, r.harvester().harvest(t, false));
        assertTrue(t.atEof);
        // A rotated file's last, unterminated line ships as it is when asked to.
        file("app.log", "tail");
        r.files().observeSize(t, Files.size(p), System.nanoTime());
        assertEquals(Harvester.Result.MOVED, r.harvester().harvest(t, true));
        assertEquals("tail", r.sink().batches.get(2));
    }

    @Test
    void shouldSplitOrDropALineLongerThanMaxRecord() throws Exception {
        String line = "x".repeat(5000) + "\n";
        Rig split = rig(Map.of("max-record", "2KiB", "on-overlong", "split"));
        Path p = file("split.log", line + "ok\n");
        split.files().scan(System.nanoTime());
        TrackedFile t = split.files().at(p.toString());
        while (split.harvester().harvest(t, false) == Harvester.Result.MOVED) {
            // until everything is read
        }
        assertEquals(List.of(2048, 2048, 905 + 3), split.sink().batches.stream().map(String::length).toList());
        assertEquals(line + "ok\n", String.join("", split.sink().batches));

        Files.delete(p);
        Rig drop = rig(Map.of("max-record", "2KiB", "on-overlong", "drop"));
        Path q = file("drop.log", line + "ok\n");
        drop.files().scan(System.nanoTime());
        TrackedFile u = drop.files().at(q.toString());
        while (drop.harvester().harvest(u, false) == Harvester.Result.MOVED) {
            // until everything is read
        }
        assertEquals(List.of("ok\n"), drop.sink().batches, "the overlong line skipped, the next one whole");
        assertEquals(Files.size(q), u.stream.read);
        assertTrue(drop.window().collect() == null);
        assertEquals(Files.size(q), u.stream.acked, "skipped bytes are acknowledged in their turn");
    }

    @Test
    void shouldKeepTheCheckpointAtTheStartOfAnOverlongLineUntilItEnds() throws Exception {
        // A run killed while it drops an unterminated overlong line must not resume inside it: the line's rest would
        // then be shipped as a line of its own.
        Rig r = rig(Map.of("max-record", "2KiB", "on-overlong", "drop"));
        Path p = file("drop.log", "ok\n" + "x".repeat(5000));
        r.files().scan(System.nanoTime());
        TrackedFile t = r.files().at(p.toString());
        while (r.harvester().harvest(t, false) == Harvester.Result.MOVED) {
            // until everything there is read
        }
        r.window().collect();
        assertEquals(List.of("ok\n"), r.sink().batches);
        assertEquals(Files.size(p), t.stream.acked, "the dropped bytes are acknowledged");
        assertEquals(List.of(3L), r.files().entries(System.currentTimeMillis()).stream().map(Checkpoint::offset)
                .toList(), "the checkpoint stays where the overlong line began");
        file("drop.log", "TAIL\nafter\n");
        r.files().observeSize(t, Files.size(p), System.nanoTime());
        while (r.harvester().harvest(t, false) == Harvester.Result.MOVED) {
            // until everything is read
        }
        r.window().collect();
        assertEquals(List.of("ok\n", "after\n"), r.sink().batches);
        assertEquals(List.of(Files.size(p)), r.files().entries(System.currentTimeMillis()).stream()
                .map(Checkpoint::offset).toList(), "past the line once it ended");
    }

    @Test
    void shouldShipRawBytesAsTheyAre() throws Exception {
        Rig r = rig(Map.of("framing", "raw"));
        Path p = file("bin.log", "no newline \u0000 at all");
        r.files().scan(System.nanoTime());
        TrackedFile t = r.files().at(p.toString());
        assertEquals(Harvester.Result.MOVED, r.harvester().harvest(t, false));
        assertEquals(List.of("no newline \u0000 at all"), r.sink().batches);
    }

    @Test
    void shouldReadOnlyThroughTheFileThatHoldsAContentFirst() throws Exception {
        Rig r = rig(Map.of());
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 300; i++) b.append("line ").append(i).append('\n');
        Path p = file("app.log", b.toString());
        r.files().scan(System.nanoTime());
        Path copy = Files.copy(p, p.resolveSibling("app.log.1"), StandardCopyOption.COPY_ATTRIBUTES);
        r.files().scan(System.nanoTime());
        TrackedFile tc = r.files().at(copy.toString());
        assertFalse(tc.primary());
        assertEquals(Harvester.Result.IDLE, r.harvester().harvest(tc, false), "the copy waits");
        assertTrue(r.sink().batches.isEmpty());
        TrackedFile t = r.files().at(p.toString());
        assertEquals(Harvester.Result.MOVED, r.harvester().harvest(t, false));
        assertEquals(b.toString(), String.join("", r.sink().batches), "shipped once, from the original");
    }

    /** 2 KiB of lines that start alike: a full fingerprint, and a header every rewrite keeps. */
    private static String header() {
        StringBuilder b = new StringBuilder();
        for (int i = 0; b.length() < 2048; i++) b.append("header line ").append(i).append('\n');
        return b.toString();
    }

    @Test
    void shouldReadAWriteEventsNewLinesWithOneReadThatChecksTheAnchor() throws Exception {
        Rig r = rig(Map.of());
        String head = header();
        Path p = file("app.log", head);
        r.files().scan(System.nanoTime());
        TrackedFile t = r.files().at(p.toString());
        while (r.harvester().harvest(t, false) == Harvester.Result.MOVED) {
            assertTrue(r.window().collect() == null);
        }
        file("app.log", "one more\n");
        long reads = r.harvester().reads();
        assertFalse(r.files().modified(p.toString(), System.nanoTime()));
        assertTrue(t.readable, "a write event marks the file readable, no fstat: the read checks the anchor");
        assertEquals(Harvester.Result.MOVED, r.harvester().harvest(t, false));
        assertEquals("one more\n", r.sink().batches.get(r.sink().batches.size() - 1));
        assertEquals(reads + 1, r.harvester().reads(), "one read: the anchor and the new line together");
        assertFalse(t.readable, "a short read is the end: no read to hear 0 bytes");
        assertTrue(t.atEof);
    }

    @Test
    void shouldStartANewContentWhenTheAnchoredReadFindsTheFileRewrittenUnderTheSameHeader() throws Exception {
        Rig r = rig(Map.of());
        String head = header();
        Path p = file("app.log", head + "first content, line a\nfirst content, line b\n");
        r.files().scan(System.nanoTime());
        TrackedFile t = r.files().at(p.toString());
        while (r.harvester().harvest(t, false) == Harvester.Result.MOVED) {
            assertTrue(r.window().collect() == null);
        }
        int shipped = r.sink().batches.size();
        long offset = t.stream.read;
        // Truncated and written again past the old offset between two looks, with the same first KiB: only the
        // bytes before the read offset can tell.
        String second = head + "SECOND content, line A\nSECOND content, line B\nand one more line after it\n";
        Files.writeString(p, second, StandardCharsets.ISO_8859_1, StandardOpenOption.TRUNCATE_EXISTING);
        assertTrue(Files.size(p) > offset);
        assertFalse(r.files().modified(p.toString(), System.nanoTime()));
        assertEquals(Harvester.Result.IDLE, r.harvester().harvest(t, false), "the anchor is not there: nothing sent");
        assertEquals(shipped, r.sink().batches.size());
        assertEquals(0, t.stream.read, "a new content, read from its beginning");
        while (r.harvester().harvest(t, false) == Harvester.Result.MOVED) {
            assertTrue(r.window().collect() == null);
        }
        assertEquals(second, String.join("", r.sink().batches.subList(shipped, r.sink().batches.size())));
    }

    /** Lines {@code prefix + i}, numbered from 0, until they make at least {@code atLeast} characters. */
    private static String numbered(String prefix, int atLeast) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; b.length() < atLeast; i++) b.append(prefix).append(i).append('\n');
        return b.toString();
    }

    @Test
    void shouldNoticeATruncationBetweenTwoReadsOfACatchUpThatNoEventReported() throws Exception {
        // A file read in several reads (more than one buffer behind, as at a start or after an outage) is truncated
        // and written again past the read offset between two of them (copytruncate while the shipper catches up),
        // before any event about it is taken: the next read must not take the new content's bytes there for the
        // rest of the old one.
        Rig r = rig(Map.of());
        String old = numbered("old content, line ", 12_000);
        Path p = file("app.log", old);
        r.files().scan(System.nanoTime());
        TrackedFile t = r.files().at(p.toString());
        assertEquals(Harvester.Result.MOVED, r.harvester().harvest(t, false));
        assertNull(r.window().collect());
        long offset = t.stream.read;
        assertTrue(offset > 0 && offset < old.length(), "one read of several: " + offset);
        assertTrue(t.readable, "more to read, without an event");
        Stream oldContent = t.stream;
        String next = numbered("NEW CONTENT, LINE ", 12_000);
        Files.writeString(p, next, StandardCharsets.ISO_8859_1, StandardOpenOption.TRUNCATE_EXISTING);
        while (r.harvester().harvest(t, false) != Harvester.Result.IDLE || t.readable) {
            assertNull(r.window().collect());
        }
        String shipped = String.join("", r.sink().batches);
        assertEquals(offset, oldContent.read, "nothing more read as the old content");
        assertEquals(old.substring(0, (int) offset) + next, shipped);
    }

    @Test
    void shouldNotShipANewContentAsTheOneAFileHeldWhenItWasFoundBeforeItsFirstRead() throws Exception {
        // Found (and fingerprinted) while the shipper had other files to read first; copytruncate truncates it and
        // the application writes it again before its first read, which has no anchor to check yet.
        Rig r = rig(Map.of());
        Path p = file("app.log", numbered("old content, line ", 3_000));
        r.files().scan(System.nanoTime());
        TrackedFile t = r.files().at(p.toString());
        Stream oldContent = t.stream;
        assertEquals(0, oldContent.read);
        String next = numbered("NEW CONTENT, LINE ", 6_000);
        Files.writeString(p, next, StandardCharsets.ISO_8859_1, StandardOpenOption.TRUNCATE_EXISTING);
        while (r.harvester().harvest(t, false) != Harvester.Result.IDLE || t.readable) {
            assertNull(r.window().collect());
        }
        assertNotSame(oldContent, t.stream, "a new content");
        assertEquals(0, oldContent.read, "nothing shipped as the old content");
        assertEquals(next, String.join("", r.sink().batches));
    }

    @Test
    void shouldNoticeATruncationThroughTheAnchoredRead() throws Exception {
        Rig r = rig(Map.of());
        Path p = file("app.log", header() + "a line that will be cut away\n");
        r.files().scan(System.nanoTime());
        TrackedFile t = r.files().at(p.toString());
        while (r.harvester().harvest(t, false) == Harvester.Result.MOVED) {
            assertTrue(r.window().collect() == null);
        }
        int shipped = r.sink().batches.size();
        Files.writeString(p, "short\n", StandardCharsets.ISO_8859_1, StandardOpenOption.TRUNCATE_EXISTING);
        assertFalse(r.files().modified(p.toString(), System.nanoTime()));
        assertEquals(Harvester.Result.IDLE, r.harvester().harvest(t, false));
        assertEquals(0, t.stream.read);
        assertEquals(Harvester.Result.MOVED, r.harvester().harvest(t, false));
        assertEquals("short\n", r.sink().batches.get(shipped));
    }

    @Test
    void shouldReadSmallUntilTheSinkAcknowledgesThenRampUpToTheBufferSize() throws Exception {
        Rig r = rig(Map.of("buffer-size", "1MiB"));
        StringBuilder b = new StringBuilder();
        for (int i = 0; b.length() < (6 << 20); i++) {
            b.append("record ").append(i).append(' ').append("y".repeat(60)).append('\n');
        }
        Path p = file("app.log", b.toString());
        r.files().scan(System.nanoTime());
        TrackedFile t = r.files().at(p.toString());
        // Nothing acknowledged yet: every read is a small one, however many are sent.
        for (int i = 0; i < 3; i++) {
            assertEquals(Harvester.Result.MOVED, r.harvester().harvest(t, false));
        }
        for (String batch : r.sink().batches) {
            assertTrue(batch.length() <= Harvester.RAMP_START && batch.length() > Harvester.RAMP_START - 100,
                    "read before any acknowledgement: " + batch.length());
        }
        // Each acknowledged batch doubles the limit, up to buffer-size.
        assertTrue(r.window().collect() == null);
        assertEquals(Harvester.RAMP_START << 3, r.harvester().readLimit());
        int before = r.sink().batches.size();
        assertEquals(Harvester.Result.MOVED, r.harvester().harvest(t, false));
        int len = r.sink().batches.get(before).length();
        assertTrue(len <= Harvester.RAMP_START << 3 && len > (Harvester.RAMP_START << 3) - 100, "read " + len);
        assertTrue(r.window().collect() == null);
        assertEquals(1 << 20, r.harvester().readLimit(), "ramped up to buffer-size");
        while (r.harvester().harvest(t, false) == Harvester.Result.MOVED) {
            assertTrue(r.window().collect() == null);
        }
        assertEquals(b.toString(), String.join("", r.sink().batches), "every byte once, in order");
    }
}
