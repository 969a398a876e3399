package io.jfio.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;
import org.junit.jupiter.api.Test;

/** {@link Json} output, checked by an independent parser. */
class JsonTest {
    private static final ObjectMapper PARSER = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    @Test
    void shouldEscapeQuotesBackslashesAndControlCharacters() throws Exception {
        String s = "a\"b\\c\nd\re\tf\bg\fh\u0000i\u001fj\u007fk/l";
        assertEquals("\"a\\\"b\\\\c\\nd\\re\\tf\\bg\\fh\\u0000i\\u001fj\\u007fk/l\"", Json.write(s));
        assertEquals(s, PARSER.readTree(Json.write(s)).asText());
    }

    @Test
    void shouldKeepNonAsciiAndPairedSurrogatesAndEscapeLoneOnes() throws Exception {
        String s = "é€😀";
        assertEquals("\"" + s + "\"", Json.write(s));
        assertEquals(s, PARSER.readTree(Json.write(s)).asText());
        assertEquals("\"x\\ud800y\\udc00\"", Json.write("x\ud800y\udc00"));
    }

    @Test
    void shouldWriteNestedValuesInOrder() throws Exception {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("z", 1);
        m.put("a", List.of("x", 2L, true));
        m.put("n", null);
        m.put("e", Map.of());
        m.put("l", List.of());
        m.put("d", 1.5);
        String text = Json.write(m);
        assertEquals("{\n  \"z\": 1,\n  \"a\": [\n    \"x\",\n    2,\n    true\n  ],\n  \"n\": null,\n  \"e\": {},\n"
                + "  \"l\": [],\n  \"d\": 1.5\n}", text);
        JsonNode n = PARSER.readTree(text);
        assertEquals(List.of("z", "a", "n", "e", "l", "d"), names(n));
    }

    @Test
    void shouldRejectWhatJsonCannotHold() {
        assertThrows(IllegalArgumentException.class, () -> Json.write(Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> Json.write(Map.of(1, "x")));
        assertThrows(IllegalArgumentException.class, () -> Json.write(new Object()));
    }

    @Test
    void randomStringsRoundTripThroughAnIndependentParser() throws Exception {
        long seed = System.nanoTime();
        RandomGenerator rnd = RandomGeneratorFactory.of("L64X128MixRandom").create(seed);
        for (int i = 0; i < 2000; i++) {
            char[] cs = new char[rnd.nextInt(0, 24)];
            for (int j = 0; j < cs.length; j++) {
                // Mostly the characters that need care: controls, quotes, backslashes; some of everything else.
                cs[j] = switch (rnd.nextInt(4)) {
                    case 0 -> (char) rnd.nextInt(0, 0x20);
                    case 1 -> "\"\\/ \u007f".charAt(rnd.nextInt(5));
                    case 2 -> (char) rnd.nextInt(0x20, 0x7f);
                    default -> (char) rnd.nextInt(0x80, 0xd800);
                };
            }
            String s = new String(cs);
            assertEquals(s, PARSER.readTree(Json.write(s)).asText(), "seed=" + seed + " input="
                    + Arrays.toString(s.chars().toArray()));
        }
    }

    private static List<String> names(JsonNode n) {
        List<String> names = new ArrayList<>();
        n.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
