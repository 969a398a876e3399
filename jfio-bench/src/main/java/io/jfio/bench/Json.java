package io.jfio.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small JSON reader and writer, enough for fio's output and the benchmark reports: objects become
 * {@link LinkedHashMap}s (key order kept), arrays {@link List}s, numbers {@link Long} when integral and in range else
 * {@link Double}, plus {@link String}, {@link Boolean} and null.
 *
 * <p>Thread-safe; stateless. Written here rather than pulled in as a dependency: the benchmark only needs to read a
 * few fields from fio and write flat reports.
 */
public final class Json {
    private Json() {
    }

    /**
     * Parses one JSON value. Text before the first {@code '{'} or {@code '['} is skipped, because fio prints warnings
     * ("fio: ...") ahead of its JSON on stdout.
     *
     * @throws IllegalArgumentException naming the offset of malformed input
     */
    public static Object parse(String text) {
        int start = 0;
        while (start < text.length() && text.charAt(start) != '{' && text.charAt(start) != '[') start++;
        if (start == text.length()) throw new IllegalArgumentException("no JSON object or array in input");
        Reader r = new Reader(text, start);
        Object v = r.value();
        return v;
    }

    /** {@code path} walked through nested objects ({@code "jobs"}, then list index as an Integer, ...), or null. */
    public static Object at(Object root, Object... path) {
        Object cur = root;
        for (Object key : path) {
            if (cur instanceof Map<?, ?> m && key instanceof String s) {
                cur = m.get(s);
            } else if (cur instanceof List<?> l && key instanceof Integer i) {
                cur = i >= 0 && i < l.size() ? l.get(i) : null;
            } else {
                return null;
            }
        }
        return cur;
    }

    /** The number at {@code path}, or NaN if absent or not a number. */
    public static double number(Object root, Object... path) {
        return at(root, path) instanceof Number n ? n.doubleValue() : Double.NaN;
    }

    private static final class Reader {
        private final String s;
        private int i;

        Reader(String s, int start) {
            this.s = s;
            this.i = start;
        }

        private IllegalArgumentException error(String what) {
            return new IllegalArgumentException("malformed JSON: " + what + " at offset=" + i);
        }

        private void ws() {
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) i++;
        }

        Object value() {
            ws();
            if (i >= s.length()) throw error("unexpected end");
            char c = s.charAt(i);
            return switch (c) {
                case '{' -> object();
                case '[' -> array();
                case '"' -> string();
                case 't' -> literal("true", Boolean.TRUE);
                case 'f' -> literal("false", Boolean.FALSE);
                case 'n' -> literal("null", null);
                default -> {
                    if (c == '-' || (c >= '0' && c <= '9')) yield number();
                    throw error("unexpected character '" + c + "'");
                }
            };
        }

        private Object literal(String word, Object v) {
            if (!s.startsWith(word, i)) throw error("expected " + word);
            i += word.length();
            return v;
        }

        private Map<String, Object> object() {
            Map<String, Object> m = new LinkedHashMap<>();
            i++;
            ws();
            if (peek() == '}') {
                i++;
                return m;
            }
            while (true) {
                ws();
                if (peek() != '"') throw error("expected a key");
                String k = string();
                ws();
                if (peek() != ':') throw error("expected ':'");
                i++;
                m.put(k, value());
                ws();
                char c = peek();
                i++;
                if (c == '}') return m;
                if (c != ',') throw error("expected ',' or '}'");
            }
        }

        private List<Object> array() {
            List<Object> l = new ArrayList<>();
            i++;
            ws();
            if (peek() == ']') {
                i++;
                return l;
            }
            while (true) {
                l.add(value());
                ws();
                char c = peek();
                i++;
                if (c == ']') return l;
                if (c != ',') throw error("expected ',' or ']'");
            }
        }

        private char peek() {
            if (i >= s.length()) throw error("unexpected end");
            return s.charAt(i);
        }

        private String string() {
            i++; // opening quote
            StringBuilder sb = new StringBuilder();
            while (true) {
                char c = peek();
                i++;
                if (c == '"') return sb.toString();
                if (c != '\\') {
                    sb.append(c);
                    continue;
                }
                char e = peek();
                i++;
                switch (e) {
                    case '"', '\\', '/' -> sb.append(e);
                    case 'b' -> sb.append('\b');
                    case 'f' -> sb.append('\f');
                    case 'n' -> sb.append('\n');
                    case 'r' -> sb.append('\r');
                    case 't' -> sb.append('\t');
                    case 'u' -> {
                        if (i + 4 > s.length()) throw error("short \\u escape");
                        sb.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        i += 4;
                    }
                    default -> throw error("bad escape '\\" + e + "'");
                }
            }
        }

        private Number number() {
            int start = i;
            boolean integral = true;
            if (peek() == '-') i++;
            while (i < s.length()) {
                char c = s.charAt(i);
                if (c >= '0' && c <= '9') {
                    i++;
                } else if (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
                    integral = false;
                    i++;
                } else {
                    break;
                }
            }
            String t = s.substring(start, i);
            try {
                if (integral && t.length() < 19) return Long.parseLong(t);
                return Double.parseDouble(t);
            } catch (NumberFormatException e) {
                throw error("bad number '" + t + "'");
            }
        }
    }

    // ------------------------------------------------------------------ writing

    /**
     * Writes {@code value} (Map, List/array, String, Number, Boolean, null, records via their own conversion to
     * Map first) as indented JSON. Non-finite doubles become null.
     */
    public static String write(Object value) {
        StringBuilder sb = new StringBuilder();
        write(sb, value, 0);
        return sb.append('\n').toString();
    }

    private static void write(StringBuilder sb, Object v, int indent) {
        if (v == null) {
            sb.append("null");
        } else if (v instanceof String s) {
            quote(sb, s);
        } else if (v instanceof Double d) {
            if (d.isNaN() || d.isInfinite()) {
                sb.append("null");
            } else if (d == Math.rint(d) && Math.abs(d) < 1e15) {
                sb.append((long) (double) d);
            } else {
                sb.append(d);
            }
        } else if (v instanceof Float f) {
            write(sb, (double) f, indent);
        } else if (v instanceof Number || v instanceof Boolean) {
            sb.append(v);
        } else if (v instanceof Map<?, ?> m) {
            if (m.isEmpty()) {
                sb.append("{}");
                return;
            }
            sb.append("{\n");
            int n = 0;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                pad(sb, indent + 1);
                quote(sb, String.valueOf(e.getKey()));
                sb.append(": ");
                write(sb, e.getValue(), indent + 1);
                if (++n < m.size()) sb.append(',');
                sb.append('\n');
            }
            pad(sb, indent);
            sb.append('}');
        } else if (v instanceof List<?> l) {
            if (l.isEmpty()) {
                sb.append("[]");
                return;
            }
            sb.append("[\n");
            for (int k = 0; k < l.size(); k++) {
                pad(sb, indent + 1);
                write(sb, l.get(k), indent + 1);
                if (k + 1 < l.size()) sb.append(',');
                sb.append('\n');
            }
            pad(sb, indent);
            sb.append(']');
        } else if (v instanceof double[] a) {
            List<Object> l = new ArrayList<>();
            for (double d : a) l.add(d);
            write(sb, l, indent);
        } else if (v instanceof Enum<?> e) {
            quote(sb, e.toString());
        } else {
            quote(sb, v.toString());
        }
    }

    private static void pad(StringBuilder sb, int indent) {
        sb.append("  ".repeat(indent));
    }

    private static void quote(StringBuilder sb, String s) {
        sb.append('"');
        for (int k = 0; k < s.length(); k++) {
            char c = s.charAt(k);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}
