package io.jfio.ship.sink;

import java.nio.file.Path;
import java.util.Locale;

/**
 * Where to ship, as written after {@code --to}: {@code dir:PATH}, {@code tcp:HOST:PORT}, {@code kafka:BOOTSTRAP/TOPIC}
 * or {@code stdout:}. Parsed and checked here; {@link Sinks#open} makes the sink.
 *
 * <p>Immutable.
 *
 * @param scheme the kind: {@code dir}, {@code tcp}, {@code kafka} or {@code stdout}
 * @param target what follows the scheme's colon (a path, {@code host:port}, {@code bootstrap/topic}, or empty)
 */
public record SinkSpec(String scheme, String target) {
    /** The directory sink's scheme. */
    public static final String DIR = "dir";
    /** The TCP sink's scheme. */
    public static final String TCP = "tcp";
    /** The Kafka sink's scheme. */
    public static final String KAFKA = "kafka";
    /** Standard output's scheme. */
    public static final String STDOUT = "stdout";

    /**
     * Parses a sink spec.
     *
     * @throws IllegalArgumentException with a message that shows the accepted forms
     */
    public static SinkSpec parse(String text) {
        String t = text.trim();
        int colon = t.indexOf(':');
        String scheme = (colon < 0 ? t : t.substring(0, colon)).toLowerCase(Locale.ROOT);
        String target = colon < 0 ? "" : t.substring(colon + 1);
        switch (scheme) {
            case DIR -> {
                if (target.isEmpty()) throw bad(text, "dir: needs a path");
                Path.of(target);
            }
            case TCP -> {
                int c = target.lastIndexOf(':');
                if (c <= 0 || c == target.length() - 1) throw bad(text, "tcp: needs HOST:PORT");
                port(text, target.substring(c + 1));
            }
            case KAFKA -> {
                int s = target.lastIndexOf('/');
                if (s <= 0 || s == target.length() - 1) throw bad(text, "kafka: needs BOOTSTRAP/TOPIC");
                for (String server : target.substring(0, s).split(",", -1)) {
                    int c = server.lastIndexOf(':');
                    if (c <= 0 || c == server.length() - 1) {
                        throw bad(text, "kafka: each bootstrap server is HOST:PORT");
                    }
                    port(text, server.substring(c + 1));
                }
                String topic = target.substring(s + 1);
                // ${input} becomes the input's name, made legal by the sink; the rest must be legal already.
                String fixed = topic.replace("${input}", "x");
                if (fixed.length() > 249 || fixed.equals(".") || fixed.equals("..")
                        || !fixed.matches("[a-zA-Z0-9._-]+")) {
                    throw bad(text, "kafka topic must be 1-249 characters of a-z A-Z 0-9 . _ - (and ${input})");
                }
            }
            case STDOUT -> {
                if (!target.isEmpty()) throw bad(text, "stdout: takes nothing after the colon");
            }
            default -> throw bad(text, "unknown sink");
        }
        return new SinkSpec(scheme, target);
    }

    /** For {@code dir:}: the directory. */
    public Path dir() {
        return Path.of(target);
    }

    /** For {@code tcp:}: the host (brackets of an IPv6 literal removed). */
    public String host() {
        String h = target.substring(0, target.lastIndexOf(':'));
        return h.startsWith("[") && h.endsWith("]") ? h.substring(1, h.length() - 1) : h;
    }

    /** For {@code tcp:}: the port. */
    public int port() {
        return Integer.parseInt(target.substring(target.lastIndexOf(':') + 1));
    }

    /** For {@code kafka:}: the bootstrap servers, comma-separated {@code host:port}. */
    public String bootstrap() {
        return target.substring(0, target.lastIndexOf('/'));
    }

    /** For {@code kafka:}: the topic. */
    public String topic() {
        return target.substring(target.lastIndexOf('/') + 1);
    }

    private static int port(String text, String p) {
        try {
            int port = Integer.parseInt(p);
            if (port >= 1 && port <= 65535) return port;
        } catch (NumberFormatException e) {
            // reported below
        }
        throw bad(text, "port must be 1-65535");
    }

    private static IllegalArgumentException bad(String text, String why) {
        return new IllegalArgumentException("invalid sink: " + why + ": value='" + text
                + "' (forms: dir:PATH, tcp:HOST:PORT, kafka:BOOTSTRAP/TOPIC, stdout:)");
    }

    @Override
    public String toString() {
        return scheme + ":" + target;
    }
}
