package io.jfio.ship.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.core.file.StatBuffer;
import io.jfio.core.testing.TestSeed;
import io.jfio.ship.config.ShipConfig;
import io.jfio.ship.log.ShipLog;
import io.jfio.ship.metrics.ShipMetrics;
import io.jfio.ship.sink.Batch;
import io.jfio.ship.sink.Sink;
import io.jfio.ship.testing.JavaLog;
import io.jfio.ship.testing.ShipRun;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Multiline records through the harvester, on real files: batches end only where a record ends, whatever the read
 * size, records longer than a read included; a file's last record waits for the line that starts the next one, or
 * for the timeout. The sink records each batch; the harvester is what is tested.
 */
class MultilineHarvestTest {
    @TempDir
    Path tmp;

    private final Arena arena = Arena.ofShared();
    private final ShipLog log = new ShipLog(new PrintStream(new ByteArrayOutputStream(), true,
            StandardCharsets.UTF_8), true);

    @AfterEach
    void close() {
        arena.close();
    }

    /** Keeps each batch's bytes, offset and record count. */
    private static final class Recorder implements Sink {
        final List<byte[]> batches = new ArrayList<>();
        final List<long[]> at = new ArrayList<>();

        @Override
        public String describe() {
            return "recorder";
        }

        @Override
        public CompletableFuture<Void> send(Batch b) {
            batches.add(b.bytes().toArray(ValueLayout.JAVA_BYTE));
            at.add(new long[] {b.offset(), b.length(), b.records()});
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    }

    private record Rig(FileTracker files, Harvester harvester, Recorder sink) {
    }

    private Rig rig(Map<String, String> extra) throws Exception {
        Map<String, String> e = new HashMap<>(Map.of("buffer-size", "4KiB"));
        e.putAll(extra);
        ShipConfig cfg = ShipRun.config(List.of(tmp.resolve("logs").resolve("*.log").toString()), tmp.resolve("out"),
                tmp.resolve("state"), e);
        StatBuffer stx = new StatBuffer(arena);
        ShipMetrics metrics = new ShipMetrics();
        FileTracker files = new FileTracker(ShipConfig.MAIN, cfg, log, metrics, false, stx, arena.allocate(8192),
                new Discovery(cfg.inputsOf(ShipConfig.MAIN), stx, log), null, List.of(), false);
        Recorder sink = new Recorder();
        BatchWindow window = new BatchWindow(sink, metrics.of(ShipConfig.MAIN), (v, x) -> { });
        Harvester h = new Harvester(ShipConfig.MAIN, cfg, log, metrics, files, window,
                arena.allocate(cfg.bufferCapacity(), 4096));
        return new Rig(files, h, sink);
    }

    private Path append(String content) throws Exception {
        Path p = Files.createDirectories(tmp.resolve("logs")).resolve("app.log");
        Files.writeString(p, content, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        return p;
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', value = {
        "multiline.preset;java",
        "multiline.preset;iso8601",
        "multiline.start-pattern;^\\d{4}-\\d\\d-\\d\\dT",
        "multiline.continue-pattern;^(\\s|Caused by:|java\\.lang\\.)",
    })
    void shouldEndEveryBatchAtARecordBoundaryAcrossReadBuffers(String key, String value) throws Exception {
        TestSeed seed = TestSeed.pick();
        seed.run(s -> {
            // Records up to ~6 KiB against reads of 4 KiB, and a start-up ramp that reads less.
            List<String> records = JavaLog.records(s.value(), 400, 40, 80);
            long[] bounds = JavaLog.boundaries(records);
            Path p = append(String.join("", records));
            Rig r = rig(Map.of(key, value, "multiline.timeout", "1h"));
            r.files().scan(System.nanoTime());
            TrackedFile t = r.files().at(p.toString());
            while (r.harvester().harvest(t, false) == Harvester.Result.MOVED) {
                t.readable = true;
            }
            assertTrue(t.stream.recordPending, "the last record waits for the line that would end it");
            assertEquals(Harvester.Result.MOVED, r.harvester().harvest(t, true), "flushed at the end");
            long records2 = 0;
            long pos = 0;
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            for (int i = 0; i < r.sink().batches.size(); i++) {
                long[] at = r.sink().at.get(i);
                assertEquals(pos, at[0], "batches follow each other");
                pos += at[1];
                assertTrue(Arrays.binarySearch(bounds, pos) >= 0, "batch " + i + " ends at " + pos
                        + ", inside a record");
                records2 += at[2];
                all.write(r.sink().batches.get(i));
            }
            assertArrayEquals(JavaLog.bytes(records), all.toByteArray());
            assertEquals(records.size(), records2, "records counted");
            assertTrue(r.sink().at.stream().anyMatch(a -> a[1] > 4096), "a record longer than a read was framed");
        });
    }

    @Test
    void shouldShipTheLastRecordWhenTheFileStopsGrowingForTheTimeout() throws Exception {
        Rig r = rig(Map.of("multiline.preset", "java", "multiline.timeout", "300ms"));
        String first = "2026-11-27T03:04:05Z ERROR failed\njava.lang.IllegalStateException: boom\n"
                + "\tat a.B.c(B.java:1)\n";
        String second = "2026-11-27T03:04:06Z ERROR again\njava.lang.IllegalStateException: bang\n";
        Path p = append(first + second);
        r.files().scan(System.nanoTime());
        TrackedFile t = r.files().at(p.toString());
        assertEquals(Harvester.Result.MOVED, r.harvester().harvest(t, false));
        assertEquals(first, new String(r.sink().batches.get(0), StandardCharsets.UTF_8));
        assertEquals(1, r.sink().at.get(0)[2]);
        t.readable = true;
        assertEquals(Harvester.Result.IDLE, r.harvester().harvest(t, false), "the last record waits");
        assertTrue(r.files().hasPartialTimers(), "a timer is set for it");
        append("\tat a.B.d(B.java:2)\n");
        r.files().observeSize(t, Files.size(p), System.nanoTime());
        t.readable = true;
        assertEquals(Harvester.Result.IDLE, r.harvester().harvest(t, false), "it grew: it waits again");
        assertEquals(1, r.sink().batches.size());
        r.files().checkPartialTimeouts(System.nanoTime());
        assertTrue(!t.readable, "not before the timeout");
        Thread.sleep(350);
        r.files().checkPartialTimeouts(System.nanoTime());
        assertTrue(t.readable, "the timeout makes it readable");
        assertEquals(Harvester.Result.MOVED, r.harvester().harvest(t, false));
        assertEquals(second + "\tat a.B.d(B.java:2)\n", new String(r.sink().batches.get(1), StandardCharsets.UTF_8));
        assertEquals(1, r.sink().at.get(1)[2]);
    }

    @Test
    void shouldEndARecordAtMaxLinesAndBeforeALineThatPassesMaxBytes() throws Exception {
        Rig r = rig(Map.of("multiline.preset", "java", "multiline.max-lines", "3", "multiline.max-bytes", "100",
                "multiline.timeout", "1h"));
        String a = "S1\n a\n b\n";                      // three lines: ends at max-lines
        String b = " c\n";                              // a continuation, but the record before it is full
        String c = "S2\n" + (" " + "y".repeat(60) + "\n");
        String d = " " + "z".repeat(60) + "\n";         // would take S2's record past 100 bytes
        String e = "S3\n";
        Path p = append(a + b + c + d + e);
        r.files().scan(System.nanoTime());
        TrackedFile t = r.files().at(p.toString());
        while (r.harvester().harvest(t, false) == Harvester.Result.MOVED) {
            t.readable = true;
        }
        assertEquals(List.of(a + b + c + d), r.sink().batches.stream()
                .map(x -> new String(x, StandardCharsets.UTF_8)).toList());
        assertEquals(4, r.sink().at.get(0)[2], "a, b, c and d are records of their own");
    }

    @ParameterizedTest(name = "on-overlong {0}")
    @CsvSource({"split", "drop"})
    void shouldEndTheRecordBeforeALineLongerThanMaxRecord(String onOverlong) throws Exception {
        Rig r = rig(Map.of("multiline.preset", "java", "multiline.timeout", "1h", "max-record", "100",
                "on-overlong", onOverlong));
        String a = "2026-11-27T03:04:05Z first\njava.lang.IllegalStateException: x\n\tat a.B.c(B.java:1)\n";
        String overlong = "\t" + "y".repeat(250) + "\n"; // a continuation line, but too long to be one
        String b = "2026-11-27T03:04:06Z second\n";
        String c = "2026-11-27T03:04:07Z third\n";
        Path p = append(a + overlong + b + c);
        r.files().scan(System.nanoTime());
        TrackedFile t = r.files().at(p.toString());
        while (r.harvester().harvest(t, false) == Harvester.Result.MOVED) {
            t.readable = true;
        }
        List<String> got = r.sink().batches.stream().map(x -> new String(x, StandardCharsets.UTF_8)).toList();
        assertEquals(a, got.get(0), "the record before the long line ends before it, whole");
        String rest = String.join("", got.subList(1, got.size()));
        if (onOverlong.equals("split")) {
            assertEquals(overlong + b, rest, "the long line in pieces, then the next record");
        } else {
            assertEquals(b, rest, "the long line dropped, then the next record");
        }
        assertTrue(t.stream.recordPending, "the last record waits");
        assertEquals(a.length() + overlong.length() + b.length(), t.stream.read);
    }
}
