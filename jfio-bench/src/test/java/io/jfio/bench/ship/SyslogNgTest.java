package io.jfio.bench.ship;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The syslog-ng peer's configurations on a real syslog-ng, where one is on PATH or unpacked in the cache. */
class SyslogNgTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void shouldWriteEveryLineAsAJsonObjectWithItsFileHostReadTimeAndFields(@TempDir Path dir) throws Exception {
        StringWriter why = new StringWriter();
        SyslogNg.Found f = SyslogNg.find(false, new PrintWriter(why));
        assumeTrue(f != null, "no syslog-ng: " + why);
        Path input = dir.resolve("records-lines.log");
        int n = 2000;
        LogLines.writeFile(input, n);
        List<String> lines = Files.readAllLines(input, StandardCharsets.UTF_8);
        Path out = dir.resolve("out.log");
        Path conf = SyslogNg.configureJson(f, dir, input, out);
        try (Child c = Child.start(SyslogNg.command(f, conf, dir), dir.resolve("syslog-ng.log"))) {
            long deadline = System.nanoTime() + 20_000_000_000L;
            while ((!Files.exists(out) || Files.readAllLines(out).size() < n) && System.nanoTime() < deadline
                    && c.process().isAlive()) {
                Thread.sleep(50);
            }
            c.stop();
            assertTrue(Files.exists(out), "no output: " + ShipBench.lastLine(c.log()));
        }
        List<String> objects = Files.readAllLines(out, StandardCharsets.UTF_8);
        assertEquals(n, objects.size());
        Instant started = Instant.now().minusSeconds(600);
        String host = Files.readString(Path.of("/proc/sys/kernel/hostname")).trim();
        for (int i = 0; i < n; i++) {
            JsonNode o = JSON.readTree(objects.get(i));
            assertEquals(lines.get(i), o.get("message").asText(), "object " + i);
            assertEquals(input.toAbsolutePath().toString(), o.get("path").asText(), "object " + i);
            assertEquals(host, o.get("host").asText(), "object " + i);
            Instant read = java.time.OffsetDateTime.parse(o.get("read_time").asText()).toInstant();
            assertTrue(read.isAfter(started) && !read.isAfter(Instant.now()), "read_time " + read);
            assertEquals("bench", o.get("fields").get("service").asText());
            assertEquals("test", o.get("fields").get("env").asText());
        }
        // The benchmark's own check of the peer's output accepts it.
        assertEquals(null, RecordBench.checkNdjson(List.of(out), false));
    }

    @Test
    void shouldDeliverEveryLineOfEveryMatchingFileUnchangedOverTcp(@TempDir Path dir) throws Exception {
        StringWriter why = new StringWriter();
        // No fetching here: a test does not download packages; the benchmark does.
        SyslogNg.Found f = SyslogNg.find(false, new PrintWriter(why));
        assumeTrue(f != null, "no syslog-ng: " + why);
        Path files = Files.createDirectories(dir.resolve("files"));
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            StringBuilder sb = new StringBuilder();
            for (int j = 0; j < 50; j++) {
                String l = "file " + i + " line " + j + " <13>not a header: \"kept\" as written";
                lines.add(l);
                sb.append(l).append('\n');
            }
            Files.writeString(files.resolve("f-" + i + ".log"), sb.toString(), StandardOpenOption.CREATE_NEW);
        }
        // Not matching the pattern: never sent.
        Files.writeString(files.resolve("other.txt"), "not sent\n");
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            AtomicReference<String> got = new AtomicReference<>("");
            Thread reader = Thread.ofPlatform().daemon().start(() -> {
                try (Socket s = server.accept(); InputStream in = s.getInputStream()) {
                    StringBuilder sb = new StringBuilder();
                    byte[] buf = new byte[8192];
                    for (int n; (n = in.read(buf)) > 0; ) {
                        sb.append(new String(buf, 0, n, StandardCharsets.UTF_8));
                        got.set(sb.toString());
                    }
                } catch (java.io.IOException e) {
                    // closed at the end of the test
                }
            });
            Path conf = SyslogNg.configure(f, dir, files, "*.log", server.getLocalPort());
            try (Child c = Child.start(SyslogNg.command(f, conf, dir), dir.resolve("syslog-ng.log"))) {
                long deadline = System.nanoTime() + 20_000_000_000L;
                while (got.get().lines().count() < lines.size() && System.nanoTime() < deadline
                        && c.process().isAlive()) {
                    Thread.sleep(50);
                }
                // A moment more: anything beyond the lines written (other.txt, a header) would arrive too.
                Thread.sleep(1500);
                List<String> received = new ArrayList<>(got.get().lines().toList());
                received.sort(null);
                List<String> expected = new ArrayList<>(lines);
                expected.sort(null);
                assertEquals(expected, received, ShipBench.lastLine(c.log()));
                c.stop();
            }
            reader.join(5000);
        }
    }
}
