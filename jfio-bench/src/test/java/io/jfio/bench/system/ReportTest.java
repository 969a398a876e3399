package io.jfio.bench.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.bench.JsonText;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReportTest {
    @Test
    void shouldAlignValuesHideJsonOnlyFieldsAndWrapLongLists() {
        Report r = new Report();
        r.section("a", "First").put("k", "key", 1).put("long_key", "a longer key", true)
                .put("hidden", "hidden", "x", null);
        r.section("b", "Second").put("ops", "ops", Collections.nCopies(20, "ABCDEFGH")).put("n", "none", null);
        StringWriter w = new StringWriter();
        r.printText(new PrintWriter(w));
        List<String> lines = w.toString().lines().toList();
        assertEquals("First", lines.get(0));
        assertEquals("  key:           1", lines.get(1));
        assertEquals("  a longer key:  yes", lines.get(2));
        assertEquals("", lines.get(3));
        assertEquals("Second", lines.get(4));
        String indent = " ".repeat(17);
        assertEquals("  ops:           " + String.join(" ", Collections.nCopies(9, "ABCDEFGH")), lines.get(5));
        assertEquals(indent + String.join(" ", Collections.nCopies(9, "ABCDEFGH")), lines.get(6));
        assertEquals(indent + "ABCDEFGH ABCDEFGH", lines.get(7));
        assertEquals("  none:          n/a", lines.get(8));
        assertEquals(9, lines.size());
        String json = JsonText.write(r.toJsonTree());
        String head = "{\n  \"a\": {\n    \"k\": 1,\n    \"long_key\": true,\n    \"hidden\": \"x\"\n  },\n"
                + "  \"b\": {\n    \"ops\": [\n";
        assertTrue(json.startsWith(head), json);
        assertTrue(json.endsWith("\"ABCDEFGH\"\n    ],\n    \"n\": null\n  }\n}"), json);
    }
}
