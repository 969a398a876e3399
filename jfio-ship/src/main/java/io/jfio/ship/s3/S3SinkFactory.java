package io.jfio.ship.s3;

import io.jfio.ship.log.ShipLog;
import io.jfio.ship.metrics.ShipMetrics;
import io.jfio.ship.sink.Sink;
import io.jfio.ship.sink.SinkFactory;
import io.jfio.ship.sink.SinkSpec;
import io.jfio.ship.sink.Sinks;
import io.jfio.ship.state.Checkpoint;
import io.jfio.ship.state.StateDir;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/**
 * Thread-safe; stateless. The {@code s3://BUCKET/PREFIX} sink: {@link S3Sink}, set up by {@link Settings}. Loads no
 * AWS SDK class before {@link #open}.
 */
public final class S3SinkFactory implements SinkFactory {
    /** The scheme. */
    public static final String SCHEME = "s3";

    /** The factory {@link java.util.ServiceLoader} makes. */
    public S3SinkFactory() {
        // Nothing to set up: the client is made in open.
    }

    /**
     * What s3 sinks take from the shipper.
     *
     * @param s3      the {@code s3:} section
     * @param state   the state directory, where each s3 sink keeps its journal
     * @param sink    the sink's name (the journal's name)
     * @param metrics where its metrics are rendered
     */
    public record Settings(S3Settings s3, StateDir state, String sink, ShipMetrics metrics) {
    }

    @Override
    public String scheme() {
        return SCHEME;
    }

    @Override
    public String form() {
        return "s3://BUCKET/PREFIX";
    }

    @Override
    public void check(String target) {
        if (!target.startsWith("//")) throw new IllegalArgumentException("s3: needs s3://BUCKET[/PREFIX]");
        String b = bucket(target);
        if (b.length() < 3 || b.length() > 63 || !b.matches("[a-z0-9][a-z0-9.-]*[a-z0-9]")) {
            throw new IllegalArgumentException("s3 bucket must be 3-63 characters of a-z 0-9 . - (starting and "
                    + "ending with a letter or digit)");
        }
        String p = prefix(target);
        if (p.getBytes(StandardCharsets.UTF_8).length > 512) {
            throw new IllegalArgumentException("s3 prefix longer than 512 bytes");
        }
    }

    /** The bucket of a target {@code //BUCKET/PREFIX}. */
    static String bucket(String target) {
        String t = target.substring(2);
        int s = t.indexOf('/');
        return s < 0 ? t : t.substring(0, s);
    }

    /** The prefix of a target: empty, or ending in {@code /} (leading and doubled slashes removed). */
    static String prefix(String target) {
        String t = target.substring(2);
        int s = t.indexOf('/');
        if (s < 0) return "";
        String p = t.substring(s + 1).replaceAll("/{2,}", "/");
        while (p.startsWith("/")) p = p.substring(1);
        return p.isEmpty() || p.endsWith("/") ? p : p + "/";
    }

    @Override
    public Sink open(SinkSpec spec, Sinks.Options options) throws IOException {
        Settings s = options.setting(Settings.class);
        String bucket = bucket(spec.target());
        String prefix = prefix(spec.target());
        S3Settings c = s.s3();
        String endpoint = S3Clients.endpoint(c);
        S3Journal journal = new S3Journal(s.state(), journalName(spec, s.sink(), c), options.log());
        software.amazon.awssdk.services.s3.S3Client client = null;
        S3Transfer transfer = null;
        try {
            client = S3Clients.open(c);
            transfer = new S3Transfer(S3Clients.presigner(c), S3Clients.credentials(c), S3Clients.region(c), bucket, c);
            S3Check.bucket(client, bucket, endpoint, options.log());
            S3Metrics metrics = new S3Metrics(s.sink(), s.metrics());
            s.metrics().registerFamilies(metrics::render);
            return new S3Sink(client, transfer, bucket, prefix, c, journal, options.maxInFlight(), options.log(),
                    metrics);
        } catch (IOException | RuntimeException e) {
            journal.close();
            if (transfer != null) transfer.close();
            if (client != null) client.close();
            throw e;
        }
    }

    /**
     * The journal's file name: the sink's name and a hash of endpoint, bucket and prefix, so that another target
     * never inherits the positions.
     */
    static String journalName(SinkSpec spec, String sink, S3Settings settings) {
        String key = S3Clients.endpoint(settings) + "|" + bucket(spec.target()) + "|" + prefix(spec.target());
        return "s3-journal-" + safe(sink) + "-" + String.format("%08x", key.hashCode()) + ".log";
    }

    /**
     * The positions the s3 sink {@code sink} has recorded done in the state directory, read without opening the sink
     * or changing anything: for {@code --dry-run}. Empty when it has no journal yet.
     */
    public static List<Checkpoint> readCommitted(SinkSpec spec, Path state, String sink, S3Settings settings,
                                                 ShipLog log) throws IOException {
        return S3Journal.readPositions(state, journalName(spec, sink, settings), log);
    }

    private static String safe(String name) {
        StringBuilder b = new StringBuilder();
        for (byte c : name.getBytes(StandardCharsets.UTF_8)) {
            if (c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-') {
                b.append((char) c);
            } else {
                b.append('_').append(String.format("%02X", c & 0xFF));
            }
        }
        return b.toString();
    }
}
