package io.jfio.bench.system;

import io.jfio.bench.JsonText;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A report made of titled sections of fields, each field with a stable snake_case key and a value, rendered either
 * as aligned {@code label: value} lines under headings or as one JSON object ({@code {section: {key: value}}}).
 *
 * <p>Not thread-safe; built and printed by one command. Values are what {@link JsonText} writes; each field may carry
 * its own human text (units, explanations), otherwise null prints as {@code n/a}, booleans as {@code yes}/{@code
 * no} and lists space-separated. A field with null text is in the JSON only: JSON keeps every key in every report
 * so that scripts can rely on them, while people need not read a line for what does not apply.
 */
public final class Report {
    /** Human output wraps long values (lists of opcodes, flags) at this column. */
    public static final int WIDTH = 100;

    /** One field: {@code key} in JSON, {@code label} and {@code text} in human output. */
    public record Field(String key, String label, Object value, String text) {
    }

    /** A titled group of fields. Not thread-safe. */
    public static final class Section {
        private final String key;
        private final String title;
        private final List<Field> fields = new ArrayList<>();

        private Section(String key, String title) {
            this.key = key;
            this.title = title;
        }

        /** Adds a field whose human text is derived from its value. */
        public Section put(String key, String label, Object value) {
            return put(key, label, value, defaultText(value));
        }

        /** Adds a field with its own human text; null text leaves the field out of the human output. */
        public Section put(String key, String label, Object value, String text) {
            for (Field f : fields) {
                if (f.key().equals(key)) throw new IllegalArgumentException("duplicate key: section=" + this.key
                        + " key=" + key);
            }
            fields.add(new Field(key, label, value, text));
            return this;
        }

        List<Field> fields() {
            return fields;
        }
    }

    private final Map<String, Section> sections = new LinkedHashMap<>();

    /** Adds a section; its key names the JSON member, its title the human heading. */
    public Section section(String key, String title) {
        if (sections.containsKey(key)) throw new IllegalArgumentException("duplicate section: section=" + key);
        Section s = new Section(key, title);
        sections.put(key, s);
        return s;
    }

    /** The value of a field, for callers that decide on what was found; null if absent. */
    public Object value(String sectionKey, String fieldKey) {
        Section s = sections.get(sectionKey);
        if (s == null) return null;
        for (Field f : s.fields) {
            if (f.key().equals(fieldKey)) return f.value();
        }
        return null;
    }

    static String defaultText(Object value) {
        return switch (value) {
            case null -> "n/a";
            case Boolean b -> b ? "yes" : "no";
            case List<?> l -> l.isEmpty() ? "none" : String.join(" ", l.stream().map(String::valueOf).toList());
            default -> String.valueOf(value);
        };
    }

    /** The report as nested maps, in insertion order, for {@link JsonText#write}. */
    public Map<String, Object> toJsonTree() {
        Map<String, Object> root = new LinkedHashMap<>();
        for (Section s : sections.values()) {
            Map<String, Object> m = new LinkedHashMap<>();
            for (Field f : s.fields) m.put(f.key(), f.value());
            root.put(s.key, m);
        }
        return root;
    }

    /** Prints the report as one JSON object. */
    public void printJson(PrintWriter out) {
        out.println(JsonText.write(toJsonTree()));
    }

    /** Prints headings and aligned {@code label: value} lines; one column for all sections, so they line up. */
    public void printText(PrintWriter out) {
        int labelWidth = 0;
        for (Section s : sections.values()) {
            for (Field f : s.fields) {
                if (f.text() != null) labelWidth = Math.max(labelWidth, f.label().length() + 1);
            }
        }
        boolean first = true;
        for (Section s : sections.values()) {
            if (!first) out.println();
            first = false;
            out.println(s.title);
            for (Field f : s.fields) {
                if (f.text() == null) continue;
                String prefix = "  " + f.label() + ":";
                prefix = prefix + " ".repeat(Math.max(1, labelWidth + 4 - prefix.length()));
                printWrapped(out, prefix, f.text());
            }
        }
    }

    /** Prints {@code text} after {@code prefix}, wrapping at spaces so that no line passes {@link #WIDTH}. */
    private static void printWrapped(PrintWriter out, String prefix, String text) {
        String indent = " ".repeat(prefix.length());
        StringBuilder line = new StringBuilder(prefix);
        boolean empty = true;
        for (String word : text.split(" ")) {
            if (!empty && line.length() + 1 + word.length() > WIDTH) {
                out.println(line);
                line.setLength(0);
                line.append(indent);
                empty = true;
            }
            if (!empty) line.append(' ');
            line.append(word);
            empty = false;
        }
        out.println(line);
    }
}
