package io.jfio.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.ship.testing.Minio;
import io.jfio.ship.testing.MinioServer;
import io.jfio.ship.testing.S3Objects;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code jfio ship --to s3://...} against a real MinIO: the config file's {@code s3:} section (with {@code ${ENV}}
 * defaults), wrong credentials and a missing bucket are one line on stderr and exit 3, and then a run with the right
 * ones stores every byte.
 */
class ShipS3CommandTest {
    private static final String BUCKET = "ship";

    @RegisterExtension
    static final MinioServer SERVER = new MinioServer(BUCKET);
    @TempDir
    Path tmp;

    private Path config(String secret) throws Exception {
        return Files.writeString(tmp.resolve("ship-" + secret.hashCode() + ".yaml"), "s3:\n  endpoint: "
                + SERVER.minio().endpoint() + "\n  access-key: " + Minio.USER + "\n  secret-key: "
                + "${JFIO_TEST_UNSET_SECRET:-" + secret + "}\n  compression: zstd\n");
    }

    @Test
    void shouldExitThreeWithOneLineForWrongCredentialsThenShipEverythingWithTheRightOnes() throws Exception {
        Path file = tmp.resolve("app.log");
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 20_000; i++) b.append("line ").append(i).append('\n');
        Files.writeString(file, b, StandardCharsets.US_ASCII);
        String state = tmp.resolve("state").toString();
        CliResult bad = CliResult.run("ship", "--once", "--config", config("wrong").toString(), "--from",
                file.toString(), "--to", "s3://" + BUCKET + "/cli", "--state", state);
        assertEquals(ExitCodes.ENVIRONMENT, bad.exit(), bad.err());
        assertEquals("jfio ship: cannot open sink s3://" + BUCKET + "/cli: s3 bucket check failed: bucket=" + BUCKET
                + " endpoint=" + SERVER.minio().endpoint() + " status=403 (access denied: wrong "
                + "credentials, or no permission on the bucket) (--to, config key to)" + System.lineSeparator(),
                bad.err());

        CliResult good = CliResult.run("ship", "--once", "--config", config(Minio.PASSWORD).toString(), "--from",
                file.toString(), "--to", "s3://" + BUCKET + "/cli", "--state", state);
        assertEquals(ExitCodes.OK, good.exit(), good.err());
        S3Objects.Tally t = S3Objects.tally(S3Objects.pieces(SERVER.minio().objects(BUCKET, "cli/")),
                Map.of("app.log", Files.readAllBytes(file)));
        assertEquals(new S3Objects.Tally(1, Files.size(file), 0, 0), t);
        assertTrue(SERVER.minio().objects(BUCKET, "cli/").get(0).key().endsWith(".log.zst"));
    }

    @Test
    void shouldExitThreeWithOneLineForAMissingBucket() throws Exception {
        Path file = Files.writeString(tmp.resolve("a.log"), "one\n");
        CliResult r = CliResult.run("ship", "--once", "--config", config(Minio.PASSWORD).toString(), "--from",
                file.toString(), "--to", "s3://no-such-bucket/x", "--state", tmp.resolve("state").toString());
        assertEquals(ExitCodes.ENVIRONMENT, r.exit(), r.err());
        assertEquals("jfio ship: cannot open sink s3://no-such-bucket/x: s3 bucket check failed: "
                + "bucket=no-such-bucket endpoint=" + SERVER.minio().endpoint()
                + " status=404 code=NoSuchBucket (no such bucket) (--to, config key to)" + System.lineSeparator(),
                r.err());
    }
}
