package io.jfio.ship.sink;

import io.jfio.ship.log.ShipLog;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * Thread-safe; the registry is loaded once and then only read. The registry of sink kinds: the {@link SinkFactory}
 * of each scheme, found with {@link ServiceLoader} in {@code META-INF/services/io.jfio.ship.sink.SinkFactory}, and
 * the opening of the sink a {@link SinkSpec} names.
 */
public final class Sinks {
    private Sinks() {
    }

    /**
     * What sinks take from the shipper's configuration.
     *
     * @param segmentSize the dir sink's segment size
     * @param maxInFlight bytes the pipeline keeps unacknowledged before it pauses reading
     * @param bufferSize  the pipeline's read buffer: the most one batch can hold
     * @param raw         every input of the sink is raw (kafka sinks then send one record per batch)
     * @param log         where sinks log
     * @param outputMode  the mode of files the sink creates
     * @param settings    each kind's own settings, by their type ({@code TcpSinkFactory.Settings}, ...)
     */
    public record Options(long segmentSize, long maxInFlight, long bufferSize, boolean raw, ShipLog log,
                          int outputMode, Map<Class<?>, Object> settings) {
        /** Copies the settings. */
        public Options {
            settings = Map.copyOf(settings);
        }

        /**
         * The settings of type {@code type}.
         *
         * @throws IllegalStateException when the shipper gave none (a sink kind it does not configure)
         */
        public <T> T setting(Class<T> type) {
            Object v = settings.get(type);
            if (v == null) throw new IllegalStateException("no " + type.getName() + " in the sink options");
            return type.cast(v);
        }
    }

    /** The factories by scheme, in the order the service files list them. */
    private static final class Registry {
        static final Map<String, SinkFactory> FACTORIES = load();

        private static Map<String, SinkFactory> load() {
            Map<String, SinkFactory> m = new LinkedHashMap<>();
            for (SinkFactory f : ServiceLoader.load(SinkFactory.class, Sinks.class.getClassLoader())) {
                SinkFactory before = m.putIfAbsent(f.scheme(), f);
                if (before != null) {
                    throw new IllegalStateException("two sinks for scheme " + f.scheme() + ": "
                            + before.getClass().getName() + " and " + f.getClass().getName());
                }
            }
            return Map.copyOf(m);
        }
    }

    /** The factory of {@code scheme} (lower case), or null when this build has no such sink. */
    public static SinkFactory factory(String scheme) {
        return Registry.FACTORIES.get(scheme);
    }

    /** The accepted forms of every sink of this build, for messages: {@code dir:PATH, tcp:HOST:PORT, ...}. */
    public static String forms() {
        List<String> forms = new ArrayList<>();
        for (SinkFactory f : Registry.FACTORIES.values()) forms.add(f.form());
        return String.join(", ", forms);
    }

    /**
     * Opens the sink {@code spec} names.
     *
     * @throws UnavailableException     when this build has no such sink
     * @throws IllegalArgumentException with a message for the user when the spec cannot name a sink (a bad kafka
     *                                  topic)
     * @throws IOException              when the sink cannot be opened (a directory that cannot be made, a lock held)
     */
    public static Sink open(SinkSpec spec, Options options) throws IOException {
        SinkFactory f = factory(spec.scheme());
        if (f == null) throw new UnavailableException("unknown sink: sink=" + spec);
        return f.open(spec, options);
    }

    /** {@link SinkFactory#requireResolvable} of the factory of {@code spec}'s scheme, if this build has one. */
    public static void requireResolvable(SinkSpec spec) throws java.net.UnknownHostException {
        SinkFactory f = factory(spec.scheme());
        if (f != null) f.requireResolvable(spec);
    }

    /** The sink named is not part of this build. */
    public static final class UnavailableException extends IOException {
        private static final long serialVersionUID = 1L;

        UnavailableException(String message) {
            super(message);
        }
    }
}
