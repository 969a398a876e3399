package io.jfio.ship.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * A real MinIO server for the tests, on a free loopback port with a data directory of the test's: found on PATH, in
 * {@code $GOBIN}, {@code $GOPATH/bin} or {@code ~/go/bin}, or built once with {@code go install} of the pinned
 * version into {@code ~/.cache/jfio/minio/VERSION} (under a file lock, so that parallel builds wait for one). Without
 * MinIO and without Go the tests are skipped with an assumption that says so.
 *
 * <p>Not thread-safe; one test owns it. {@link #close} kills the server.
 */
public final class Minio implements AutoCloseable {
    /** The version built when none is found: the module version {@code go install} takes. */
    public static final String VERSION = "v0.0.0-20260212201848-7aac2a2c5b7c";
    /** The root user (access key) of the test server. */
    public static final String USER = "jfio-test";
    /** Its password (secret key). */
    public static final String PASSWORD = "jfio-test-secret";

    private final Path binary;
    private final Path data;
    private final Path logFile;
    private final int port;
    private Process process;

    private Minio(Path binary, Path data, Path logFile, int port) {
        this.binary = binary;
        this.data = data;
        this.logFile = logFile;
        this.port = port;
    }

    /**
     * Starts a server with its data in {@code dir} and creates {@code buckets}.
     *
     * @throws org.opentest4j.TestAbortedException when no MinIO can be found or built (no Go toolchain)
     */
    public static Minio start(Path dir, String... buckets) throws IOException, InterruptedException {
        Path bin = find();
        Minio m = new Minio(bin, Files.createDirectories(dir.resolve("minio-data")), dir.resolve("minio.log"),
                freePort());
        m.startProcess();
        try (S3Client c = m.client()) {
            for (String b : buckets) c.createBucket(r -> r.bucket(b));
        }
        return m;
    }

    /** The server's URL. */
    public String endpoint() {
        return "http://127.0.0.1:" + port;
    }

    /** Settings for {@link ShipRun#config} that point an s3 sink at this server. */
    public Map<String, String> settings() {
        return Map.of("s3.endpoint", endpoint(), "s3.access-key", USER, "s3.secret-key", PASSWORD, "s3.region",
                "us-east-1");
    }

    /** A client of this server. */
    public S3Client client() {
        return S3Client.builder().httpClient(UrlConnectionHttpClient.create()).endpointOverride(URI.create(endpoint()))
                .forcePathStyle(true).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(USER, PASSWORD)))
                .build();
    }

    /** The server's process id (for pausing it with SIGSTOP). */
    public long pid() {
        if (process == null) throw new IllegalStateException("the server is not running");
        return process.pid();
    }

    /** Kills the server (SIGKILL), as a crash would. */
    public void kill() throws InterruptedException {
        if (process != null) {
            process.destroyForcibly();
            process.waitFor();
            process = null;
        }
    }

    /** Starts the server again on the same port and data. */
    public void restart() throws IOException, InterruptedException {
        kill();
        startProcess();
    }

    /** Every object under {@code prefix} with its bytes, in key order. */
    public List<Stored> objects(String bucket, String prefix) {
        try (S3Client c = client()) {
            List<Stored> out = new ArrayList<>();
            for (S3Object o : c.listObjectsV2Paginator(r -> r.bucket(bucket).prefix(prefix)).contents()) {
                try (ResponseInputStream<GetObjectResponse> in = c.getObject(r -> r.bucket(bucket).key(o.key()))) {
                    out.add(new Stored(o.key(), in.response().contentEncoding(), in.readAllBytes()));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            return out;
        }
    }

    /**
     * The incomplete multipart uploads under {@code prefix}, as key and upload id. MinIO lists them for a prefix only
     * when it is a whole key: they are listed for the bucket and filtered here.
     */
    public List<List<String>> uploads(String bucket, String prefix) {
        try (S3Client c = client()) {
            List<List<String>> out = new ArrayList<>();
            c.listMultipartUploadsPaginator(r -> r.bucket(bucket)).uploads().forEach(u -> {
                if (u.key().startsWith(prefix)) out.add(List.of(u.key(), u.uploadId()));
            });
            return out;
        }
    }

    /** The ETag of object {@code key} (a multipart upload's ends in {@code -PARTS}). */
    public String etag(String bucket, String key) {
        try (S3Client c = client()) {
            return c.headObject(r -> r.bucket(bucket).key(key)).eTag();
        }
    }

    /**
     * An object.
     *
     * @param key      its key
     * @param encoding its Content-Encoding, or null
     * @param bytes    its bytes as stored
     */
    public record Stored(String key, String encoding, byte[] bytes) {
    }

    /** Server log's tail, for failure messages. */
    public String log() throws IOException {
        return ShipRun.tail(logFile, 30);
    }

    private void startProcess() throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(binary.toString(), "server", "--quiet", "--address",
                "127.0.0.1:" + port, "--console-address", "127.0.0.1:" + freePort(), data.toString());
        pb.environment().put("MINIO_ROOT_USER", USER);
        pb.environment().put("MINIO_ROOT_PASSWORD", PASSWORD);
        pb.environment().put("MINIO_BROWSER", "off");
        pb.environment().put("MINIO_UPDATE", "off");
        pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
        process = pb.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) throw new IOException("minio exited: " + log());
            try {
                HttpURLConnection h = (HttpURLConnection) URI.create(endpoint() + "/minio/health/live").toURL()
                        .openConnection();
                h.setConnectTimeout(500);
                h.setReadTimeout(1000);
                if (h.getResponseCode() == 200) return;
            } catch (IOException notYet) {
                // Starting.
            }
            Thread.sleep(50);
        }
        throw new IOException("minio did not come up within 60 s: " + log());
    }

    @Override
    public void close() throws InterruptedException {
        kill();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** The minio binary: found, or built with Go into the cache; skips the test when neither works. */
    static synchronized Path find() throws IOException, InterruptedException {
        List<Path> candidates = new ArrayList<>();
        String path = System.getenv("PATH");
        if (path != null) {
            for (String d : path.split(":")) {
                if (!d.isEmpty()) candidates.add(Path.of(d, "minio"));
            }
        }
        String gobin = System.getenv("GOBIN");
        if (gobin != null && !gobin.isEmpty()) candidates.add(Path.of(gobin, "minio"));
        String gopath = System.getenv("GOPATH");
        if (gopath != null) {
            for (String d : gopath.split(":")) {
                if (!d.isEmpty()) candidates.add(Path.of(d, "bin", "minio"));
            }
        }
        Path home = Path.of(System.getProperty("user.home"));
        candidates.add(home.resolve("go/bin/minio"));
        Path cache = home.resolve(".cache/jfio/minio/" + VERSION);
        candidates.add(cache.resolve("minio"));
        for (Path c : candidates) {
            if (Files.isRegularFile(c) && Files.isExecutable(c)) return c;
        }
        Path go = goTool();
        Assumptions.assumeTrue(go != null, "S3 tests skipped: no minio binary (PATH, $GOBIN, $GOPATH/bin, ~/go/bin, "
                + cache + ") and no Go toolchain to build it with 'go install github.com/minio/minio@" + VERSION + "'");
        Files.createDirectories(cache);
        try (FileChannel lock = FileChannel.open(cache.resolve(".lock"), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE); FileLock l = lock.lock()) {
            Path bin = cache.resolve("minio");
            if (Files.isExecutable(bin)) return bin;
            System.out.println("Minio: building github.com/minio/minio@" + VERSION + " into " + cache
                    + " (several minutes, once)");
            ProcessBuilder pb = new ProcessBuilder(go.toString(), "install", "github.com/minio/minio@" + VERSION);
            pb.environment().put("GOBIN", cache.toString());
            pb.redirectErrorStream(true).redirectOutput(cache.resolve("build.log").toFile());
            Process p = pb.start();
            if (!p.waitFor(40, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new IOException("go install of minio took over 40 minutes: " + ShipRun.tail(
                        cache.resolve("build.log"), 20));
            }
            if (p.exitValue() != 0 || !Files.isExecutable(bin)) {
                throw new IOException("go install of minio failed: " + ShipRun.tail(cache.resolve("build.log"), 20));
            }
            return bin;
        }
    }

    private static Path goTool() {
        List<Path> c = new ArrayList<>();
        String path = System.getenv("PATH");
        if (path != null) {
            for (String d : path.split(":")) {
                if (!d.isEmpty()) c.add(Path.of(d, "go"));
            }
        }
        c.add(Path.of("/usr/local/go/bin/go"));
        for (Path p : c) {
            if (Files.isExecutable(p)) return p;
        }
        return null;
    }
}
