package io.jfio.ship.harvest;

import io.jfio.ship.config.Multiline;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Not thread-safe: a regular expression's matcher keeps a copy of the line; one instance per pipeline thread.
 *
 * <p>Tells whether a line (bytes {@code [from, to)} of native memory, without its newline) matches: a regular
 * expression searched in the line's bytes, or one of the multiline presets, which look at the first bytes only and
 * cost a few comparisons per line.
 */
public abstract sealed class LineMatcher {
    LineMatcher() {
    }

    /** Whether bytes {@code [from, to)} of {@code seg} match. */
    public abstract boolean matches(MemorySegment seg, long from, long to);

    /** The matcher of a multiline setting: its preset's, or its pattern's. */
    public static LineMatcher of(Multiline m) {
        if (m.preset() == null) return regex(m.pattern());
        return switch (m.preset()) {
            case Multiline.JAVA -> new JavaContinuation();
            case Multiline.ISO8601 -> new IsoTimestamp();
            default -> throw new IllegalArgumentException("unknown multiline preset: preset=" + m.preset());
        };
    }

    /** A regular expression searched for in a line's bytes (see {@link Multiline#compile}). */
    public static LineMatcher regex(String regex) {
        return new Regex(Multiline.compile("pattern", regex));
    }

    private static byte at(MemorySegment seg, long i) {
        return seg.get(ValueLayout.JAVA_BYTE, i);
    }

    /**
     * A line's bytes as chars (one per byte, ISO-8859-1) for {@link Pattern}: the line is copied into a reused array
     * (the file's bytes are in native memory, which a CharSequence cannot expose without a copy), never decoded.
     */
    private static final class Regex extends LineMatcher implements CharSequence {
        private final Matcher matcher;
        private byte[] line = new byte[256];
        private int length;

        Regex(Pattern p) {
            this.matcher = p.matcher("");
        }

        @Override
        public boolean matches(MemorySegment seg, long from, long to) {
            int n = (int) (to - from);
            if (n > line.length) line = new byte[Math.max(n, line.length * 2)];
            MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, from, line, 0, n);
            length = n;
            return matcher.reset(this).find();
        }

        @Override
        public int length() {
            return length;
        }

        @Override
        public char charAt(int index) {
            if (index >= length) throw new IndexOutOfBoundsException(index);
            return (char) (line[index] & 0xff);
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            return new String(line, start, end - start, java.nio.charset.StandardCharsets.ISO_8859_1);
        }

        @Override
        public String toString() {
            return new String(line, 0, length, java.nio.charset.StandardCharsets.ISO_8859_1);
        }
    }

    /**
     * The {@code java} preset, a continuation matcher: a line continues a record when it begins with a space or a tab
     * (the {@code at ...} frames, {@code ... 12 more}, an indented {@code Suppressed:}), with {@code Caused by:}, or
     * with an exception's qualified class name followed by {@code :} or the end of the line
     * ({@code java.lang.IllegalStateException: boom}, which a logger writes on the line after its message).
     */
    private static final class JavaContinuation extends LineMatcher {
        private static final byte[] CAUSED_BY = "Caused by:".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

        @Override
        public boolean matches(MemorySegment seg, long from, long to) {
            if (from == to) return false;
            byte first = at(seg, from);
            if (first == ' ' || first == '\t') return true;
            if (startsWith(seg, from, to, CAUSED_BY)) return true;
            return exceptionHeader(seg, from, to);
        }

        private static boolean startsWith(MemorySegment seg, long from, long to, byte[] prefix) {
            if (to - from < prefix.length) return false;
            for (int i = 0; i < prefix.length; i++) {
                if (at(seg, from + i) != prefix[i]) return false;
            }
            return true;
        }

        /** {@code a.b.SomeException}, {@code a.b.SomeError} or {@code a.b.Throwable}, then {@code :} or the end. */
        private static boolean exceptionHeader(MemorySegment seg, long from, long to) {
            boolean dot = false;
            long i = from;
            for (; i < to; i++) {
                byte b = at(seg, i);
                if (b == '.') {
                    dot = true;
                } else if (!(b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_'
                        || b == '$')) {
                    break;
                }
            }
            if (!dot || (i < to && at(seg, i) != ':')) return false;
            return endsWith(seg, from, i, "Exception") || endsWith(seg, from, i, "Error")
                    || endsWith(seg, from, i, "Throwable");
        }

        private static boolean endsWith(MemorySegment seg, long from, long end, String suffix) {
            int n = suffix.length();
            if (end - from < n) return false;
            for (int k = 0; k < n; k++) {
                if (at(seg, end - n + k) != suffix.charAt(k)) return false;
            }
            return true;
        }
    }

    /**
     * The {@code iso8601} preset, a start matcher: a line starts a record when it begins (after an optional
     * {@code [}) with {@code YYYY-MM-DD}, then {@code T} or a space, then {@code hh:mm}.
     */
    private static final class IsoTimestamp extends LineMatcher {
        private static final String SHAPE = "dddd-dd-ddTdd:dd";

        @Override
        public boolean matches(MemorySegment seg, long from, long to) {
            long i = from;
            if (i < to && at(seg, i) == '[') i++;
            if (to - i < SHAPE.length()) return false;
            for (int k = 0; k < SHAPE.length(); k++) {
                byte b = at(seg, i + k);
                char c = SHAPE.charAt(k);
                boolean ok = switch (c) {
                    case 'd' -> b >= '0' && b <= '9';
                    case 'T' -> b == 'T' || b == ' ';
                    default -> b == c;
                };
                if (!ok) return false;
            }
            return true;
        }
    }
}
