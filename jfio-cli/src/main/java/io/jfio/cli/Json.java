package io.jfio.cli;

import java.util.List;
import java.util.Map;

/**
 * A minimal JSON writer for the tools' {@code --json} output: maps (keys in iteration order), lists, strings,
 * integral numbers, finite doubles, booleans and null. No dependency, by design: the tools ship as one jar.
 *
 * <p>Thread-safe; stateless. Output is RFC 8259 JSON, indented by two spaces. Strings are escaped so that the
 * output stays valid whatever they hold: quotes, backslashes and control characters, and unpaired surrogates
 * (which no UTF-8 encoder can write) as a backslash-u escape with four hexadecimal digits.
 */
public final class Json {
    private Json() {
    }

    /**
     * The JSON text of {@code value}.
     *
     * @throws IllegalArgumentException for a value of another type, a non-string map key or a non-finite number
     */
    public static String write(Object value) {
        StringBuilder sb = new StringBuilder(1024);
        write(sb, value, 0);
        return sb.toString();
    }

    private static void write(StringBuilder sb, Object value, int depth) {
        switch (value) {
            case null -> sb.append("null");
            case String s -> quote(sb, s);
            case Boolean b -> sb.append(b.booleanValue());
            case Integer i -> sb.append(i.intValue());
            case Long l -> sb.append(l.longValue());
            case Short s -> sb.append(s.shortValue());
            case Byte b -> sb.append(b.byteValue());
            case Double d -> {
                if (d.isNaN() || d.isInfinite()) throw new IllegalArgumentException("JSON has no " + d);
                sb.append(d.doubleValue());
            }
            case Map<?, ?> m -> writeObject(sb, m, depth);
            case List<?> l -> writeArray(sb, l, depth);
            default -> throw new IllegalArgumentException("cannot write as JSON: type=" + value.getClass().getName());
        }
    }

    private static void writeObject(StringBuilder sb, Map<?, ?> map, int depth) {
        if (map.isEmpty()) {
            sb.append("{}");
            return;
        }
        sb.append('{');
        boolean first = true;
        for (Map.Entry<?, ?> e : map.entrySet()) {
            if (!(e.getKey() instanceof String key)) {
                throw new IllegalArgumentException("JSON object keys must be strings: key=" + e.getKey());
            }
            if (!first) sb.append(',');
            first = false;
            newline(sb, depth + 1);
            quote(sb, key);
            sb.append(": ");
            write(sb, e.getValue(), depth + 1);
        }
        newline(sb, depth);
        sb.append('}');
    }

    private static void writeArray(StringBuilder sb, List<?> list, int depth) {
        if (list.isEmpty()) {
            sb.append("[]");
            return;
        }
        sb.append('[');
        for (int i = 0; i < list.size(); i++) {
            if (i > 0) sb.append(',');
            newline(sb, depth + 1);
            write(sb, list.get(i), depth + 1);
        }
        newline(sb, depth);
        sb.append(']');
    }

    private static void newline(StringBuilder sb, int depth) {
        sb.append('\n');
        sb.repeat(' ', 2 * depth);
    }

    /** Appends {@code s} as a JSON string literal. */
    static void quote(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case '\b' -> sb.append("\\b");
                case '\f' -> sb.append("\\f");
                default -> {
                    if (c < 0x20 || c == 0x7f) {
                        unicodeEscape(sb, c);
                    } else if (Character.isHighSurrogate(c) && i + 1 < s.length()
                            && Character.isLowSurrogate(s.charAt(i + 1))) {
                        sb.append(c).append(s.charAt(++i));
                    } else if (Character.isSurrogate(c)) {
                        unicodeEscape(sb, c);
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }

    private static void unicodeEscape(StringBuilder sb, char c) {
        sb.append("\\u");
        String hex = Integer.toHexString(c);
        sb.repeat('0', 4 - hex.length()).append(hex);
    }
}
