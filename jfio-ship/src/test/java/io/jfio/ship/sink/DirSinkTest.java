package io.jfio.ship.sink;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.core.testing.TestSeed;
import io.jfio.ship.log.ShipLog;
import io.jfio.ship.state.Checkpoint;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The dir sink's commit log: positions committed with the data, recovery, compaction, damage, symlinks. */
class DirSinkTest {
    private static final long DAY = TimeUnit.DAYS.toMillis(1);

    @TempDir
    Path tmp;

    private final ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
    private final ShipLog log = new ShipLog(new PrintStream(logBytes, true, StandardCharsets.UTF_8), true);
    private final AtomicLong clock = new AtomicLong(1_700_000_000_000L);
    private final Arena arena = Arena.ofAuto();

    private DirSink open(Path dir, long segmentSize, long compactMin) throws IOException {
        return new DirSink(dir, segmentSize, log, clock::get, compactMin);
    }

    private DirSink open(Path dir) throws IOException {
        return open(dir, 1 << 20, DirSink.COMPACT_MIN);
    }

    private static SourceId id(long ino, long fp) {
        return new SourceId(7, ino, 64, fp, "/var/log/src-" + ino + ".log");
    }

    /** Sends {@code length} bytes of source {@code id} from {@code offset} (content: the source's letter). */
    private CompletableFuture<Void> send(DirSink sink, SourceId id, long offset, int length) throws IOException {
        byte[] b = new byte[length];
        java.util.Arrays.fill(b, (byte) ('a' + (id == null ? 25 : id.inode() % 25)));
        MemorySegment seg = arena.allocate(Math.max(1, length)).asSlice(0, length);
        MemorySegment.copy(b, 0, seg, ValueLayout.JAVA_BYTE, 0, length);
        return sink.send(new Batch(id == null ? "none" : id.path(), "in", -1, offset, length, 1, seg, id));
    }

    private static void await(List<CompletableFuture<Void>> fs) throws Exception {
        for (CompletableFuture<Void> f : fs) f.get(30, TimeUnit.SECONDS);
    }

    private static List<Checkpoint> sorted(List<Checkpoint> l) {
        List<Checkpoint> s = new ArrayList<>(l);
        s.sort(Comparator.comparingLong(Checkpoint::device).thenComparingLong(Checkpoint::inode));
        return s;
    }

    private static Checkpoint cp(SourceId id, long offset, long seenAt) {
        return new Checkpoint(id.device(), id.inode(), id.fpLength(), id.fpHash(), offset, seenAt, id.path());
    }

    private String log() {
        return logBytes.toString(StandardCharsets.UTF_8);
    }

    /** What a kill -9 now would leave: the directory's files as they are (every commit in them was fdatasync'ed). */
    private Path crashImage(Path dir, String name) throws IOException {
        Path img = Files.createDirectories(tmp.resolve(name));
        try (var s = Files.list(dir)) {
            for (Path p : s.toList()) Files.copy(p, img.resolve(p.getFileName()), StandardCopyOption.REPLACE_EXISTING);
        }
        return img;
    }

    @Test
    void shouldKeepTheOrderSentWhenEncodedBatchesAreWrittenByTheWriterThreadAmongDirectWrites() throws Exception {
        TestSeed.pick().run(ts -> {
            SplittableRandom rnd = ts.random();
            Path dir = tmp.resolve("mixed-" + ts.value());
            SourceId[] ids = {id(1, 11), id(2, 22), id(3, 33)};
            long[] ends = new long[ids.length];
            ByteArrayOutputStream expected = new ByteArrayOutputStream();
            MemorySegment buf = arena.allocate(600 << 10);
            RecordView view = new RecordView();
            List<CompletableFuture<Void>> fs = new ArrayList<>();
            // Segments of 1 MiB: large batches roll them, so sync tasks that close a segment follow writes too.
            try (DirSink sink = open(dir, 1 << 20, DirSink.COMPACT_MIN)) {
                for (int i = 0; i < 300; i++) {
                    int s = rnd.nextInt(ids.length);
                    boolean large = rnd.nextInt(3) == 0;
                    boolean encoded = rnd.nextBoolean();
                    int length = large ? (int) DirSink.STAGE_MAX_BATCH + 1 + rnd.nextInt(500 << 10)
                            : 1 + rnd.nextInt(4096);
                    byte[] b = new byte[length];
                    for (int k = 0; k < length; k++) b[k] = (byte) ('A' + (i + k) % 26);
                    MemorySegment.copy(b, 0, buf, ValueLayout.JAVA_BYTE, 0, length);
                    view.reset(RecordView.Encoding.NDJSON, 0, "h", java.util.Map.of());
                    // The pipeline's encoded payload for the dir sink is its heap array; native memory works too.
                    view.payload(rnd.nextBoolean() ? MemorySegment.ofArray(b.clone()) : buf.asSlice(0, length));
                    fs.add(sink.send(new Batch(ids[s].path(), "in", -1, ends[s], length, 1, buf.asSlice(0, length),
                            ids[s], encoded ? view : null)));
                    // The pipeline reuses its buffer as soon as send returns.
                    buf.asSlice(0, length).fill((byte) 0);
                    expected.writeBytes(b);
                    ends[s] += length;
                    if (rnd.nextInt(5) == 0) sink.flush();
                }
                sink.finish();
                await(fs);
                List<Checkpoint> want = new ArrayList<>();
                for (int s = 0; s < ids.length; s++) {
                    if (ends[s] > 0) want.add(cp(ids[s], ends[s], 0));
                }
                List<Checkpoint> got = new ArrayList<>();
                for (Checkpoint c : sorted(sink.committed())) {
                    got.add(new Checkpoint(c.device(), c.inode(), c.fpLength(), c.fpHash(), c.offset(), 0, c.path()));
                }
                assertEquals(want, got);
            }
            assertArrayEquals(expected.toByteArray(), DirSink.readAll(dir), "the segments hold the batches in order");
        });
    }

    @Test
    void committedPositionsAreTheBatchEndsOfInterleavedSources() throws Exception {
        Path dir = tmp.resolve("out");
        SourceId a = id(1, 11);
        SourceId b = id(2, 22);
        SourceId c = id(3, 33);
        long t0 = clock.get();
        try (DirSink sink = open(dir)) {
            assertEquals(List.of(), sink.committed());
            List<CompletableFuture<Void>> fs = new ArrayList<>();
            fs.add(send(sink, a, 0, 10));
            fs.add(send(sink, b, 0, 5));
            fs.add(send(sink, a, 10, 7));
            sink.flush();
            fs.add(send(sink, c, 100, 3));
            fs.add(send(sink, b, 5, 4));
            sink.flush();
            clock.addAndGet(1000);
            fs.add(send(sink, a, 17, 1));
            sink.flush();
            await(fs);
        }
        byte[] data = DirSink.readAll(dir);
        assertEquals(10 + 5 + 7 + 3 + 4 + 1, data.length);
        List<Checkpoint> first;
        try (DirSink sink = open(dir)) {
            first = sorted(sink.committed());
            assertEquals(3, first.size());
            assertEquals(List.of(18L, 9L, 103L), first.stream().map(Checkpoint::offset).toList());
            assertEquals(cp(b, 9, first.get(1).seenAt()), first.get(1));
            assertTrue(first.get(0).seenAt() >= t0 + 1000, "seen-at of a's last commit");
        }
        try (DirSink sink = open(dir)) {
            assertEquals(first, sorted(sink.committed()), "reopening changes nothing");
        }
        assertArrayEquals(data, DirSink.readAll(dir));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(
                dir.resolve(CommitLog.NAME))));
    }

    @Test
    void aChangedFingerprintReplacesThePositionAndBatchesWithoutIdRecordNothing() throws Exception {
        Path dir = tmp.resolve("out");
        SourceId before = id(1, 11);
        SourceId after = id(1, 99); // same inode, truncated and rewritten
        try (DirSink sink = open(dir)) {
            List<CompletableFuture<Void>> fs = new ArrayList<>();
            fs.add(send(sink, before, 0, 100));
            sink.flush();
            fs.add(send(sink, after, 0, 30));
            fs.add(send(sink, null, 0, 50));
            sink.flush();
            fs.add(send(sink, null, 50, 50));
            sink.flush();
            await(fs);
        }
        try (DirSink sink = open(dir)) {
            assertEquals(List.of(cp(after, 30, sink.committed().get(0).seenAt())), sink.committed());
        }
        assertEquals(230, DirSink.readAll(dir).length);
    }

    @Test
    void aTruncatedFilesOldContentKeepsItsPositionBesideTheNewOne() throws Exception {
        Path dir = tmp.resolve("out");
        // Full fingerprints: the content is known, and a copy of the old one may still be found at the next start.
        SourceId old = new SourceId(7, 1, io.jfio.ship.harvest.Fingerprint.SIZE, 11, "/var/log/a.log");
        SourceId now = new SourceId(7, 1, io.jfio.ship.harvest.Fingerprint.SIZE, 99, "/var/log/a.log");
        try (DirSink sink = open(dir)) {
            List<CompletableFuture<Void>> fs = new ArrayList<>();
            fs.add(send(sink, old, 0, 100));
            sink.flush();
            fs.add(send(sink, now, 0, 30));
            sink.flush();
            await(fs);
        }
        try (DirSink sink = open(dir)) {
            List<Checkpoint> c = sorted(sink.committed());
            assertEquals(2, c.size(), c.toString());
            java.util.Map<Long, Long> byFp = new java.util.HashMap<>();
            for (Checkpoint e : c) byFp.put(e.fpHash(), e.offset());
            assertEquals(java.util.Map.of(11L, 100L, 99L, 30L), byFp);
        }
    }

    @Test
    void anEmptyBatchRecordsAPositionWithoutBytes() throws Exception {
        Path dir = tmp.resolve("out");
        SourceId a = id(1, 11);
        try (DirSink sink = open(dir)) {
            CompletableFuture<Void> f = send(sink, a, 500, 0);
            sink.flush();
            f.get(30, TimeUnit.SECONDS);
        }
        try (DirSink sink = open(dir)) {
            assertEquals(500, sink.committed().get(0).offset());
        }
        assertEquals(0, DirSink.readAll(dir).length);
    }

    @Test
    void aLegacyCommitFileIsUpgraded() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("out"));
        Files.write(dir.resolve(DirSink.segmentName(1)), new byte[15]);
        Files.write(dir.resolve(DirSink.segmentName(2)), new byte[5]);
        ByteBuffer b = ByteBuffer.allocate(24).putLong(1).putLong(10);
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, 16);
        b.putInt((int) crc.getValue());
        Files.write(dir.resolve(CommitLog.NAME), b.array());
        try (DirSink sink = open(dir)) {
            assertEquals(List.of(), sink.committed());
        }
        assertEquals(List.of(dir.resolve(DirSink.segmentName(1))), DirSink.segments(dir));
        assertEquals(10, Files.size(dir.resolve(DirSink.segmentName(1))), "cut back to the legacy commit");
        byte[] now = Files.readAllBytes(dir.resolve(CommitLog.NAME));
        assertEquals("JFIOSCL1", new String(now, 0, 8, StandardCharsets.US_ASCII));
        assertTrue(log().contains("dir-sink-commit-upgraded"), log());
        try (DirSink sink = open(dir)) {
            assertEquals(List.of(), sink.committed());
        }
        assertEquals(10, Files.size(dir.resolve(DirSink.segmentName(1))), "the upgraded file keeps the commit");
    }

    @Test
    void aTornLastRecordIsIgnoredAndTheDataCutBackToTheRecordBefore() throws Exception {
        Path dir = tmp.resolve("out");
        SourceId a = id(1, 11);
        Path image;
        long logBefore;
        try (DirSink sink = open(dir)) {
            CompletableFuture<Void> f = send(sink, a, 0, 40);
            sink.flush();
            f.get(30, TimeUnit.SECONDS);
            logBefore = Files.size(dir.resolve(CommitLog.NAME));
            f = send(sink, a, 40, 60);
            sink.flush();
            f.get(30, TimeUnit.SECONDS);
            image = crashImage(dir, "image");
        }
        Path commit = image.resolve(CommitLog.NAME);
        long full = Files.size(commit);
        assertTrue(full > logBefore, "the second commit appended a record");
        for (long cut : new long[] {full - 1, logBefore + 5, logBefore + 9}) {
            Path img = crashImage(image, "torn-" + cut);
            try (var ch = java.nio.channels.FileChannel.open(img.resolve(CommitLog.NAME),
                    java.nio.file.StandardOpenOption.WRITE)) {
                ch.truncate(cut);
            }
            logBytes.reset();
            try (DirSink sink = open(img)) {
                assertEquals(List.of(40L), sink.committed().stream().map(Checkpoint::offset).toList(), "cut " + cut);
            }
            assertEquals(40, DirSink.readAll(img).length, "data after the last good commit is cut");
            assertFalse(log().contains("damaged"), log());
        }
        try (DirSink sink = open(image)) {
            assertEquals(List.of(100L), sink.committed().stream().map(Checkpoint::offset).toList());
        }
    }

    @Test
    void garbageInTheMiddleIsReportedAndTheValidRecordsKept() throws Exception {
        Path dir = tmp.resolve("out");
        SourceId a = id(1, 11);
        SourceId b = id(2, 22);
        Path image;
        long[] ends = new long[4];
        try (DirSink sink = open(dir)) {
            ends[0] = Files.size(dir.resolve(CommitLog.NAME));
            int i = 1;
            for (Object[] step : new Object[][] {{a, 0L, 10}, {b, 0L, 20}, {a, 10L, 30}}) {
                CompletableFuture<Void> f = send(sink, (SourceId) step[0], (long) step[1], (int) step[2]);
                sink.flush();
                f.get(30, TimeUnit.SECONDS);
                ends[i++] = Files.size(dir.resolve(CommitLog.NAME));
            }
            image = crashImage(dir, "image");
        }
        // The record of b's commit (the second) overwritten with garbage of its length.
        Path mid = crashImage(image, "mid");
        byte[] bytes = Files.readAllBytes(mid.resolve(CommitLog.NAME));
        for (int i = (int) ends[1]; i < ends[2]; i++) bytes[i] = (byte) (0x5A ^ i);
        Files.write(mid.resolve(CommitLog.NAME), bytes);
        try (DirSink sink = open(mid)) {
            assertEquals(List.of(cp(a, 40, sink.committed().get(0).seenAt())), sink.committed(),
                    "a's later record is kept; b's position was only in the damaged record");
        }
        assertEquals(60, DirSink.readAll(mid).length, "the last valid commit covers all the data: nothing cut");
        String l = log();
        assertTrue(l.contains("dir-sink-commit-log-damaged") && l.contains("bad bytes at offset " + ends[1])
                && l.contains("no data is lost"), l);
        try (var s = Files.list(mid)) {
            assertTrue(s.anyMatch(p -> p.getFileName().toString().startsWith(CommitLog.NAME + ".corrupt-")),
                    "the damaged file is kept aside");
        }

        // The last record damaged beyond a torn write: the last commit is unknown, so no segment is cut.
        Path end = crashImage(image, "end");
        bytes = Files.readAllBytes(end.resolve(CommitLog.NAME));
        for (int i = (int) ends[2]; i < ends[3]; i++) bytes[i] = (byte) (0x5A ^ i);
        Files.write(end.resolve(CommitLog.NAME), bytes);
        Files.write(end.resolve(DirSink.segmentName(1)), new byte[7], java.nio.file.StandardOpenOption.APPEND);
        logBytes.reset();
        try (DirSink sink = open(end)) {
            assertEquals(List.of(10L, 20L), sorted(sink.committed()).stream().map(Checkpoint::offset).toList());
        }
        assertEquals(67, DirSink.readAll(end).length, "nothing cut when the last commit is unknown");
        assertTrue(log().contains("the last commit is unknown"), log());

        // A bad header: the records after it are still read.
        Path head = crashImage(image, "head");
        bytes = Files.readAllBytes(head.resolve(CommitLog.NAME));
        bytes[0] = 'X';
        Files.write(head.resolve(CommitLog.NAME), bytes);
        logBytes.reset();
        try (DirSink sink = open(head)) {
            assertEquals(List.of(40L, 20L), sorted(sink.committed()).stream().map(Checkpoint::offset).toList());
        }
        assertTrue(log().contains("bad header"), log());
        assertEquals(60, DirSink.readAll(head).length);
    }

    @Test
    void compactionKeepsEveryPositionAndDropsThoseUnseenForAWeek() throws Exception {
        Path dir = tmp.resolve("out");
        List<Checkpoint> want = new ArrayList<>();
        long t0 = clock.get();
        // A small segment (many rolls, each compacts) and a small bound (compaction by size too).
        try (DirSink sink = open(dir, 4096, 512)) {
            List<CompletableFuture<Void>> fs = new ArrayList<>();
            for (int round = 0; round < 20; round++) {
                for (int s = 0; s < 50; s++) {
                    fs.add(send(sink, id(s, s), round * 10L, 10));
                    if (s % 7 == 0) sink.flush();
                }
                sink.flush();
            }
            await(fs);
            clock.set(t0 + 8 * DAY);
            SourceId late = id(1000, 1);
            fs.add(send(sink, late, 0, 3000));
            fs.add(send(sink, late, 3000, 2000)); // rolls: the roll's commit compacts
            sink.flush();
            await(fs);
            want.add(cp(late, 5000, t0 + 8 * DAY));
        }
        assertTrue(DirSink.segments(dir).size() >= 4, "rolled: " + DirSink.segments(dir));
        assertTrue(Files.size(dir.resolve(CommitLog.NAME)) < 1000, "the compaction at the roll dropped them");
        try (DirSink sink = open(dir)) {
            assertEquals(want, sink.committed(), "the 50 sources unseen for 8 days are dropped");
        }
        // Without expiry: every position survives the compactions.
        Path dir2 = tmp.resolve("out2");
        clock.set(t0);
        try (DirSink sink = open(dir2, 4096, 512)) {
            List<CompletableFuture<Void>> fs = new ArrayList<>();
            for (int round = 0; round < 20; round++) {
                for (int s = 0; s < 50; s++) {
                    fs.add(send(sink, id(s, s), round * 10L, 10));
                    if (s % 7 == 0) sink.flush();
                }
                sink.flush();
                clock.addAndGet(DAY);
            }
            await(fs);
            // Read from the file while the sink is open: the compactions replayed the log and lost nothing.
            List<Checkpoint> open = sorted(sink.committed());
            assertEquals(50, open.size());
            for (Checkpoint c : open) assertEquals(200, c.offset(), c.toString());
        }
        try (DirSink sink = open(dir2)) {
            List<Checkpoint> got = sorted(sink.committed());
            assertEquals(50, got.size());
            for (Checkpoint c : got) assertEquals(200, c.offset(), c.toString());
        }
        assertTrue(Files.size(dir2.resolve(CommitLog.NAME)) < 50 * 100, "compacted to one snapshot");
    }

    @Test
    void aCommitWritesOnlyTheSourcesItCovers() throws Exception {
        Path dir = tmp.resolve("out");
        int n = 10_000;
        try (DirSink sink = open(dir)) {
            List<CompletableFuture<Void>> fs = new ArrayList<>();
            for (int s = 0; s < n; s++) fs.add(send(sink, id(s, s), 0, 3));
            sink.flush();
            await(fs);
            long size = Files.size(dir.resolve(CommitLog.NAME));
            assertTrue(size > n * 50L, "all positions are in the log: " + size);
            long before = size;
            for (int k = 0; k < 100; k++) {
                CompletableFuture<Void> f = send(sink, id(k % 3, k % 3), 3 + k, 1);
                sink.flush();
                f.get(30, TimeUnit.SECONDS);
            }
            long grown = Files.size(dir.resolve(CommitLog.NAME)) - before;
            // One record per commit: 12 bytes framing, 28 header, one entry of 46 bytes and its path.
            int perCommit = CommitLog.RECORD_OVERHEAD + CommitLog.BODY_HEADER + CommitLog.ENTRY_FIXED
                    + id(1, 1).path().length();
            assertEquals(100L * perCommit, grown, "only the changed source is written");
        }
        try (DirSink sink = open(dir)) {
            assertEquals(n, sink.committed().size());
        }
    }

    /** The bytes of a log holding one snapshot record of {@code entries}. */
    private static long snapshotSize(Iterable<Checkpoint> entries) {
        long n = CommitLog.HEADER + CommitLog.RECORD_OVERHEAD + CommitLog.BODY_HEADER;
        for (Checkpoint c : entries) n += CommitLog.ENTRY_FIXED + c.path().getBytes(StandardCharsets.UTF_8).length;
        return n;
    }

    private static List<Checkpoint> byKey(java.util.Collection<Checkpoint> l) {
        List<Checkpoint> s = new ArrayList<>(l);
        s.sort(Comparator.comparingLong(Checkpoint::device).thenComparingLong(Checkpoint::inode)
                .thenComparingLong(Checkpoint::fpHash));
        return s;
    }

    /** The key a position is stored under: (device, inode, full fingerprint's hash or 0). */
    private static List<Long> key(SourceId id) {
        return List.of(id.device(), id.inode(), CommitLog.content(id.fpLength(), id.fpHash()));
    }

    @Test
    void aSourceSentManyTimesInOneCommitGetsOneEntry() throws Exception {
        Path dir = tmp.resolve("out");
        int full = io.jfio.ship.harvest.Fingerprint.SIZE;
        SourceId a = id(1, 11);
        SourceId aGrown = id(1, 12); // same inode, the fingerprint still growing: the same key as a
        SourceId b = id(2, 22);
        SourceId old = new SourceId(7, 3, full, 5, "/var/log/c.log");
        SourceId rewritten = new SourceId(7, 3, full, 6, "/var/log/c.log"); // full fingerprint: a key of its own
        try (DirSink sink = open(dir)) {
            long before = Files.size(dir.resolve(CommitLog.NAME));
            List<CompletableFuture<Void>> fs = new ArrayList<>();
            long[] pos = new long[4];
            // Interleaved, so that no two batches of a source follow each other: each is a change of its own.
            for (int i = 0; i < 100; i++) {
                SourceId[] ids = {i < 99 ? a : aGrown, b, old, rewritten};
                for (int s = 0; s < ids.length; s++) {
                    int len = 1 + (i + s) % 5;
                    fs.add(send(sink, ids[s], pos[s], len));
                    pos[s] += len;
                }
            }
            sink.flush();
            await(fs);
            long grown = Files.size(dir.resolve(CommitLog.NAME)) - before;
            List<Checkpoint> got = byKey(sink.committed());
            long now = clock.get();
            List<Checkpoint> want = byKey(List.of(cp(aGrown, pos[0], now), cp(b, pos[1], now), cp(old, pos[2], now),
                    cp(rewritten, pos[3], now)));
            assertEquals(want, got);
            long entries = 0;
            for (Checkpoint c : want) entries += CommitLog.ENTRY_FIXED + c.path().length();
            assertEquals(CommitLog.RECORD_OVERHEAD + CommitLog.BODY_HEADER + entries, grown,
                    "one record with one entry per key, whatever the batches");
        }
    }

    @Test
    void aSourceRenamedWithinOneCommitGetsOneEntryWithItsLatestPath() throws Exception {
        Path dir = tmp.resolve("out");
        SourceId[] first = {id(1, 11), id(2, 22), id(3, 33), id(4, 44)};
        SourceId[] renamed = {
            new SourceId(7, 1, 64, 11, "/var/log/src-1.log.1"), // longer
            new SourceId(7, 2, 64, 22, "/var/log/src-2.lo_"), // as long
            new SourceId(7, 3, 64, 33, "/var/log/s-3.log"), // shorter
            new SourceId(7, 4, 64, 44, "/var/log/src-4.log"), // the same path
        };
        try (DirSink sink = open(dir)) {
            long before = Files.size(dir.resolve(CommitLog.NAME));
            List<CompletableFuture<Void>> fs = new ArrayList<>();
            long[] pos = new long[4];
            for (int round = 0; round < 6; round++) {
                for (int s = 0; s < 4; s++) {
                    // Renamed in round 2 (source 0 back again in round 4), between other sources' batches.
                    SourceId id = round < 2 || (s == 0 && round == 4) ? first[s] : renamed[s];
                    fs.add(send(sink, id, pos[s], 3 + s));
                    pos[s] += 3 + s;
                }
            }
            SourceId late = id(5, 55); // first staged after the renames
            fs.add(send(sink, late, 0, 9));
            fs.add(send(sink, renamed[0], pos[0], 1));
            pos[0] += 1;
            sink.flush();
            await(fs);
            long now = clock.get();
            List<Checkpoint> want = new ArrayList<>();
            for (int s = 0; s < 4; s++) want.add(cp(renamed[s], pos[s], now));
            want.add(cp(late, 9, now));
            assertEquals(byKey(want), byKey(sink.committed()));
            long entries = 0;
            for (Checkpoint c : want) entries += CommitLog.ENTRY_FIXED + c.path().length();
            assertEquals(CommitLog.RECORD_OVERHEAD + CommitLog.BODY_HEADER + entries,
                    Files.size(dir.resolve(CommitLog.NAME)) - before, "one entry per source, its latest path");
        }
    }

    @Test
    void aPathLongerThanTheLimitIsCutAndItsEntryOutgrowsTheRecordsPiece() throws Exception {
        Path dir = tmp.resolve("out");
        // 70,000 bytes of UTF-8 (a 2-byte character across the limit): stored as the whole characters within the
        // first 65,535 bytes, an entry larger than the piece a record is written in.
        String longPath = "/var/log" + "é".repeat(35_000);
        SourceId big = new SourceId(7, 1, 64, 11, longPath);
        SourceId small = id(2, 22);
        String stored = "/var/log" + "é".repeat((CommitLog.MAX_PATH - 8) / 2);
        try (DirSink sink = open(dir, 4096, DirSink.COMPACT_MIN)) {
            List<CompletableFuture<Void>> fs = new ArrayList<>();
            fs.add(send(sink, big, 0, 10));
            fs.add(send(sink, small, 0, 20));
            sink.flush();
            await(fs);
            List<Checkpoint> got = byKey(sink.committed());
            assertEquals(List.of(10L, 20L), got.stream().map(Checkpoint::offset).toList());
            assertTrue(stored.equals(got.get(0).path()), "cut at the limit, after a whole character");
            fs.add(send(sink, small, 20, 3000));
            fs.add(send(sink, small, 3020, 3000)); // rolls: the roll's commit compacts, copying the long entry
            sink.flush();
            await(fs);
            assertEquals(2, DirSink.segments(dir).size());
            got = byKey(sink.committed());
            assertEquals(List.of(10L, 6020L), got.stream().map(Checkpoint::offset).toList());
            assertTrue(stored.equals(got.get(0).path()));
        }
        try (DirSink sink = open(dir)) {
            List<Checkpoint> got = byKey(sink.committed());
            assertEquals(List.of(10L, 6020L), got.stream().map(Checkpoint::offset).toList());
            assertTrue(stored.equals(got.get(0).path()), "and so after the snapshot at open");
        }
    }

    @Test
    void theSnapshotOfACompactionHoldsTheLatestPositionOfEveryKeyLessTheExpired() throws Exception {
        Path dir = tmp.resolve("out");
        int segmentSize = 64 * 1024;
        long t0 = clock.get();
        java.util.Map<List<Long>, Checkpoint> model = new java.util.HashMap<>();
        long[] pos = new long[400];
        java.util.function.IntFunction<SourceId> source = s -> s < 300 ? id(s, s)
                : new SourceId(7, s, io.jfio.ship.harvest.Fingerprint.SIZE, s % 2, "/var/log/é/" + s + ".log");
        try (DirSink sink = open(dir, segmentSize, DirSink.COMPACT_MIN)) {
            // Positions committed at t0 (0..99, and two contents of each full-fingerprint inode 300..309) and two
            // days later (200..219), in several appended records.
            for (int[] range : new int[][] {{0, 100}, {300, 310}, {200, 220}}) {
                if (range[0] == 200) clock.set(t0 + 2 * DAY);
                List<CompletableFuture<Void>> fs = new ArrayList<>();
                for (int s = range[0]; s < range[1]; s++) {
                    List<SourceId> ids = range[0] != 300 ? List.of(source.apply(s)) : List.of(source.apply(s),
                            new SourceId(7, s, io.jfio.ship.harvest.Fingerprint.SIZE, 9, "/var/log/old-" + s));
                    for (SourceId id : ids) {
                        fs.add(send(sink, id, pos[s], 10));
                        model.put(key(id), cp(id, pos[s] + 10, clock.get()));
                    }
                    pos[s] += 10;
                    if (s % 7 == 0) sink.flush();
                }
                sink.flush();
                await(fs);
            }
            // A week and a day after t0: 0..9 and 200..204 staged again (each several times), 100..109 new, and one
            // content of 300..304 again; then a batch that rolls the segment, whose commit compacts.
            long now = t0 + 8 * DAY;
            clock.set(now);
            List<CompletableFuture<Void>> fs = new ArrayList<>();
            for (int round = 0; round < 3; round++) {
                for (int[] range : new int[][] {{0, 10}, {200, 205}, {100, 110}, {300, 305}}) {
                    for (int s = range[0]; s < range[1]; s++) {
                        fs.add(send(sink, source.apply(s), pos[s], 4));
                        pos[s] += 4;
                        model.put(key(source.apply(s)), cp(source.apply(s), pos[s], now));
                    }
                }
            }
            model.values().removeIf(c -> c.seenAt() < now - CommitLog.EXPIRE_MS);
            assertEquals(10 + 20 + 10 + 5, model.size(), "expired: 10..99, the contents of 300..309 not sent again");
            sink.send(new Batch("roll", "in", -1, 0, segmentSize, 1, arena.allocate(segmentSize)));
            await(fs);
            assertEquals(2, DirSink.segments(dir).size(), "rolled");
            assertEquals(byKey(model.values()), byKey(sink.committed()));
            assertEquals(snapshotSize(model.values()), Files.size(dir.resolve(CommitLog.NAME)),
                    "one record, one entry per key");
        }
        try (DirSink sink = open(dir)) {
            assertEquals(byKey(model.values()), byKey(sink.committed()), "and so after a restart");
        }
    }

    @Test
    void twentyThousandSourcesKeepTheirPositionsThroughManyCompactions() {
        TestSeed seed = TestSeed.pick();
        seed.run(ts -> {
            SplittableRandom rnd = ts.random();
            Path dir = tmp.resolve("out-" + ts.value());
            int n = 20_000;
            long[] pos = new long[n];
            java.util.Set<Integer> sent = new java.util.HashSet<>();
            java.util.function.IntFunction<SourceId> source = s -> new SourceId(7, s, 64, s,
                    "/var/log/many/" + s + ".log");
            int compactions = 0;
            try (DirSink sink = open(dir, 64 * 1024, 64 * 1024)) {
                long logSize = Files.size(dir.resolve(CommitLog.NAME));
                for (int round = 0; round < 4; round++) {
                    List<CompletableFuture<Void>> fs = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        int s = round == 0 ? i : rnd.nextInt(n);
                        int len = 1 + rnd.nextInt(8);
                        fs.add(send(sink, source.apply(s), pos[s], len));
                        pos[s] += len;
                        sent.add(s);
                        if (rnd.nextInt(1500) == 0) {
                            sink.flush();
                            // Awaited so that the log's size tells a compaction: it shrinks.
                            await(fs);
                            long now = Files.size(dir.resolve(CommitLog.NAME));
                            if (now < logSize) compactions++;
                            logSize = now;
                        }
                    }
                    sink.flush();
                    await(fs);
                    clock.addAndGet(DAY);
                    List<Checkpoint> got = sink.committed();
                    assertEquals(sent.size(), got.size(), "round " + round);
                    for (Checkpoint c : got) assertEquals(pos[(int) c.inode()], c.offset(), c.toString());
                }
            }
            assertTrue(DirSink.segments(dir).size() >= 4, "rolled, each roll compacting: " + DirSink.segments(dir));
            assertTrue(compactions >= 2, "compactions seen between commits: " + compactions);
            try (DirSink sink = open(dir)) {
                List<Checkpoint> got = sink.committed();
                assertEquals(n, got.size());
                for (Checkpoint c : got) assertEquals(pos[(int) c.inode()], c.offset(), c.toString());
                assertEquals(snapshotSize(got), Files.size(dir.resolve(CommitLog.NAME)), "one snapshot at open");
            }
        });
    }

    @Test
    void aSymlinkAtTheCommitFileIsRefused() throws Exception {
        Path victim = Files.writeString(tmp.resolve("victim"), "precious");
        Path dir = Files.createDirectories(tmp.resolve("out"));
        Files.createSymbolicLink(dir.resolve(CommitLog.NAME), victim);
        IOException e = assertThrows(IOException.class, () -> open(dir));
        assertTrue(e.getMessage().contains("symbolic link") && e.getMessage().contains(CommitLog.NAME), e.toString());
        assertEquals("precious", Files.readString(victim));
        Files.delete(dir.resolve(CommitLog.NAME));

        Files.createSymbolicLink(dir.resolve(CommitLog.TEMP), victim);
        e = assertThrows(IOException.class, () -> open(dir));
        assertTrue(e.getMessage().contains("symbolic link") && e.getMessage().contains(CommitLog.TEMP), e.toString());
        assertEquals("precious", Files.readString(victim));
        Files.delete(dir.resolve(CommitLog.TEMP));

        Files.delete(dir.resolve(".jfio-sink.lock")); // left by the refused opens above, as by any run
        Files.createSymbolicLink(dir.resolve(".jfio-sink.lock"), victim);
        e = assertThrows(IOException.class, () -> open(dir));
        assertTrue(e.getMessage().contains("symbolic link") && e.getMessage().contains(".jfio-sink.lock"),
                e.toString());
        assertEquals("precious", Files.readString(victim));
        Files.delete(dir.resolve(".jfio-sink.lock"));

        // Planted while it runs: the compaction at a roll refuses the link and appends the commit instead.
        SourceId a = id(1, 11);
        try (DirSink sink = open(dir, 4096, DirSink.COMPACT_MIN)) {
            Files.createSymbolicLink(dir.resolve(CommitLog.TEMP), victim);
            List<CompletableFuture<Void>> fs = new ArrayList<>();
            fs.add(send(sink, a, 0, 3000));
            fs.add(send(sink, a, 3000, 3000)); // rolls: the roll's commit compacts
            sink.flush();
            await(fs);
        }
        assertEquals("precious", Files.readString(victim));
        assertTrue(log().contains("dir-sink-compaction-failed") && log().contains("planted"), log());
        Files.delete(dir.resolve(CommitLog.TEMP));
        try (DirSink sink = open(dir)) {
            assertEquals(List.of(6000L), sink.committed().stream().map(Checkpoint::offset).toList());
        }
    }
}
