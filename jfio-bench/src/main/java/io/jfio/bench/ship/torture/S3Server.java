package io.jfio.bench.ship.torture;

/**
 * Immutable. An S3-compatible server for the torture's s3 sink.
 *
 * @param endpoint  its URL
 * @param bucket    a bucket that exists
 * @param accessKey the access key (null: the AWS SDK's default chain, for the shipper too)
 * @param secretKey the secret key (with {@code accessKey})
 */
public record S3Server(String endpoint, String bucket, String accessKey, String secretKey) {
    public S3Server {
        if (endpoint == null || !endpoint.matches("https?://\\S+")) {
            throw new IllegalArgumentException("--s3-endpoint must be an http or https URL: " + endpoint);
        }
        if (bucket == null || bucket.isBlank()) throw new IllegalArgumentException("--s3-bucket: none given");
        if ((accessKey == null) != (secretKey == null)) {
            throw new IllegalArgumentException("an access key needs its secret key");
        }
    }

    @Override
    public String toString() {
        return "S3Server[" + endpoint + ", " + bucket + "]"; // no credentials in logs
    }
}
