package io.jfio.ship.s3;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Immutable; thread-safe. The object key template: text with fields in braces.
 *
 * <ul>
 *   <li>{@code {prefix}}: the prefix of {@code s3://BUCKET/PREFIX}, with a trailing {@code /} when not empty;</li>
 *   <li>{@code {host}}: the host name;</li>
 *   <li>{@code {yyyy}}, {@code {MM}}, {@code {dd}}, {@code {HH}}, {@code {mm}}, {@code {ss}}: the UTC time the
 *       object's first byte arrived;</li>
 *   <li>{@code {file}}: the source file's name (its last path element); {@code {path}}: its whole path without the
 *       leading {@code /}; bytes other than letters, digits, {@code . _ -} (and {@code /} in a path) become
 *       {@code _}, and a {@code .} or {@code ..} element becomes {@code _};</li>
 *   <li>{@code {start}}, {@code {end}}: the byte range of the source the object holds, {@code [start, end)},
 *       as decimal numbers padded to 16 digits so that keys sort by offset;</li>
 *   <li>{@code {seq}}: the sink's object number, also padded, which keeps keys unique when a path starts over
 *       (truncated, or a new file under a rotated file's name): every template must hold it;</li>
 *   <li>{@code {ext}}: the codec's extension, {@code .gz}, {@code .zst} or nothing.</li>
 * </ul>
 */
public final class KeyTemplate {
    private static final Set<String> FIELDS = Set.of("prefix", "host", "yyyy", "MM", "dd", "HH", "mm", "ss", "file",
            "path", "start", "end", "seq", "ext");

    private final List<String> parts;

    private KeyTemplate(List<String> parts) {
        this.parts = parts;
    }

    /**
     * Checks a template: known fields only, balanced braces, {@code {seq}} present.
     *
     * @throws IllegalArgumentException naming the problem
     */
    public static void check(String template) {
        parse(template);
    }

    /** Parses a template (even entries are text, odd ones field names). */
    public static KeyTemplate parse(String template) {
        List<String> parts = new ArrayList<>();
        StringBuilder text = new StringBuilder();
        boolean seq = false;
        for (int i = 0; i < template.length(); i++) {
            char c = template.charAt(i);
            if (c == '}') throw bad(template, "'}' without '{'");
            if (c != '{') {
                text.append(c);
                continue;
            }
            int close = template.indexOf('}', i);
            if (close < 0) throw bad(template, "'{' without '}'");
            String field = template.substring(i + 1, close);
            if (!FIELDS.contains(field)) throw bad(template, "unknown field {" + field + "}");
            seq |= field.equals("seq");
            parts.add(text.toString());
            text.setLength(0);
            parts.add(field);
            i = close;
        }
        parts.add(text.toString());
        if (!seq) throw bad(template, "it must contain {seq}, which keeps keys unique when a path starts over");
        return new KeyTemplate(List.copyOf(parts));
    }

    private static IllegalArgumentException bad(String template, String why) {
        return new IllegalArgumentException("invalid s3 key-template: " + why + ": key-template=" + template
                + " (fields: " + String.join(" ", FIELDS.stream().sorted().map(f -> "{" + f + "}").toList()) + ")");
    }

    /**
     * The key of an object.
     *
     * @param prefix the sink's prefix (empty, or ending in {@code /})
     * @param host   the host name
     * @param source the source file's path
     * @param millis when its first byte arrived (epoch ms)
     * @param start  its first source offset
     * @param end    the source offset just past its last byte
     * @param seq    its number
     * @param ext    the codec's extension
     */
    public String key(String prefix, String host, String source, long millis, long start, long end, long seq,
                      String ext) {
        ZonedDateTime t = Instant.ofEpochMilli(millis).atZone(ZoneOffset.UTC);
        StringBuilder b = new StringBuilder(128);
        for (int i = 0; i < parts.size(); i++) {
            String p = parts.get(i);
            if (i % 2 == 0) {
                b.append(p);
                continue;
            }
            switch (p) {
                case "prefix" -> b.append(prefix);
                case "host" -> b.append(safe(host, false));
                case "yyyy" -> padded(b, t.getYear(), 4);
                case "MM" -> padded(b, t.getMonthValue(), 2);
                case "dd" -> padded(b, t.getDayOfMonth(), 2);
                case "HH" -> padded(b, t.getHour(), 2);
                case "mm" -> padded(b, t.getMinute(), 2);
                case "ss" -> padded(b, t.getSecond(), 2);
                case "file" -> b.append(safe(source.substring(source.lastIndexOf('/') + 1), false));
                case "path" -> b.append(safe(source.startsWith("/") ? source.substring(1) : source, true));
                case "start" -> padded(b, start, 16);
                case "end" -> padded(b, end, 16);
                case "seq" -> padded(b, seq, 16);
                case "ext" -> b.append(ext);
                default -> throw new IllegalStateException("field " + p);
            }
        }
        return b.toString();
    }

    /**
     * Appends {@code v} (not negative) in decimal, zeros in front up to {@code width} digits, as {@code %0<width>d}
     * would without a formatter per field (keys are made for every object).
     */
    static void padded(StringBuilder b, long v, int width) {
        String d = Long.toString(v);
        for (int i = d.length(); i < width; i++) b.append('0');
        b.append(d);
    }

    /** {@code name} with every character but ASCII letters, digits and {@code . _ -} (and '/') replaced by '_'. */
    static String safe(String name, boolean slashes) {
        if (name.isEmpty()) return "_";
        StringBuilder b = new StringBuilder(name.length());
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_'
                    || c == '-' || slashes && c == '/';
            b.append(ok ? c : '_');
        }
        // No "." or ".." element: some tools resolve them.
        String[] elements = b.toString().split("/", -1);
        for (int i = 0; i < elements.length; i++) {
            if (elements[i].equals(".") || elements[i].equals("..") || elements[i].isEmpty()) elements[i] = "_";
        }
        return String.join("/", elements);
    }
}
