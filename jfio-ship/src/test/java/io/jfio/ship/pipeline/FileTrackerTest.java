package io.jfio.ship.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.core.file.StatBuffer;
import io.jfio.ship.config.ShipConfig;
import io.jfio.ship.harvest.Fingerprint;
import io.jfio.ship.log.ShipLog;
import io.jfio.ship.metrics.ShipMetrics;
import io.jfio.ship.state.Checkpoint;
import io.jfio.ship.testing.ShipRun;
import java.io.ByteArrayOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The file tracker alone, on real files, with the interleavings of writes, rotations, reads, acknowledgements and
 * restarts written out step by step: which content each file is bound to and where it reads next. A "read" here is
 * what the harvester and the window do to a stream: the read offset moves, then the acknowledged one.
 */
class FileTrackerTest {
    @TempDir
    Path tmp;

    private final Arena arena = Arena.ofShared();
    private final ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
    private final ShipLog log = new ShipLog(new PrintStream(logBytes, true, StandardCharsets.UTF_8), true);

    @AfterEach
    void close() {
        arena.close();
    }

    private FileTracker tracker(List<Checkpoint> positions) throws Exception {
        ShipConfig cfg = ShipRun.config(List.of(tmp.resolve("logs").resolve("*.log*").toString()), tmp.resolve("out"),
                tmp.resolve("state"), Map.of());
        StatBuffer stx = new StatBuffer(arena);
        Discovery d = new Discovery(cfg.inputsOf(ShipConfig.MAIN), stx, log);
        return new FileTracker(ShipConfig.MAIN, cfg, log, new ShipMetrics(), false, stx, arena.allocate(8192), d, null,
                positions, false);
    }

    private Path logs() throws IOException {
        return Files.createDirectories(tmp.resolve("logs"));
    }

    /** Records {@code from..to} of a writer, 75 bytes each. */
    /** A 2 KiB header that stays the same when a file is truncated and written again: its first KiB never changes. */
    private static final byte[] HEADER = "#".repeat(2047).concat("\n").getBytes(StandardCharsets.US_ASCII);

    private static byte[] records(String writer, int from, int to) {
        StringBuilder b = new StringBuilder();
        for (int i = from; i <= to; i++) {
            String head = "w=" + writer + " n=" + String.format("%010d", i) + " ";
            b.append(head).append("x".repeat(74 - head.length())).append('\n');
        }
        return b.toString().getBytes(StandardCharsets.US_ASCII);
    }

    private static void append(Path p, byte[] b) throws IOException {
        Files.write(p, b, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    private static void truncate(Path p) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(p.toFile(), "rw")) {
            f.setLength(0);
        }
    }

    /** Reads and acknowledges {@code t}'s stream up to the file's size, as the harvester and window would. */
    private static void shipAll(FileTracker files, TrackedFile t) throws IOException {
        byte[] all = Files.readAllBytes(Path.of(t.path));
        long size = all.length;
        files.observeSize(t, size, System.nanoTime());
        t.stream.anchor(java.lang.foreign.MemorySegment.ofArray(all)); // what the window does with a batch's bytes
        t.stream.read = size;
        t.stream.acked = size;
        t.readable = false;
        t.atEof = true;
    }

    /**
     * Reads {@code t}'s stream from its read offset to the file's end as the harvester does (the bytes into a buffer,
     * the fingerprint made to cover them, no look at the size first), then acknowledges them.
     */
    private static boolean readAndShip(FileTracker files, TrackedFile t) throws IOException {
        byte[] all = Files.readAllBytes(Path.of(t.path));
        Stream s = t.stream;
        var bytes = java.lang.foreign.MemorySegment.ofArray(java.util.Arrays.copyOfRange(all, (int) s.read,
                all.length));
        if (!files.coverRead(t, bytes, bytes.byteSize(), System.nanoTime())) return false;
        s.anchor(bytes);
        s.read = all.length;
        s.acked = all.length;
        return true;
    }

    /** A scan that finds {@code p}, then all of it read and acknowledged. */
    private static TrackedFile trackAndShip(FileTracker files, Path p) throws IOException {
        files.scan(System.nanoTime());
        TrackedFile t = files.at(p.toString());
        shipAll(files, t);
        return t;
    }

    private static long inode(Path p) throws IOException {
        return (Long) Files.getAttribute(p, "unix:ino");
    }

    private static long dev(Path p) throws IOException {
        return (Long) Files.getAttribute(p, "unix:dev");
    }

    @Test
    void shouldBindACopytruncateCopyToTheContentItCopiedAndShipNothingOfItAgain() throws Exception {
        Path a = logs().resolve("app.log");
        append(a, records("a", 1, 40)); // 3,000 bytes: a full fingerprint
        FileTracker files = tracker(List.of());
        TrackedFile ta = trackAndShip(files, a);
        Stream shipped = ta.stream;

        // logrotate's copytruncate: copy, then truncate the original, which the application writes on.
        Path copy = a.resolveSibling("app.log.1");
        Files.copy(a, copy, StandardCopyOption.COPY_ATTRIBUTES);
        files.scan(System.nanoTime());
        TrackedFile tc = files.at(copy.toString());
        assertSame(shipped, tc.stream, "the copy holds the shipped content");
        assertFalse(tc.primary(), "the original still reads it");
        assertTrue(logBytes.toString().contains("why=copy-candidate"), logBytes.toString());

        truncate(a);
        append(a, records("a", 41, 42));
        files.observeSize(ta, Files.size(a), System.nanoTime());
        assertNotSame(shipped, ta.stream, "the truncated original starts a new content");
        assertEquals(0, ta.readOffset());
        assertTrue(ta.readable);
        assertTrue(tc.primary(), "the copy takes the old content over");
        assertEquals(3000, tc.readOffset(), "and has nothing of it left to ship");
        assertEquals(3000, tc.ackedOffset());
    }

    @Test
    void shouldShipFromTheCopyWhatTheOriginalCouldNotDeliverBeforeItsTruncation() throws Exception {
        Path a = logs().resolve("app.log");
        append(a, records("a", 1, 20));
        FileTracker files = tracker(List.of());
        TrackedFile ta = trackAndShip(files, a); // 1,500 bytes shipped
        Stream old = ta.stream;
        append(a, records("a", 21, 40)); // 1,500 more, not read yet
        Path copy = a.resolveSibling("app.log.1");
        Files.copy(a, copy);
        truncate(a);
        // The truncation is seen first, then the copy (events in the other order).
        files.observeSize(ta, 0, System.nanoTime());
        assertNotSame(old, ta.stream);
        assertEquals(1500, old.read);
        files.scan(System.nanoTime());
        TrackedFile tc = files.at(copy.toString());
        assertTrue(tc.primary());
        assertEquals(1500, tc.readOffset(), "the copy resumes where the original's content stopped");
        assertTrue(tc.readable);
    }

    @Test
    void shouldTakeACopyFoundBeforeTheOriginalsTruncationWasSeenForTheCopyItIs() throws Exception {
        Path a = logs().resolve("app.log");
        append(a, records("a", 1, 40));
        FileTracker files = tracker(List.of());
        TrackedFile ta = trackAndShip(files, a);
        Stream shipped = ta.stream;
        Path copy = a.resolveSibling("app.log.1");
        Files.copy(a, copy);
        truncate(a);
        append(a, records("a", 41, 41));
        // No event of the truncation handled yet: the scan that finds the copy is the first to look.
        files.scan(System.nanoTime());
        TrackedFile tc = files.at(copy.toString());
        assertSame(shipped, tc.stream, "a copy, not a new file");
        assertTrue(tc.primary());
        assertEquals(3000, tc.readOffset());
        assertNotSame(shipped, ta.stream);
        assertEquals(0, ta.readOffset());
    }

    @Test
    void shouldKeepATruncatedFilesOldContentInTheCheckpointSoACopyFoundAtTheNextStartResumes() throws Exception {
        Path a = logs().resolve("app.log");
        append(a, records("a", 1, 40));
        FileTracker files = tracker(List.of());
        TrackedFile ta = trackAndShip(files, a);
        // The original is truncated; the shipper dies before it has seen the copy (made just before).
        Path copy = a.resolveSibling("app.log.1");
        Files.copy(a, copy);
        truncate(a);
        append(a, records("a", 41, 50));
        files.observeSize(ta, Files.size(a), System.nanoTime());
        List<Checkpoint> saved = files.entries(System.currentTimeMillis());
        assertEquals(2, saved.size(), "the new content and the old one: " + saved);

        FileTracker restarted = tracker(saved);
        restarted.scan(System.nanoTime());
        assertEquals(0, restarted.at(a.toString()).readOffset(), "the new content from its beginning");
        assertEquals(3000, restarted.at(copy.toString()).readOffset(), "the copy where the old content was");
    }

    @Test
    void shouldRecogniseACopyFirstSeenWhileItWasStillEmpty() throws Exception {
        Path a = logs().resolve("app.log");
        append(a, records("a", 1, 40));
        FileTracker files = tracker(List.of());
        TrackedFile ta = trackAndShip(files, a);
        Stream shipped = ta.stream;
        // cp has created the copy but not written it yet when the scan sees it: a new file, as far as anyone knows.
        Path copy = a.resolveSibling("app.log.1");
        Files.createFile(copy);
        files.scan(System.nanoTime());
        TrackedFile tc = files.at(copy.toString());
        assertNotSame(shipped, tc.stream);
        assertEquals(0, tc.readOffset());
        // Then cp writes it, and the original is truncated.
        Files.write(copy, Files.readAllBytes(a));
        truncate(a);
        files.observeSize(tc, Files.size(copy), System.nanoTime());
        assertSame(shipped, tc.stream, "recognised once its first KiB is there");
        assertEquals(3000, tc.readOffset(), "nothing of it shipped again");
        assertTrue(logBytes.toString().contains("event=copy-recognised"), logBytes.toString());
    }

    @Test
    void shouldRecogniseACopyOfAContentShippedBeforeTheStartThatWasStillEmptyAtTheStart() throws Exception {
        Path a = logs().resolve("app.log");
        append(a, records("a", 1, 40));
        Checkpoint last = new Checkpoint(dev(a), inode(a), Fingerprint.SIZE, fingerprint(a), 2250,
                System.currentTimeMillis(), a.toString());
        byte[] old = Files.readAllBytes(a);
        Path copy = a.resolveSibling("app.log.1");
        Files.createFile(copy);
        truncate(a);
        append(a, records("a", 41, 41));
        FileTracker files = tracker(List.of(last));
        files.scan(System.nanoTime());
        TrackedFile tc = files.at(copy.toString());
        assertEquals(0, tc.readOffset());
        Files.write(copy, old);
        files.observeSize(tc, Files.size(copy), System.nanoTime());
        assertEquals(2250, tc.readOffset(), "resumed where the old content was shipped to");
    }

    @Test
    void shouldKeepACopyCaughtHalfWrittenWhenTheOriginalIsTruncatedBeforeTheCopyIsDone() throws Exception {
        Path a = logs().resolve("app.log");
        append(a, records("a", 1, 40));
        FileTracker files = tracker(List.of());
        TrackedFile ta = trackAndShip(files, a);
        Stream shipped = ta.stream;
        append(a, records("a", 41, 60)); // 1,500 bytes the original will not deliver
        byte[] all = Files.readAllBytes(a);
        Path copy = a.resolveSibling("app.log.1");
        Files.write(copy, java.util.Arrays.copyOf(all, 2110)); // cp is half way, mid-line
        files.scan(System.nanoTime());
        TrackedFile tc = files.at(copy.toString());
        assertSame(shipped, tc.stream);
        truncate(a); // the truncation, before cp is done (no event of it handled yet)
        append(a, records("a", 61, 61));
        Files.write(copy, all);
        files.observeSize(tc, Files.size(copy), System.nanoTime());
        assertSame(shipped, tc.stream, "still the copy: the original was truncated, not copied from other bytes");
        assertTrue(tc.primary());
        assertEquals(3000, tc.readOffset(), "it ships what the original did not, from a line's start");
        assertNotSame(shipped, ta.stream);
    }

    @Test
    void shouldRecogniseACopyWhoseSizeWasTakenWhileCpWasStillWritingIt() throws Exception {
        Path a = logs().resolve("app.log");
        append(a, records("a", 1, 40));
        FileTracker files = tracker(List.of());
        TrackedFile ta = trackAndShip(files, a);
        Stream shipped = ta.stream;
        Path copy = a.resolveSibling("app.log.1");
        Files.createFile(copy);
        files.scan(System.nanoTime());
        TrackedFile tc = files.at(copy.toString());
        assertNotSame(shipped, tc.stream, "empty: a new file as far as anyone knows");
        // A look at the copy's size while cp wrote it; before it is handled cp is done and the original truncated.
        Files.write(copy, Files.readAllBytes(a));
        truncate(a);
        append(a, records("a", 41, 41));
        files.observeSize(tc, 2110, System.nanoTime());
        assertSame(shipped, tc.stream, "the copy, though the size handled was shorter than what was shipped");
        assertEquals(3000, tc.readOffset(), "nothing of it shipped again");
    }

    @Test
    void shouldShipNothingOfACopyThatEndsBeforeWhatTheOriginalDeliveredBeforeItsTruncation() throws Exception {
        Path a = logs().resolve("app.log");
        append(a, records("a", 1, 40));
        FileTracker files = tracker(List.of());
        TrackedFile ta = trackAndShip(files, a);
        Stream shipped = ta.stream;
        // copytruncate copies; the application writes on meanwhile, and the shipper reads that from the original.
        Path copy = a.resolveSibling("app.log.1");
        Files.copy(a, copy);
        files.scan(System.nanoTime());
        TrackedFile tc = files.at(copy.toString());
        assertSame(shipped, tc.stream);
        append(a, records("a", 41, 60));
        shipAll(files, ta);
        truncate(a);
        append(a, records("a", 61, 61));
        files.observeSize(ta, Files.size(a), System.nanoTime());
        assertSame(shipped, tc.stream, "the copy holds the first 3,000 bytes of the content");
        assertTrue(tc.primary());
        files.observeSize(tc, Files.size(copy), System.nanoTime());
        assertSame(shipped, tc.stream, "shorter than what was shipped of its content is not a truncation of it");
        assertFalse(tc.primary() && tc.readable && tc.readOffset() < 3000, "nothing of it to ship: " + tc.stream);

        List<Checkpoint> saved = files.entries(System.currentTimeMillis());
        FileTracker restarted = tracker(saved);
        restarted.scan(System.nanoTime());
        assertEquals(3000, restarted.at(copy.toString()).readOffset(), "at its end after a restart too: " + saved);
    }

    @Test
    void shouldTakeACopyForACandidateWhileTheApplicationAppendsToTheOriginalAllThroughTheLook() throws Exception {
        Path a = logs().resolve("app.log");
        append(a, records("a", 1, 40));
        FileTracker files = tracker(List.of());
        TrackedFile ta = trackAndShip(files, a);
        Stream shipped = ta.stream;
        // copytruncate's copy is done; the application writes on, one small write after the other, while the scan
        // that finds the copy compares it with the original: look after look finds the original longer. Whether a
        // look falls between two writes is up to the scheduler: many copies make the interleaving likely.
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch writing = new CountDownLatch(1);
        Thread app = new Thread(() -> {
            byte[] line = records("a", 41, 41);
            try (FileOutputStream out = new FileOutputStream(a.toFile(), true)) {
                while (!stop.get()) {
                    out.write(line);
                    writing.countDown();
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        app.start();
        try {
            writing.await();
            for (int k = 1; k <= 60; k++) {
                Path copy = a.resolveSibling("app.log." + k);
                Files.write(copy, records("a", 1, 40)); // what was there when cp ran
                files.scan(System.nanoTime());
                TrackedFile tc = files.at(copy.toString());
                assertSame(shipped, tc.stream, "copy " + k + " is a candidate for the content it copies, not a new "
                        + "file: " + logBytes);
                assertFalse(tc.primary(), "the original still reads it");
            }
        } finally {
            stop.set(true);
            app.join();
        }
    }

    @Test
    void shouldShipNothingOfACopyFoundAfterTheTruncationThatEndsBeforeWhatWasDelivered() throws Exception {
        Path a = logs().resolve("app.log");
        append(a, records("a", 1, 40));
        FileTracker files = tracker(List.of());
        TrackedFile ta = trackAndShip(files, a);
        Stream shipped = ta.stream;
        Path copy = a.resolveSibling("app.log.1");
        Files.copy(a, copy);
        org.junit.jupiter.api.Assumptions.assumeTrue(birthKnown(copy), "the file system keeps no creation time");
        append(a, records("a", 41, 60));
        shipAll(files, ta); // the copy not seen yet
        truncate(a);
        append(a, records("a", 61, 61));
        files.observeSize(ta, Files.size(a), System.nanoTime());
        files.scan(System.nanoTime());
        TrackedFile tc = files.at(copy.toString());
        assertSame(shipped, tc.stream, "the content the original held");
        assertTrue(tc.readOffset() >= Files.size(copy), "its bytes were all shipped from the original: " + tc.stream);
    }

    @Test
    void shouldShipAWholeFileCreatedAfterATruncationThatStartsLikeWhatWasTruncatedAway() throws Exception {
        Path a = logs().resolve("app.log");
        append(a, records("a", 1, 60));
        FileTracker files = tracker(List.of());
        TrackedFile ta = trackAndShip(files, a);
        byte[] head = java.util.Arrays.copyOf(Files.readAllBytes(a), 3000);
        truncate(a);
        files.observeSize(ta, 0, System.nanoTime());
        Thread.sleep(50); // past the file system's clock granularity
        Path other = a.resolveSibling("other.log");
        Files.write(other, head); // the same first 3,000 bytes, made after the truncation: not a copy
        files.scan(System.nanoTime());
        assertEquals(0, files.at(other.toString()).readOffset(), "shipped whole");
    }

    @Test
    void shouldLookAtTheOriginalBeforeTakingACandidateWhoseTimeIsUpForAFileOfItsOwn() throws Exception {
        Path a = logs().resolve("app.log");
        append(a, records("a", 1, 40));
        FileTracker files = tracker(List.of());
        TrackedFile ta = trackAndShip(files, a);
        Stream shipped = ta.stream;
        Path copy = a.resolveSibling("app.log.1");
        Files.copy(a, copy);
        files.scan(System.nanoTime());
        TrackedFile tc = files.at(copy.toString());
        assertFalse(tc.primary());
        // Truncated in time, but the pipeline was busy: the event is not handled when the candidate's time is up.
        truncate(a);
        files.checkCopies(System.nanoTime() + FileTracker.COPY_GRACE_NANOS + 1);
        assertSame(shipped, tc.stream, "still the copy: " + logBytes);
        assertTrue(tc.primary());
        assertEquals(3000, tc.readOffset());
        assertFalse(logBytes.toString().contains("event=not-a-copy"), logBytes.toString());
    }

    @Test
    void shouldStoreAPositionWithAFingerprintThatCoversWhatWasReadSoATruncatedFileIsReadAgainFromZero()
            throws Exception {
        Path a = logs().resolve("app.log");
        append(a, records("a", 1, 40));
        FileTracker files = tracker(List.of());
        TrackedFile ta = trackAndShip(files, a);
        // Truncated, seen at size 0; the application writes 11 records before the next read, which takes them with
        // no look at the size in between.
        truncate(a);
        files.observeSize(ta, 0, System.nanoTime());
        append(a, records("a", 41, 51));
        assertTrue(readAndShip(files, ta));
        assertEquals(825, ta.stream.fpLength, "the fingerprint covers what was read");
        List<Checkpoint> saved = files.entries(System.currentTimeMillis());
        // Then a kill, and copytruncate while stopped: the file holds other records now, with the same first bytes.
        truncate(a);
        append(a, records("a", 52, 200));
        FileTracker restarted = tracker(saved);
        restarted.scan(System.nanoTime());
        assertEquals(0, restarted.at(a.toString()).readOffset(), "not one of the new records taken for shipped");
    }

    @Test
    void shouldRecogniseACopyWhenItsFirstReadBringsItsFirstKib() throws Exception {
        Path a = logs().resolve("app.log");
        append(a, records("a", 1, 40));
        FileTracker files = tracker(List.of());
        TrackedFile ta = trackAndShip(files, a);
        Stream shipped = ta.stream;
        Path copy = a.resolveSibling("app.log.1");
        Files.createFile(copy);
        files.scan(System.nanoTime());
        TrackedFile tc = files.at(copy.toString());
        Files.write(copy, Files.readAllBytes(a));
        truncate(a);
        files.observeSize(ta, 0, System.nanoTime());
        // The first read of the copy, with no look at its size before: it brings the first KiB.
        assertFalse(readAndShip(files, tc), "the read is dropped");
        assertSame(shipped, tc.stream, "the copy joined the content it copies");
        assertEquals(3000, tc.readOffset());
    }

    @Test
    void shouldResumeACopyOfAFileDeletedWhileTheShipperWasStoppedWhereThatFileWasShipped() throws Exception {
        Path a = logs().resolve("app.log");
        append(a, records("a", 1, 40));
        FileTracker files = tracker(List.of());
        trackAndShip(files, a);
        List<Checkpoint> saved = files.entries(System.currentTimeMillis());
        // While stopped: moved to another file system (copied, then deleted), into a name the glob matches.
        Path moved = a.resolveSibling("app.log.old");
        Files.copy(a, moved);
        Files.delete(a);
        FileTracker restarted = tracker(saved);
        restarted.scan(System.nanoTime());
        assertEquals(3000, restarted.at(moved.toString()).readOffset(), "not shipped again");
    }

    @Test
    void shouldKnowACopyResumedAtItsFirstReadForTheContentALaterCopyHolds() throws Exception {
        Path a = logs().resolve("app.log");
        append(a, records("a", 1, 40));
        FileTracker files = tracker(List.of());
        trackAndShip(files, a);
        List<Checkpoint> saved = files.entries(System.currentTimeMillis());
        byte[] old = Files.readAllBytes(a);
        Path copy = a.resolveSibling("app.log.1");
        Files.createFile(copy); // empty at the next start
        truncate(a);
        append(a, records("a", 41, 42));
        FileTracker restarted = tracker(saved);
        restarted.scan(System.nanoTime());
        TrackedFile tc = restarted.at(copy.toString());
        Files.write(copy, old);
        assertFalse(readAndShip(restarted, tc), "its first read finds it a copy of what was shipped");
        assertEquals(3000, tc.readOffset());
        // A copy of the copy, made while it still holds the content: taken for a copy too, not a new file.
        Path again = a.resolveSibling("app.log.2");
        Files.copy(copy, again);
        restarted.scan(System.nanoTime());
        assertSame(tc.stream, restarted.at(again.toString()).stream, logBytes.toString());
    }

    @Test
    void shouldShipEachOfTwoIndependentFilesThatHoldTheSameBytes() throws Exception {
        Path a = logs().resolve("one.log");
        append(a, records("a", 1, 40));
        FileTracker files = tracker(List.of());
        trackAndShip(files, a);
        Path b = a.resolveSibling("two.log");
        append(b, records("a", 1, 40)); // the same lines, written to another file: not a rotation
        long now = System.nanoTime();
        files.scan(now);
        TrackedFile tb = files.at(b.toString());
        assertFalse(tb.primary(), "a copy candidate while one.log might still be truncated");
        assertTrue(files.entries(System.currentTimeMillis()).stream().noneMatch(c -> c.inode() == tb.inode),
                "a candidate has shipped nothing of its own and keeps no position");
        files.checkCopies(now + FileTracker.COPY_GRACE_NANOS / 2);
        assertFalse(tb.primary(), "still within the grace time");
        files.checkCopies(now + FileTracker.COPY_GRACE_NANOS + 1);
        assertTrue(tb.primary(), "one.log was not truncated: two.log is a file of its own");
        assertEquals(0, tb.readOffset(), "and all of it is shipped");
        assertTrue(tb.readable);
        assertTrue(logBytes.toString().contains("event=not-a-copy"), logBytes.toString());
    }

    @Test
    void shouldTakeAStaleEntryOfTheSameContentForNeitherAPositionNorAnOrphan() throws Exception {
        Path a = logs().resolve("app.log");
        append(a, records("a", 1, 400)); // 30,000 bytes
        long now = System.currentTimeMillis();
        // The sink's exact position, the checkpoint's stale one, and the sink's entry from while the fingerprint grew.
        Checkpoint sink = new Checkpoint(dev(a), inode(a), Fingerprint.SIZE, fingerprint(a), 27000, now, a.toString());
        Checkpoint stale = new Checkpoint(dev(a), inode(a), Fingerprint.SIZE, fingerprint(a), 13725, now,
                a.toString());
        Checkpoint growing = new Checkpoint(dev(a), inode(a), 900, fingerprint(a, 900), 900, now, a.toString());
        Path copy = a.resolveSibling("app.log.1");
        Files.createFile(copy);
        FileTracker files = tracker(List.of(growing, stale, sink));
        files.scan(System.nanoTime());
        TrackedFile ta = files.at(a.toString());
        assertEquals(27000, ta.readOffset());
        // copytruncate: the copy is written (and seen), then the original truncated.
        Files.write(copy, Files.readAllBytes(a));
        files.observeSize(files.at(copy.toString()), Files.size(copy), System.nanoTime());
        TrackedFile tc = files.at(copy.toString());
        assertFalse(tc.primary(), "a candidate while the original holds the content: " + logBytes);
        truncate(a);
        files.observeSize(ta, Files.size(a), System.nanoTime());
        assertTrue(tc.primary());
        assertEquals(27000, tc.readOffset(), "where the content was shipped to, not a stale checkpoint's offset");
    }

    @Test
    void shouldSeeATruncationUnderAHeaderThatStaysTheSame() throws Exception {
        Path a = logs().resolve("app.log");
        append(a, HEADER);
        append(a, records("a", 1, 40));
        FileTracker files = tracker(List.of());
        TrackedFile ta = trackAndShip(files, a);
        long shipped = ta.readOffset();
        // Truncated and written again, header first, past the old offset before the shipper looked.
        truncate(a);
        append(a, HEADER);
        append(a, records("b", 1, 60));
        files.observeSize(ta, Files.size(a), System.nanoTime());
        assertTrue(Files.size(a) > shipped);
        assertEquals(0, ta.readOffset(), "the same first KiB, but not the same content: from its beginning");
    }

    @Test
    void shouldShipAWholeNewFileThatStartsLikeAContentNoFileHoldsAnyMore() throws Exception {
        Path a = logs().resolve("app.log");
        append(a, HEADER);
        append(a, records("a", 1, 40));
        FileTracker files = tracker(List.of());
        TrackedFile ta = trackAndShip(files, a);
        truncate(a); // the content ends (no copy of it)
        files.observeSize(ta, 0, System.nanoTime());
        Path b = a.resolveSibling("other.log");
        append(b, HEADER);
        append(b, records("b", 1, 60)); // longer than what was shipped of the old content
        files.scan(System.nanoTime());
        assertEquals(0, files.at(b.toString()).readOffset(), "a header in common is not a copy");
    }

    @Test
    void shouldRecogniseACopyOfAContentThatThisRunResumedAndNeverRead() throws Exception {
        Path a = logs().resolve("app.log");
        append(a, records("a", 1, 40));
        // Shipped to its end by the last run: this run sends nothing of it before copytruncate rotates it.
        Checkpoint last = new Checkpoint(dev(a), inode(a), Fingerprint.SIZE, fingerprint(a), 3000,
                System.currentTimeMillis(), a.toString());
        FileTracker files = tracker(List.of(last));
        files.scan(System.nanoTime());
        TrackedFile ta = files.at(a.toString());
        Path copy = a.resolveSibling("app.log.1");
        Files.copy(a, copy);
        truncate(a);
        files.observeSize(ta, 0, System.nanoTime());
        files.scan(System.nanoTime());
        assertEquals(3000, files.at(copy.toString()).readOffset(), "the anchor was taken from the file at its start");
    }

    @Test
    void shouldResumeACopyCandidateFromItsOriginalsContentAfterAKillBetweenCopyAndTruncation() throws Exception {
        Path a = logs().resolve("app.log");
        append(a, records("a", 1, 40));
        FileTracker files = tracker(List.of());
        trackAndShip(files, a);
        Path copy = a.resolveSibling("app.log.1");
        Files.copy(a, copy);
        files.scan(System.nanoTime());
        assertFalse(files.at(copy.toString()).primary());
        List<Checkpoint> saved = files.entries(System.currentTimeMillis()); // then a kill, then the truncation
        truncate(a);
        append(a, records("a", 41, 42));
        FileTracker restarted = tracker(saved);
        restarted.scan(System.nanoTime());
        assertEquals(0, restarted.at(a.toString()).readOffset());
        assertEquals(3000, restarted.at(copy.toString()).readOffset(), "the copy, not shipped again");
    }

    @Test
    void shouldRecogniseACopyThatWasStillEmptyWhenTheShipperWasKilled() throws Exception {
        Path a = logs().resolve("app.log");
        append(a, records("a", 1, 40));
        FileTracker files = tracker(List.of());
        trackAndShip(files, a);
        // cp has created the copy, the scan took it for a new file, and the checkpoint holds it at 0: then a kill.
        Path copy = a.resolveSibling("app.log.1");
        Files.createFile(copy);
        files.scan(System.nanoTime());
        assertTrue(files.at(copy.toString()).primary());
        List<Checkpoint> saved = files.entries(System.currentTimeMillis());
        // While the shipper is down cp writes the copy, and the original is truncated and written again.
        Files.write(copy, Files.readAllBytes(a));
        truncate(a);
        append(a, records("a", 41, 42));
        FileTracker restarted = tracker(saved);
        restarted.scan(System.nanoTime());
        assertEquals(0, restarted.at(a.toString()).readOffset());
        assertEquals(3000, restarted.at(copy.toString()).readOffset(), "the copy, not shipped again");
    }

    @Test
    void shouldRecogniseACopyThatWasShortWhenTheShipperWasKilledOnceItsFirstKibIsThere() throws Exception {
        Path a = logs().resolve("app.log");
        append(a, records("a", 1, 40));
        FileTracker files = tracker(List.of());
        trackAndShip(files, a);
        byte[] old = Files.readAllBytes(a);
        // The copy half a KiB long when the scan saw it (nothing of it read yet), then a kill.
        Path copy = a.resolveSibling("app.log.1");
        Files.write(copy, java.util.Arrays.copyOf(old, 500));
        files.scan(System.nanoTime());
        List<Checkpoint> saved = files.entries(System.currentTimeMillis());
        truncate(a);
        append(a, records("a", 41, 42));
        FileTracker restarted = tracker(saved);
        restarted.scan(System.nanoTime());
        TrackedFile tc = restarted.at(copy.toString());
        assertEquals(0, tc.readOffset(), "half a KiB is not enough to tell a copy");
        Files.write(copy, old);
        restarted.observeSize(tc, old.length, System.nanoTime());
        assertEquals(3000, tc.readOffset(), "recognised once its first KiB is there: not shipped again");
    }

    @Test
    void shouldResumeACopyThatTookOverWhileTheOriginalsBytesWereInFlightWhereTheSinkHasThem() throws Exception {
        Path a = logs().resolve("app.log");
        append(a, records("a", 1, 40));
        FileTracker files = tracker(List.of());
        TrackedFile ta = trackAndShip(files, a);
        Stream content = ta.stream;
        content.acked = 2250; // the last 750 bytes read from the original are in flight, under its identity
        content.inFlight = 1;
        Checkpoint original = new Checkpoint(dev(a), inode(a), Fingerprint.SIZE, fingerprint(a), 3000,
                System.currentTimeMillis(), a.toString());
        Path copy = a.resolveSibling("app.log.1");
        Files.copy(a, copy);
        truncate(a);
        append(a, records("a", 41, 42));
        files.observeSize(ta, Files.size(a), System.nanoTime());
        files.scan(System.nanoTime());
        TrackedFile tc = files.at(copy.toString());
        assertSame(content, tc.stream);
        assertTrue(tc.primary(), "the copy took the content over");
        List<Checkpoint> saved = files.entries(System.currentTimeMillis());
        long copyIno = inode(copy);
        assertTrue(saved.stream().noneMatch(c -> c.inode() == copyIno), "the copy is behind the sink: " + saved);

        // The sink committed the batch (under the original's identity), then a kill before its acknowledgement.
        FileTracker restarted = tracker(Pipeline.positions(ShipConfig.MAIN, List.of(original), saved, log));
        restarted.scan(System.nanoTime());
        assertEquals(0, restarted.at(a.toString()).readOffset());
        assertEquals(3000, restarted.at(copy.toString()).readOffset(), "where the sink has the content");
        // Or the kill came before the sink committed it: the copy ships those bytes.
        FileTracker uncommitted = tracker(saved);
        uncommitted.scan(System.nanoTime());
        assertEquals(2250, uncommitted.at(copy.toString()).readOffset(), "where the content was acknowledged");

        // Once the batch is acknowledged the copy's own position is the content's.
        content.acked = 3000;
        content.inFlight = 0;
        assertTrue(files.entries(System.currentTimeMillis()).stream()
                .anyMatch(c -> c.inode() == copyIno && c.offset() == 3000));
    }

    @Test
    void shouldNotTakeAFileWithTheSameHeadButOtherBytesForACopy() throws Exception {
        Path a = logs().resolve("one.log");
        Path b = a.resolveSibling("two.log");
        append(a, HEADER);
        append(a, records("a", 1, 10));
        FileTracker files = tracker(List.of());
        trackAndShip(files, a);
        append(b, HEADER);
        append(b, records("b", 1, 10));
        files.scan(System.nanoTime());
        TrackedFile tb = files.at(b.toString());
        assertTrue(tb.primary());
        assertEquals(0, tb.readOffset(), "same first 1 KiB, other bytes: a file of its own");
    }

    @Test
    void shouldLetAFileTakenForACopyGoItsOwnWayWhenItIsWrittenWithOtherBytes() throws Exception {
        Path a = logs().resolve("app.log");
        append(a, records("a", 1, 40));
        FileTracker files = tracker(List.of());
        TrackedFile ta = trackAndShip(files, a);
        Path copy = a.resolveSibling("app.log.bak");
        Files.copy(a, copy);
        files.scan(System.nanoTime());
        TrackedFile tc = files.at(copy.toString());
        assertSame(ta.stream, tc.stream);
        append(copy, records("c", 1, 5)); // written on by someone else: not a copy any more
        files.observeSize(tc, Files.size(copy), System.nanoTime());
        assertNotSame(ta.stream, tc.stream);
        assertTrue(tc.primary());
        assertEquals(0, tc.readOffset(), "a file of its own: all of it, rather than risk losing its lines");
        assertTrue(tc.readable);
    }

    @Test
    void shouldResumeACopyFoundAtStartWhereTheTruncatedOriginalWasShipped() throws Exception {
        Path a = logs().resolve("app.log");
        append(a, records("a", 1, 40));
        Path copy = a.resolveSibling("app.log.1");
        Files.copy(a, copy);
        long fp = fingerprint(a);
        // The last run shipped 2,250 of its 3,000 bytes; while it was stopped, the file was copied and truncated.
        Checkpoint last = new Checkpoint(dev(a), inode(a), Fingerprint.SIZE, fp, 2250, System.currentTimeMillis(),
                a.toString());
        truncate(a);
        append(a, records("a", 41, 41));
        FileTracker files = tracker(List.of(last));
        files.scan(System.nanoTime());
        TrackedFile ta = files.at(a.toString());
        TrackedFile tc = files.at(copy.toString());
        assertEquals(0, ta.readOffset(), "the original holds a new content");
        assertEquals(2250, tc.readOffset(), "the copy resumes the old content where it stopped");
        assertTrue(logBytes.toString().contains("why=copy-of-shipped"), logBytes.toString());
    }

    @Test
    void shouldStartAFileFoundAtRestartAtItsBeginningEvenWithStartAtEnd() throws Exception {
        Path a = logs().resolve("app.log");
        append(a, records("a", 1, 3));
        Path b = a.resolveSibling("new.log");
        append(b, records("b", 1, 3));
        Checkpoint last = new Checkpoint(dev(a), inode(a), 225, fingerprint(a, 225), 225, System.currentTimeMillis(),
                a.toString());
        ShipConfig cfg = ShipRun.config(List.of(tmp.resolve("logs").resolve("*.log").toString()), tmp.resolve("out"),
                tmp.resolve("state"), Map.of("start", "end"));
        StatBuffer stx = new StatBuffer(arena);
        FileTracker files = new FileTracker(ShipConfig.MAIN, cfg, log, new ShipMetrics(), false, stx,
                arena.allocate(8192), new Discovery(cfg.inputsOf(ShipConfig.MAIN), stx, log), null, List.of(last),
                false);
        files.scan(System.nanoTime());
        assertEquals(0, files.at(b.toString()).readOffset(), "created while the shipper was stopped: all of it");
        assertEquals(225, files.at(a.toString()).readOffset());

        // On a first run (no positions at all), start = end skips what is there.
        FileTracker first = new FileTracker(ShipConfig.MAIN, cfg, log, new ShipMetrics(), false, stx,
                arena.allocate(8192), new Discovery(cfg.inputsOf(ShipConfig.MAIN), stx, log), null, List.of(), false);
        first.scan(System.nanoTime());
        assertEquals(225, first.at(b.toString()).readOffset());
    }

    @Test
    void shouldStartAReusedInodeWithOtherContentFromZero() throws Exception {
        Path a = logs().resolve("app.log");
        append(a, records("a", 1, 20));
        Checkpoint other = new Checkpoint(dev(a), inode(a), Fingerprint.SIZE, 12345, 1400,
                System.currentTimeMillis(), a.toString());
        FileTracker files = tracker(List.of(other));
        files.scan(System.nanoTime());
        assertEquals(0, files.at(a.toString()).readOffset());
        assertTrue(logBytes.toString().contains("why=new-file-same-inode"), logBytes.toString());
    }

    /**
     * copytruncate while the shipper was stopped, and the copy got the inode of a file deleted earlier, whose entry is
     * still in the positions: the copy has an entry of its own (another content), yet it is a copy of what was
     * shipped and resumes there. Both orders of adoption: the copy's name before and after the original's.
     */
    @Test
    void shouldResumeACopyThatLandedOnAReusedInodeWhereItsContentWasShipped() throws Exception {
        for (String[] names : new String[][] {{"app.log", "app.log.1"}, {"app.log.1", "app.log"}}) {
            Path dir = logs();
            Path a = dir.resolve(names[0]);
            append(a, records("a", 1, 40));
            Checkpoint shipped = new Checkpoint(dev(a), inode(a), Fingerprint.SIZE, fingerprint(a), 2250,
                    System.currentTimeMillis(), a.toString());
            Path copy = dir.resolve(names[1]);
            Files.write(copy, Files.readAllBytes(a));
            Checkpoint deletedBefore = new Checkpoint(dev(copy), inode(copy), Fingerprint.SIZE, 12345, 1400,
                    System.currentTimeMillis(), dir.resolve("gone.log").toString());
            truncate(a);
            append(a, records("a", 41, 41));
            logBytes.reset();
            FileTracker files = tracker(List.of(shipped, deletedBefore));
            files.scan(System.nanoTime());
            assertEquals(2250, files.at(copy.toString()).readOffset(), "resumed where its content was shipped: "
                    + logBytes);
            assertEquals(0, files.at(a.toString()).readOffset(), "the original holds a new content");
            assertTrue(logBytes.toString().contains("copy"), logBytes.toString());
            files.closeAll();
            Files.delete(a);
            Files.delete(copy);
        }
    }

    @Test
    void shouldResumeAFileRenamedWhileItsRenameWentUnseenWithoutShippingItAgain() throws Exception {
        Path a = logs().resolve("app.log");
        append(a, records("a", 1, 40));
        FileTracker files = tracker(List.of());
        TrackedFile ta = trackAndShip(files, a);
        // Renamed to a name no input matches, drained and let go...
        Path away = Files.move(a, tmp.resolve("logs").resolve("elsewhere"));
        files.scan(System.nanoTime());
        assertEquals(TrackedFile.State.ROTATED, ta.state);
        files.release(ta);
        assertNull(files.at(a.toString()));
        // ...then back under a matching name (a scan that missed the rename would see the same).
        Path back = Files.move(away, a.resolveSibling("app.log.1"));
        files.scan(System.nanoTime());
        TrackedFile again = files.at(back.toString());
        assertNotNull(again);
        assertEquals(3000, again.readOffset(), "the same content: nothing shipped twice");
    }

    @Test
    void shouldLetGoOfAFileResumedAtItsEndWhenItIsDeletedOrRenamedAway() throws Exception {
        Path a = logs().resolve("app.log.1");
        Path b = logs().resolve("app.log.2");
        append(a, records("a", 1, 40));
        append(b, records("b", 1, 40));
        long now = System.currentTimeMillis();
        FileTracker files = tracker(List.of(
                new Checkpoint(dev(a), inode(a), Fingerprint.SIZE, fingerprint(a), Files.size(a), now, a.toString()),
                new Checkpoint(dev(b), inode(b), Fingerprint.SIZE, fingerprint(b), Files.size(b), now, b.toString())));
        files.scan(System.nanoTime());
        TrackedFile ta = files.at(a.toString());
        TrackedFile tb = files.at(b.toString());
        assertEquals(3000, ta.readOffset(), "resumed at its end: nothing to read");
        // Deleted by the rotation that never writes it again: drained at once, its descriptor let go.
        Files.delete(a);
        Files.move(b, tmp.resolve("logs").resolve("elsewhere"));
        files.scan(System.nanoTime());
        assertEquals(TrackedFile.State.DELETED, ta.state);
        assertTrue(files.drained(ta, System.nanoTime()), "a deleted file with nothing unread");
        assertEquals(TrackedFile.State.ROTATED, tb.state);
        assertTrue(files.drained(tb, System.nanoTime() + java.util.concurrent.TimeUnit.HOURS.toNanos(1)),
                "a renamed-away file with nothing unread, after the rotate wait");
    }

    @Test
    void shouldKeepTheLargerOfTheSinksAndTheCheckpointsPositionOfTheSameContent() throws Exception {
        Path a = logs().resolve("app.log");
        append(a, records("a", 1, 40));
        long fp = fingerprint(a);
        long now = System.currentTimeMillis();
        Checkpoint sink = new Checkpoint(dev(a), inode(a), Fingerprint.SIZE, fp, 2250, now, a.toString());
        Checkpoint stale = new Checkpoint(dev(a), inode(a), Fingerprint.SIZE, fp, 750, now, a.toString());
        FileTracker files = tracker(List.of(stale, sink));
        files.scan(System.nanoTime());
        assertEquals(2250, files.at(a.toString()).readOffset());
    }

    private boolean birthKnown(Path p) {
        StatBuffer stx = new StatBuffer(arena);
        return stx.ofPath(p.toString()) == 0 && stx.birthNanos() >= 0;
    }

    private long fingerprint(Path p) throws IOException {
        return fingerprint(p, Fingerprint.SIZE);
    }

    private long fingerprint(Path p, int length) throws IOException {
        byte[] b = Files.readAllBytes(p);
        var seg = arena.allocate(Fingerprint.SIZE);
        seg.copyFrom(java.lang.foreign.MemorySegment.ofArray(java.util.Arrays.copyOf(b, length)));
        return Fingerprint.hash(seg, length);
    }
}
