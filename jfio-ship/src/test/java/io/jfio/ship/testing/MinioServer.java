package io.jfio.ship.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Not thread-safe; JUnit calls it before and after a test class.
 *
 * <p>One real MinIO server for a test class, with its buckets made: {@code @RegisterExtension static final
 * MinioServer SERVER = new MinioServer("bucket");} then {@code SERVER.minio()} in the tests. The server's data lives
 * in a temporary directory removed after the class.
 */
public final class MinioServer implements BeforeAllCallback, AfterAllCallback {
    private final String[] buckets;
    private Path dir;
    private Minio minio;

    public MinioServer(String... buckets) {
        this.buckets = buckets.clone();
    }

    /** The running server. */
    public Minio minio() {
        if (minio == null) throw new IllegalStateException("the MinIO server is not started");
        return minio;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        dir = Files.createTempDirectory("jfio-minio-");
        minio = Minio.start(dir, buckets);
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        try {
            if (minio != null) minio.close();
        } finally {
            minio = null;
            if (dir != null) delete(dir);
        }
    }

    private static void delete(Path root) throws IOException {
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        }
    }
}
