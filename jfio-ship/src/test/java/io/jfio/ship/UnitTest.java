package io.jfio.ship;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.core.testing.TestSeed;
import io.jfio.ship.config.ConfigException;
import io.jfio.ship.config.ConfigLoader;
import io.jfio.ship.config.Overlong;
import io.jfio.ship.config.ShipConfig;
import io.jfio.ship.config.Start;
import io.jfio.ship.harvest.Framer;
import io.jfio.ship.metrics.ShipMetrics;
import io.jfio.ship.testing.ShipRun;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The framer against a plain byte loop, the configuration files, and the metrics endpoint. */
class UnitTest {
    @TempDir
    Path tmp;

    @Test
    void framerAgreesWithByteLoopOnRandomInput() {
        TestSeed ts = TestSeed.pick();
        String seed = ts.toString();
        RandomGenerator rnd = ts.random();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = arena.allocate(1 << 16);
            Framer.Scan scan = new Framer.Scan();
            for (int round = 0; round < 500; round++) {
                int len = rnd.nextInt(1 << 16);
                int density = 1 + rnd.nextInt(300);
                for (int i = 0; i < len; i++) {
                    byte b = rnd.nextInt(density) == 0 ? (byte) '\n' : (byte) rnd.nextInt(256);
                    if (b == '\n' && rnd.nextInt(density) != 0) b = (byte) 0x8a; // high-bit cousins of '\n'
                    seg.set(ValueLayout.JAVA_BYTE, i, b);
                }
                long max = 64 + rnd.nextInt(400);
                Framer.scan(seg, len, max, scan);
                long records = 0;
                long start = 0;
                long overlong = -1;
                for (int i = 0; i < len; i++) {
                    if (seg.get(ValueLayout.JAVA_BYTE, i) == '\n') {
                        if (i - start > max) {
                            overlong = start;
                            break;
                        }
                        records++;
                        start = i + 1;
                    }
                }
                if (overlong < 0 && len - start > max) overlong = start;
                String why = "seed=" + seed + " round=" + round;
                assertEquals(records, scan.records, why);
                assertEquals(start, scan.end, why);
                assertEquals(overlong, scan.overlong, why);
                long first = -1;
                for (int i = 7; i < len; i++) {
                    if (seg.get(ValueLayout.JAVA_BYTE, i) == '\n') {
                        first = i;
                        break;
                    }
                }
                assertEquals(first, Framer.indexOfNewline(seg, Math.min(7, len), len), why);
            }
        }
    }

    @Test
    void yamlAndTomlGiveTheSameConfiguration() throws Exception {
        Path yaml = tmp.resolve("ship.yaml");
        Files.writeString(yaml, """
                state: /var/lib/ship
                start: end
                max-record: 64KiB
                on-overlong: drop
                poll: 250ms
                tcp-ack: false
                kafka-compression: zstd
                inputs:
                  - name: app
                    paths: ["/var/log/app/*.log", "/var/log/app/**/*.log"]
                    exclude: "*.gz"
                    partial-timeout: 5s
                    sink: archive
                sinks:
                  archive: dir:/srv/ship
                  net: tcp:127.0.0.1:5140
                  bus: kafka:k1:9092,k2:9092/logs-${input}
                """);
        Path toml = tmp.resolve("ship.toml");
        Files.writeString(toml, """
                state = "/var/lib/ship"
                start = "end"
                max-record = "64KiB"
                on-overlong = "drop"
                poll = "250ms"
                tcp-ack = false
                kafka-compression = "zstd"

                [[inputs]]
                name = "app"
                paths = ["/var/log/app/*.log", "/var/log/app/**/*.log"]
                exclude = ["*.gz"]
                partial-timeout = "5s"
                sink = "archive"

                [sinks]
                archive = "dir:/srv/ship"
                net = "tcp:127.0.0.1:5140"
                bus = "kafka:k1:9092,k2:9092/logs-${input}"
                """);
        ShipConfig a = ShipConfig.resolve(ConfigLoader.load(yaml), Path.of("/"));
        ShipConfig b = ShipConfig.resolve(ConfigLoader.load(toml), Path.of("/"));
        assertEquals(a, b);
        assertEquals(Start.END, a.inputs().get(0).start());
        assertEquals(Overlong.DROP, a.onOverlong());
        assertEquals(64 << 10, a.maxRecord());
        assertEquals(Duration.ofSeconds(5), a.inputs().get(0).partialTimeout());
        assertEquals(List.of("*.gz"), a.inputs().get(0).exclude());
        assertEquals(false, a.tcpAck());
        assertEquals("zstd", a.kafkaCompression());
        assertEquals("k1:9092,k2:9092", io.jfio.ship.kafka.KafkaSinkFactory.bootstrap(a.sinks().get("bus")));
        assertEquals(5140, io.jfio.ship.tcp.TcpSinkFactory.port(a.sinks().get("net")));
    }

    @Test
    void badConfigurationSaysWhatAndWhere() throws Exception {
        Path yaml = tmp.resolve("bad.yaml");
        Files.writeString(yaml, "state: /s\nto: dir:/x\nfrom: /a\nmax-recrod: 1MiB\n");
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.load(yaml));
        assertTrue(e.getMessage().contains("key=max-recrod") && e.getMessage().contains("line=4 "), e.getMessage());
        Path toml = tmp.resolve("bad.toml");
        Files.writeString(toml, "state = \"/s\"\nstart = \"end\"\nbufer-size = \"1MiB\"\nto = \"dir:/x\"\n");
        e = assertThrows(ConfigException.class, () -> ConfigLoader.load(toml));
        assertTrue(e.getMessage().contains("key=bufer-size") && e.getMessage().contains("line=3 "), e.getMessage());
        Files.writeString(yaml, "state: /s\nto: dir:/x\nfrom: /a\nmax-record: lots\n");
        e = assertThrows(ConfigException.class, () -> ShipConfig.resolve(ConfigLoader.load(yaml), Path.of("/")));
        assertTrue(e.getMessage().contains("invalid max-record"), e.getMessage());
        Files.writeString(yaml, "state: /s\nto: nowhere:/x\nfrom: /a\n");
        e = assertThrows(ConfigException.class, () -> ShipConfig.resolve(ConfigLoader.load(yaml), Path.of("/")));
        assertTrue(e.getMessage().contains("invalid sink"), e.getMessage());
        Files.writeString(yaml, "state: /s\nto: kafka:k:9092/bad topic\nfrom: /a\n");
        e = assertThrows(ConfigException.class, () -> ShipConfig.resolve(ConfigLoader.load(yaml), Path.of("/")));
        assertTrue(e.getMessage().contains("kafka topic"), e.getMessage());
        Files.writeString(yaml, "state: /s\nto: kafka:k/logs\nfrom: /a\n");
        e = assertThrows(ConfigException.class, () -> ShipConfig.resolve(ConfigLoader.load(yaml), Path.of("/")));
        assertTrue(e.getMessage().contains("HOST:PORT"), e.getMessage());
        for (String bad : List.of("tcp:[::1:5140", "tcp:::1:5140", "tcp:a]:5140", "tcp:[]:5140")) {
            Files.writeString(yaml, "state: /s\nto: \"" + bad + "\"\nfrom: /a\n");
            e = assertThrows(ConfigException.class, () -> ShipConfig.resolve(ConfigLoader.load(yaml), Path.of("/")));
            assertTrue(e.getMessage().contains("in brackets"), bad + ": " + e.getMessage());
        }
        for (String good : List.of("tcp:[::1]:5140", "tcp:127.0.0.1:5140", "tcp:logs.example:5140")) {
            Files.writeString(yaml, "state: /s\nto: \"" + good + "\"\nfrom: /a\n");
            ShipConfig.resolve(ConfigLoader.load(yaml), Path.of("/"));
        }
        Files.writeString(yaml, "state: /s\nto: kafka:k:9092/logs\nfrom: /a\nkafka-compression: brotli\n");
        e = assertThrows(ConfigException.class, () -> ShipConfig.resolve(ConfigLoader.load(yaml), Path.of("/")));
        assertTrue(e.getMessage().contains("invalid kafka-compression"), e.getMessage());
    }

    @Test
    void sizesAndDurationsInTheConfigurationMeanWhatTheirUnitsSay() throws Exception {
        assertEquals(1_048_576L, configured("buffer-size: 1MiB").bufferSize());
        assertEquals(1_000_000L, configured("buffer-size: 1MB").bufferSize());
        assertEquals(1_048_576L, configured("buffer-size: 1m").bufferSize());
        assertEquals(3L << 19, configured("segment-size: 1.5MiB").segmentSize());
        assertEquals(Duration.ofMillis(250), configured("rotate-wait: 250ms").rotateWait());
        assertEquals(Duration.ofSeconds(5), configured("rotate-wait: 5").rotateWait());
        assertEquals(Duration.ofDays(1), configured("rotate-wait: 1d").rotateWait());
        assertEquals(Duration.ofSeconds(2), configured("rotate-wait: PT2S").rotateWait());
        ConfigException e = assertThrows(ConfigException.class, () -> configured("buffer-size: 1MX"));
        assertTrue(e.getMessage().contains("buffer-size") && e.getMessage().contains("'1MX' is not a size: use"),
                e.getMessage());
        e = assertThrows(ConfigException.class, () -> configured("poll: soon"));
        assertTrue(e.getMessage().contains("poll") && e.getMessage().contains("'soon' is not a duration: use"),
                e.getMessage());
    }

    @Test
    void metricsAloneListenOnLoopbackAtTheDefaultPortWhichIsNotNodeExporters() throws Exception {
        assertEquals(java.net.InetSocketAddress.createUnresolved("127.0.0.1", ShipConfig.DEFAULT_METRICS_PORT),
                configured("metrics: true").metrics());
        assertEquals(9764, ShipConfig.DEFAULT_METRICS_PORT);
        assertEquals(null, configured("metrics: false").metrics());
        assertEquals(java.net.InetSocketAddress.createUnresolved("0.0.0.0", 9100), configured("metrics: 0.0.0.0:9100")
                .metrics(), "any port may still be given");
    }

    /** The configuration of a file with the required keys and {@code line}. */
    private ShipConfig configured(String line) throws Exception {
        Path yaml = tmp.resolve("units.yaml");
        Files.writeString(yaml, "state: /s\nto: dir:/x\nfrom: /a\n" + line + "\n");
        return ShipConfig.resolve(ConfigLoader.load(yaml), Path.of("/"));
    }

    @Test
    void metricsAreServedInPrometheusFormat() throws Exception {
        Path file = Files.createDirectories(tmp.resolve("logs")).resolve("a.log");
        Files.writeString(file, RotationTest.lines(1, 10, 1));
        var cfg = ShipRun.config(List.of(file.toString()), tmp.resolve("out"), tmp.resolve("state"),
                Map.of("metrics", "127.0.0.1:0"));
        try (ShipRun run = ShipRun.start(cfg)) {
            RotationTest.waitFor(tmp.resolve("out"), "n=10 ");
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (run.shipper().metrics().total(ShipMetrics.Counter.RECORDS_SHIPPED) < 10
                    && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            // Gauges are published at most once a second: ask until they show the shipped state (bounded), then
            // assert on that answer.
            try (HttpClient http = HttpClient.newHttpClient()) {
                HttpRequest get = HttpRequest.newBuilder(URI.create(
                        "http://127.0.0.1:" + run.shipper().metricsPort() + "/metrics")).build();
                String shipped = "jfio_ship_records_shipped_total{sink=\"main\"} 10";
                String lag = "jfio_ship_lag_bytes{sink=\"main\"} 0";
                String open = "jfio_ship_open_files 1";
                HttpResponse<String> r = http.send(get, HttpResponse.BodyHandlers.ofString());
                deadline = System.nanoTime() + 10_000_000_000L;
                while (r.statusCode() == 200 && !(r.body().contains(shipped) && r.body().contains(lag)
                        && r.body().contains(open)) && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                    r = http.send(get, HttpResponse.BodyHandlers.ofString());
                }
                assertEquals(200, r.statusCode());
                String body = r.body();
                assertTrue(body.contains(shipped), body);
                assertTrue(body.contains(lag), body);
                assertTrue(body.contains(open), body);
                assertTrue(!body.contains("path=\""), "no per-file series at /metrics: " + body);
                for (String name : List.of("process_cpu_seconds_total ", "process_resident_memory_bytes ",
                        "process_virtual_memory_bytes ", "process_open_fds ", "process_max_fds ",
                        "process_start_time_seconds ", "jfio_build_info{version=\"")) {
                    assertTrue(body.contains("\n" + name), name + " missing: " + body);
                }
                assertTrue(java.util.regex.Pattern.compile("(?m)^process_resident_memory_bytes [1-9]\\d{6,}$")
                        .matcher(body).find(), body);
                String files = get(http, run.shipper().metricsPort(), "/metrics/files").body();
                assertTrue(files.contains("jfio_ship_file_lag_bytes{sink=\"main\",path=\"" + file + "\"} 0\n"),
                        files);
                HttpResponse<String> health = get(http, run.shipper().metricsPort(), "/health");
                assertEquals(200, health.statusCode());
                assertEquals("ok\n", health.body());
                HttpResponse<String> ready = get(http, run.shipper().metricsPort(), "/ready");
                assertEquals(200, ready.statusCode(), ready.body());
                assertEquals("ready\n", ready.body());
                assertEquals(404, get(http, run.shipper().metricsPort(), "/metrics/other").statusCode());
            }
        }
    }

    private static Path onlyFile(Path dir) throws java.io.IOException {
        try (var s = Files.walk(dir)) {
            List<Path> files = s.filter(Files::isRegularFile).toList();
            assertEquals(1, files.size(), files.toString());
            return files.get(0);
        }
    }

    private static HttpResponse<String> get(HttpClient http, int port, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void readinessSaysWhichSinkDoesNotAcknowledgeAndRecovers() throws Exception {
        Path file = Files.createDirectories(tmp.resolve("logs")).resolve("a.log");
        Files.writeString(file, RotationTest.lines(1, 10, 1));
        int port;
        try (java.net.ServerSocket probe = new java.net.ServerSocket(0, 1,
                java.net.InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort(); // closed again: nothing listens there
        }
        var cfg = ShipRun.config(List.of(file.toString()), tmp.resolve("out"), tmp.resolve("state"),
                Map.of("metrics", "127.0.0.1:0", "to", "tcp:127.0.0.1:" + port));
        try (ShipRun run = ShipRun.start(cfg); HttpClient http = HttpClient.newHttpClient()) {
            int mport = run.shipper().metricsPort();
            long deadline = System.nanoTime() + 20_000_000_000L;
            HttpResponse<String> ready = get(http, mport, "/ready");
            while (!ready.body().contains("not acknowledging") && System.nanoTime() < deadline) {
                Thread.sleep(50);
                ready = get(http, mport, "/ready");
            }
            assertEquals(503, ready.statusCode(), ready.body());
            assertTrue(ready.body().startsWith("sink main: not acknowledging: tcp:127.0.0.1:" + port), ready.body());
            assertEquals(200, get(http, mport, "/health").statusCode(), "alive while not ready");
            // A receiver starts on that port: the sink acknowledges again and the shipper is ready.
            try (io.jfio.ship.tcp.TcpReceiver receiver = io.jfio.ship.tcp.TcpReceiver.start(
                    new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), port),
                    tmp.resolve("received"), io.jfio.ship.tcp.TcpReceiver.Options.defaults(), System.err)) {
                // Within the backoff (a few seconds here), not at the next rescan a minute away: nothing is written
                // to the file, so no event wakes the shipper; its backoff must.
                deadline = System.nanoTime() + 15_000_000_000L;
                while (ready.statusCode() != 200 && System.nanoTime() < deadline) {
                    Thread.sleep(100);
                    ready = get(http, mport, "/ready");
                }
                assertEquals(200, ready.statusCode(), ready.body() + run.log());
                assertTrue(Files.readString(onlyFile(tmp.resolve("received"))).equals(RotationTest.lines(1, 10, 1)),
                        "every record once");
            }
        }
    }

    @Test
    void shouldCountPerSinkAndRenderEverySinksCountersSorted() {
        ShipMetrics m = new ShipMetrics();
        ShipMetrics.SinkCounters b = m.of("b");
        b.add(ShipMetrics.Counter.BYTES_READ, 7);
        m.of("a\"x").add(ShipMetrics.Counter.BYTES_READ, 5);
        assertTrue(m.of("b") == b, "one counter set per sink");
        b.add(ShipMetrics.Counter.BYTES_READ, 1);
        assertEquals(13, m.total(ShipMetrics.Counter.BYTES_READ));
        assertEquals(0, m.total(ShipMetrics.Counter.RECORDS_READ));
        String body = m.render();
        int a = body.indexOf("jfio_ship_bytes_read_total{sink=\"a\\\"x\"} 5\n");
        int bb = body.indexOf("jfio_ship_bytes_read_total{sink=\"b\"} 8\n");
        assertTrue(a >= 0 && bb > a, body);
        assertTrue(body.contains("jfio_ship_records_read_total{sink=\"b\"} 0\n"), body);
    }
}
