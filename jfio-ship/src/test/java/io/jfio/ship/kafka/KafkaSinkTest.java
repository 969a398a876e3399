package io.jfio.ship.kafka;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.ship.sink.Batch;
import io.jfio.ship.sink.SinkSpec;
import io.jfio.ship.testing.KafkaBroker;
import io.jfio.ship.testing.SourceFile;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** KafkaSink against a real single-node KRaft broker in a child JVM; every record is consumed back and compared. */
class KafkaSinkTest {
    private static KafkaBroker broker;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = KafkaBroker.start(Files.createTempDirectory("jfio-kafka-"));
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    private static List<String> lines(SourceFile src) {
        return Arrays.asList(new String(src.content(), StandardCharsets.US_ASCII).split("\n"));
    }

    /** Every record of a topic, as key -> values in offset order (per partition, which is per key). */
    private static boolean atEnd(KafkaConsumer<byte[], byte[]> c, Map<TopicPartition, Long> end) {
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            if (c.position(e.getKey()) < e.getValue()) return false;
        }
        return true;
    }

    private static Map<String, List<String>> consume(String topic, long expected) {
        Map<String, Object> cfg = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap(),
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false",
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "10000");
        Map<String, List<String>> byKey = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(cfg, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> parts = new ArrayList<>();
            for (PartitionInfo p : c.partitionsFor(topic, Duration.ofSeconds(30))) {
                parts.add(new TopicPartition(topic, p.partition()));
            }
            c.assign(parts);
            c.seekToBeginning(parts);
            // Everything the topic holds: up to its end offsets (a count would stop early when duplicates arrived).
            Map<TopicPartition, Long> end = c.endOffsets(parts, Duration.ofSeconds(30));
            long n = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!atEnd(c, end) && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
                    byKey.computeIfAbsent(new String(r.key(), StandardCharsets.UTF_8), k -> new ArrayList<>())
                            .add(new String(r.value(), StandardCharsets.US_ASCII));
                    n++;
                }
            }
            assertTrue(n >= expected || atEnd(c, end), "read " + n + " of at least " + expected + " records in 60 s");
        }
        return byKey;
    }

    /** A sink for {@code BOOTSTRAP/TOPIC}, parsed as {@code --to kafka:BOOTSTRAP/TOPIC} is. */
    private static KafkaSink open(String target, KafkaSink.Options options) {
        SinkSpec spec = SinkSpec.parse(KafkaSinkFactory.SCHEME + ":" + target);
        return new KafkaSink(KafkaSinkFactory.bootstrap(spec), KafkaSinkFactory.topic(spec), options);
    }

    private static void sendAll(KafkaSink sink, SourceFile... sources) throws Exception {
        List<CompletableFuture<Void>> fs = new ArrayList<>();
        int max = Arrays.stream(sources).mapToInt(SourceFile::batches).max().orElse(0);
        for (int i = 0; i < max; i++) {
            for (SourceFile s : sources) {
                if (i < s.batches()) {
                    fs.add(sink.send(s.batch(i)));
                }
            }
        }
        CompletableFuture.allOf(fs.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
    }

    @Test
    void shouldProduceOneRecordPerLineKeyedBySourceInOrder(@TempDir Path dir) throws Exception {
        broker.createTopic("lines", 3);
        try (SourceFile a = SourceFile.create(dir.resolve("a.log"), "app", "a", 30_000, 90, 128 << 10);
             SourceFile b = SourceFile.create(dir.resolve("b.log"), "app", "b", 20_000, 50, 64 << 10)) {
            try (KafkaSink sink = open(broker.bootstrap() + "/lines", KafkaSink.Options.defaults())) {
                sendAll(sink, a, b);
                assertEquals(50_000, sink.recordsAcknowledged());
            }
            Map<String, List<String>> got = consume("lines", 50_000);
            assertEquals(Set.of(a.path().toString(), b.path().toString()), got.keySet());
            assertEquals(lines(a), got.get(a.path().toString()), "values and their order, key " + a.path());
            assertEquals(lines(b), got.get(b.path().toString()), "values and their order, key " + b.path());
        }
    }

    @Test
    void shouldRouteEachInputToItsOwnTopicAndSupportEveryCodec(@TempDir Path dir) throws Exception {
        try (SourceFile web = SourceFile.create(dir.resolve("web.log"), "web", "w", 2_000, 70, 16 << 10);
             SourceFile db = SourceFile.create(dir.resolve("db.log"), "db/main", "d", 1_000, 70, 16 << 10)) {
            try (KafkaSink sink = open(broker.bootstrap() + "/per-${input}",
                    KafkaSink.Options.defaults().withCompression("zstd"))) {
                assertEquals("per-db_main", sink.topicFor("db/main"));
                sendAll(sink, web, db);
            }
            assertEquals(Map.of(web.path().toString(), lines(web)), consume("per-web", 2_000));
            assertEquals(Map.of(db.path().toString(), lines(db)), consume("per-db_main", 1_000));
        }
        for (String codec : List.of("none", "gzip", "snappy", "lz4")) {
            try (SourceFile s = SourceFile.create(dir.resolve(codec + ".log"), codec, codec, 500, 40, 4096);
                 KafkaSink sink = new KafkaSink(broker.bootstrap(), "codec-" + codec,
                         KafkaSink.Options.defaults().withCompression(codec))) {
                sendAll(sink, s);
                assertEquals(Map.of(s.path().toString(), lines(s)), consume("codec-" + codec, 500), codec);
            }
        }
    }

    @Test
    void shouldShipAnUnterminatedTailAsOneRecordOfItsOwn(@TempDir Path dir) throws Exception {
        broker.createTopic("tails", 1);
        // What the pipeline hands over: a partial line shipped after its timeout ("a2"), later its rest; a split
        // piece of an overlong line, then the rest of that line; an empty line.
        List<String> batches = List.of("a1\na2", "-rest\n", "long-piece-", "end-of-long\n\n", "tail");
        try (Arena arena = Arena.ofConfined(); KafkaSink sink = open(broker.bootstrap() + "/tails",
                KafkaSink.Options.defaults())) {
            List<CompletableFuture<Void>> fs = new ArrayList<>();
            long offset = 0;
            for (String b : batches) {
                byte[] bytes = b.getBytes(StandardCharsets.US_ASCII);
                MemorySegment seg = arena.allocate(bytes.length);
                MemorySegment.copy(bytes, 0, seg, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, bytes.length);
                fs.add(sink.send(new Batch("/src/t.log", "app", -1, offset, bytes.length, 1, seg)));
                offset += bytes.length;
            }
            CompletableFuture.allOf(fs.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            assertEquals(7, sink.recordsAcknowledged());
        }
        assertEquals(List.of("a1", "a2", "-rest", "long-piece-", "end-of-long", "", "tail"),
                consume("tails", 7).get("/src/t.log"));
    }

    @Test
    void shouldSendABatchAsOneRecordInRawMode(@TempDir Path dir) throws Exception {
        try (SourceFile s = SourceFile.create(dir.resolve("raw.log"), "raw", "r", 3_000, 64, 32 << 10);
             KafkaSink sink = new KafkaSink(broker.bootstrap(), "raw", KafkaSink.Options.defaults().withRaw(true))) {
            sendAll(sink, s);
            List<String> got = consume("raw", s.batches()).get(s.path().toString());
            assertEquals(s.batches(), got.size());
            assertEquals(new String(s.content(), StandardCharsets.US_ASCII), String.join("", got));
        }
    }

    @Test
    void shouldReportTheProducersObjectsOfEveryRecordAsOverhead() throws IOException {
        MemorySegment bytes = Arena.ofAuto().allocate(9);
        bytes.copyFrom(MemorySegment.ofArray("a\nbb\nccc\n".getBytes(StandardCharsets.US_ASCII)));
        Batch batch = new Batch("/x.log", "in", -1, 0, 9, 3, bytes);
        try (KafkaSink lines = new KafkaSink(broker.bootstrap(), "overhead", KafkaSink.Options.defaults());
             KafkaSink raw = new KafkaSink(broker.bootstrap(), "overhead",
                     KafkaSink.Options.defaults().withRaw(true))) {
            assertEquals(3 * KafkaSink.RECORD_OVERHEAD, lines.overhead(batch), "one record per line");
            assertEquals(KafkaSink.RECORD_OVERHEAD, raw.overhead(batch), "one record per batch");
        }
    }

    @Test
    void shouldFailABatchOnlyOnceTheProducerLetGoOfEveryOneOfItsRecords() throws Exception {
        broker.createTopic("held", 1);
        int n = 2_000;
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) sb.append(i).append('\n');
        byte[] text = sb.toString().getBytes(StandardCharsets.US_ASCII);
        MemorySegment bytes = Arena.ofAuto().allocate(text.length);
        bytes.copyFrom(MemorySegment.ofArray(text));
        // Batches of 4 KiB: the records expire in several producer batches, one after the other.
        try (KafkaSink sink = new KafkaSink(broker.bootstrap(), "held", KafkaSink.Options.defaults()
                .withDeliveryTimeout(Duration.ofSeconds(2)).withProperty("batch.size", "4096"))) {
            sink.send(new Batch("/held.log", "in", -1, 0, 2, 1, bytes.asSlice(0, 2))).get(60, TimeUnit.SECONDS);
            broker.pause();
            try {
                CompletableFuture<Void> f = sink.send(new Batch("/held.log", "in", -1, 2, text.length - 2, n - 1,
                        bytes.asSlice(2, text.length - 2)));
                CompletableFuture<Long> heldAtFailure = f.handle((v, e) -> {
                    assertNotNull(e, "the broker does not answer: the batch fails");
                    return sink.recordsHeld();
                });
                assertEquals(0L, heldAtFailure.get(60, TimeUnit.SECONDS),
                        "the producer still held records of the batch when its failure was reported");
            } finally {
                broker.resume();
            }
        }
    }

    @Test
    void shouldRejectBadSpecsWithAClearMessage() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> open("localhost:9092", KafkaSink.Options.defaults()));
        assertTrue(e.getMessage().contains("BOOTSTRAP/TOPIC"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> open("localhost:9092/bad topic", KafkaSink.Options.defaults()));
        assertTrue(e.getMessage().contains("kafka topic must be"), e.getMessage());
        // The sink checks a fixed topic itself too, for callers that do not go through SinkSpec.
        e = assertThrows(IllegalArgumentException.class,
                () -> new KafkaSink("localhost:9092", "bad topic", KafkaSink.Options.defaults()));
        assertTrue(e.getMessage().contains("not valid"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> KafkaSink.Options.defaults().withCompression("brotli"));
        assertTrue(e.getMessage().contains("lz4"), e.getMessage());
    }

    @Test
    void shouldLoseNothingWhenTheBrokerIsKilledAndRestarted(@TempDir Path dir) throws Exception {
        broker.createTopic("outage", 2);
        try (SourceFile a = SourceFile.create(dir.resolve("o1.log"), "o", "o1", 150_000, 80, 64 << 10);
             SourceFile b = SourceFile.create(dir.resolve("o2.log"), "o", "o2", 100_000, 80, 64 << 10)) {
            // A small buffer, so that the outage fills it and send blocks (the pause), and a delivery timeout
            // short enough that some batches fail and are resent from the checkpoint.
            KafkaSink sink = new KafkaSink(broker.bootstrap(), "outage", KafkaSink.Options.defaults()
                    .withBufferMemory(4L << 20).withDeliveryTimeout(Duration.ofSeconds(10))
                    .withMaxBlock(Duration.ofSeconds(5)));
            AtomicLong failures = new AtomicLong();
            AtomicLong acked = new AtomicLong();
            SourceFile[] files = {a, b};
            Thread pipeline = Thread.ofPlatform().name("test-pipeline").start(() -> {
                int[] checkpoint = new int[2];
                int turn = 0;
                List<List<CompletableFuture<Void>>> inflight = List.of(new ArrayList<>(), new ArrayList<>());
                int[] next = new int[2];
                while (checkpoint[0] < a.batches() || checkpoint[1] < b.batches()) {
                    int f = turn++ % 2;
                    List<CompletableFuture<Void>> q = inflight.get(f);
                    while (!q.isEmpty() && q.get(0).isDone()) {
                        if (q.get(0).isCompletedExceptionally()) {
                            failures.incrementAndGet();
                            q.clear();
                            next[f] = checkpoint[f];
                            break;
                        }
                        q.remove(0);
                        checkpoint[f]++;
                        acked.incrementAndGet();
                    }
                    if (next[f] < files[f].batches() && q.size() < 64) {
                        try {
                            q.add(sink.send(files[f].batch(next[f])));
                            next[f]++;
                        } catch (IOException e) {
                            failures.incrementAndGet();
                            q.clear();
                            next[f] = checkpoint[f];
                            sleep(200);
                        }
                    } else {
                        sleep(1);
                    }
                }
            });
            long total = a.batches() + b.batches();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (acked.get() < total / 5 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            long failedBefore = failures.get();
            broker.kill();
            // Down until the pipeline has seen it: a send that gave up (buffer full for max.block.ms) or a batch
            // whose delivery timed out, both well within 30 s with these options.
            long down = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (failures.get() == failedBefore && System.nanoTime() < down) {
                Thread.sleep(10);
            }
            long failedWhileDown = failures.get();
            broker.restart();
            assertTrue(failedWhileDown > failedBefore, "the outage was seen: batches failed while the broker was down"
                    + " (failures before it: " + failedBefore + ")");
            pipeline.join(240_000);
            assertTrue(!pipeline.isAlive(), "the pipeline finished after the broker came back");
            sink.close();
            Map<String, List<String>> got = consume("outage", 250_000);
            for (SourceFile s : files) {
                List<String> values = got.get(s.path().toString());
                Set<String> distinct = new HashSet<>(values);
                assertTrue(distinct.containsAll(lines(s)), "every line of " + s.path() + " arrived");
                assertEquals(lines(s).size(), distinct.size(), "nothing else arrived");
            }
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Every record of a topic in offset order (one partition). */
    private static List<ConsumerRecord<byte[], byte[]>> records(String topic, int expected) {
        Map<String, Object> cfg = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap(),
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(cfg, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            TopicPartition tp = new TopicPartition(topic, 0);
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (out.size() < expected && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) out.add(r);
            }
        }
        return out;
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String key) {
        var h = r.headers().lastHeader(key);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    @Test
    void shouldSendAMultilineRecordAsOneKafkaRecordWithItsMetadataInHeaders(@TempDir Path dir) throws Exception {
        broker.createTopic("multiline-headers", 1);
        List<String> recs = io.jfio.ship.testing.JavaLog.records(7, 300, 30, 20);
        byte[] source = io.jfio.ship.testing.JavaLog.bytes(recs);
        Path file = Files.createDirectories(dir.resolve("logs")).resolve("app.log");
        Files.write(file, source);
        var cfg = io.jfio.ship.testing.ShipRun.config(List.of(file.toString()), dir.resolve("out"),
                dir.resolve("state"), Map.of("to", "kafka:" + broker.bootstrap() + "/multiline-headers",
                        "multiline.preset", "java", "encoding", "headers", "fields.service", "web",
                        "buffer-size", "8KiB"));
        java.io.ByteArrayOutputStream log = new java.io.ByteArrayOutputStream();
        assertTrue(io.jfio.ship.testing.ShipRun.once(cfg, log), log.toString(StandardCharsets.UTF_8));
        List<ConsumerRecord<byte[], byte[]>> got = records("multiline-headers", recs.size());
        assertEquals(recs.size(), got.size());
        long ino = ((Number) Files.getAttribute(file, "unix:ino")).longValue();
        for (int i = 0; i < recs.size(); i++) {
            ConsumerRecord<byte[], byte[]> r = got.get(i);
            String expected = recs.get(i);
            assertEquals(expected.substring(0, expected.length() - 1), new String(r.value(), StandardCharsets.UTF_8),
                    "record " + i + ": the whole multiline record, without its last newline");
            int offset = Integer.parseInt(header(r, "offset"));
            byte[] raw = expected.getBytes(StandardCharsets.UTF_8);
            assertArrayEquals(raw, Arrays.copyOfRange(source, offset, offset + raw.length), "offset of record " + i);
            assertEquals(file.toString(), header(r, "path"));
            assertEquals(Long.toString(ino), header(r, "inode"));
            assertEquals("web", header(r, "fields.service"));
            assertEquals("main", header(r, "input"));
            java.time.Instant.parse(header(r, "read_time"));
        }
    }

    @Test
    void shouldSendNdjsonRecordsAsJsonValues(@TempDir Path dir) throws Exception {
        broker.createTopic("ndjson", 1);
        Path file = Files.createDirectories(dir.resolve("logs")).resolve("app.log");
        Files.write(file, "one \"q\"\ntwo\u0000\n".getBytes(StandardCharsets.UTF_8));
        var cfg = io.jfio.ship.testing.ShipRun.config(List.of(file.toString()), dir.resolve("out"),
                dir.resolve("state"), Map.of("to", "kafka:" + broker.bootstrap() + "/ndjson", "encoding", "ndjson"));
        java.io.ByteArrayOutputStream log = new java.io.ByteArrayOutputStream();
        assertTrue(io.jfio.ship.testing.ShipRun.once(cfg, log), log.toString(StandardCharsets.UTF_8));
        List<ConsumerRecord<byte[], byte[]>> got = records("ndjson", 2);
        var json = new com.fasterxml.jackson.databind.ObjectMapper();
        assertEquals(2, got.size());
        assertEquals("one \"q\"", json.readTree(got.get(0).value()).get("message").asText());
        assertEquals(0, json.readTree(got.get(0).value()).get("offset").asLong());
        assertEquals("two\u0000", json.readTree(got.get(1).value()).get("message").asText());
        assertEquals(8, json.readTree(got.get(1).value()).get("offset").asLong());
    }
}
