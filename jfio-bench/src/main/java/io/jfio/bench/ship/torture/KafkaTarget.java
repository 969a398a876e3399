package io.jfio.bench.ship.torture;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The kafka sink ({@code kafka:BOOTSTRAP/TOPIC}) on a broker the user gives, into a topic of its own made for the
 * run. Read back with a plain consumer (no group, from the beginning, every partition to its end); each record
 * is one line without its newline, keyed by the source file's path, and each key is a stream of its own (its
 * records are in order in one partition).
 *
 * <p>{@link #holds} is called by the rotator thread only, which owns its consumer; {@link #read} makes a consumer
 * of its own on the run's thread.
 */
final class KafkaTarget implements Target {
    private final String bootstrap;
    private final String topic;
    /** The rotator's consumer and what it has seen, per writer: record numbers. */
    private KafkaConsumer<byte[], byte[]> probe;
    private final Map<Integer, Set<Long>> seen = new HashMap<>();

    static {
        // The Kafka clients log through slf4j-simple: warnings and errors only, unless the user asked otherwise.
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        }
    }

    /** Creates {@code topic} (1 partition, replication 1) on the broker at {@code bootstrap}. */
    KafkaTarget(String bootstrap, String topic) throws IOException {
        this.bootstrap = bootstrap;
        this.topic = topic;
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000",
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000"))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new IOException("cannot create the topic " + topic + " at " + bootstrap + ": " + e.getCause(),
                        e);
            }
        } catch (TimeoutException e) {
            throw new IOException("the Kafka broker at " + bootstrap + " did not answer within 60 s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } catch (org.apache.kafka.common.KafkaException e) {
            throw new IOException("cannot reach the Kafka broker at " + bootstrap + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String name() {
        return "kafka";
    }

    @Override
    public String to() {
        return "kafka:" + bootstrap + "/" + topic;
    }

    private KafkaConsumer<byte[], byte[]> consumer() {
        Map<String, Object> cfg = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false",
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "10000",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
        KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(cfg, new ByteArrayDeserializer(),
                new ByteArrayDeserializer());
        List<TopicPartition> parts = new ArrayList<>();
        for (PartitionInfo p : c.partitionsFor(topic, Duration.ofSeconds(30))) {
            parts.add(new TopicPartition(topic, p.partition()));
        }
        c.assign(parts);
        c.seekToBeginning(parts);
        return c;
    }

    @Override
    public boolean holds(byte[] record) {
        if (probe == null) probe = consumer();
        // Reads on from where the last call stopped; acknowledged Kafka records stay (the broker is not killed).
        for (ConsumerRecord<byte[], byte[]> r : probe.poll(Duration.ofMillis(100))) {
            TortureRecord.Id id = TortureRecord.parse(r.value(), 0, r.value().length);
            if (id != null) seen.computeIfAbsent(id.writer(), k -> new HashSet<>()).add(id.seq());
        }
        TortureRecord.Id want = TortureRecord.parse(record, 0, record.length - 1);
        return want != null && seen.getOrDefault(want.writer(), Set.of()).contains(want.seq());
    }

    @Override
    public void read(Verifier v) throws IOException {
        try (KafkaConsumer<byte[], byte[]> c = consumer()) {
            Map<TopicPartition, Long> end = c.endOffsets(c.assignment(), Duration.ofSeconds(30));
            long deadline = System.nanoTime() + 120_000_000_000L;
            while (!reached(c, end)) {
                if (System.nanoTime() > deadline) throw new IOException("could not read topic " + topic
                        + " to its end within 120 s");
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
                    String key = r.key() == null ? "(no key)" : new String(r.key(), StandardCharsets.UTF_8);
                    byte[] value = r.value() == null ? new byte[0] : r.value();
                    v.addRecord(key, "partition " + r.partition() + " offset " + r.offset(),
                            Arrays.copyOf(value, value.length));
                }
            }
        } catch (org.apache.kafka.common.KafkaException e) {
            throw new IOException("cannot read topic " + topic + ": " + e.getMessage(), e);
        }
    }

    private static boolean reached(KafkaConsumer<byte[], byte[]> c, Map<TopicPartition, Long> end) {
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            if (c.position(e.getKey()) < e.getValue()) return false;
        }
        return true;
    }

    @Override
    public void close() {
        if (probe != null) probe.close();
        probe = null;
    }
}
