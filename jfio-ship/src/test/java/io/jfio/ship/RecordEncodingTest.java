package io.jfio.ship;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jfio.core.testing.TestSeed;
import io.jfio.ship.sink.DirSink;
import io.jfio.ship.testing.JavaLog;
import io.jfio.ship.testing.ShipRun;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ndjson encoding and the line filters, end to end into a directory sink: every output line is parsed by Jackson
 * and compared field by field with the record it came from; its offset is checked against the source file's bytes;
 * invalid UTF-8 and NUL bytes come out as documented.
 */
class RecordEncodingTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    /** A record's raw bytes and the message ndjson must carry for it. */
    private record Expected(byte[] raw, String message) {
    }

    /** Random records of valid characters, NUL, tabs, quotes and bytes that are not UTF-8 (each becomes U+FFFD). */
    private static List<Expected> randomRecords(SplittableRandom rnd, int count) {
        String[] valid = {"a", "b", "Z", " ", "\t", "\"", "\\", "\u0000", "é", "中", "😀", "{", "}", ":", "\r"};
        int[] invalid = {0x80, 0xbf, 0xc0, 0xf5, 0xff};
        List<Expected> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            ByteArrayOutputStream raw = new ByteArrayOutputStream();
            StringBuilder msg = new StringBuilder("n=" + i + " ");
            raw.writeBytes(msg.toString().getBytes(StandardCharsets.UTF_8));
            int tokens = rnd.nextInt(300);
            for (int k = 0; k < tokens; k++) {
                if (rnd.nextInt(10) == 0) {
                    raw.write(invalid[rnd.nextInt(invalid.length)]);
                    msg.append('\uFFFD');
                } else {
                    String v = valid[rnd.nextInt(valid.length)];
                    raw.writeBytes(v.getBytes(StandardCharsets.UTF_8));
                    msg.append(v);
                }
            }
            raw.write('\n');
            out.add(new Expected(raw.toByteArray(), msg.toString()));
        }
        return out;
    }

    private static byte[] concat(List<Expected> records) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (Expected e : records) b.writeBytes(e.raw());
        return b.toByteArray();
    }

    private List<JsonNode> ship(Path file, Map<String, String> settings) throws Exception {
        Map<String, String> s = new HashMap<>(Map.of("buffer-size", "8KiB", "encoding", "ndjson"));
        s.putAll(settings);
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        var cfg = ShipRun.config(List.of(file.toString()), tmp.resolve("out"), tmp.resolve("state"), s);
        assertTrue(ShipRun.once(cfg, log), log.toString(StandardCharsets.UTF_8));
        byte[] out = DirSink.readAll(tmp.resolve("out"));
        List<JsonNode> nodes = new ArrayList<>();
        int from = 0;
        for (int i = 0; i < out.length; i++) {
            if (out[i] == '\n') {
                nodes.add(JSON.readTree(Arrays.copyOfRange(out, from, i)));
                from = i + 1;
            }
        }
        assertEquals(out.length, from, "the output ends with a newline");
        return nodes;
    }

    private static void assertMetadata(JsonNode n, Path file, byte[] source, byte[] raw, long before)
            throws Exception {
        long offset = n.get("offset").asLong();
        assertArrayEquals(raw, Arrays.copyOfRange(source, (int) offset, (int) offset + raw.length),
                "the offset points at the record's bytes: " + n);
        assertEquals(file.toString(), n.get("path").asText());
        assertEquals(Files.readString(Path.of("/proc/sys/kernel/hostname")).trim(), n.get("host").asText());
        assertEquals(((Number) Files.getAttribute(file, "unix:dev")).longValue(), n.get("device").asLong());
        assertEquals(((Number) Files.getAttribute(file, "unix:ino")).longValue(), n.get("inode").asLong());
        Instant read = Instant.parse(n.get("read_time").asText());
        assertTrue(!read.isBefore(Instant.ofEpochMilli(before)) && !read.isAfter(Instant.now()), "read_time " + read);
        assertEquals("main", n.get("input").asText());
    }

    @Test
    void shouldWriteOneJsonObjectPerLineWithMetadataFieldsAndReplacedInvalidUtf8() throws Exception {
        TestSeed.pick().run(seed -> {
            List<Expected> records = randomRecords(seed.random(), 2000);
            byte[] source = concat(records);
            Path file = Files.createDirectories(tmp.resolve("logs")).resolve("app.log");
            Files.write(file, source);
            long before = System.currentTimeMillis();
            List<JsonNode> nodes = ship(file, Map.of("fields.service", "web", "fields.env", "prod \"eu\""));
            assertEquals(records.size(), nodes.size());
            for (int i = 0; i < nodes.size(); i++) {
                JsonNode n = nodes.get(i);
                assertEquals(records.get(i).message(), n.get("message").asText(), "record " + i);
                assertMetadata(n, file, source, records.get(i).raw(), before);
                assertEquals(Map.of("env", "prod \"eu\"", "service", "web"),
                        JSON.convertValue(n.get("fields"), Map.class));
            }
        });
    }

    @Test
    void shouldWriteAMultilineRecordAsOneObjectWithItsNewlinesInTheMessage() throws Exception {
        TestSeed.pick().run(seed -> {
            List<String> records = JavaLog.records(seed.value(), 500, 30, 40);
            byte[] source = JavaLog.bytes(records);
            Path file = Files.createDirectories(tmp.resolve("logs")).resolve("app.log");
            Files.write(file, source);
            long before = System.currentTimeMillis();
            List<JsonNode> nodes = ship(file, Map.of("multiline.preset", "java"));
            assertEquals(records.size(), nodes.size());
            for (int i = 0; i < nodes.size(); i++) {
                String r = records.get(i);
                assertEquals(r.substring(0, r.length() - 1), nodes.get(i).get("message").asText());
                assertMetadata(nodes.get(i), file, source, r.getBytes(StandardCharsets.UTF_8), before);
                assertTrue(nodes.get(i).get("fields") == null, "no fields configured");
            }
        });
    }

    @Test
    void shouldShipOnlyRecordsThatIncludeLinesKeepsAndExcludeLinesDoesNotDrop() throws Exception {
        StringBuilder b = new StringBuilder();
        List<String> kept = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            String level = switch (i % 4) {
                case 0 -> "DEBUG";
                case 1 -> "INFO";
                case 2 -> "WARN";
                default -> "ERROR";
            };
            String line = level + " n=" + i + (i % 7 == 0 ? " healthcheck" : "") + "\n";
            b.append(line);
            if (!level.equals("DEBUG") && i % 7 != 0) kept.add(line);
        }
        Path file = Files.createDirectories(tmp.resolve("logs")).resolve("app.log");
        Files.writeString(file, b);
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        var cfg = ShipRun.config(List.of(file.toString()), tmp.resolve("out"), tmp.resolve("state"),
                Map.of("buffer-size", "4KiB", "include-lines", "^(INFO|WARN|ERROR) ", "exclude-lines",
                        "healthcheck$"));
        assertTrue(ShipRun.once(cfg, log), log.toString(StandardCharsets.UTF_8));
        assertEquals(String.join("", kept), new String(DirSink.readAll(tmp.resolve("out")), StandardCharsets.UTF_8));
        // A second run ships nothing again: the filtered records' offsets were checkpointed too.
        assertTrue(ShipRun.once(cfg, log));
        assertEquals(String.join("", kept), new String(DirSink.readAll(tmp.resolve("out")), StandardCharsets.UTF_8));
    }

    @Test
    void shouldSendNdjsonOverTcpFromThePayloadNotTheFile() throws Exception {
        List<Expected> records = randomRecords(new SplittableRandom(5), 3000);
        byte[] source = concat(records);
        Path file = Files.createDirectories(tmp.resolve("logs")).resolve("app.log");
        Files.write(file, source);
        Path received = tmp.resolve("received");
        try (io.jfio.ship.tcp.TcpReceiver receiver = io.jfio.ship.tcp.TcpReceiver.start(
                new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), received,
                io.jfio.ship.tcp.TcpReceiver.Options.defaults(), System.err)) {
            long before = System.currentTimeMillis();
            ByteArrayOutputStream log = new ByteArrayOutputStream();
            var cfg = ShipRun.config(List.of(file.toString()), tmp.resolve("out"), tmp.resolve("state"),
                    Map.of("to", "tcp:127.0.0.1:" + receiver.port(), "encoding", "ndjson", "buffer-size", "8KiB"));
            assertTrue(ShipRun.once(cfg, log), log.toString(StandardCharsets.UTF_8));
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            for (Path p : receiver.files()) all.writeBytes(Files.readAllBytes(p));
            String[] lines = all.toString(StandardCharsets.UTF_8).split("\n");
            assertEquals(records.size(), lines.length);
            for (int i = 0; i < lines.length; i++) {
                JsonNode n = JSON.readTree(lines[i]);
                assertEquals(records.get(i).message(), n.get("message").asText(), "record " + i);
                assertMetadata(n, file, source, records.get(i).raw(), before);
            }
        }
    }
}
