package io.jfio.ship;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.ship.tcp.TcpReceiver;
import io.jfio.ship.testing.KafkaBroker;
import io.jfio.ship.testing.Records;
import io.jfio.ship.testing.ShipMain;
import io.jfio.ship.testing.ShipRun;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real shipper, a writer process appending numbered records, and a sink that goes away mid-run: a TCP receiver
 * closed and started again on the same port, a Kafka broker killed with SIGKILL and restarted or paused with SIGSTOP
 * and let go on. Every record arrives (duplicates allowed, bounded), the outage is seen by the shipper (not just
 * survived by luck), memory stays bounded.
 */
class SinkOutageTest {
    private static final int TOTAL = 200_000;
    /** The widest record the writer makes ({@code g=1 n=200000 } and 49 x and a newline). */
    private static final int MAX_RECORD_BYTES = 64;
    private static final long MAX_IN_FLIGHT = 4L << 20;
    private static final long BUFFER = 1L << 20;

    /** Where bin/jfio gives `jfio ship` its JVM options (its array of them). */
    private static final Pattern LAUNCHER_SHIP_OPTIONS = Pattern.compile(
            "if \\[\\[ \\$\\{1:-\\} == ship \\]\\]; then\\s+java_opts\\+=\\(([^)]*)\\)");

    /**
     * The JVM options bin/jfio gives `jfio ship` (see the launcher for why each one), read from the launcher itself:
     * the shipper of these tests runs as users run it, so its resident size means something.
     */
    private static List<String> launcherShipOptions() throws IOException {
        Path launcher = Path.of(System.getProperty("jfio.repo.root", ".."), "bin", "jfio");
        Matcher m = LAUNCHER_SHIP_OPTIONS.matcher(Files.readString(launcher));
        assertTrue(m.find(), "no ship options found in " + launcher);
        List<String> options = Arrays.stream(m.group(1).trim().split("\\s+")).map(o -> o.replace("'", "")).toList();
        assertTrue(options.contains("-Xmx32m") && options.contains("-XX:+UseSerialGC"), options.toString());
        return options;
    }

    private static final java.net.http.HttpClient HTTP = java.net.http.HttpClient.newHttpClient();

    private static KafkaBroker broker;

    @TempDir
    Path tmp;

    @AfterAll
    static void stopBroker() {
        HTTP.close();
        if (broker != null) broker.close();
    }

    /** Stops the shipper: SIGTERM, and SIGKILL when it has not ended 30 s later. */
    private static void stop(Process ship) throws InterruptedException {
        ship.destroy();
        if (!ship.waitFor(30, TimeUnit.SECONDS)) {
            ship.destroyForcibly();
            ship.waitFor(30, TimeUnit.SECONDS);
        }
    }

    /**
     * The files are the buffer: an outage must not make the shipper hold the data in memory. Resident sizes in kB:
     * before the outage, during it, and the peak of the whole run.
     */
    private static void assertMemoryBounded(long rssBefore, long rssDuring, long peak) {
        assertTrue(rssDuring - rssBefore < 32 << 10, "RSS grew during the outage: " + rssBefore + " -> "
                + rssDuring + " kB");
        assertTrue(peak * 1024 < 128_000_000, "peak RSS over the 128 MB budget: " + peak + " kB");
    }

    /** Runs the writer process in the background: 200,000 records over several seconds. */
    private static CompletableFuture<Void> writer(Path file) {
        return CompletableFuture.runAsync(() -> {
            try {
                ShipRun.write(file, "none", TOTAL, TOTAL, null, 400);
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private static long rssKb(long pid, String field) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith(field + ":")) return Long.parseLong(line.replaceAll("[^0-9]", ""));
        }
        throw new IOException(field + " not in /proc/" + pid + "/status");
    }

    @Test
    void shouldDeliverEveryRecordThroughATcpReceiverOutage() throws Exception {
        Path file = Files.createDirectories(tmp.resolve("logs")).resolve("app.log");
        Files.createFile(file);
        Path recv1 = tmp.resolve("recv1");
        Path recv2 = tmp.resolve("recv2");
        ByteArrayOutputStream receiverLog = new ByteArrayOutputStream();
        PrintStream rlog = new PrintStream(receiverLog, true, StandardCharsets.UTF_8);
        TcpReceiver r1 = TcpReceiver.start(new InetSocketAddress("127.0.0.1", 0), recv1,
                TcpReceiver.Options.defaults(), rlog);
        int port = r1.port();
        Path err = tmp.resolve("ship.err");
        // The shipper as bin/jfio runs it, so its resident size means something.
        Process ship = ShipRun.java(ShipMain.class, launcherShipOptions(),
                        file.toString(), tmp.resolve("unused").toString(), tmp.resolve("state").toString(), "4MiB",
                        "1MiB", "64KiB", "run", "to=tcp:127.0.0.1:" + port)
                .redirectError(err.toFile()).redirectOutput(tmp.resolve("ship.out").toFile()).start();
        TcpReceiver r2 = null;
        try {
            CompletableFuture<Void> w = writer(file);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (r1.durable() < (2L << 20) && System.nanoTime() < deadline) Thread.sleep(10);
            assertTrue(r1.durable() >= (2L << 20), "nothing arrived before the outage: " + Files.readString(err));
            long rssBefore = rssKb(ship.pid(), "VmRSS");
            r1.close();
            Thread.sleep(2_000);
            long rssDuring = rssKb(ship.pid(), "VmRSS");
            r2 = TcpReceiver.start(new InetSocketAddress("127.0.0.1", port), recv2, TcpReceiver.Options.defaults(),
                    rlog);
            w.get(120, TimeUnit.SECONDS);
            // A deadline of its own, from the end of the writing: the outage may have used up the first one.
            long shipped = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            Records r = Records.parse(ShipRun.received(recv1, recv2), TOTAL, false);
            while (!complete(r) && ship.isAlive() && System.nanoTime() < shipped) {
                Thread.sleep(100);
                r = Records.parse(ShipRun.received(recv1, recv2), TOTAL, false);
            }
            assertTrue(complete(r), "not every record arrived within 60 s of the writer's end (shipper alive: "
                    + ship.isAlive() + "); shipper stderr ends: " + ShipRun.tail(err, 30));
            String log = Files.readString(err);
            assertTrue(log.contains("event=sink-failed"), "the outage was never noticed: " + log);
            // Resent after the outage: at most what was unacknowledged (max-in-flight plus one batch), twice over.
            assertTrue((long) r.duplicates * MAX_RECORD_BYTES <= 2 * (MAX_IN_FLIGHT + BUFFER) + (1 << 20),
                    "duplicates: " + r.duplicates);
            long peak = rssKb(ship.pid(), "VmHWM");
            System.out.println("tcp outage: duplicates=" + r.duplicates + " rss-before-kb=" + rssBefore
                    + " rss-during-outage-kb=" + rssDuring + " peak-rss-kb=" + peak);
            assertMemoryBounded(rssBefore, rssDuring, peak);
        } finally {
            stop(ship);
            r1.close();
            if (r2 != null) r2.close();
        }
    }

    private static boolean complete(Records r) {
        for (int i = 1; i < r.count.length; i++) {
            if (r.count[i] == 0) return false;
        }
        return true;
    }

    /**
     * The shipper of {@code file} into {@code topic}, with short producer timeouts so that an outage fails batches
     * (and the pipeline resends) within the test, and a metrics endpoint (on a port it picks and logs) that says how
     * far it got. 4 MiB in flight.
     */
    private Process kafkaShipper(Path file, String topic, Path err) throws IOException {
        return ShipRun.java(ShipMain.class, launcherShipOptions(),
                        file.toString(), tmp.resolve("unused").toString(), tmp.resolve("state").toString(), "4MiB",
                        "1MiB", "64KiB", "run", "to=kafka:" + broker.bootstrap() + "/" + topic,
                        "metrics=127.0.0.1:0", "kafka.delivery.timeout.ms=4000",
                        "kafka.request.timeout.ms=2000", "kafka.max.block.ms=3000")
                .redirectError(err.toFile()).redirectOutput(tmp.resolve("ship.out").toFile()).start();
    }

    /** Waits up to 90 s from {@code since} for the shipper to report {@code total} records shipped; fails else. */
    private static void awaitShipped(Process ship, int metricsPort, long total, String since, Path err)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (metric(metricsPort, "jfio_ship_records_shipped_total") < total && ship.isAlive()
                && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        long count = metric(metricsPort, "jfio_ship_records_shipped_total");
        assertTrue(count >= total, "shipped " + count + " of " + total + " records within 90 s of " + since
                + " (shipper alive: " + ship.isAlive() + "); shipper stderr ends: " + ShipRun.tail(err, 30));
    }

    /** The one broker of these tests, started by the first that needs it. */
    private static KafkaBroker broker() throws IOException, InterruptedException {
        if (broker == null) broker = KafkaBroker.start(Files.createTempDirectory("jfio-kafka-outage-"));
        return broker;
    }

    @Test
    void shouldDeliverEveryRecordToKafkaThroughABrokerKill() throws Exception {
        broker().createTopic("outage", 1);
        Path file = Files.createDirectories(tmp.resolve("logs")).resolve("app.log");
        Files.createFile(file);
        // The shipper is a process of its own, with bin/jfio's heap and collector, so its resident size means
        // something.
        Path err = tmp.resolve("ship.err");
        Process ship = kafkaShipper(file, "outage", err);
        try {
            int metricsPort = metricsPort(ship, err);
            CompletableFuture<Void> w = writer(file);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (metric(metricsPort, "jfio_ship_records_shipped_total") < 20_000 && System.nanoTime() < deadline) {
                assertTrue(ship.isAlive(), Files.readString(err));
                Thread.sleep(50);
            }
            long before = metric(metricsPort, "jfio_ship_records_shipped_total");
            assertTrue(before >= 20_000, "only " + before + " records shipped before the outage: "
                    + Files.readString(err));
            long rssBefore = rssKb(ship.pid(), "VmRSS");
            broker.kill();
            long retriesBefore = metric(metricsPort, "jfio_ship_sink_retries_total");
            // Down until the shipper has seen batches fail (delivery timeout 4 s), at least 3 s, at most 30 s.
            long killed = System.nanoTime();
            while (System.nanoTime() - killed < TimeUnit.SECONDS.toNanos(30)
                    && (metric(metricsPort, "jfio_ship_sink_retries_total") == retriesBefore
                    || System.nanoTime() - killed < TimeUnit.SECONDS.toNanos(3))) {
                Thread.sleep(50);
            }
            long retriesDuring = metric(metricsPort, "jfio_ship_sink_retries_total") - retriesBefore;
            long rssDuring = rssKb(ship.pid(), "VmRSS");
            broker.restart();
            w.get(120, TimeUnit.SECONDS);
            assertTrue(retriesDuring > 0, "no failure seen while the broker was down: " + Files.readString(err));
            // A deadline of its own, from the end of the writing: the outage may have used up the first one.
            awaitShipped(ship, metricsPort, TOTAL, "the writer's end", err);
            long peak = rssKb(ship.pid(), "VmHWM");
            System.out.println("kafka outage: rss-before-kb=" + rssBefore + " rss-during-outage-kb=" + rssDuring
                    + " peak-rss-kb=" + peak);
            assertMemoryBounded(rssBefore, rssDuring, peak); // the producer's own buffer is bounded at 8 MiB
        } finally {
            stop(ship);
        }
        List<String> values = consume("outage", file.toString());
        Records r = Records.parse(String.join("\n", values) + "\n", TOTAL, false).assertComplete();
        assertTrue((long) r.duplicates * MAX_RECORD_BYTES <= 4 * (MAX_IN_FLIGHT + BUFFER),
                "duplicates: " + r.duplicates);
        // One source file, one partition: the first copies of the records are in the file's order.
        int expect = 1;
        for (String v : values) {
            int n = Integer.parseInt(v.split(" ")[1].substring(2));
            if (n == expect) expect++;
            assertTrue(n < expect, "record " + n + " before " + expect + " arrived for the first time");
        }
        assertEquals(TOTAL + 1, expect);
        System.out.println("kafka outage: records=" + values.size() + " duplicates=" + r.duplicates);
    }

    /**
     * Records of a few bytes pile up in the producer while the broker does not answer: each one it holds costs objects
     * of its own besides its bytes. With bin/jfio's 32 MB heap and 4 MiB in flight, a million records of 2-7 bytes
     * written while the broker hangs must not run the shipper out of memory, and must all arrive once it answers.
     */
    @Test
    void shouldShipTinyRecordsToKafkaThroughAHungBrokerInTheLaunchersHeap() throws Exception {
        broker().createTopic("tiny", 1);
        Path file = Files.createDirectories(tmp.resolve("logs")).resolve("tiny.log");
        int first = 1_000;
        int total = 1_000_000;
        appendNumbers(file, 0, first);
        Path err = tmp.resolve("ship.err");
        Process ship = kafkaShipper(file, "tiny", err);
        boolean paused = false;
        long resends;
        try {
            int metricsPort = metricsPort(ship, err);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (metric(metricsPort, "jfio_ship_records_shipped_total") < first && System.nanoTime() < deadline) {
                assertTrue(ship.isAlive(), Files.readString(err));
                Thread.sleep(50);
            }
            assertTrue(metric(metricsPort, "jfio_ship_records_shipped_total") >= first,
                    "the first records were not shipped: " + Files.readString(err));
            broker.pause();
            paused = true;
            long retriesBefore = metric(metricsPort, "jfio_ship_sink_retries_total");
            long hung = System.nanoTime();
            // Everything else at once: the pipeline hands the producer as much as max-in-flight lets it.
            appendNumbers(file, first, total);
            // Hung until the producer's delivery timeout (4 s) failed batches and the pipeline resent, at least 8 s.
            while (System.nanoTime() - hung < TimeUnit.SECONDS.toNanos(30)
                    && (metric(metricsPort, "jfio_ship_sink_retries_total") == retriesBefore
                    || System.nanoTime() - hung < TimeUnit.SECONDS.toNanos(8))) {
                assertTrue(ship.isAlive(), "the shipper died while the broker hung: " + ShipRun.tail(err, 30));
                Thread.sleep(50);
            }
            assertTrue(metric(metricsPort, "jfio_ship_sink_retries_total") > retriesBefore,
                    "no failure seen while the broker hung: " + ShipRun.tail(err, 30));
            broker.resume();
            paused = false;
            awaitShipped(ship, metricsPort, total, "the broker's return", err);
            resends = metric(metricsPort, "jfio_ship_sink_retries_total");
            long peak = rssKb(ship.pid(), "VmHWM");
            System.out.println("kafka tiny records, hung broker: peak-rss-kb=" + peak);
            assertTrue(peak * 1024 < 128_000_000, "peak RSS over the 128 MB budget: " + peak + " kB");
        } finally {
            if (paused) broker.resume();
            stop(ship);
        }
        List<String> values = consume("tiny", file.toString());
        // One source file, one partition: every record there, in the file's order but where a failure made the
        // shipper go back to its checkpoint. The producer drops a batch whose delivery timed out and may still deliver
        // the later ones it holds (Kafka's idempotent producer gives them the expired batch's sequence numbers), so
        // the resent records can come after later ones; each resend goes back at most once.
        java.util.BitSet seen = new java.util.BitSet(total);
        int back = 0;
        int previous = -1;
        for (String v : values) {
            int n = Integer.parseInt(v);
            seen.set(n);
            if (n < previous) back++;
            previous = n;
        }
        assertEquals(total, seen.cardinality(), "records missing; first missing: " + seen.nextClearBit(0));
        assertTrue(back <= resends, back + " places where the records go back, more than the " + resends + " resends");
        System.out.println("kafka tiny records, hung broker: records=" + values.size() + " duplicates="
                + (values.size() - total) + " resends=" + resends + " back=" + back);
    }

    /** Appends the records {@code from} to {@code to - 1}, each its number and a newline. */
    private static void appendNumbers(Path file, int from, int to) throws IOException {
        StringBuilder sb = new StringBuilder();
        for (int i = from; i < to; i++) sb.append(i).append('\n');
        Files.writeString(file, sb, StandardCharsets.US_ASCII, java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.APPEND);
    }

    /** The port of the shipper's metrics endpoint, from its log line {@code event=metrics address=HOST:PORT}. */
    private static int metricsPort(Process ship, Path err) throws IOException, InterruptedException {
        java.util.regex.Pattern p = java.util.regex.Pattern.compile("event=metrics address=[^ ]*:([0-9]+) ");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline && ship.isAlive()) {
            java.util.regex.Matcher m = p.matcher(Files.readString(err));
            if (m.find()) return Integer.parseInt(m.group(1));
            Thread.sleep(50);
        }
        throw new AssertionError("the shipper logged no metrics address (alive: " + ship.isAlive() + "): "
                + Files.readString(err));
    }

    /** A counter of the shipper's Prometheus endpoint, summed over its labels; 0 while it does not answer. */
    private static long metric(int port, String name) throws InterruptedException {
        try {
            String body = HTTP.send(java.net.http.HttpRequest.newBuilder(
                            java.net.URI.create("http://127.0.0.1:" + port + "/metrics"))
                    .timeout(Duration.ofSeconds(5)).build(), java.net.http.HttpResponse.BodyHandlers.ofString())
                    .body();
            long sum = 0;
            for (String line : body.split("\n")) {
                if (line.startsWith(name + "{") || line.startsWith(name + " ")) {
                    sum += (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                }
            }
            return sum;
        } catch (IOException e) {
            return 0;
        }
    }

    /** Every value of {@code topic} with key {@code key}, in offset order. */
    private static List<String> consume(String topic, String key) {
        List<String> out = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r : broker.records(topic)) {
            if (key.equals(new String(r.key(), StandardCharsets.UTF_8))) {
                out.add(new String(r.value(), StandardCharsets.US_ASCII));
            }
        }
        return out;
    }
}
