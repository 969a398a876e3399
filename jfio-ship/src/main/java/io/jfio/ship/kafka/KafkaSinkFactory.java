package io.jfio.ship.kafka;

import io.jfio.ship.sink.Sink;
import io.jfio.ship.sink.SinkFactory;
import io.jfio.ship.sink.SinkSpec;
import io.jfio.ship.sink.Sinks;
import java.time.Duration;
import java.util.Map;

/**
 * Thread-safe; stateless. The {@code kafka:BOOTSTRAP/TOPIC} sink: {@link KafkaSink}, set up by {@link Settings}.
 * Loads no Kafka client class before {@link #open}.
 */
public final class KafkaSinkFactory implements SinkFactory {
    /** The scheme. */
    public static final String SCHEME = "kafka";

    /**
     * What kafka sinks take from the shipper's configuration.
     *
     * @param compression the codec: none, gzip, snappy, lz4 or zstd
     * @param properties  producer properties applied over the sink's own
     */
    public record Settings(String compression, Map<String, String> properties) {
    }

    @Override
    public String scheme() {
        return SCHEME;
    }

    @Override
    public String form() {
        return "kafka:BOOTSTRAP/TOPIC";
    }

    @Override
    public void check(String target) {
        int s = target.lastIndexOf('/');
        if (s <= 0 || s == target.length() - 1) throw new IllegalArgumentException("kafka: needs BOOTSTRAP/TOPIC");
        for (String server : target.substring(0, s).split(",", -1)) {
            int c = server.lastIndexOf(':');
            if (c <= 0 || c == server.length() - 1) {
                throw new IllegalArgumentException("kafka: each bootstrap server is HOST:PORT");
            }
            String p = server.substring(c + 1);
            boolean ok;
            try {
                int port = Integer.parseInt(p);
                ok = port >= 1 && port <= 65535;
            } catch (NumberFormatException e) {
                ok = false;
            }
            if (!ok) throw new IllegalArgumentException("port must be 1-65535");
        }
        // ${input} becomes the input's name, made legal by the sink; the rest must be legal already.
        String fixed = target.substring(s + 1).replace("${input}", "x");
        if (fixed.length() > 249 || fixed.equals(".") || fixed.equals("..") || !fixed.matches("[a-zA-Z0-9._-]+")) {
            throw new IllegalArgumentException("kafka topic must be 1-249 characters of a-z A-Z 0-9 . _ - "
                    + "(and ${input})");
        }
    }

    @Override
    public Sink open(SinkSpec spec, Sinks.Options options) {
        Settings s = options.setting(Settings.class);
        // send() blocks the pipeline thread (and so a stop) up to max.block.ms while the cluster is away; the files
        // are the buffer, so failing after a few seconds and retrying with backoff loses nothing.
        KafkaSink.Options o = KafkaSink.Options.defaults().withCompression(s.compression())
                .withRaw(options.raw()).withMaxBlock(Duration.ofSeconds(5));
        for (var e : s.properties().entrySet()) o = o.withProperty(e.getKey(), e.getValue());
        return new KafkaSink(bootstrap(spec), topic(spec), o);
    }

    /** One bootstrap server must resolve: the producer asks it for the rest of the cluster. */
    @Override
    public void requireResolvable(SinkSpec spec) throws java.net.UnknownHostException {
        java.net.UnknownHostException first = null;
        for (String host : bootstrapHosts(bootstrap(spec))) {
            try {
                java.net.InetAddress.getAllByName(host);
                return;
            } catch (java.net.UnknownHostException e) {
                if (first == null) first = e;
            }
        }
        if (first != null) throw first;
    }

    /** The hosts of a bootstrap list {@code HOST:PORT,HOST:PORT} (brackets of IPv6 literals removed). */
    static java.util.List<String> bootstrapHosts(String bootstrap) {
        java.util.List<String> hosts = new java.util.ArrayList<>();
        for (String server : bootstrap.split(",")) {
            String h = server.trim().substring(0, server.trim().lastIndexOf(':'));
            hosts.add(h.startsWith("[") && h.endsWith("]") ? h.substring(1, h.length() - 1) : h);
        }
        return hosts;
    }

    /** The bootstrap servers of a {@code kafka:} spec, comma-separated {@code host:port}. */
    public static String bootstrap(SinkSpec spec) {
        return spec.target().substring(0, spec.target().lastIndexOf('/'));
    }

    /** The topic of a {@code kafka:} spec. */
    public static String topic(SinkSpec spec) {
        return spec.target().substring(spec.target().lastIndexOf('/') + 1);
    }
}
