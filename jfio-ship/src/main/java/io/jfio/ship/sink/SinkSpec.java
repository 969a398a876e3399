package io.jfio.ship.sink;

import java.nio.file.Path;
import java.util.Locale;

/**
 * Immutable. Where to ship, as written after {@code --to}: {@code SCHEME:TARGET}, such as {@code dir:PATH},
 * {@code tcp:HOST:PORT}, {@code kafka:BOOTSTRAP/TOPIC} or {@code stdout:}. The {@link SinkFactory} of the scheme
 * checks the target; {@link Sinks#open} makes the sink.
 *
 * @param scheme the kind, lower case: {@code dir}, {@code tcp}, {@code kafka}, {@code stdout}, ...
 * @param target what follows the scheme's colon (a path, {@code host:port}, {@code bootstrap/topic}, or empty)
 */
public record SinkSpec(String scheme, String target) {
    /** The directory sink's scheme. */
    public static final String DIR = "dir";
    /** Standard output's scheme. */
    public static final String STDOUT = "stdout";

    /**
     * Parses a sink spec; the sink kind of its scheme checks the rest.
     *
     * @throws IllegalArgumentException with a message that shows the accepted forms
     */
    public static SinkSpec parse(String text) {
        String t = text.trim();
        int colon = t.indexOf(':');
        String scheme = (colon < 0 ? t : t.substring(0, colon)).toLowerCase(Locale.ROOT);
        String target = colon < 0 ? "" : t.substring(colon + 1);
        SinkFactory f = Sinks.factory(scheme);
        if (f == null) throw bad(text, "unknown sink");
        try {
            f.check(target);
        } catch (IllegalArgumentException e) {
            throw bad(text, e.getMessage());
        }
        return new SinkSpec(scheme, target);
    }

    /** For {@code dir:}: the directory. */
    public Path dir() {
        return Path.of(target);
    }

    private static IllegalArgumentException bad(String text, String why) {
        return new IllegalArgumentException("invalid sink: " + why + ": value='" + text + "' (forms: "
                + Sinks.forms() + ")");
    }

    @Override
    public String toString() {
        return scheme + ":" + target;
    }
}
