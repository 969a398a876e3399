package io.jfio.ship.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jfio.core.sys.FileNames;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The log's two formats and its levels, read back by a JSON parser and by the logfmt rules. */
class ShipLogTest {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    private ShipLog log(ShipLog.Level level, ShipLog.Format format) {
        return new ShipLog(new PrintStream(bytes, true, StandardCharsets.UTF_8), level, format);
    }

    private List<String> lines() {
        return bytes.toString(StandardCharsets.UTF_8).lines().toList();
    }

    @Test
    void shouldWriteOneJsonObjectPerLineWithNumbersAsNumbersAndEveryValueEscaped() throws Exception {
        String name = FileNames.decode("/var/log/bad\377x \"q\"\n.log".getBytes(StandardCharsets.ISO_8859_1));
        log(ShipLog.Level.INFO, ShipLog.Format.JSON).info("file", "path", name, "size", 4096L, "open", true,
                "ratio", 0.5, "inputs", List.of("a", "b"), "nothing", null);
        List<String> lines = lines();
        assertEquals(1, lines.size(), lines.toString());
        JsonNode n = new ObjectMapper().readTree(lines.get(0));
        assertEquals("info", n.get("level").asText());
        assertEquals("file", n.get("event").asText());
        assertTrue(n.get("ts").asText().endsWith("Z"), n.toString());
        assertEquals("/var/log/bad\\xff" + "x \"q\"\n.log", n.get("path").asText(), "a byte that is not UTF-8");
        assertTrue(n.get("size").isNumber() && n.get("size").asLong() == 4096, n.toString());
        assertTrue(n.get("open").isBoolean() && n.get("open").asBoolean(), n.toString());
        assertEquals(0.5, n.get("ratio").asDouble());
        assertEquals("[a, b]", n.get("inputs").asText());
        assertEquals("null", n.get("nothing").asText());
    }

    @Test
    void shouldWriteOnlyLinesOfTheLevelAndAbove() {
        ShipLog warn = log(ShipLog.Level.WARN, ShipLog.Format.LOGFMT);
        warn.debug("d");
        warn.info("i");
        warn.warn("w", "k", "a b");
        warn.error("e");
        List<String> lines = lines();
        assertEquals(2, lines.size(), lines.toString());
        assertTrue(lines.get(0).matches("ts=\\S+Z level=warn event=w k=\"a b\""), lines.get(0));
        assertTrue(lines.get(1).contains(" level=error event=e"), lines.get(1));
        bytes.reset();
        ShipLog debug = log(ShipLog.Level.DEBUG, ShipLog.Format.LOGFMT);
        debug.debug("d");
        debug.info("i");
        assertEquals(2, lines().size());
        assertTrue(debug.debugEnabled());
    }

    @Test
    void shouldNameTheValidLevelsAndFormatsWhenGivenAnother() {
        assertEquals(ShipLog.Level.WARN, ShipLog.Level.of("WARN"));
        assertEquals(ShipLog.Format.JSON, ShipLog.Format.of("json"));
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> ShipLog.Level.of("verbose"));
        assertEquals("log level must be one of debug, info, warn, error; got 'verbose'", e.getMessage());
        e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> ShipLog.Format.of("xml"));
        assertEquals("log format must be logfmt or json; got 'xml'", e.getMessage());
    }
}
