package io.jfio.bench.ship.torture;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Not thread-safe as a whole: {@link #holds} is called by the rotator thread only, which owns its client and what it
 * has seen; {@link #read} makes a client of its own on the run's thread.
 *
 * <p>The s3 sink ({@code s3://BUCKET/PREFIX}) on a server the user gives, under a prefix of its own made for the run.
 * The shipper gets the server and its credentials in a configuration file of the run (mode 0600) and cuts its
 * objects after {@link #OBJECT_AGE} so that records reach the bucket while the run goes on. Read back by listing the
 * prefix; each object is decoded by its Content-Encoding and counted as a part of the stream of its source file
 * (the {@code {file}} of the key), in key order.
 */
final class S3Target implements Target {
    /** How long the shipper lets an object fill before it uploads it. */
    static final String OBJECT_AGE = "1s";
    /** The default key template's end: {@code {file}.{start}-{end}.{seq}.log{ext}}. */
    private static final Pattern KEY = Pattern.compile(
            ".*/(?<file>[^/]+)\\.\\d{16}-\\d{16}\\.\\d{16}\\.log(?:\\.gz)?");
    /** {@link #holds} lists the bucket at most this often. */
    private static final long LIST_EVERY_NANOS = 200_000_000L;

    private final S3Server server;
    private final String prefix;
    private final Path config;
    /** The rotator's client, the keys it has read and the record numbers it found, per writer. */
    private S3Client probe;
    private final Set<String> probed = new HashSet<>();
    private final Map<Integer, Set<Long>> seen = new HashMap<>();
    private long listedNanos;

    /** Writes the shipper's configuration for {@code server} into {@code dir}; objects go under {@code prefix}. */
    S3Target(S3Server server, String prefix, Path dir) throws IOException {
        this.server = server;
        this.prefix = prefix;
        this.config = dir.resolve("s3.yaml");
        String yaml = "s3:\n"
                + "  endpoint: " + quote(server.endpoint()) + "\n"
                + "  region: us-east-1\n"
                + (server.accessKey() == null ? "" : "  access-key: " + quote(server.accessKey()) + "\n"
                        + "  secret-key: " + quote(server.secretKey()) + "\n")
                + "  object-age: " + OBJECT_AGE + "\n";
        // Created 0600 (it holds the secret key), then written.
        Files.createFile(config, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(config, yaml, StandardCharsets.UTF_8, StandardOpenOption.WRITE);
        try (S3Client c = client(false)) {
            c.headBucket(r -> r.bucket(server.bucket()));
        } catch (SdkException e) {
            throw new IOException("cannot reach bucket " + server.bucket() + " at " + server.endpoint() + ": "
                    + e.getMessage(), e);
        }
    }

    private static String quote(String s) {
        return "'" + s.replace("'", "''") + "'";
    }

    @Override
    public String name() {
        return "s3";
    }

    @Override
    public String to() {
        return "s3://" + server.bucket() + "/" + prefix;
    }

    @Override
    public List<String> args() {
        return List.of("--config", config.toString());
    }

    /**
     * A client of the server; {@code quick}: every call given up after 2 s (the rotator asks while the server may be
     * paused, and holds a writer meanwhile).
     */
    private S3Client client(boolean quick) {
        var b = S3Client.builder().httpClient(UrlConnectionHttpClient.create())
                .endpointOverride(URI.create(server.endpoint())).forcePathStyle(true).region(Region.US_EAST_1);
        if (quick) b.overrideConfiguration(c -> c.apiCallTimeout(Duration.ofSeconds(2)));
        if (server.accessKey() != null) {
            b.credentialsProvider(StaticCredentialsProvider.create(
                    AwsBasicCredentials.create(server.accessKey(), server.secretKey())));
        }
        return b.build();
    }

    @Override
    public boolean holds(byte[] record) throws IOException {
        TortureRecord.Id want = TortureRecord.parse(record, 0, record.length - 1);
        if (want == null) return false;
        if (seen.getOrDefault(want.writer(), Set.of()).contains(want.seq())) return true;
        long now = System.nanoTime();
        if (now - listedNanos < LIST_EVERY_NANOS) return false;
        listedNanos = now;
        if (probe == null) probe = client(true);
        try {
            for (S3Object o : probe.listObjectsV2Paginator(r -> r.bucket(server.bucket()).prefix(prefix)).contents()) {
                if (probed.contains(o.key())) continue;
                byte[] b = get(probe, o.key());
                probed.add(o.key()); // only once read: a read cut short by an outage is read again next time
                int start = 0;
                for (int i = 0; i < b.length; i++) {
                    if (b[i] != '\n') continue;
                    TortureRecord.Id id = TortureRecord.parse(b, start, i - start);
                    if (id != null) seen.computeIfAbsent(id.writer(), k -> new HashSet<>()).add(id.seq());
                    start = i + 1;
                }
            }
        } catch (SdkException | IOException e) {
            return false; // the server is paused or down: the record is not known to be there
        }
        return seen.getOrDefault(want.writer(), Set.of()).contains(want.seq());
    }

    @Override
    public void read(Verifier v) throws IOException {
        try (S3Client c = client(false)) {
            List<String> keys = new ArrayList<>();
            for (S3Object o : c.listObjectsV2Paginator(r -> r.bucket(server.bucket()).prefix(prefix)).contents()) {
                keys.add(o.key());
            }
            for (String key : keys) {
                Matcher m = KEY.matcher(key);
                String stream = m.matches() ? m.group("file") : key;
                v.addBytes(stream, key, get(c, key));
            }
        } catch (SdkException e) {
            throw new IOException("cannot read " + to() + " at " + server.endpoint() + ": " + e.getMessage(), e);
        }
    }

    /** An object's bytes, decoded by its Content-Encoding (gzip, the sink's default, or none). */
    private byte[] get(S3Client c, String key) throws IOException {
        try (ResponseInputStream<GetObjectResponse> in = c.getObject(r -> r.bucket(server.bucket()).key(key))) {
            byte[] stored = in.readAllBytes();
            String encoding = in.response().contentEncoding();
            if (encoding == null || encoding.isEmpty()) return stored;
            if (!encoding.equals("gzip")) {
                throw new IOException("object " + key + " has Content-Encoding " + encoding + ", not gzip");
            }
            try (InputStream d = new GZIPInputStream(new ByteArrayInputStream(stored))) {
                return d.readAllBytes();
            }
        }
    }

    @Override
    public void close() {
        if (probe != null) probe.close();
        probe = null;
    }
}
