package io.jfio.ship.log;

import io.jfio.core.sys.FileNames;
import java.io.PrintStream;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * Structured single-line logs: {@code ts=2025-01-01T12:00:00.123Z level=info event=rotation path=/x kind=rename}.
 * Values with spaces, quotes or {@code =} are quoted; one line per call, never interleaved.
 *
 * <p>Thread-safe.
 */
public final class ShipLog {
    private final PrintStream out;
    private final boolean debug;

    /**
     * A log writing to {@code out}.
     *
     * @param out   where lines go (stderr for the command)
     * @param debug whether {@link #debug} lines are written
     */
    public ShipLog(PrintStream out, boolean debug) {
        this.out = out;
        this.debug = debug;
    }

    /** A log to this process's stderr, without debug lines. */
    public static ShipLog stderr() {
        return new ShipLog(System.err, Boolean.getBoolean("jfio.ship.debug"));
    }

    /** Something worth knowing in normal operation. {@code kv} alternates keys and values. */
    public void info(String event, Object... kv) {
        write("info", event, kv);
    }

    /** Something went wrong and is being handled (a retry, a skipped file). */
    public void warn(String event, Object... kv) {
        write("warn", event, kv);
    }

    /** Something failed. */
    public void error(String event, Object... kv) {
        write("error", event, kv);
    }

    /** Detail for debugging; written only when enabled. */
    public void debug(String event, Object... kv) {
        if (debug) write("debug", event, kv);
    }

    private void write(String level, String event, Object... kv) {
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
