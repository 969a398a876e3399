package io.jfio.ship.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jfio.ship.metrics.ShipMetrics.Counter;
import io.jfio.ship.testing.MinioServer;
import io.jfio.ship.testing.Records;
import io.jfio.ship.testing.S3Objects;
import io.jfio.ship.testing.ShipRun;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Rotation with the s3 sink: a real writer process appends numbered records and rotates its file (rename,
 * copytruncate, truncate) while a shipper in this JVM ships into a real MinIO bucket; every record is in the bucket,
 * exactly once (the copy copytruncate makes is recognised and resumed where its content was read to). A file
 * truncated and written anew while its object still fills: both contents stored once. The writer waits, before each
 * rotation, until the records it needs are in the bucket (a thread mirrors the bucket into a directory the writer
 * reads, as it reads a dir sink).
 */
class S3RotationTest {
    private static final String BUCKET = "ship";
    private static final int TOTAL = 20_000;
    private static final int EVERY = 4_000;

    @RegisterExtension
    static final MinioServer SERVER = new MinioServer(BUCKET);
    @TempDir
    Path tmp;

    @ParameterizedTest
    @ValueSource(strings = {"rename", "copytruncate", "truncate"})
    void shouldHoldEveryRecordExactlyOnceThroughRotation(String mode) throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path mirror = tmp.resolve("mirror");
        Path file = logs.resolve("app.log");
        Files.createFile(file);
        String prefix = "rotate-" + mode;
        Map<String, String> s = new HashMap<>(SERVER.minio().settings());
        s.put("to", "s3://" + BUCKET + "/" + prefix);
        s.put("s3.object-age", "200ms");
        s.put("s3.compression", "zstd");
        AtomicBoolean stop = new AtomicBoolean();
        Thread mirrorThread = Thread.ofPlatform().name("mirror").start(() -> {
            while (!stop.get()) {
                try {
                    S3Objects.mirror(SERVER.minio(), BUCKET, prefix + "/", mirror);
                    Thread.sleep(100);
                } catch (IOException | RuntimeException e) {
                    // The next round tries again.
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        try (ShipRun run = ShipRun.start(ShipRun.config(List.of(logs.resolve(mode.equals("copytruncate") ? "app.log*"
                : "app.log").toString()), null, tmp.resolve("state"), s))) {
            ShipRun.write(file, mode, TOTAL, EVERY, mirror, 200);
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (System.nanoTime() < deadline && !S3Objects.text(S3Objects.pieces(SERVER.minio().objects(BUCKET,
                    prefix + "/"))).contains(" n=" + TOTAL + " ")) {
                Thread.sleep(100);
            }
        } finally {
            stop.set(true);
            mirrorThread.join();
        }
        Records r = Records.parse(S3Objects.text(S3Objects.pieces(SERVER.minio().objects(BUCKET, prefix + "/"))), TOTAL,
                false).assertComplete();
        // Lines written between the last read and a copytruncate's truncation exist only in the copy, which is
        // watched, taken for the content it copies and resumed where that was read to: nothing twice in any mode.
        r.assertNoDuplicates();
    }

    /**
     * copytruncate while an object of the file is still filling (objects are cut after a minute here): the new content
     * comes at offset 0 of the same inode, below where the open object ends. That object holds the old content's
     * bytes, read before the truncation, and is uploaded; the new content gets objects of its own. No failure makes
     * the shipper read again what it had stored, and each line is in the bucket once.
     */
    @Test
    void shouldUploadAnObjectStillFillingWhenItsFileIsTruncatedAndStoreEachContentOnce() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path file = logs.resolve("app.log");
        byte[] old = S3SinkTest.lines(21, 3_000);
        byte[] fresh = S3SinkTest.lines(22, 500);
        Files.write(file, old);
        String prefix = "truncated-under-open-object";
        Map<String, String> s = new HashMap<>(SERVER.minio().settings());
        s.put("to", "s3://" + BUCKET + "/" + prefix);
        s.put("s3.object-age", "60s");
        ShipRun run = ShipRun.start(ShipRun.config(List.of(logs.resolve("app.log*").toString()), null,
                tmp.resolve("state"), s));
        try (run) {
            awaitTrue(() -> run.shipper().metrics().total(Counter.BYTES_READ) >= old.length, run);
            Files.write(logs.resolve("app.log.1"), old);
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                ch.truncate(0);
                ch.write(ByteBuffer.wrap(fresh));
            }
            awaitTrue(() -> run.shipper().metrics().total(Counter.BYTES_READ) >= old.length + fresh.length, run);
        }
        assertEquals(0, run.shipper().metrics().total(Counter.SINK_RETRIES), run.log());
        String stored = S3Objects.text(S3Objects.pieces(SERVER.minio().objects(BUCKET, prefix + "/")));
        Map<String, Integer> count = new HashMap<>();
        for (String line : stored.split("\n")) count.merge(line, 1, Integer::sum);
        List<String> want = new java.util.ArrayList<>();
        want.addAll(List.of(new String(old, StandardCharsets.US_ASCII).split("\n")));
        want.addAll(List.of(new String(fresh, StandardCharsets.US_ASCII).split("\n")));
        for (String line : want) assertEquals(1, count.getOrDefault(line, 0), "stored " + line + ":\n" + run.log());
        assertEquals(want.size(), count.size(), "lines of neither content");
    }

    private static void awaitTrue(BooleanSupplier done, ShipRun run) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("timed out:\n" + run.log());
            Thread.sleep(20);
        }
    }
}
