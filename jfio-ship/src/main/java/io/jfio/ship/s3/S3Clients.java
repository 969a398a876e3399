package io.jfio.ship.s3;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.ProfileCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Thread-safe; stateless. Makes the S3 client of a sink from its {@link S3Settings} and the usual places, and turns
 * the SDK's errors into one line for the user.
 */
final class S3Clients {
    private S3Clients() {
    }

    /** The endpoint: the settings', else {@code AWS_ENDPOINT_URL_S3}, else {@code AWS_ENDPOINT_URL}, else null. */
    static String endpoint(S3Settings s) {
        if (s.endpoint() != null) return s.endpoint();
        String e = System.getenv("AWS_ENDPOINT_URL_S3");
        if (e == null || e.isBlank()) e = System.getenv("AWS_ENDPOINT_URL");
        return e == null || e.isBlank() ? null : e.trim();
    }

    /**
     * A client: URLConnection HTTP (no Netty, no Apache client, no CRT), the SDK's own retries off (the sink retries
     * with its own backoff, counted and logged), path-style addressing when asked or a custom endpoint is given.
     *
     * @throws IOException when no region can be found for AWS itself
     */
    static S3Client open(S3Settings s) throws IOException {
        String endpoint = endpoint(s);
        var b = S3Client.builder()
                .httpClient(UrlConnectionHttpClient.builder().connectionTimeout(Duration.ofSeconds(5))
                        .socketTimeout(Duration.ofSeconds(60)).build())
                .overrideConfiguration(c -> c.retryStrategy(r -> r.maxAttempts(1))
                        .apiCallAttemptTimeout(Duration.ofMinutes(5)))
                .credentialsProvider(credentials(s))
                .forcePathStyle(s.pathStyle() != null ? s.pathStyle() : endpoint != null);
        if (endpoint != null) b.endpointOverride(URI.create(endpoint));
        b.region(region(s, endpoint));
        try {
            return b.build();
        } catch (SdkException e) {
            throw new IOException("cannot make the s3 client: " + e.getMessage(), e);
        }
    }

    /**
     * A presigner for the bulk requests ({@link S3Transfer}): the same endpoint, region, addressing and credentials
     * as {@link #open}'s client.
     *
     * @throws IOException when no region can be found for AWS itself
     */
    static S3Presigner presigner(S3Settings s) throws IOException {
        String endpoint = endpoint(s);
        var b = S3Presigner.builder().credentialsProvider(credentials(s)).region(region(s, endpoint))
                .serviceConfiguration(S3Configuration.builder()
                        .pathStyleAccessEnabled(s.pathStyle() != null ? s.pathStyle() : endpoint != null).build());
        if (endpoint != null) b.endpointOverride(URI.create(endpoint));
        try {
            return b.build();
        } catch (SdkException e) {
            throw new IOException("cannot make the s3 client: " + e.getMessage(), e);
        }
    }

    /** The signing region: the settings', else the SDK's region chain, else us-east-1 for a custom endpoint. */
    static String region(S3Settings s) throws IOException {
        return region(s, endpoint(s)).id();
    }

    private static Region region(S3Settings s, String endpoint) throws IOException {
        if (s.region() != null) return Region.of(s.region());
        try {
            return DefaultAwsRegionProviderChain.builder().profileName(s.profile()).build().getRegion();
        } catch (SdkClientException e) {
            // A self-hosted server takes any region in the signature; AWS needs the bucket's.
            if (endpoint != null) return Region.US_EAST_1;
            throw new IOException("no region for s3: give s3.region in the config file, --s3-region, or AWS_REGION",
                    e);
        }
    }

    /** A credentials provider: the settings' keys, else the profile named, else the SDK's default chain. */
    static AwsCredentialsProvider credentials(S3Settings s) {
        if (s.accessKey() != null) {
            return StaticCredentialsProvider.create(s.sessionToken() != null
                    ? AwsSessionCredentials.create(s.accessKey(), s.secretKey(), s.sessionToken())
                    : AwsBasicCredentials.create(s.accessKey(), s.secretKey()));
        }
        if (s.profile() != null) return ProfileCredentialsProvider.create(s.profile());
        return DefaultCredentialsProvider.builder().build();
    }

    /**
     * What went wrong, in one line: the HTTP status and S3's error code for a server's answer, the cause for a
     * failure to reach it.
     */
    static String reason(Throwable t) {
        if (t instanceof S3Exception e) {
            String code = e.awsErrorDetails() != null ? e.awsErrorDetails().errorCode() : null;
            return "status=" + e.statusCode() + (code != null ? " code=" + code : "") + meaning(e.statusCode());
        }
        if (t instanceof S3Failure f) {
            return "status=" + f.status() + (f.code() != null ? " code=" + f.code() : "")
                    + (f.code() == null || f.code().equals("NoSuchBucket") || f.code().equals("AccessDenied")
                            || f.code().equals("PermanentRedirect") ? meaning(f.status()) : "");
        }
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) root = root.getCause();
        String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
        if (root != t && root.getMessage() != null && !m.contains(root.getMessage())) {
            m += ": " + root.getClass().getSimpleName() + ": " + root.getMessage();
        }
        return m.replace('\n', ' ');
    }

    private static String meaning(int status) {
        return switch (status) {
            case 301 -> " (the bucket is in another region: set s3.region)";
            case 403 -> " (access denied: wrong credentials, or no permission on the bucket)";
            case 404 -> " (no such bucket)";
            default -> "";
        };
    }

    /** Whether {@code t} is an answer that retrying will not change by itself (credentials, bucket, region). */
    static boolean permanent(Throwable t) {
        int status = t instanceof S3Exception e ? e.statusCode() : t instanceof S3Failure f ? f.status() : 0;
        return status == 301 || status == 400 || status == 403 || status == 404;
    }
}
