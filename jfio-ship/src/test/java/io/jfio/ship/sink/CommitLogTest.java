package io.jfio.ship.sink;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jfio.core.testing.TestSeed;
import io.jfio.ship.log.ShipLog;
import io.jfio.ship.state.Checkpoint;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The commit log's pieces that allocate nothing per source: the path encoding and the key index. */
class CommitLogTest {

    @Test
    void pathsComeBackFromTheFileAsTheirUtf8EncodesThem(@TempDir Path tmp) throws Exception {
        TestSeed seed = TestSeed.pick();
        seed.run(ts -> {
            SplittableRandom rnd = ts.random();
            // ASCII, 2- and 3-byte characters, surrogate pairs, lone and reversed surrogates.
            char[] alphabet = {'a', '/', '.', 'é', 'ß', 'ж', '€', '中', '\uD83D', '\uDE00', '\uD800', '\uDFFF', '\u007F',
                '\u0080', '\u07FF', '\u0800', '\uFFFF'};
            Path dir = Files.createTempDirectory(tmp, "out");
            Map<Long, String> want = new HashMap<>();
            ShipLog log = new ShipLog(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), true);
            // A small compaction bound: the paths go through appends and snapshots.
            try (DirSink sink = new DirSink(dir, 1 << 20, log, System::currentTimeMillis, 2048)) {
                List<CompletableFuture<Void>> fs = new ArrayList<>();
                for (long ino = 1; ino <= 300; ino++) {
                    StringBuilder s = new StringBuilder();
                    for (int i = rnd.nextInt(40); i > 0; i--) s.append(alphabet[rnd.nextInt(alphabet.length)]);
                    String path = s.toString();
                    want.put(ino, new String(path.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8));
                    SourceId id = new SourceId(7, ino, 64, ino, path);
                    fs.add(sink.send(new Batch(path, "in", -1, 0, 0, 1, MemorySegment.NULL, id)));
                    if (ino % 10 == 0) sink.flush();
                }
                sink.flush();
                for (CompletableFuture<Void> f : fs) f.get(30, TimeUnit.SECONDS);
            }
            Map<Long, String> got = new HashMap<>();
            for (Checkpoint c : DirSink.readCommitted(dir)) got.put(c.inode(), c.path());
            assertEquals(want, got);
        });
    }

    @Test
    void theCommittedEndIsWhereTheLastAcknowledgedBatchEnds(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("out");
        assertArrayEquals(new long[] {0, 0}, DirSink.readCommittedEnd(dir), "no sink directory: nothing committed");
        ShipLog log = new ShipLog(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), true);
        byte[] line = "one line\n".getBytes(StandardCharsets.US_ASCII);
        try (Arena a = Arena.ofConfined();
             DirSink sink = new DirSink(dir, 1 << 20, log, System::currentTimeMillis, 2048)) {
            MemorySegment bytes = a.allocateFrom(java.lang.foreign.ValueLayout.JAVA_BYTE, line);
            SourceId id = new SourceId(7, 1, 9, 1, "a.log");
            CompletableFuture<Void> f = sink.send(new Batch("a.log", "in", -1, 0, line.length, 1, bytes, id));
            sink.flush();
            f.get(30, TimeUnit.SECONDS);
            assertArrayEquals(new long[] {1, line.length}, DirSink.readCommittedEnd(dir));
            CompletableFuture<Void> g = sink.send(new Batch("a.log", "in", -1, line.length, line.length, 1, bytes,
                    id));
            sink.flush();
            g.get(30, TimeUnit.SECONDS);
            assertArrayEquals(new long[] {1, 2L * line.length}, DirSink.readCommittedEnd(dir));
        }
    }

    @Test
    void theKeyIndexFindsWhatWasStoredLastForEveryKey() {
        TestSeed seed = TestSeed.pick();
        seed.run(ts -> {
            SplittableRandom rnd = ts.random();
            // Keys in parallel arrays, as the staging slots and the log's bytes hold them; few distinct values so
            // that keys collide in one or two of their three words.
            long[][] keys = new long[3][50_000];
            KeyIndex index = new KeyIndex(new KeyIndex.Keys() {
                @Override
                public long device(int id) {
                    return keys[0][id];
                }

                @Override
                public long inode(int id) {
                    return keys[1][id];
                }

                @Override
                public long content(int id) {
                    return keys[2][id];
                }
            }, 1024);
            for (int round = 0; round < 3; round++) {
                Map<CommitLog.Key, Integer> model = new HashMap<>();
                int ids = 1000 + rnd.nextInt(49_000);
                for (int id = 0; id < ids; id++) {
                    keys[0][id] = rnd.nextInt(3);
                    keys[1][id] = rnd.nextInt(20_000);
                    keys[2][id] = rnd.nextInt(4) == 0 ? 0 : rnd.nextLong(3);
                    CommitLog.Key k = new CommitLog.Key(keys[0][id], keys[1][id], keys[2][id]);
                    Integer before = model.get(k);
                    if (rnd.nextBoolean()) {
                        assertEquals(before == null ? -1 : before, index.put(k.device(), k.inode(), k.content(), id));
                        model.put(k, id);
                    } else {
                        assertEquals(before == null ? -1 : before,
                                index.putIfAbsent(k.device(), k.inode(), k.content(), id));
                        model.putIfAbsent(k, id);
                    }
                }
                assertEquals(model.size(), index.size());
                for (Map.Entry<CommitLog.Key, Integer> e : model.entrySet()) {
                    CommitLog.Key k = e.getKey();
                    assertEquals(e.getValue(), index.get(k.device(), k.inode(), k.content()), k.toString());
                }
                assertEquals(-1, index.get(5, 1, 0), "a key never stored");
                int seen = 0;
                for (int slot = 0; slot < index.capacity(); slot++) {
                    if (index.idAt(slot) >= 0) seen++;
                }
                assertEquals(model.size(), seen, "every id once over the slots");
                index.clear();
                assertEquals(0, index.size());
                assertEquals(-1, index.get(keys[0][0], keys[1][0], keys[2][0]));
            }
        });
    }
}
