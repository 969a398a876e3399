package io.jfio.ship.config;

import java.time.Duration;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Immutable.
 *
 * <p>How an input's lines are joined into multiline records (a Java stack trace with the log line before it, a message
 * whose continuation lines are indented). A record begins at its first line; each following line either starts the
 * next record or continues this one:
 * <ul>
 *   <li>{@link Mode#START}: a line that {@code pattern} matches starts a record, every other line continues one;</li>
 *   <li>{@link Mode#CONTINUE}: a line that {@code pattern} matches continues the record, every other line starts
 *       one.</li>
 * </ul>
 * Presets give the pattern a name: {@code java} (continue: lines that begin with a space or a tab, {@code Caused
 * by:}, or an exception's class name such as {@code java.lang.IllegalStateException: ...}) and {@code iso8601}
 * (start: lines that begin with a date and time, {@code 2026-11-27T03:04:05} or {@code 2026-11-27 03:04}, optionally
 * after a {@code [}). A record also ends after {@code maxLines} lines or when the next line would take it past
 * {@code maxBytes}; the last record of a file waits for the line that starts the next, or ships when the file has not
 * grown for {@code timeout}.
 *
 * @param mode     whether the pattern marks first lines or continuation lines
 * @param preset   {@code java} or {@code iso8601}, or null for a regular expression
 * @param pattern  the regular expression (null with a preset); it is searched for anywhere in the line (anchor it
 *                 with {@code ^}) and matches the line's bytes: see {@link #compile}
 * @param maxLines the most lines a record holds
 * @param maxBytes the most bytes a record holds, its newlines included
 * @param timeout  after how long without growth a file's last record ships without the line that would end it
 */
public record Multiline(Mode mode, String preset, String pattern, int maxLines, long maxBytes, Duration timeout) {
    /** The default most lines of a record. */
    public static final int MAX_LINES_DEFAULT = 500;
    /** The default most bytes of a record. */
    public static final long MAX_BYTES_DEFAULT = 1L << 20;
    /** The default time a file's last record waits for the line that ends it. */
    public static final Duration TIMEOUT_DEFAULT = Duration.ofSeconds(1);
    /** The presets' names. */
    public static final String JAVA = "java";
    /** The ISO-8601 preset's name. */
    public static final String ISO8601 = "iso8601";

    /** What a matching line means. */
    public enum Mode {
        /** A matching line starts a record. */
        START,
        /** A matching line continues the record before it. */
        CONTINUE
    }

    public Multiline {
        if (maxLines < 1) throw new IllegalArgumentException("max-lines must be at least 1: max-lines=" + maxLines);
        if (maxBytes < 64) throw new IllegalArgumentException("max-bytes must be at least 64: max-bytes=" + maxBytes);
        if (timeout.isNegative()) throw new IllegalArgumentException("timeout must not be negative: " + timeout);
        if ((preset == null) == (pattern == null)) {
            throw new IllegalArgumentException("a multiline setting needs one of preset and pattern");
        }
    }

    /**
     * The pattern compiled to match a line's bytes: each byte is one char (ISO-8859-1), and the pattern's own non-ASCII
     * characters are turned into their UTF-8 bytes the same way, so that a literal {@code é} in the pattern matches
     * the two bytes of {@code é} in the file. A line is never decoded, so any bytes (invalid UTF-8 included) can be
     * matched; the price is that {@code .} and character classes see bytes, not characters outside ASCII.
     *
     * @throws IllegalArgumentException naming the pattern and the problem when it is not a valid expression
     */
    public static Pattern compile(String key, String regex) {
        String bytes = new String(regex.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                java.nio.charset.StandardCharsets.ISO_8859_1);
        try {
            return Pattern.compile(bytes);
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException("invalid " + key + ": pattern='" + regex + "' ("
                    + e.getDescription() + " at index " + e.getIndex() + ")");
        }
    }
}
