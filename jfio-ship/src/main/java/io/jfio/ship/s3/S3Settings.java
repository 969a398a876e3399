package io.jfio.ship.s3;

import java.time.Duration;
import java.util.Locale;
import java.util.Set;

/**
 * Immutable; thread-safe. How {@code s3:} sinks reach their server and cut their objects: the {@code s3:} section of
 * the configuration, checked, with defaults filled in. Whatever is null here comes from the AWS SDK's default chains
 * (environment variables, the shared config and credentials files, the instance's role).
 *
 * @param endpoint       the server's URL, or null: {@code AWS_ENDPOINT_URL_S3}, {@code AWS_ENDPOINT_URL}, else AWS
 * @param region         the region, or null: {@code AWS_REGION}, the profile's, else {@code us-east-1} with a
 *                       custom endpoint
 * @param pathStyle      path-style addressing ({@code http://host/bucket/key}); null: on whenever an endpoint is
 *                       given
 * @param accessKey      an access key id, or null for the default chain
 * @param secretKey      its secret, given with {@code accessKey}
 * @param sessionToken   a session token for temporary credentials, or null
 * @param profile        the profile of the shared files, or null ({@code AWS_PROFILE}, else {@code default})
 * @param storageClass   the objects' storage class ({@code STANDARD_IA}, ...), or null for the bucket's default
 * @param sse            server-side encryption: {@code AES256} or {@code aws:kms}, or null
 * @param sseKmsKeyId    the KMS key of {@code aws:kms}, or null for the account's default key
 * @param objectSize     an object is cut when its uncompressed bytes reach this
 * @param objectAge      an object is cut this long after its first byte arrived
 * @param compression    {@code none}, {@code gzip} or {@code zstd}
 * @param keyTemplate    the object key template ({@link KeyTemplate})
 * @param shutdownGrace  how long a stop waits for the last objects to be uploaded
 * @param partSize       an object whose stored bytes reach this is uploaded in parts of this size as it fills
 */
public record S3Settings(String endpoint, String region, Boolean pathStyle, String accessKey, String secretKey,
                         String sessionToken, String profile, String storageClass, String sse, String sseKmsKeyId,
                         long objectSize, Duration objectAge, String compression, String keyTemplate,
                         Duration shutdownGrace, long partSize) {
    /**
     * The default object size: 8 MiB. With the default {@code max-in-flight} of 32 MiB that is four objects in
     * flight; a server answers each PutObject only once it has stored it, and four smaller objects keep the link
     * busier in the same memory than two larger ones.
     */
    public static final long OBJECT_SIZE_DEFAULT = 8L << 20;
    /** The smallest object size that may be configured. */
    public static final long OBJECT_SIZE_MIN = 1L << 20;
    /**
     * The largest object size that may be configured: what one server-side copy takes (an object cut before its
     * planned end is copied to its key).
     */
    public static final long OBJECT_SIZE_MAX = 5L << 30;
    /**
     * The default part size of multipart uploads: at least the default object size, so that an object of that size
     * goes up in one PutObject (one request, where a multipart upload takes a create, its parts and a complete);
     * only larger objects, configured with a larger {@code object-size} and {@code max-in-flight}, are uploaded in
     * parts while they fill.
     */
    public static final long PART_SIZE_DEFAULT = 16L << 20;
    /** The smallest part S3 takes (but for an upload's last). */
    public static final long PART_SIZE_MIN = 5L << 20;
    /** The largest part S3 takes. */
    public static final long PART_SIZE_MAX = 5L << 30;
    /** The default age at which an object is cut. */
    public static final Duration OBJECT_AGE_DEFAULT = Duration.ofSeconds(60);
    /** The default grace period of a stop. */
    public static final Duration SHUTDOWN_GRACE_DEFAULT = Duration.ofSeconds(20);
    /** The default codec. */
    public static final String COMPRESSION_DEFAULT = "gzip";
    /** The codecs. */
    public static final Set<String> COMPRESSIONS = Set.of("none", "gzip", "zstd");
    /** The default key template. */
    public static final String KEY_TEMPLATE_DEFAULT =
            "{prefix}{host}/{yyyy}/{MM}/{dd}/{file}.{start}-{end}.{seq}.log{ext}";

    /**
     * Checks the values.
     *
     * @throws IllegalArgumentException naming the value and the accepted range
     */
    public S3Settings {
        compression = compression == null ? COMPRESSION_DEFAULT : compression.toLowerCase(Locale.ROOT);
        if (!COMPRESSIONS.contains(compression)) {
            throw new IllegalArgumentException("s3 compression must be one of none, gzip, zstd: compression="
                    + compression);
        }
        if (objectSize < OBJECT_SIZE_MIN || objectSize > OBJECT_SIZE_MAX) {
            throw new IllegalArgumentException("s3 object-size out of range: object-size=" + objectSize
                    + " (1MiB to 5GiB)");
        }
        if (partSize < PART_SIZE_MIN || partSize > PART_SIZE_MAX) {
            throw new IllegalArgumentException("s3 part-size out of range: part-size=" + partSize + " (5MiB to 5GiB)");
        }
        if (objectAge == null || objectAge.isNegative() || objectAge.isZero()
                || objectAge.compareTo(Duration.ofHours(24)) > 0) {
            throw new IllegalArgumentException("s3 object-age out of range: object-age=" + objectAge
                    + " (1ms to 24h)");
        }
        if (shutdownGrace == null || shutdownGrace.isNegative()) {
            throw new IllegalArgumentException("s3 shutdown-grace must not be negative: shutdown-grace="
                    + shutdownGrace);
        }
        if ((accessKey == null) != (secretKey == null)) {
            throw new IllegalArgumentException("s3 access-key and secret-key are given together");
        }
        if (sse != null && !sse.equals("AES256") && !sse.equals("aws:kms")) {
            throw new IllegalArgumentException("s3 sse must be AES256 or aws:kms: sse=" + sse);
        }
        if (sseKmsKeyId != null && !"aws:kms".equals(sse)) {
            throw new IllegalArgumentException("s3 sse-kms-key-id needs sse: aws:kms");
        }
        if (endpoint != null) {
            try {
                java.net.URI u = new java.net.URI(endpoint);
                if (u.getScheme() == null || !(u.getScheme().equals("http") || u.getScheme().equals("https"))
                        || u.getHost() == null) {
                    throw new java.net.URISyntaxException(endpoint, "not an http(s) URL");
                }
            } catch (java.net.URISyntaxException e) {
                throw new IllegalArgumentException("s3 endpoint must be an http:// or https:// URL: endpoint="
                        + endpoint);
            }
        }
        keyTemplate = keyTemplate == null ? KEY_TEMPLATE_DEFAULT : keyTemplate;
        KeyTemplate.check(keyTemplate);
    }

    /** Everything from the default chains, the default sizes and codec. */
    public static S3Settings defaults() {
        return new S3Settings(null, null, null, null, null, null, null, null, null, null, OBJECT_SIZE_DEFAULT,
                OBJECT_AGE_DEFAULT, COMPRESSION_DEFAULT, KEY_TEMPLATE_DEFAULT, SHUTDOWN_GRACE_DEFAULT,
                PART_SIZE_DEFAULT);
    }

    /** The file name extension of the codec: empty, {@code .gz} or {@code .zst}. */
    public String extension() {
        return switch (compression) {
            case "gzip" -> ".gz";
            case "zstd" -> ".zst";
            default -> "";
        };
    }

    /** The Content-Encoding of the codec, or null for none. */
    public String contentEncoding() {
        return switch (compression) {
            case "gzip" -> "gzip";
            case "zstd" -> "zstd";
            default -> null;
        };
    }

    @Override
    public String toString() {
        // Never the secret.
        return "S3Settings[endpoint=" + endpoint + ", region=" + region + ", pathStyle=" + pathStyle
                + ", accessKey=" + (accessKey == null ? null : "(given)") + ", profile=" + profile
                + ", storageClass=" + storageClass + ", sse=" + sse + ", objectSize=" + objectSize + ", partSize="
                + partSize + ", objectAge="
                + objectAge + ", compression=" + compression + ", keyTemplate=" + keyTemplate + "]";
    }
}
