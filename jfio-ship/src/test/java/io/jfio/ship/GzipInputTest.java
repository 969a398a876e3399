package io.jfio.ship;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jfio.ship.sink.DirSink;
import io.jfio.ship.testing.JavaLog;
import io.jfio.ship.testing.ShipRun;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rotated gzip files with {@code read-gz}: shipped decompressed, once, from their start (a second run ships nothing
 * again); a truncated or corrupt one is reported by name and skipped while the others are shipped; multiline records
 * and ndjson offsets work on the decompressed bytes; a gzip file that appears while the shipper runs is shipped once
 * it is complete.
 */
class GzipInputTest {
    @TempDir
    Path tmp;

    private static byte[] gzip(byte[] data) throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (GZIPOutputStream z = new GZIPOutputStream(b)) {
            z.write(data);
        }
        return b.toByteArray();
    }

    private static String lines(String prefix, int n) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            b.append(prefix).append(" line ").append(i).append(" ").append("x".repeat(i % 90)).append('\n');
        }
        return b.toString();
    }

    private boolean lastOk;

    private String once(Map<String, String> extra) throws Exception {
        Map<String, String> e = new HashMap<>(Map.of("read-gz", "true", "buffer-size", "8KiB"));
        e.putAll(extra);
        var cfg = ShipRun.config(List.of(tmp.resolve("logs").resolve("app.log*").toString()), tmp.resolve("out"),
                tmp.resolve("state"), e);
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        lastOk = ShipRun.once(cfg, log);
        return log.toString(StandardCharsets.UTF_8);
    }

    @Test
    void shouldShipGzipFilesOnceAndSkipDamagedOnesNamingThem() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        String live = lines("live", 500);
        String one = lines("one", 3000);
        String two = lines("two", 3000);
        String three = lines("three", 3000);
        Files.writeString(logs.resolve("app.log"), live);
        Files.write(logs.resolve("app.log.1.gz"), gzip(one.getBytes(StandardCharsets.UTF_8)));
        byte[] z2 = gzip(two.getBytes(StandardCharsets.UTF_8));
        Files.write(logs.resolve("app.log.2.gz"), Arrays.copyOf(z2, z2.length / 2)); // truncated
        byte[] z3 = gzip(three.getBytes(StandardCharsets.UTF_8));
        for (int i = z3.length / 3; i < z3.length / 3 + 64; i++) z3[i] ^= 0x5a; // corrupt in the middle
        Files.write(logs.resolve("app.log.3.gz"), z3);
        String log = once(Map.of());
        assertFalse(lastOk, "a --once run that met a damaged file did not do all its work (exit 1)");
        String out = new String(DirSink.readAll(tmp.resolve("out")), StandardCharsets.UTF_8);
        assertEquals(live.length() + one.length(), out.length(), log);
        assertTrue(out.contains(live) && out.contains(one), "the live file and the complete gzip file, decompressed");
        assertFalse(out.contains("two line") || out.contains("three line"), "nothing of the damaged ones");
        assertTrue(log.contains("event=gzip-damaged") && log.contains("app.log.2.gz") && log.contains("truncated"),
                log);
        assertTrue(log.contains("app.log.3.gz") && log.contains("corrupt"), log);
        // Done means done: a second run ships none of it again, and does not report the damaged ones again.
        String again = once(Map.of());
        assertTrue(lastOk, again);
        assertEquals(out, new String(DirSink.readAll(tmp.resolve("out")), StandardCharsets.UTF_8));
        assertFalse(again.contains("gzip-damaged"), again);
    }

    @Test
    void shouldJoinMultilineRecordsAndGiveNdjsonOffsetsInTheDecompressedBytes() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        List<String> records = JavaLog.records(11, 2000, 30, 40);
        byte[] plain = JavaLog.bytes(records);
        Files.write(logs.resolve("app.log.1.gz"), gzip(plain));
        String log = once(Map.of("multiline.preset", "java", "encoding", "ndjson"));
        assertTrue(lastOk, log);
        byte[] out = DirSink.readAll(tmp.resolve("out"));
        String[] lines = new String(out, StandardCharsets.UTF_8).split("\n");
        assertEquals(records.size(), lines.length, log);
        ObjectMapper json = new ObjectMapper();
        long[] bounds = JavaLog.boundaries(records);
        for (int i = 0; i < lines.length; i++) {
            JsonNode n = json.readTree(lines[i]);
            String r = records.get(i);
            assertEquals(r.substring(0, r.length() - 1), n.get("message").asText(), "record " + i);
            assertEquals(bounds[i], n.get("offset").asLong(), "record " + i + ": its offset in the decompressed log");
            assertEquals(logs.resolve("app.log.1.gz").toString(), n.get("path").asText());
        }
    }

    @Test
    void shouldDeliverASmallGzipFileWhenNothingElseIsWritten() throws Exception {
        // A gzip file's batches carry no bytes of the file (only decompressed records): they must still make the
        // sink flush what it holds, or the last of them waits for some other file's line.
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Files.writeString(logs.resolve("app.log"), "first\n");
        var cfg = ShipRun.config(List.of(logs.resolve("app.log*").toString()), tmp.resolve("out"),
                tmp.resolve("state"), Map.of("read-gz", "true"));
        String rotated = lines("rotated", 40);
        try (ShipRun run = ShipRun.start(cfg)) {
            long deadline = System.nanoTime() + 20_000_000_000L;
            awaitOut("first\n".length(), deadline);
            Files.write(logs.resolve("app.log.1.gz"), gzip(rotated.getBytes(StandardCharsets.UTF_8)));
            assertEquals("first\n" + rotated, awaitOut(6 + rotated.length(), deadline), run.log());
        }
    }

    /** What the sink holds once it holds {@code length} bytes, or at {@code deadlineNanos}. */
    private String awaitOut(int length, long deadlineNanos) throws InterruptedException {
        String out = "";
        while (System.nanoTime() < deadlineNanos) {
            out = new String(DirSink.readAll(tmp.resolve("out")), StandardCharsets.UTF_8);
            if (out.length() >= length) break;
            Thread.sleep(50);
        }
        return out;
    }

    @Test
    void shouldShipAGzipFileThatAppearsWhileRunningOnceItIsComplete() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Files.writeString(logs.resolve("app.log"), "first\n");
        var cfg = ShipRun.config(List.of(logs.resolve("app.log*").toString()), tmp.resolve("out"),
                tmp.resolve("state"), Map.of("read-gz", "true"));
        String rotated = lines("rotated", 5000);
        try (ShipRun run = ShipRun.start(cfg)) {
            byte[] z = gzip(rotated.getBytes(StandardCharsets.UTF_8));
            Path gz = logs.resolve("app.log.1.gz");
            // Written in two halves a moment apart, as a compressor writes it: never shipped half.
            Files.write(gz, Arrays.copyOf(z, z.length / 2));
            Thread.sleep(300);
            Files.write(gz, Arrays.copyOfRange(z, z.length / 2, z.length), java.nio.file.StandardOpenOption.APPEND);
            String out = awaitOut(6 + rotated.length(), System.nanoTime() + 20_000_000_000L);
            assertEquals("first\n" + rotated, out, run.log());
            assertFalse(run.log().contains("gzip-damaged"), run.log());
        }
    }

    @Test
    void shouldShipOnlyWhatFollowsTheShippedPartWhenALogIsCompressedWhileStopped() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        String before = lines("before", 3000);
        String after = lines("after", 2000);
        String fresh = lines("fresh", 100);
        Files.writeString(logs.resolve("app.log"), before);
        String log1 = once(Map.of());
        // Stopped; then the log grows, is rotated and compressed (logrotate's compress), and a new log begins.
        Files.writeString(logs.resolve("app.log"), after, java.nio.file.StandardOpenOption.APPEND);
        byte[] rotated = Files.readAllBytes(logs.resolve("app.log"));
        Files.write(logs.resolve("app.log.1.gz"), gzip(rotated));
        Files.delete(logs.resolve("app.log"));
        Files.writeString(logs.resolve("app.log"), fresh);
        String log2 = once(Map.of());
        String out = new String(DirSink.readAll(tmp.resolve("out")), StandardCharsets.UTF_8);
        assertEquals(before.length() + after.length() + fresh.length(), out.length(), log1 + log2);
        assertTrue(out.startsWith(before) && out.contains(after) && out.contains(fresh), log2);
        assertTrue(log2.contains("event=gzip-resumed") && log2.contains("offset=" + before.length()), log2);
    }

    @Test
    void shouldNotShipARotatedLogAgainWhenItIsCompressedWhileRunning() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        String first = lines("first", 4000);
        String second = lines("second", 50);
        Files.writeString(logs.resolve("app.log"), first);
        var cfg = ShipRun.config(List.of(logs.resolve("app.log*").toString()), tmp.resolve("out"),
                tmp.resolve("state"), Map.of("read-gz", "true"));
        try (ShipRun run = ShipRun.start(cfg)) {
            awaitOutput(first.length(), run);
            // logrotate with compress: rename, a new log, the rotated one compressed and deleted.
            Files.move(logs.resolve("app.log"), logs.resolve("app.log.1"));
            Files.writeString(logs.resolve("app.log"), second);
            Files.write(logs.resolve("app.log.1.gz"), gzip(Files.readAllBytes(logs.resolve("app.log.1"))));
            Files.delete(logs.resolve("app.log.1"));
            awaitOutput(first.length() + second.length(), run);
            Thread.sleep(2500); // past the gzip file's quiet second: it has been looked at
            String out = new String(DirSink.readAll(tmp.resolve("out")), StandardCharsets.UTF_8);
            assertEquals(first + second, out, run.log());
            assertTrue(run.log().contains("event=gzip-resumed"), run.log());
        }
    }

    private void awaitOutput(long length, ShipRun run) throws Exception {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (System.nanoTime() < deadline) {
            if (DirSink.readAll(tmp.resolve("out")).length >= length) return;
            Thread.sleep(20);
        }
        throw new AssertionError("output did not reach " + length + " bytes: " + run.log());
    }
}
