package io.jfio.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTest {
    @Test
    void parsesNestedObjectsArraysAndScalars() {
        Object v = Json.parse("{\"a\": [1, 2.5, -3e2, true, false, null], \"b\": {\"c\": \"x\\\"y\\u0041\\n\"}}");
        assertEquals(1L, Json.at(v, "a", 0));
        assertEquals(2.5, Json.at(v, "a", 1));
        assertEquals(-300.0, Json.at(v, "a", 2));
        assertEquals(Boolean.TRUE, Json.at(v, "a", 3));
        assertEquals(Boolean.FALSE, Json.at(v, "a", 4));
        assertNull(Json.at(v, "a", 5));
        assertEquals("x\"yA\n", Json.at(v, "b", "c"));
        assertNull(Json.at(v, "missing", "deeper"));
        assertTrue(Double.isNaN(Json.number(v, "b", "c")));
    }

    @Test
    void skipsWarningsPrintedBeforeTheJson() {
        Object v = Json.parse("fio: file hash not empty on exit\n{\"x\": 1}");
        assertEquals(1L, Json.at(v, "x"));
    }

    @Test
    void rejectsMalformedInputNamingTheOffset() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Json.parse("{\"a\" 1}"));
        assertTrue(e.getMessage().contains("offset="), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Json.parse("no json here"));
        assertThrows(IllegalArgumentException.class, () -> Json.parse("[1, 2"));
    }

    @Test
    void writtenJsonParsesBackToTheSameValues() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", "tab\there \"quoted\"");
        m.put("n", 42L);
        m.put("d", 1.25);
        m.put("nan", Double.NaN);
        m.put("list", List.of(1L, "two", Map.of()));
        m.put("empty", List.of());
        Object back = Json.parse(Json.write(m));
        assertEquals("tab\there \"quoted\"", Json.at(back, "name"));
        assertEquals(42L, Json.at(back, "n"));
        assertEquals(1.25, Json.at(back, "d"));
        assertNull(Json.at(back, "nan"));
        assertEquals("two", Json.at(back, "list", 1));
        assertEquals(List.of(), Json.at(back, "empty"));
    }
}
