package io.jfio.ship.s3;

import java.io.IOException;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awssdk.awscore.presigner.PresignedRequest;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;
import software.amazon.awssdk.services.s3.presigner.model.PutObjectPresignRequest;
import software.amazon.awssdk.services.s3.presigner.model.UploadPartPresignRequest;

/**
 * Thread-safe: any number of upload threads send through it at once.
 *
 * <p>Sends the bulk of the bytes: object bodies (PutObject) and parts (UploadPart). The SDK's presigner signs each
 * request (SigV4 in the query string, with {@code UNSIGNED-PAYLOAD}) and the JDK's HTTP client sends it with the
 * body straight from the object's native memory (direct buffers over its chunks: no copy on the way to the
 * socket). Through the SDK's client, a request over plain HTTP (a local MinIO, a server behind a private network)
 * has its whole payload hashed with SHA-256 for the signature, which the SDK does not let a caller turn off, and is
 * copied several times on the way: that cost three times the CPU per byte of this path. Integrity does not depend
 * on the signature: each body carries its CRC32C ({@code x-amz-checksum-crc32c}, signed), which the server checks
 * before it stores anything, over HTTP and HTTPS alike. The small requests (HEAD, multipart create, complete, abort,
 * list, copy, delete) go through the SDK's client.
 */
final class S3Transfer implements AutoCloseable {
    /** How long a presigned request stays valid: longer than any one request may take. */
    private static final Duration VALIDITY = Duration.ofMinutes(30);
    /** How long one request may take, its body included. */
    private static final Duration TIMEOUT = Duration.ofMinutes(5);
    private static final Pattern CODE = Pattern.compile("<Code>([^<]{0,200})</Code>");
    private static final Pattern MESSAGE = Pattern.compile("<Message>([^<]{0,500})</Message>");

    private final S3Presigner presigner;
    private final HttpClient http;
    private final String bucket;
    private final S3Settings settings;

    S3Transfer(S3Presigner presigner, String bucket, S3Settings settings) {
        this.presigner = presigner;
        this.bucket = bucket;
        this.settings = settings;
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).followRedirects(HttpClient.Redirect.NEVER).build();
    }

    /**
     * Stores {@code body} as the object {@code key} (one PutObject), with the sink's content encoding, storage class
     * and server-side encryption.
     *
     * @throws S3Failure   when the server answers with an error
     * @throws IOException when it cannot be reached or the request fails on the way
     */
    void put(String key, ObjectBuffer.Body body) throws IOException {
        PutObjectRequest.Builder r = PutObjectRequest.builder().bucket(bucket).key(key).contentType("text/plain")
                .checksumCRC32C(body.crc32cBase64());
        if (settings.contentEncoding() != null) r.contentEncoding(settings.contentEncoding());
        if (settings.storageClass() != null) r.storageClass(settings.storageClass());
        if (settings.sse() != null) r.serverSideEncryption(settings.sse());
        if (settings.sseKmsKeyId() != null) r.ssekmsKeyId(settings.sseKmsKeyId());
        PresignedRequest p;
        try {
            p = presigner.presignPutObject(PutObjectPresignRequest.builder().signatureDuration(VALIDITY)
                    .putObjectRequest(r.build()).build());
        } catch (SdkException e) {
            throw new IOException("cannot sign the upload: " + S3Clients.reason(e), e);
        }
        send(p, body, key);
    }

    /**
     * Stores {@code body} as part {@code number} of the multipart upload {@code uploadId} of {@code key}.
     *
     * @return the part's ETag, for the upload's completion
     * @throws S3Failure   when the server answers with an error (404 NoSuchUpload: the upload is gone)
     * @throws IOException when it cannot be reached or the request fails on the way
     */
    String uploadPart(String key, String uploadId, int number, ObjectBuffer.Body body) throws IOException {
        UploadPartRequest r = UploadPartRequest.builder().bucket(bucket).key(key).uploadId(uploadId)
                .partNumber(number).checksumCRC32C(body.crc32cBase64()).build();
        PresignedRequest p;
        try {
            p = presigner.presignUploadPart(UploadPartPresignRequest.builder().signatureDuration(VALIDITY)
                    .uploadPartRequest(r).build());
        } catch (SdkException e) {
            throw new IOException("cannot sign the upload: " + S3Clients.reason(e), e);
        }
        HttpResponse<String> a = send(p, body, key);
        return a.headers().firstValue("ETag").orElseThrow(() -> new IOException(
                "s3 answered an uploaded part without its ETag: key=" + key + " part=" + number));
    }

    private HttpResponse<String> send(PresignedRequest p, ObjectBuffer.Body body, String key) throws IOException {
        HttpRequest.Builder b;
        try {
            b = HttpRequest.newBuilder(p.url().toURI()).timeout(TIMEOUT);
        } catch (URISyntaxException e) {
            throw new IOException("s3 request address not valid: " + e.getMessage(), e);
        }
        for (Map.Entry<String, List<String>> h : p.signedHeaders().entrySet()) {
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
        presigner.close();
    }
}
