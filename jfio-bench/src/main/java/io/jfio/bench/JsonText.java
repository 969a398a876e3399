package io.jfio.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * JSON for the tools, with Jackson: reading fio's output, writing results.json and {@code jfio info --json}.
 *
 * <p>Thread-safe; the mapper and writer are configured once and shared. Values are written as the reports build
 * them: maps (keys in iteration order), lists and collections, {@code double[]}, strings, numbers, booleans and
 * null; a non-finite number becomes null (JSON has no NaN), an enum or any other object its {@code toString()}.
 * Output is indented by two spaces, {@code "key": value}, one element per line. Surrogates and DEL are written as
 * backslash-u escapes, so that the text stays valid UTF-8 whatever a string holds (a lone surrogate has no UTF-8
 * encoding). Parsed values are {@link java.util.LinkedHashMap}s, {@link java.util.ArrayList}s, {@link Long} for
 * integers that fit, {@link Double}, {@link String}, {@link Boolean} and null.
 */
public final class JsonText {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.USE_LONG_FOR_INTS)
            .build();
    private static final ObjectWriter WRITER = MAPPER.writer(printer()).with(new Escapes());

    private JsonText() {
    }

    /** The JSON text of {@code value}, without a trailing newline. */
    public static String write(Object value) {
        try {
            return WRITER.writeValueAsString(toNode(value));
        } catch (JsonProcessingException e) {
            // A tree of plain nodes written to a string has nothing that can fail.
            throw new IllegalStateException("cannot write JSON: " + e.getOriginalMessage(), e);
        }
    }

    /**
     * Parses one JSON value. Text before the first <code>'&#123;'</code> or {@code '['} is skipped, because fio
     * prints warnings ("fio: ...") ahead of its JSON on stdout.
     *
     * @throws IllegalArgumentException naming the line and column of malformed input
     */
    public static Object parse(String text) {
        int start = 0;
        while (start < text.length() && text.charAt(start) != '{' && text.charAt(start) != '[') start++;
        if (start == text.length()) throw new IllegalArgumentException("no JSON object or array in input");
        try {
            return MAPPER.readValue(text.substring(start), Object.class);
        } catch (JsonProcessingException e) {
            var where = e.getLocation();
            throw new IllegalArgumentException("malformed JSON: " + e.getOriginalMessage()
                    + (where == null ? "" : " at line=" + where.getLineNr() + " column=" + where.getColumnNr()), e);
        }
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

    /** The Jackson tree of a value as the reports build it (see the class comment for the mapping). */
    static JsonNode toNode(Object v) {
        return switch (v) {
            case null -> NODES.nullNode();
            case String s -> NODES.textNode(s);
            case Boolean b -> NODES.booleanNode(b);
            case Double d -> Double.isFinite(d) ? NODES.numberNode(d) : NODES.nullNode();
            case Float f -> Float.isFinite(f) ? NODES.numberNode((double) f) : NODES.nullNode();
            case BigDecimal d -> NODES.numberNode(d);
            case BigInteger i -> NODES.numberNode(i);
            case Number n -> NODES.numberNode(n.longValue());
            case Map<?, ?> m -> {
                ObjectNode o = NODES.objectNode();
                for (Map.Entry<?, ?> e : m.entrySet()) o.set(String.valueOf(e.getKey()), toNode(e.getValue()));
                yield o;
            }
            case Collection<?> c -> {
                ArrayNode a = NODES.arrayNode(c.size());
                for (Object e : c) a.add(toNode(e));
                yield a;
            }
            case double[] ds -> {
                ArrayNode a = NODES.arrayNode(ds.length);
                for (double d : ds) a.add(toNode(d));
                yield a;
            }
            default -> NODES.textNode(v.toString());
        };
    }

    private static DefaultPrettyPrinter printer() {
        DefaultIndenter lines = new DefaultIndenter("  ", "\n");
        Separators separators = Separators.createDefaultInstance()
                .withObjectFieldValueSpacing(Separators.Spacing.AFTER)
                .withObjectEmptySeparator("")
                .withArrayEmptySeparator("");
        return new DefaultPrettyPrinter(separators).withObjectIndenter(lines).withArrayIndenter(lines);
    }

    /** Jackson's standard escapes, plus DEL and every surrogate as a backslash-u escape. Immutable. */
    private static final class Escapes extends CharacterEscapes {
        private static final int[] ASCII = standardAsciiEscapesForJSON();

        static {
            ASCII[0x7f] = ESCAPE_STANDARD;
        }

        @Override
        public int[] getEscapeCodesForAscii() {
            return ASCII;
        }

        @Override
        public SerializableString getEscapeSequence(int ch) {
            if (!Character.isSurrogate((char) ch)) return null;
            return new SerializedString(String.format("\\u%04x", ch));
        }
    }
}
