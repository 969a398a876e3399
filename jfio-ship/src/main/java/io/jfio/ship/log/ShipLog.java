package io.jfio.ship.log;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import io.jfio.core.sys.FileNames;
import java.io.PrintStream;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * Structured single-line logs, in logfmt ({@code ts=2025-01-01T12:00:00.123Z level=info event=rotation path=/x
 * kind=rename}; values with spaces, quotes or {@code =} are quoted) or as one JSON object per line ({@code
 * {"ts":"...","level":"info","event":"rotation","path":"/x","kind":"rename"}}; numbers and booleans as such). Lines
 * below the log's level are not written. Bytes of a file name that are not UTF-8 show as {@code \xNN} in both.
 * One line per call, never interleaved.
 *
 * <p>Thread-safe.
 */
public final class ShipLog {
    /** The levels, from the most detailed. */
    public enum Level {
        DEBUG, INFO, WARN, ERROR;

        /** The level named {@code name} (debug, info, warn, error; any case). */
        public static Level of(String name) {
            for (Level l : values()) {
                if (l.name().equalsIgnoreCase(name)) return l;
            }
            throw new IllegalArgumentException("log level must be one of debug, info, warn, error; got '" + name
                    + "'");
        }
    }

    /** How lines are written. */
    public enum Format {
        LOGFMT, JSON;

        /** The format named {@code name} (logfmt, json; any case). */
        public static Format of(String name) {
            for (Format f : values()) {
                if (f.name().equalsIgnoreCase(name)) return f;
            }
            throw new IllegalArgumentException("log format must be logfmt or json; got '" + name + "'");
        }
    }

    private final PrintStream out;
    private final Level level;
    private final Format format;

    /**
     * A logfmt log writing to {@code out}.
     *
     * @param out   where lines go (stderr for the command)
     * @param debug whether {@link #debug} lines are written
     */
    public ShipLog(PrintStream out, boolean debug) {
        this(out, debug ? Level.DEBUG : Level.INFO, Format.LOGFMT);
    }

    /**
     * A log writing to {@code out} the lines of {@code level} and above, in {@code format}.
     *
     * @param out    where lines go
     * @param level  the least severe level written
     * @param format logfmt or JSON
     */
    public ShipLog(PrintStream out, Level level, Format format) {
        this.out = out;
        this.level = level;
        this.format = format;
    }

    /** A logfmt log to this process's stderr, without debug lines (unless {@code -Djfio.ship.debug=true}). */
    public static ShipLog stderr() {
        return new ShipLog(System.err, Boolean.getBoolean("jfio.ship.debug"));
    }

    /** A log to this process's stderr of {@code level} and above in {@code format}. */
    public static ShipLog stderr(Level level, Format format) {
        return new ShipLog(System.err, Boolean.getBoolean("jfio.ship.debug") ? Level.DEBUG : level, format);
    }

    /** Something worth knowing in normal operation. {@code kv} alternates keys and values. */
    public void info(String event, Object... kv) {
        if (level.compareTo(Level.INFO) <= 0) write("info", event, kv);
    }

    /** Something went wrong and is being handled (a retry, a skipped file). */
    public void warn(String event, Object... kv) {
        if (level.compareTo(Level.WARN) <= 0) write("warn", event, kv);
    }

    /** Something failed. */
    public void error(String event, Object... kv) {
        write("error", event, kv);
    }

    /** Detail for debugging; written only when enabled. */
    public void debug(String event, Object... kv) {
        if (level == Level.DEBUG) write("debug", event, kv);
    }

    /** Whether {@link #debug} lines are written. */
    public boolean debugEnabled() {
        return level == Level.DEBUG;
    }

    private void write(String level, String event, Object... kv) {
        if (format == Format.JSON) {
            writeJson(level, event, kv);
            return;
        }
        StringBuilder b = new StringBuilder(96);
        b.append("ts=").append(Instant.now().truncatedTo(ChronoUnit.MILLIS)).append(" level=").append(level)
                .append(" event=").append(event);
        for (int i = 0; i + 1 < kv.length; i += 2) {
            b.append(' ').append(kv[i]).append('=');
            quote(b, String.valueOf(kv[i + 1]));
        }
        synchronized (this) {
            out.println(b);
            out.flush();
        }
    }

    private void writeJson(String level, String event, Object... kv) {
        StringBuilder b = new StringBuilder(128);
        b.append("{\"ts\":\"").append(Instant.now().truncatedTo(ChronoUnit.MILLIS)).append("\",\"level\":\"")
                .append(level).append("\",\"event\":");
        json(b, event);
        for (int i = 0; i + 1 < kv.length; i += 2) {
            b.append(',');
            json(b, String.valueOf(kv[i]));
            b.append(':');
            Object v = kv[i + 1];
            if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte
                    || v instanceof Boolean) {
                b.append(v);
            } else if ((v instanceof Double || v instanceof Float) && Double.isFinite(((Number) v).doubleValue())) {
                b.append(v);
            } else {
                json(b, String.valueOf(v));
            }
        }
        b.append('}');
        synchronized (this) {
            out.println(b);
            out.flush();
        }
    }

    /** {@code v} as a JSON string: escaped by Jackson, after each byte of a name that is not UTF-8 became \\xNN. */
    private static void json(StringBuilder b, String v) {
        b.append('"').append(JsonStringEncoder.getInstance().quoteAsString(FileNames.show(v))).append('"');
    }

    private static void quote(StringBuilder b, String v) {
        boolean plain = !v.isEmpty();
        for (int i = 0; i < v.length() && plain; i++) {
            char c = v.charAt(i);
            plain = c > ' ' && c != '"' && c != '=' && c != '\\' && c < 0x7f;
        }
        if (plain) {
            b.append(v);
            return;
        }
        b.append('"');
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < ' ' || c == 0x7f) {
                        b.append(String.format("\\x%02x", (int) c));
                    } else if (FileNames.isEscape(v, i)) {
                        b.append(String.format("\\x%02x", c & 0xff)); // a byte of a name that is not UTF-8
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        b.append('"');
    }
}
