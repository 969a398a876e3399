package io.jfio.ship.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jfio.core.testing.TestSeed;
import io.jfio.ship.testing.JavaLog;
import io.jfio.ship.testing.Minio;
import io.jfio.ship.testing.MinioServer;
import io.jfio.ship.testing.S3Objects;
import io.jfio.ship.testing.ShipRun;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Records into the s3 sink against a real MinIO server on 127.0.0.1: ndjson objects (multiline records, metadata,
 * fields) parsed by Jackson, each record in exactly one object and inside the object's range; line filters; kill -9
 * of shippers writing ndjson; and a redone object whose last record a timeout had cut, which comes whole after the
 * crash.
 */
class S3RecordsTest {
    private static final String BUCKET = "ship";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern KEY = Pattern.compile(
            ".*/(?<file>[^/]+)\\.(?<start>\\d{16})-(?<end>\\d{16})\\.(?<seq>\\d{16})\\.log(\\.gz|\\.zst)?");

    @RegisterExtension
    static final MinioServer SERVER = new MinioServer(BUCKET);
    @TempDir
    Path tmp;

    /** One ndjson record found in an object, with its object's key range. */
    record Found(String file, long offset, String message, long start, long end, String key) {
    }

    private Map<String, String> settings(String prefix, Map<String, String> more) {
        Map<String, String> m = new HashMap<>(SERVER.minio().settings());
        m.put("to", "s3://" + BUCKET + "/" + prefix);
        m.putAll(more);
        return m;
    }

    /** Every record of every object under {@code prefix}, parsed; each object is whole lines of JSON. */
    static List<Found> records(Minio server, String prefix) throws IOException {
        List<Found> out = new ArrayList<>();
        for (Minio.Stored o : server.objects(BUCKET, prefix + "/")) {
            Matcher m = KEY.matcher(o.key());
            assertTrue(m.matches(), o.key());
            byte[] b = S3Objects.decode(o.encoding(), o.bytes());
            assertTrue(b.length > 0 && b[b.length - 1] == '\n', "whole lines of JSON: " + o.key());
            int from = 0;
            for (int i = 0; i < b.length; i++) {
                if (b[i] != '\n') continue;
                JsonNode n = JSON.readTree(Arrays.copyOfRange(b, from, i));
                out.add(new Found(Path.of(n.get("path").asText()).getFileName().toString(), n.get("offset").asLong(),
                        n.get("message").asText(), Long.parseLong(m.group("start")), Long.parseLong(m.group("end")),
                        o.key()));
                from = i + 1;
            }
        }
        return out;
    }

    /**
     * Checks that the records found are {@code expected} (source offset to message, per file) exactly once each, each
     * inside its object's range.
     */
    static void assertExactlyOnce(List<Found> found, Map<String, TreeMap<Long, String>> expected) {
        Map<String, TreeMap<Long, Found>> seen = new HashMap<>();
        for (Found f : found) {
            assertTrue(f.offset() >= f.start() && f.offset() < f.end(), "record inside its object's range: " + f);
            Found before = seen.computeIfAbsent(f.file(), k -> new TreeMap<>()).put(f.offset(), f);
            if (before != null) fail("record in two objects: " + before + " and " + f);
        }
        for (var e : expected.entrySet()) {
            TreeMap<Long, Found> got = seen.getOrDefault(e.getKey(), new TreeMap<>());
            for (var r : e.getValue().entrySet()) {
                Found f = got.get(r.getKey());
                if (f == null) fail("record lost: " + e.getKey() + " offset " + r.getKey() + " " + r.getValue());
                assertEquals(r.getValue(), f.message(), e.getKey() + " offset " + r.getKey());
            }
            assertEquals(e.getValue().keySet(), got.keySet(), "records of " + e.getKey());
        }
    }

    /** The records of {@code bytes} as the lines framing makes them: offset to message (without its newline). */
    static TreeMap<Long, String> lineRecords(byte[] bytes) {
        TreeMap<Long, String> m = new TreeMap<>();
        int from = 0;
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == '\n') {
                m.put((long) from, new String(bytes, from, i - from, StandardCharsets.UTF_8));
                from = i + 1;
            }
        }
        return m;
    }

    @Test
    void shouldStoreEachMultilineRecordAsOneJsonObjectInExactlyOneObject() throws Exception {
        TestSeed.pick().run(seed -> {
            List<String> recs = JavaLog.records(seed.value(), 6000, 20, 40);
            byte[] source = JavaLog.bytes(recs);
            Path logs = Files.createDirectories(tmp.resolve("logs-" + seed.value()));
            Files.write(logs.resolve("app.log"), source);
            String prefix = "ml-" + seed.value();
            ByteArrayOutputStream log = new ByteArrayOutputStream();
            var cfg = ShipRun.config(List.of(logs.resolve("*.log").toString()), null,
                    tmp.resolve("state-" + seed.value()), settings(prefix, Map.of("encoding", "ndjson",
                            "multiline.preset", "java", "fields.service", "web", "s3.object-size", "1MiB",
                            "buffer-size", "64KiB")));
            assertTrue(ShipRun.once(cfg, log), log.toString(StandardCharsets.UTF_8));

            long[] at = JavaLog.boundaries(recs);
            TreeMap<Long, String> want = new TreeMap<>();
            for (int i = 0; i < recs.size(); i++) {
                String r = recs.get(i);
                want.put(at[i], r.substring(0, r.length() - 1));
            }
            List<Found> found = records(SERVER.minio(), prefix);
            assertExactlyOnce(found, Map.of("app.log", want));
            long objects = found.stream().map(Found::key).distinct().count();
            assertTrue(objects >= 3, "the ndjson of " + source.length + " source bytes spans objects: " + objects);
            // The objects' ranges tile the file: the last ends where the file does.
            assertEquals(source.length, found.stream().mapToLong(Found::end).max().orElseThrow());
            try (var c = SERVER.minio().client()) {
                var head = c.headObject(h -> h.bucket(BUCKET).key(found.get(0).key()));
                assertEquals("application/x-ndjson", head.contentType());
                assertEquals("gzip", head.contentEncoding());
            }
            // A second run ships nothing again.
            assertTrue(ShipRun.once(cfg, log), log.toString(StandardCharsets.UTF_8));
            assertEquals(objects, SERVER.minio().objects(BUCKET, prefix + "/").size());
        });
    }

    @Test
    void shouldStoreOnlyTheLinesTheFiltersKeepAndMoveOnOverTheOthers() throws Exception {
        StringBuilder b = new StringBuilder();
        StringBuilder kept = new StringBuilder();
        for (int i = 0; i < 80_000; i++) {
            String level = switch (i % 4) {
                case 0 -> "DEBUG";
                case 1 -> "INFO";
                case 2 -> "WARN";
                default -> "ERROR";
            };
            String line = level + " n=" + i + " " + "x".repeat(i % 50) + (i % 7 == 0 ? " healthcheck" : "") + "\n";
            b.append(line);
            if (!level.equals("DEBUG") && i % 7 != 0) kept.append(line);
        }
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Files.writeString(logs.resolve("app.log"), b);
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        var cfg = ShipRun.config(List.of(logs.resolve("*.log").toString()), null, tmp.resolve("state"),
                settings("filtered", Map.of("include-lines", "^(INFO|WARN|ERROR) ", "exclude-lines", "healthcheck$",
                        "s3.object-size", "1MiB", "s3.compression", "none", "buffer-size", "16KiB")));
        assertTrue(ShipRun.once(cfg, log), log.toString(StandardCharsets.UTF_8));
        List<Minio.Stored> objects = SERVER.minio().objects(BUCKET, "filtered/");
        assertTrue(objects.size() >= 2, "objects: " + objects.size());
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        long next = 0;
        for (Minio.Stored o : objects) {
            Matcher m = KEY.matcher(o.key());
            assertTrue(m.matches(), o.key());
            assertEquals(next, Long.parseLong(m.group("start")), "ranges follow each other: " + o.key());
            next = Long.parseLong(m.group("end"));
            all.writeBytes(o.bytes());
        }
        assertEquals(b.length(), next, "the ranges reach the file's end");
        assertEquals(kept.toString(), all.toString(StandardCharsets.UTF_8));
        assertTrue(ShipRun.once(cfg, log));
        assertEquals(objects.size(), SERVER.minio().objects(BUCKET, "filtered/").size(), "nothing shipped again");
    }

    /**
     * A multipart object of raw lines through a filter: its end is planned when its upload begins (at 8 MiB of source,
     * here inside a line), and the batch that runs over it has lines left out, so it is not split there: the object
     * ends after the line that runs over it (completed, then copied to the key of its real range). Every kept byte is
     * in exactly one object and the ranges tile the file.
     */
    @Test
    void shouldEndAMultipartObjectOfFilteredLinesAfterTheRecordThatRunsOverItsPlannedEnd() throws Exception {
        long planned = 8L << 20;
        // Lines are left out only near the planned end: the batches before it are the file's bytes as they are, so
        // the object becomes a multipart upload; the batches around the planned end carry kept lines only.
        Pattern exclude = Pattern.compile("^n=\\d*3 .* drop$");
        StringBuilder b = new StringBuilder();
        long straddlerEnd = -1;
        for (int i = 0; b.length() < 20_000_000; i++) {
            long at = b.length();
            boolean near = at > planned - 300_000 && at < planned + 300_000;
            String line = "n=" + i + " " + "abcdefghij".repeat(i % 9) + (near && i % 10 == 3 ? " drop" : "") + "\n";
            if (at < planned && at + line.length() > planned) {
                // The line that runs over the planned end: kept, and not ending exactly there.
                line = "n=" + i + " runs over the planned end " + "x".repeat(60) + "\n";
                straddlerEnd = at + line.length();
            }
            b.append(line);
        }
        assertTrue(straddlerEnd > planned + 1, "a line runs over the planned end");
        byte[] source = b.toString().getBytes(StandardCharsets.US_ASCII);
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Files.write(logs.resolve("app.log"), source);
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        var cfg = ShipRun.config(List.of(logs.resolve("*.log").toString()), null, tmp.resolve("state"),
                settings("mp-filtered", Map.of("exclude-lines", exclude.pattern(), "s3.object-size", "8MiB",
                        "s3.part-size", "5MiB", "max-in-flight", "64MiB", "s3.compression", "none",
                        "buffer-size", "16KiB")));
        assertTrue(ShipRun.once(cfg, log), log.toString(StandardCharsets.UTF_8));
        List<Minio.Stored> objects = SERVER.minio().objects(BUCKET, "mp-filtered/");
        Matcher first = KEY.matcher(objects.get(0).key());
        assertTrue(first.matches(), objects.get(0).key());
        assertEquals(0, Long.parseLong(first.group("start")));
        assertEquals(straddlerEnd, Long.parseLong(first.group("end")), "the first object ends after the line that "
                + "runs over its planned end: " + objects.get(0).key());
        assertFilteredTiles(objects, Map.of("app.log", source), exclude);
        assertEquals(List.of(), SERVER.minio().uploads(BUCKET, "mp-filtered/"), "no incomplete upload left");
    }

    /**
     * The object holding a line that a timeout shipped without its newline is cut, its intent recorded, and the
     * server down; the shipper is killed, the line finished. At the next start the line comes whole and runs over the
     * intent's end: the object is stored ending after it (its key deleted first, its new end recorded), and every
     * record is in exactly one object.
     */
    @Test
    void shouldStoreARedoneObjectWithTheWholeRecordATimeoutHadCut() throws Exception {
        Path dir = tmp.resolve("own");
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path state = tmp.resolve("state");
        Path err = tmp.resolve("ship.err");
        try (Minio own = Minio.start(dir, BUCKET)) {
            Path file = logs.resolve("app.log");
            StringBuilder first = new StringBuilder();
            for (int i = 0; i < 2000; i++) first.append("line ").append(i).append(" of the first part\n");
            own.kill();
            Files.writeString(file, first + "a line cut by the timeout, ");
            Map<String, String> more = Map.of("encoding", "ndjson", "partial-timeout", "200ms", "s3.object-age",
                    "1s");
            Process p = S3CrashTest.shipper(tmp, own, logs, state, err, "cut", List.of(), more);
            try {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (p.isAlive() && System.nanoTime() < deadline && S3CrashTest.lastRecord(state) != 'I') {
                    Thread.sleep(10);
                }
                assertEquals('I', S3CrashTest.lastRecord(state), ShipRun.tail(err, 30));
                String intent = S3CrashTest.lastLine(state);
                long cutAt = Long.parseLong(intent.substring(9).split(" ")[7]);
                assertEquals(Files.size(file), cutAt, "the object ends where the timeout cut: " + intent);
            } finally {
                p.destroyForcibly(); // SIGKILL, the upload not made
                p.waitFor();
            }
            Files.writeString(file, "finished after the crash\nand one more line\n", StandardOpenOption.APPEND);
            own.restart();
            ByteArrayOutputStream log = new ByteArrayOutputStream();
            Map<String, String> s = new HashMap<>(own.settings());
            s.put("to", "s3://" + BUCKET + "/cut");
            s.put("s3.compression", "gzip");
            s.putAll(more);
            assertTrue(ShipRun.once(ShipRun.config(List.of(logs.resolve("*.log").toString()), null, state, s), log),
                    log.toString(StandardCharsets.UTF_8));
            String text = log.toString(StandardCharsets.UTF_8);
            assertTrue(text.contains("event=s3-redo-reshaped"), text);
            byte[] source = Files.readAllBytes(file);
            assertExactlyOnce(records(own, "cut"), Map.of("app.log", lineRecords(source)));
            assertArrayEquals(source, Files.readAllBytes(file));
        }
    }

    /**
     * kill -9 of shippers storing ndjson, and raw lines through a filter (its batches alternate between the source's
     * bytes as they are and the lines kept), while lines are appended: every record in exactly one object.
     */
    @Test
    void shouldHoldEveryRecordInExactlyOneObjectAfterKills() throws Exception {
        TestSeed seed = TestSeed.pick();
        System.out.println("S3RecordsTest kills " + seed);
        seed.run(ts -> {
            kills(ts.random(), ts.value(), "ndjson", Map.of("encoding", "ndjson"));
            kills(ts.random(), ts.value(), "filtered", Map.of("exclude-lines", "^n=\\d*7 "));
        });
    }

    private void kills(SplittableRandom rnd, long seedValue, String name, Map<String, String> more) throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("klogs-" + name + "-" + seedValue));
        Path state = tmp.resolve("kstate-" + name + "-" + seedValue);
        Path err = tmp.resolve("kship-" + name + "-" + seedValue + ".err");
        String prefix = "kills-" + name + "-" + seedValue;
        int kills = 6;
        try (S3CrashTest.Appender app = new S3CrashTest.Appender(logs, seedValue, 5)) {
            for (int k = 0; k < kills; k++) {
                Process p = S3CrashTest.shipper(tmp, SERVER.minio(), logs, state, err, prefix, List.of(), more);
                try {
                    if (k % 2 == 1) {
                        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                        while (p.isAlive() && System.nanoTime() < deadline && S3CrashTest.lastRecord(state) != 'I') {
                            Thread.sleep(1);
                        }
                    } else {
                        Thread.sleep(300 + rnd.nextInt(2500));
                    }
                    if (!p.isAlive()) fail("shipper " + k + " died by itself: " + ShipRun.tail(err, 40));
                } finally {
                    p.destroyForcibly();
                    p.waitFor();
                }
            }
        }
        Map<String, String> s = new HashMap<>(SERVER.minio().settings());
        s.put("to", "s3://" + BUCKET + "/" + prefix);
        s.put("s3.object-size", "1MiB");
        s.put("s3.compression", "gzip");
        s.putAll(more);
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        assertTrue(ShipRun.once(ShipRun.config(List.of(logs.resolve("*.log").toString()), null, state, s), log),
                log.toString(StandardCharsets.UTF_8));
        assertTrue(!Files.readString(err).contains("Exception in thread"), ShipRun.tail(err, 40));
        Map<String, byte[]> sources = S3CrashTest.sources(logs);
        long bytes = sources.values().stream().mapToLong(b -> b.length).sum();
        List<Minio.Stored> objects = SERVER.minio().objects(BUCKET, prefix + "/");
        System.out.println("S3RecordsTest " + name + ": " + kills + " kills, " + bytes + " source bytes, "
                + objects.size() + " objects");
        assertTrue(bytes > 500_000, "shipped enough to cut many objects: " + bytes);
        if (more.containsKey("encoding")) {
            Map<String, TreeMap<Long, String>> want = new HashMap<>();
            for (var e : sources.entrySet()) want.put(e.getKey(), lineRecords(e.getValue()));
            assertExactlyOnce(records(SERVER.minio(), prefix), want);
        } else {
            assertFilteredTiles(objects, sources, Pattern.compile(more.get("exclude-lines")));
        }
    }

    /**
     * Checks raw objects of filtered lines: per file, the objects' ranges follow each other from 0 to the file's end
     * (none missing, none twice) and each holds exactly the bytes of its range that belong to lines the filter keeps
     * (a line may be split between two objects only where a multipart object's planned end cut a batch without
     * lines left out).
     */
    static void assertFilteredTiles(List<Minio.Stored> objects, Map<String, byte[]> sources, Pattern exclude) {
        Map<String, TreeMap<Long, Minio.Stored>> byFile = new HashMap<>();
        Map<String, Long> ends = new HashMap<>();
        for (Minio.Stored o : objects) {
            Matcher m = KEY.matcher(o.key());
            assertTrue(m.matches(), o.key());
            long start = Long.parseLong(m.group("start"));
            Minio.Stored before = byFile.computeIfAbsent(m.group("file"), k -> new TreeMap<>()).put(start, o);
            if (before != null) fail("two objects start at " + start + ": " + before.key() + " and " + o.key());
            ends.put(o.key(), Long.parseLong(m.group("end")));
        }
        for (var e : sources.entrySet()) {
            byte[] src = e.getValue();
            TreeMap<Long, String> lines = lineRecords(src);
            long next = 0;
            for (Minio.Stored o : byFile.getOrDefault(e.getKey(), new TreeMap<>()).values()) {
                Matcher m = KEY.matcher(o.key());
                assertTrue(m.matches());
                assertEquals(next, Long.parseLong(m.group("start")), "objects follow each other: " + o.key());
                long end = ends.get(o.key());
                StringBuilder kept = new StringBuilder();
                Long first = lines.floorKey(next);
                for (var line : lines.subMap(first == null ? 0L : first, true, end, false).entrySet()) {
                    long ls = line.getKey();
                    long le = ls + line.getValue().length() + 1;
                    if (le <= next || ls >= end || exclude.matcher(line.getValue()).find()) continue;
                    String whole = line.getValue() + "\n";
                    kept.append(whole, (int) (Math.max(ls, next) - ls), (int) (Math.min(le, end) - ls));
                }
                assertEquals(kept.toString(), new String(S3Objects.decode(o.encoding(), o.bytes()),
                        StandardCharsets.UTF_8), "the kept lines of " + o.key());
                next = end;
            }
            assertEquals(src.length, next, "the objects reach the end of " + e.getKey());
        }
    }
}
