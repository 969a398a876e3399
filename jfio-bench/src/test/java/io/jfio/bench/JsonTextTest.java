package io.jfio.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;
import org.junit.jupiter.api.Test;

/** {@link JsonText}: fio's output read, the reports' values written, checked by a strict parser. */
class JsonTextTest {
    private static final ObjectMapper PARSER = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    @Test
    void parsesObjectsArraysAndScalars() {
        Object v = JsonText.parse("{\"a\": [1, 2.5, -3e2, true, false, null], \"b\": {\"c\": \"x\\\"y\\u0041\\n\"}}");
        assertEquals(1L, JsonText.at(v, "a", 0));
        assertEquals(2.5, JsonText.at(v, "a", 1));
        assertEquals(-300.0, JsonText.at(v, "a", 2));
        assertEquals(Boolean.TRUE, JsonText.at(v, "a", 3));
        assertEquals(Boolean.FALSE, JsonText.at(v, "a", 4));
        assertNull(JsonText.at(v, "a", 5));
        assertEquals("x\"yA\n", JsonText.at(v, "b", "c"));
        assertNull(JsonText.at(v, "missing", "deeper"));
        assertTrue(Double.isNaN(JsonText.number(v, "b", "c")));
        assertEquals(List.of("a", "b"), List.copyOf(((Map<?, ?>) v).keySet()));
    }

    @Test
    void skipsWarningsPrintedBeforeTheJson() {
        Object v = JsonText.parse("fio: file hash not empty on exit\n{\"x\": 1}");
        assertEquals(1L, JsonText.at(v, "x"));
    }

    @Test
    void rejectsMalformedInputNamingWhere() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> JsonText.parse("{\"a\" 1}"));
        assertTrue(e.getMessage().startsWith("malformed JSON: ") && e.getMessage().contains("column="),
                e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> JsonText.parse("no json here"));
        assertThrows(IllegalArgumentException.class, () -> JsonText.parse("[1, 2"));
    }

    @Test
    void writtenJsonParsesBackToTheSameValues() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", "tab\there \"quoted\"");
        m.put("n", 42L);
        m.put("d", 1.25);
        m.put("nan", Double.NaN);
        m.put("inf", Float.POSITIVE_INFINITY);
        m.put("list", List.of(1L, "two", Map.of()));
        m.put("doubles", new double[] {0.5, Double.NaN});
        m.put("enum", Thread.State.NEW);
        m.put("empty", List.of());
        Object back = JsonText.parse(JsonText.write(m));
        assertEquals("tab\there \"quoted\"", JsonText.at(back, "name"));
        assertEquals(42L, JsonText.at(back, "n"));
        assertEquals(1.25, JsonText.at(back, "d"));
        assertTrue(((Map<?, ?>) back).containsKey("nan"));
        assertNull(JsonText.at(back, "nan"));
        assertNull(JsonText.at(back, "inf"));
        assertEquals("two", JsonText.at(back, "list", 1));
        assertEquals(Arrays.asList(0.5, null), JsonText.at(back, "doubles"));
        assertEquals("NEW", JsonText.at(back, "enum"));
        assertEquals(List.of(), JsonText.at(back, "empty"));
    }

    @Test
    void writesTwoSpaceIndentedObjectsInInsertionOrder() throws Exception {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("z", 1);
        m.put("a", List.of("x", 2L, true));
        m.put("n", null);
        m.put("e", Map.of());
        m.put("l", List.of());
        m.put("d", 1.5);
        String text = JsonText.write(m);
        assertEquals("{\n  \"z\": 1,\n  \"a\": [\n    \"x\",\n    2,\n    true\n  ],\n  \"n\": null,\n  \"e\": {},\n"
                + "  \"l\": [],\n  \"d\": 1.5\n}", text);
        List<String> names = new ArrayList<>();
        PARSER.readTree(text).fieldNames().forEachRemaining(names::add);
        assertEquals(List.of("z", "a", "n", "e", "l", "d"), names);
    }

    @Test
    void escapesControlsQuotesBackslashesDelAndSurrogates() throws Exception {
        String s = "a\"b\\c\nd\re\tf\bg\fh\u0000i\u001fj\u007fk/l";
        String text = JsonText.write(s);
        assertTrue(text.contains("\\u007f") || text.contains("\\u007F"), text);
        assertEquals(s, PARSER.readTree(text).asText());
        // A lone surrogate has no UTF-8 form: escaped, the text stays valid UTF-8 and parses back to it.
        String lone = "x\ud800y\udc00";
        String loneText = JsonText.write(lone);
        assertEquals("\"x\\ud800y\\udc00\"", loneText);
        assertEquals(lone, PARSER.readTree(loneText.getBytes(StandardCharsets.UTF_8)).asText());
        String paired = "caf\u00e9 \ud83d\ude00";
        assertEquals(paired, PARSER.readTree(JsonText.write(paired).getBytes(StandardCharsets.UTF_8)).asText());
    }

    @Test
    void randomStringsRoundTripThroughAStrictParser() throws Exception {
        long seed = System.nanoTime();
        RandomGenerator rnd = RandomGeneratorFactory.of("L64X128MixRandom").create(seed);
        for (int i = 0; i < 2000; i++) {
            char[] cs = new char[rnd.nextInt(0, 24)];
            for (int j = 0; j < cs.length; j++) {
                // Mostly the characters that need care: controls, quotes, backslashes, surrogates; some of the rest.
                cs[j] = switch (rnd.nextInt(5)) {
                    case 0 -> (char) rnd.nextInt(0, 0x20);
                    case 1 -> "\"\\/ \u007f".charAt(rnd.nextInt(5));
                    case 2 -> (char) rnd.nextInt(0x20, 0x7f);
                    case 3 -> (char) rnd.nextInt(0xd800, 0xe000);
                    default -> (char) rnd.nextInt(0x80, 0xd800);
                };
            }
            String s = new String(cs);
            byte[] utf8 = JsonText.write(s).getBytes(StandardCharsets.UTF_8);
            assertEquals(s, PARSER.readTree(utf8).asText(), "seed=" + seed + " input="
                    + Arrays.toString(s.chars().toArray()));
        }
    }
}
