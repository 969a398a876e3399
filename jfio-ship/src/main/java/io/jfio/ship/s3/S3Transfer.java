package io.jfio.ship.s3;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;
import software.amazon.awssdk.services.s3.presigner.model.PutObjectPresignRequest;
import software.amazon.awssdk.utils.http.SdkHttpUtils;

/**
 * Thread-safe: any number of upload threads send through it at once.
 *
 * <p>Sends the bulk of the bytes: object bodies (PutObject) and parts (UploadPart). Each request is signed by the
 * SDK's SigV4 signer (in the Authorization header, with {@code UNSIGNED-PAYLOAD}) and sent by the JDK's HTTP client
 * with the body straight from the object's native memory (direct buffers over its chunks: no copy on the way to the
 * socket). Through the SDK's client, a request over plain HTTP (a local MinIO, a server behind a private network)
 * has its whole payload hashed with SHA-256 for the signature, which the SDK does not let a caller turn off, and is
 * copied several times on the way: that cost three times the CPU per byte of this path. The SDK's presigner runs
 * its client's whole request set-up (endpoint rules, auth scheme resolution, interceptors, the profile file's
 * settings) for every request, which made it the largest CPU cost of a small object. So the presigner runs once, at
 * start, to learn the address form the SDK resolves for this endpoint, region and addressing style ({@link #base});
 * every request after it is that address with its key, signed by the signer alone. Integrity does not depend on the
 * signature: each body carries its CRC32C ({@code x-amz-checksum-crc32c}, signed), which the server checks before
 * it stores anything, over HTTP and HTTPS alike. The small requests (HEAD,
 * multipart create, complete, abort, list, copy, delete) go through the SDK's client.
 */
final class S3Transfer implements AutoCloseable {
    /** How long one request may take, its body included. */
    private static final Duration TIMEOUT = Duration.ofMinutes(5);
    /** The key of the request presigned at start to learn the address form: never sent. */
    private static final String PROBE = "jfio-address-probe";
    private static final Pattern CODE = Pattern.compile("<Code>([^<]{0,200})</Code>");
    private static final Pattern MESSAGE = Pattern.compile("<Message>([^<]{0,500})</Message>");

    private final HttpClient http;
    private final S3Settings settings;
    private final AwsV4HttpSigner signer = AwsV4HttpSigner.create();
    private final AwsCredentialsProvider credentials;
    private final String region;
    /** The address of the bucket's keys: scheme, host, port and the path before the key (ending in '/'). */
    private final URI base;

    /**
     * @param presigner   signs one request at start, to learn the address form; closed by this constructor
     * @param credentials where each request's credentials come from (the provider caches and refreshes them)
     * @param region      the signing region
     * @throws IOException when the presigner cannot make the address (no region, a malformed endpoint)
     */
    S3Transfer(S3Presigner presigner, AwsCredentialsProvider credentials, String region, String bucket,
               S3Settings settings) throws IOException {
        this.settings = settings;
        this.credentials = credentials;
        this.region = region;
        try (presigner) {
            URI probe = presigner.presignPutObject(PutObjectPresignRequest.builder()
                    .signatureDuration(Duration.ofMinutes(1))
                    .putObjectRequest(PutObjectRequest.builder().bucket(bucket).key(PROBE).build()).build())
                    .url().toURI();
            this.base = base(probe);
        } catch (SdkException | java.net.URISyntaxException e) {
            throw new IOException("cannot make the s3 request address: bucket=" + bucket + " " + e.getMessage(), e);
        }
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).followRedirects(HttpClient.Redirect.NEVER).build();
    }

    /** The presigned probe's address without its key and query: where every key of the bucket is. */
    static URI base(URI probe) throws IOException {
        String path = probe.getRawPath();
        if (path == null || !path.endsWith("/" + PROBE)) {
            throw new IOException("s3 request address not understood: " + probe.getScheme() + "://"
                    + probe.getRawAuthority() + path);
        }
        return URI.create(probe.getScheme() + "://" + probe.getRawAuthority()
                + path.substring(0, path.length() - PROBE.length()));
    }

    /**
     * Stores {@code body} as the object {@code key} (one PutObject), with the sink's content encoding, storage class
     * and server-side encryption.
     *
     * @throws S3Failure   when the server answers with an error
     * @throws IOException when it cannot be reached or the request fails on the way
     */
    void put(String key, ObjectBuffer.Body body) throws IOException {
        SdkHttpRequest.Builder r = request(key).putHeader("Content-Type", body.contentType())
                .putHeader("x-amz-checksum-crc32c", body.crc32cBase64());
        if (settings.contentEncoding() != null) r.putHeader("Content-Encoding", settings.contentEncoding());
        if (settings.storageClass() != null) r.putHeader("x-amz-storage-class", settings.storageClass());
        if (settings.sse() != null) r.putHeader("x-amz-server-side-encryption", settings.sse());
        if (settings.sseKmsKeyId() != null) {
            r.putHeader("x-amz-server-side-encryption-aws-kms-key-id", settings.sseKmsKeyId());
        }
        send(sign(r.build()), body, key);
    }

    /**
     * Stores {@code body} as part {@code number} of the multipart upload {@code uploadId} of {@code key}.
     *
     * @return the part's ETag, for the upload's completion
     * @throws S3Failure   when the server answers with an error (404 NoSuchUpload: the upload is gone)
     * @throws IOException when it cannot be reached or the request fails on the way
     */
    String uploadPart(String key, String uploadId, int number, ObjectBuffer.Body body) throws IOException {
        SdkHttpRequest.Builder r = request(key).putRawQueryParameter("partNumber", Integer.toString(number))
                .putRawQueryParameter("uploadId", uploadId)
                .putHeader("x-amz-checksum-crc32c", body.crc32cBase64());
        HttpResponse<String> a = send(sign(r.build()), body, key);
        return a.headers().firstValue("ETag").orElseThrow(() -> new IOException(
                "s3 answered an uploaded part without its ETag: key=" + key + " part=" + number));
    }

    /** A PUT of {@code key}: its address is {@link #base} and the key, encoded as S3 wants it (slashes kept). */
    private SdkHttpRequest.Builder request(String key) {
        return SdkHttpRequest.builder().method(SdkHttpMethod.PUT).protocol(base.getScheme()).host(base.getHost())
                .port(base.getPort() < 0 ? null : base.getPort())
                .encodedPath(base.getRawPath() + SdkHttpUtils.urlEncodeIgnoreSlashes(key));
    }

    /**
     * Signs {@code r} for S3 in this region: SigV4 in the Authorization header, the payload unsigned (its CRC32C
     * header is signed), the path as given (S3 neither double-encodes nor normalizes keys).
     */
    private SdkHttpRequest sign(SdkHttpRequest r) throws IOException {
        try {
            AwsCredentialsIdentity id = credentials.resolveCredentials();
            SignedRequest s = signer.sign(b -> b.identity(id).request(r)
                    .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "s3")
                    .putProperty(AwsV4HttpSigner.REGION_NAME, region)
                    .putProperty(AwsV4HttpSigner.DOUBLE_URL_ENCODE, false)
                    .putProperty(AwsV4HttpSigner.NORMALIZE_PATH, false)
                    .putProperty(AwsV4HttpSigner.PAYLOAD_SIGNING_ENABLED, false));
            return s.request();
        } catch (SdkException e) {
            throw new IOException("cannot sign the upload: " + S3Clients.reason(e), e);
        }
    }

    private HttpResponse<String> send(SdkHttpRequest p, ObjectBuffer.Body body, String key) throws IOException {
        HttpRequest.Builder b = HttpRequest.newBuilder(p.getUri()).timeout(TIMEOUT);
        for (Map.Entry<String, List<String>> h : p.headers().entrySet()) {
            // The client sets Host (and refuses to be told it).
            if (h.getKey().equalsIgnoreCase("host")) continue;
            for (String v : h.getValue()) b.header(h.getKey(), v);
        }
        b.PUT(HttpRequest.BodyPublishers.fromPublisher(body.publisher(), body.size()));
        HttpResponse<String> a;
        try {
            a = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("s3 upload interrupted: key=" + key);
        }
        if (a.statusCode() / 100 != 2) throw failure(a.statusCode(), a.body());
        return a;
    }

    /** The server's error answer as an exception: its status, and S3's error code and message when it sent them. */
    static S3Failure failure(int status, String body) {
        String code = null;
        String message = null;
        if (body != null) {
            Matcher c = CODE.matcher(body);
            if (c.find()) code = unescape(c.group(1));
            Matcher m = MESSAGE.matcher(body);
            if (m.find()) message = unescape(m.group(1));
        }
        return new S3Failure(status, code, message);
    }

    private static String unescape(String s) {
        return s.replace("&quot;", "\"").replace("&#39;", "'").replace("&apos;", "'").replace("&lt;", "<")
                .replace("&gt;", ">").replace("&amp;", "&");
    }

    @Override
    public void close() {
        http.shutdownNow();
        // A provider that refreshes credentials (instance or container credentials) holds a thread of its own.
        if (credentials instanceof software.amazon.awssdk.utils.SdkAutoCloseable c) c.close();
    }
}
