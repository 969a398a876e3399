package io.jfio.ship.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * A real single-node Kafka cluster (KRaft, broker and controller in one process) in a child JVM, from the Maven
 * Central artifacts on the test classpath. A child rather than in-process so that a test can kill it (SIGKILL, as a
 * crash) and start it again on the same ports and log directory.
 *
 * <p>Not thread-safe; owned by one test class (starting a broker costs a few seconds: share one per class).
 * {@link #close()} kills the child and deletes the directory.
 */
public final class KafkaBroker implements AutoCloseable {
    private static final long READY_TIMEOUT_MS = 90_000;

    static {
        // The test JVM's own Kafka clients (admin, consumer) log through slf4j-simple too: WARN and up only.
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        }
    }

    private final Path dir;
    private final Path logDir;
    private final Path props;
    private final Path output;
    private final String clusterId = Uuid.randomUuid().toString();
    private final int port;
    private final int controllerPort;
    private Process process;

    private KafkaBroker(Path dir) throws IOException {
        this.dir = dir;
        this.logDir = dir.resolve("data");
        this.props = dir.resolve("server.properties");
        this.output = dir.resolve("broker.out");
        this.port = freePort();
        this.controllerPort = freePort();
        String host = "127.0.0.1";
        Properties p = new Properties();
        p.put("process.roles", "broker,controller");
        p.put("node.id", "1");
        p.put("controller.quorum.voters", "1@" + host + ":" + controllerPort);
        p.put("listeners", "PLAINTEXT://" + host + ":" + port + ",CONTROLLER://" + host + ":" + controllerPort);
        p.put("advertised.listeners", "PLAINTEXT://" + host + ":" + port);
        p.put("controller.listener.names", "CONTROLLER");
        p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.put("inter.broker.listener.name", "PLAINTEXT");
        p.put("log.dirs", logDir.toString());
        p.put("num.partitions", "1");
        p.put("offsets.topic.replication.factor", "1");
        p.put("offsets.topic.num.partitions", "1");
        p.put("transaction.state.log.replication.factor", "1");
        p.put("transaction.state.log.min.isr", "1");
        p.put("share.coordinator.state.topic.replication.factor", "1");
        p.put("share.coordinator.state.topic.min.isr", "1");
        p.put("group.initial.rebalance.delay.ms", "0");
        p.put("auto.create.topics.enable", "true");
        p.put("log.flush.interval.messages", "1");
        try (var w = Files.newBufferedWriter(props)) {
            p.store(w, "jfio test broker");
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return s.getLocalPort();
        }
    }

    /** Creates the directory's broker and starts it; returns once it answers an AdminClient. */
    public static KafkaBroker start(Path dir) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        KafkaBroker b = new KafkaBroker(dir);
        try {
            b.startProcess();
        } catch (IOException | InterruptedException | RuntimeException e) {
            b.close();
            throw e;
        }
        return b;
    }

    /** host:port of the PLAINTEXT listener. */
    public String bootstrap() {
        return "127.0.0.1:" + port;
    }

    private void startProcess() throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(List.of(java, "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", System.getProperty("java.class.path"),
                KafkaBrokerMain.class.getName(), props.toString(), clusterId, logDir.toString()));
        process = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(output.toFile())).start();
        awaitReady();
    }

    private void awaitReady() throws IOException, InterruptedException {
        long deadline = System.currentTimeMillis() + READY_TIMEOUT_MS;
        Exception last = null;
        while (System.currentTimeMillis() < deadline) {
            if (!process.isAlive()) {
                throw new IOException("kafka broker exited with " + process.exitValue() + ":\n"
                        + ShipRun.tail(output, 40));
            }
            try (Admin admin = admin()) {
                if (!admin.describeCluster().nodes().get(2, TimeUnit.SECONDS).isEmpty()) {
                    return;
                }
            } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                last = e;
            }
            Thread.sleep(200);
        }
        throw new IOException("kafka broker not ready in " + READY_TIMEOUT_MS + " ms: " + last + "\n"
                + ShipRun.tail(output, 40));
    }

    /** An admin client for this broker; the caller closes it. */
    public Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap(),
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000",
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "10000"));
    }

    /** Creates a topic (replication 1) unless it exists. */
    public void createTopic(String name, int partitions) throws Exception {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw e;
            }
        }
    }

    /**
     * Every record of partition 0 of {@code topic} up to its end offset when called, in offset order (at most 60 s
     * of reading).
     */
    public List<ConsumerRecord<byte[], byte[]>> records(String topic) {
        Map<String, Object> cfg = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap(),
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false", ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "10000");
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(cfg, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            TopicPartition tp = new TopicPartition(topic, 0);
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            long end = c.endOffsets(List.of(tp), java.time.Duration.ofSeconds(30)).get(tp);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (c.position(tp) < end && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(java.time.Duration.ofMillis(500))) out.add(r);
            }
        }
        return out;
    }

    /** The broker's process id (for pausing it from another process). */
    public long pid() {
        return process.pid();
    }

    /** Kills the broker with SIGKILL, as a crash, and waits for it to be gone. */
    public void kill() throws InterruptedException {
        if (process != null) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }

    /**
     * Stops the broker with SIGSTOP, as a broker that hangs (a long pause, a network partition): its connections stay
     * open and nothing answers on them, so a producer keeps what it was given until its delivery timeout.
     */
    public void pause() throws IOException, InterruptedException {
        signal("STOP");
    }

    /** Lets a paused broker go on (SIGCONT). */
    public void resume() throws IOException, InterruptedException {
        signal("CONT");
    }

    private void signal(String name) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
        if (kill.waitFor() != 0) throw new IOException("kill -" + name + " " + process.pid() + " failed");
    }

    /** Starts the broker again on the same ports and log directory; returns once it is ready. */
    public void restart() throws IOException, InterruptedException {
        kill();
        startProcess();
    }

    @Override
    public void close() {
        try {
            kill();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot delete the broker directory " + dir, e);
        }
    }
}
