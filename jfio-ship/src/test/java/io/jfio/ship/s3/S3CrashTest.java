package io.jfio.ship.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jfio.core.testing.TestSeed;
import io.jfio.ship.testing.Minio;
import io.jfio.ship.testing.S3Objects;
import io.jfio.ship.testing.ShipMain;
import io.jfio.ship.testing.ShipRun;
import java.io.ByteArrayOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exactly once into a real MinIO bucket through crashes: a shipper process is SIGKILLed 24 times while three files
 * grow, at random moments, and every third kill is steered into an upload (the journal's last record is an intent
 * without its done: the PUT may or may not have reached the server). A last run ships the rest; then every source
 * byte must be in exactly one object. Also: the server killed and restarted while objects are being uploaded, and a
 * SIGTERM that uploads the objects still filling before the process exits.
 */
class S3CrashTest {
    private static final String BUCKET = "ship";
    private static final int KILLS = 24;
    private static final List<String> FILES = List.of("a.log", "b.log", "c.log");

    @TempDir
    Path tmp;

    /** Appends numbered lines of varied length to the files until stopped. */
    static final class Appender implements AutoCloseable {
        private final AtomicBoolean stop = new AtomicBoolean();
        private final Thread thread;
        private volatile Throwable failure;

        Appender(Path dir, long seed, int linesPerTick) {
            thread = Thread.ofPlatform().name("appender").start(() -> {
                SplittableRandom r = new SplittableRandom(seed);
                List<FileOutputStream> outs = new ArrayList<>();
                try {
                    for (String f : FILES) outs.add(new FileOutputStream(dir.resolve(f).toFile(), true));
                    long n = 0;
                    while (!stop.get()) {
                        for (FileOutputStream o : outs) {
                            StringBuilder b = new StringBuilder();
                            for (int i = 0; i < linesPerTick; i++) {
                                b.append("n=").append(n++).append(' ').append("0123456789".repeat(r.nextInt(20)))
                                        .append('\n');
                            }
                            o.write(b.toString().getBytes(StandardCharsets.US_ASCII));
                        }
                        Thread.sleep(2);
                    }
                    for (FileOutputStream o : outs) o.close();
                } catch (IOException | InterruptedException | RuntimeException e) {
                    failure = e;
                }
            });
        }

        @Override
        public void close() throws InterruptedException {
            stop.set(true);
            thread.join();
            if (failure != null) throw new AssertionError("appender failed", failure);
        }
    }

    private Process shipper(Minio minio, Path logs, Path state, Path err, String prefix, List<String> jvm,
                            Map<String, String> more) throws IOException {
        return shipper(tmp, minio, logs, state, err, prefix, jvm, more);
    }

    /**
     * A shipper process from {@code logs/*.log} into {@code s3://ship/PREFIX}: objects of 1 MiB cut at 300 ms, gzip,
     * unless {@code more} says otherwise; its output appended to {@code err}.
     */
    static Process shipper(Path tmp, Minio minio, Path logs, Path state, Path err, String prefix, List<String> jvm,
                           Map<String, String> more) throws IOException {
        Map<String, String> s = new LinkedHashMap<>(minio.settings());
        s.put("to", "s3://" + BUCKET + "/" + prefix);
        s.put("s3.object-size", "1MiB");
        s.put("s3.object-age", "300ms");
        s.put("s3.compression", "gzip");
        s.putAll(more);
        List<String> args = new ArrayList<>(List.of(logs.resolve("*.log").toString(), tmp.resolve("unused").toString(),
                state.toString(), "8MiB", "256KiB", "64KiB", "run"));
        s.forEach((k, v) -> args.add(k + "=" + v));
        List<String> jvmArgs = new ArrayList<>(List.of("-Xmx96m", "-XX:TieredStopAtLevel=1"));
        jvmArgs.addAll(jvm);
        return ShipRun.java(ShipMain.class, jvmArgs, args.toArray(String[]::new)).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(err.toFile())).start();
    }

    /** The journal's last complete line's record type (I, D, X, P, N, R), or 0. */
    static char lastRecord(Path state) throws IOException {
        String l = lastLine(state);
        return l.length() > 10 ? l.charAt(9) : 0;
    }

    /** The journal's last complete line, or empty. */
    static String lastLine(Path state) throws IOException {
        if (!Files.isDirectory(state)) return "";
        try (var files = Files.list(state)) {
            Path j = files.filter(f -> f.getFileName().toString().startsWith("s3-journal-")
                    && f.getFileName().toString().endsWith(".log")).findFirst().orElse(null);
            if (j == null) return "";
            byte[] b = Files.readAllBytes(j);
            int end = b.length;
            while (end > 0 && b[end - 1] != '\n') end--;
            if (end == 0) return "";
            int start = end - 1;
            while (start > 0 && b[start - 1] != '\n') start--;
            return new String(b, start, end - 1 - start, StandardCharsets.US_ASCII);
        }
    }

    static Map<String, byte[]> sources(Path logs) throws IOException {
        Map<String, byte[]> m = new LinkedHashMap<>();
        for (String f : FILES) m.put(f, Files.readAllBytes(logs.resolve(f)));
        return m;
    }

    private void finalRun(Minio minio, Path logs, Path state, String prefix) throws Exception {
        Map<String, String> s = new HashMap<>(minio.settings());
        s.put("to", "s3://" + BUCKET + "/" + prefix);
        s.put("s3.object-size", "1MiB");
        s.put("s3.compression", "gzip");
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        assertTrue(ShipRun.once(ShipRun.config(List.of(logs.resolve("*.log").toString()), null, state, s), log),
                log.toString(StandardCharsets.UTF_8));
    }

    @Test
    void shouldHoldEveryByteInExactlyOneObjectAfterKillsAtRandomAndDuringUploads() throws Exception {
        TestSeed seed = TestSeed.pick();
        System.out.println("S3CrashTest " + seed);
        seed.run(ts -> kills(ts.random(), ts.value()));
    }

    private void kills(SplittableRandom rnd, long seedValue) throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path state = tmp.resolve("state");
        Path err = tmp.resolve("ship.err");
        int steered = 0;
        try (Minio minio = Minio.start(tmp.resolve("server"), BUCKET);
             Appender app = new Appender(logs, seedValue, 5)) {
            for (int k = 0; k < KILLS; k++) {
                Process p = shipper(minio, logs, state, err, "crash", List.of(), Map.of());
                try {
                    if (k % 3 == 2) {
                        // Into an upload: an intent is the journal's last record.
                        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                        while (p.isAlive() && System.nanoTime() < deadline && lastRecord(state) != 'I') {
                            Thread.sleep(1);
                        }
                        if (lastRecord(state) == 'I') steered++;
                    } else {
                        Thread.sleep(300 + rnd.nextInt(3000));
                    }
                    if (!p.isAlive()) fail("shipper " + k + " died by itself: " + ShipRun.tail(err, 40));
                } finally {
                    p.destroyForcibly(); // SIGKILL
                    p.waitFor();
                }
            }
            app.close();
            finalRun(minio, logs, state, "crash");
            String log = Files.readString(err);
            assertTrue(!log.contains("Exception in thread"), ShipRun.tail(err, 40));
            S3Objects.Tally t = S3Objects.tally(S3Objects.pieces(minio.objects(BUCKET, "crash/")), sources(logs));
            System.out.println("S3CrashTest: " + KILLS + " kills (" + steered + " during an upload), " + t
                    + ", redone " + count(log, "s3-redo "));
            assertTrue(steered >= KILLS / 4, "kills during an upload: " + steered);
            assertEquals(0, t.lost(), t.toString());
            assertEquals(0, t.duplicated(), t.toString());
            assertTrue(t.bytes() > 2_000_000, "shipped enough to cut many objects: " + t);
        }
    }

    static int count(String text, String what) {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) n++;
        return n;
    }

    @Test
    void shouldLoseAndDuplicateNothingWhenTheServerIsKilledAndRestartedDuringUploads() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path state = tmp.resolve("state");
        Path err = tmp.resolve("ship.err");
        try (Minio minio = Minio.start(tmp.resolve("server"), BUCKET)) {
            Process p = shipper(minio, logs, state, err, "outage", List.of("-Djfio.test.graceful=true"), Map.of());
            try {
                int during = 0;
                try (Appender app = new Appender(logs, 7, 5)) {
                    for (int round = 0; round < 3; round++) {
                        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                        while (System.nanoTime() < deadline && lastRecord(state) != 'I') Thread.sleep(1);
                        if (lastRecord(state) == 'I') during++;
                        minio.kill();
                        Thread.sleep(2000);
                        minio.restart();
                        Thread.sleep(1500);
                    }
                }
                assertTrue(during >= 2, "server kills during an upload: " + during);
                Thread.sleep(1000);
                p.destroy(); // SIGTERM: uploads what it holds
                assertTrue(p.waitFor(60, TimeUnit.SECONDS), "stopped within the grace period");
                assertEquals(0, p.exitValue(), ShipRun.tail(err, 40));
            } finally {
                p.destroyForcibly().waitFor();
            }
            String log = Files.readString(err);
            assertTrue(log.contains("s3-upload-failing") && log.contains("s3-upload-recovered"), ShipRun.tail(err, 40));
            // Once per outage and reason (refused, reset, ...), not once per retry.
            assertTrue(count(log, "s3-upload-failing") <= 12, "failing logged " + count(log, "s3-upload-failing")
                    + " times");
            assertTrue(count(log, "s3-upload-recovered") <= 6, "recovered logged " + count(log,
                    "s3-upload-recovered") + " times");
            finalRun(minio, logs, state, "outage");
            S3Objects.Tally t = S3Objects.tally(S3Objects.pieces(minio.objects(BUCKET, "outage/")), sources(logs));
            System.out.println("S3CrashTest outage: 3 server kills, " + t + ", retries logged as failing "
                    + count(log, "s3-upload-failing") + " times, recovered " + count(log, "s3-upload-recovered"));
            assertEquals(0, t.lost(), t.toString());
            assertEquals(0, t.duplicated(), t.toString());
        }
    }

    @Test
    void shouldUploadTheObjectsStillFillingOnSigterm() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path state = tmp.resolve("state");
        Path err = tmp.resolve("ship.err");
        try (Minio minio = Minio.start(tmp.resolve("server"), BUCKET)) {
            try (Appender app = new Appender(logs, 11, 5)) {
                Thread.sleep(500);
            }
            long total = 0;
            for (byte[] b : sources(logs).values()) total += b.length;
            int port;
            try (var s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
                port = s.getLocalPort();
            }
            // Objects would wait an hour for their age: only the stop can upload them.
            Process p = shipper(minio, logs, state, err, "sigterm", List.of("-Djfio.test.graceful=true"),
                    Map.of("s3.object-age", "1h", "s3.object-size", "100MiB", "max-in-flight", "256MiB",
                            "metrics", "127.0.0.1:" + port));
            try {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (System.nanoTime() < deadline && bytesRead(port) < total) Thread.sleep(50);
                assertEquals(total, bytesRead(port), ShipRun.tail(err, 30));
                assertEquals(0, minio.objects(BUCKET, "sigterm/").size(), "nothing cut before the stop");
                String metrics = metrics(port);
                assertTrue(metrics.contains("\njfio_ship_s3_objects_total{sink=\"main\"} 0\n"), metrics);
                String oldest = "\njfio_ship_s3_oldest_unacknowledged_seconds{sink=\"main\"} ";
                int at = metrics.indexOf(oldest) + oldest.length();
                assertTrue(Double.parseDouble(metrics.substring(at, metrics.indexOf('\n', at))) > 0, metrics);
                p.destroy(); // SIGTERM
                assertTrue(p.waitFor(60, TimeUnit.SECONDS), "stopped within the grace period");
                assertEquals(0, p.exitValue(), ShipRun.tail(err, 40));
            } finally {
                p.destroyForcibly().waitFor();
            }
            S3Objects.Tally t = S3Objects.tally(S3Objects.pieces(minio.objects(BUCKET, "sigterm/")), sources(logs));
            assertEquals(new S3Objects.Tally(FILES.size(), total, 0, 0), t);
        }
    }

    @Test
    void shouldKeepReadingWhenManyFilesAppearAtOnceAndTheirObjectsWaitForTheirAge() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path state = tmp.resolve("state");
        Path err = tmp.resolve("ship.err");
        try (Minio minio = Minio.start(tmp.resolve("server"), BUCKET)) {
            int port;
            try (var s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
                port = s.getLocalPort();
            }
            // 40 files of 1 MiB against 8 MiB in flight: the first batch of every file is in an object that waits an
            // hour for its age, and the pipeline acknowledges in send order.
            Process p = shipper(minio, logs, state, err, "many", List.of("-Djfio.test.graceful=true"),
                    Map.of("s3.object-age", "1h", "s3.object-size", "16MiB", "max-in-flight", "8MiB",
                            "metrics", "127.0.0.1:" + port));
            long total = 0;
            try {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (bytesRead(port) < 0 && System.nanoTime() < deadline) Thread.sleep(20);
                Path stage = Files.createDirectories(tmp.resolve("stage"));
                SplittableRandom r = new SplittableRandom(5);
                for (int i = 0; i < 40; i++) {
                    StringBuilder b = new StringBuilder();
                    while (b.length() < 1 << 20) b.append("f").append(i).append(' ').append(r.nextLong()).append('\n');
                    Files.writeString(stage.resolve(i + ".log"), b);
                    total += b.length();
                }
                for (int i = 0; i < 40; i++) Files.createLink(logs.resolve(i + ".log"), stage.resolve(i + ".log"));
                deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
                while (System.nanoTime() < deadline && bytesRead(port) < total) Thread.sleep(50);
                assertEquals(total, bytesRead(port), "read everything without waiting for an object's age: "
                        + ShipRun.tail(err, 20));
                p.destroy(); // SIGTERM: the objects still filling are uploaded
                assertTrue(p.waitFor(60, TimeUnit.SECONDS), "stopped within the grace period");
                assertEquals(0, p.exitValue(), ShipRun.tail(err, 40));
            } finally {
                p.destroyForcibly().waitFor();
            }
            Map<String, byte[]> sources = new LinkedHashMap<>();
            for (int i = 0; i < 40; i++) sources.put(i + ".log", Files.readAllBytes(logs.resolve(i + ".log")));
            S3Objects.Tally t = S3Objects.tally(S3Objects.pieces(minio.objects(BUCKET, "many/")), sources);
            assertEquals(0, t.lost(), t.toString());
            assertEquals(0, t.duplicated(), t.toString());
            assertEquals(total, t.bytes(), t.toString());
        }
    }

    private static String metrics(int port) throws IOException {
        var c = (java.net.HttpURLConnection) java.net.URI.create("http://127.0.0.1:" + port + "/metrics").toURL()
                .openConnection();
        c.setConnectTimeout(500);
        c.setReadTimeout(2000);
        return new String(c.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }

    /** jfio_ship_bytes_read_total from the shipper's metrics, or -1 while they cannot be read. */
    private static long bytesRead(int port) {
        try {
            String body = metrics(port);
            long sum = 0;
            for (String l : body.split("\n")) {
                if (l.startsWith("jfio_ship_bytes_read_total{")) {
                    sum += Long.parseLong(l.substring(l.lastIndexOf(' ') + 1));
                }
            }
            return sum;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
