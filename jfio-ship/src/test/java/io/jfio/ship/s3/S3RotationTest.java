package io.jfio.ship.s3;

import io.jfio.ship.testing.MinioServer;
import io.jfio.ship.testing.Records;
import io.jfio.ship.testing.S3Objects;
import io.jfio.ship.testing.ShipRun;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Rotation with the s3 sink: a real writer process appends numbered records and rotates its file (rename,
 * copytruncate, truncate) while a shipper in this JVM ships into a real MinIO bucket; every record is in the
 * bucket, exactly once after rename and truncate (copytruncate, racy by nature, may repeat lines, as into any
 * sink). The writer waits, before each rotation, until the records it needs are in the bucket (a thread
 * mirrors the bucket into a directory the writer reads, as it reads a dir sink).
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
        // As with every sink (RotationTest): copytruncate is racy by nature, and lines written between the last read
        // and the truncation exist only in the copy, which is watched; it may be sent again.
        if (!mode.equals("copytruncate")) r.assertNoDuplicates();
    }
}
