package io.jfio.ship.s3;

import io.jfio.ship.log.ShipLog;
import java.io.IOException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Thread-safe; stateless. The check at start: the bucket exists and the credentials are taken, so that a
 * misspelt bucket or a wrong key is one clear error at start rather than a shipper that retries forever.
 */
final class S3Check {
    private S3Check() {
    }

    /**
     * Asks the server about {@code bucket} (HEAD). An unreachable server is logged and left to the retries (an
     * outage at start loses nothing and must not stop the shipper); a refusal is an error.
     *
     * @throws IOException naming the bucket, the endpoint and the server's answer: no such bucket, access denied,
     *                     another region, or no credentials found
     */
    static void bucket(S3Client client, String bucket, String endpoint, ShipLog log) throws IOException {
        String where = "bucket=" + bucket + " endpoint=" + (endpoint == null ? "AWS" : endpoint);
        try {
            client.headBucket(r -> r.bucket(bucket));
        } catch (S3Exception e) {
            throw new IOException("s3 bucket check failed: " + where + " " + S3Clients.reason(e), e);
        } catch (SdkClientException e) {
            String m = String.valueOf(e.getMessage());
            if (m.contains("credentials")) {
                throw new IOException("no s3 credentials found: " + where + " (set AWS_ACCESS_KEY_ID and "
                        + "AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or s3.access-key and s3.secret-key)", e);
            }
            log.warn("s3-unreachable-at-start", "bucket", bucket, "endpoint", endpoint == null ? "AWS" : endpoint,
                    "error", S3Clients.reason(e), "action", "starting anyway: uploads retry with backoff; reading "
                            + "pauses at max-in-flight");
        } catch (SdkException e) {
            throw new IOException("s3 bucket check failed: " + where + " " + S3Clients.reason(e), e);
        }
    }
}
