package io.jfio.ship.harvest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jfio.core.testing.TestSeed;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The encoder's two ways into a batch give the same bytes: lines found by the escaping pass ({@link
 * NdjsonEncoder#line}) and records whose ends are given ({@link NdjsonEncoder#record}), for random batches of lines
 * with newlines at every position in a word, invalid UTF-8, control characters and lines long enough to make the
 * output buffer grow in the middle of a message; and every object parses back to the line and its offset.
 */
class NdjsonEncoderTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Map<String, String> FIELDS = new LinkedHashMap<>(Map.of("service", "web"));

    private static void begin(NdjsonEncoder e) {
        e.begin("/var/log/app.log".getBytes(StandardCharsets.UTF_8), "host-1", 2049, 393231, true,
                "2026-11-27T03:04:05.412Z", "app", FIELDS);
    }

    @Test
    void shouldEncodeLinesFoundByTheEscapingPassLikeRecordsWithKnownEnds() {
        TestSeed.pick().run(seed -> {
            SplittableRandom rnd = seed.random();
            byte[][] pieces = {"a".getBytes(StandardCharsets.UTF_8), "plain ascii text".getBytes(
                    StandardCharsets.UTF_8), "\"".getBytes(StandardCharsets.UTF_8), "\\".getBytes(
                    StandardCharsets.UTF_8), "\t".getBytes(StandardCharsets.UTF_8), {0}, {(byte) 0xff}, {(byte) 0x80},
                    "é中😀".getBytes(StandardCharsets.UTF_8), {(byte) 0xe2, (byte) 0x82}};
            for (int round = 0; round < 300; round++) {
                ByteArrayOutputStream batch = new ByteArrayOutputStream();
                List<Integer> ends = new ArrayList<>();
                int lines = 1 + rnd.nextInt(40);
                for (int l = 0; l < lines; l++) {
                    int tokens = rnd.nextInt(10) == 0 ? 5000 + rnd.nextInt(20000) : rnd.nextInt(30);
                    for (int k = 0; k < tokens; k++) batch.writeBytes(pieces[rnd.nextInt(pieces.length)]);
                    boolean last = l == lines - 1;
                    // A batch's unterminated tail is never empty.
                    if (!last || tokens == 0 || rnd.nextBoolean()) batch.write('\n');
                    ends.add(batch.size());
                }
                byte[] src = batch.toByteArray();
                long base = rnd.nextLong(1L << 40);

                NdjsonEncoder byEnds = new NdjsonEncoder();
                begin(byEnds);
                int from = 0;
                for (int end : ends) {
                    byEnds.record(src, from, end, base + from);
                    from = end;
                }
                NdjsonEncoder byLines = new NdjsonEncoder();
                begin(byLines);
                List<Integer> found = new ArrayList<>();
                from = 0;
                while (from < src.length) {
                    from = byLines.line(src, from, src.length, base + from);
                    found.add(from);
                }
                assertEquals(ends, found, "round " + round + ": record ends");
                assertArrayEquals(Arrays.copyOf(byEnds.bytes(), byEnds.length()),
                        Arrays.copyOf(byLines.bytes(), byLines.length()), "round " + round);

                String[] objects = new String(byLines.bytes(), 0, byLines.length(), StandardCharsets.UTF_8)
                        .split("\n");
                assertEquals(ends.size(), objects.length, "round " + round);
                from = 0;
                for (int r = 0; r < objects.length; r++) {
                    JsonNode n = parse(objects[r]);
                    int end = ends.get(r);
                    int messageEnd = src[end - 1] == '\n' ? end - 1 : end;
                    String expected = escaped(src, from, messageEnd);
                    assertEquals(expected, n.get("message").asText(), "round " + round + " record " + r);
                    assertEquals(base + from, n.get("offset").asLong(), "round " + round + " record " + r);
                    assertEquals("web", n.get("fields").get("service").asText());
                    from = end;
                }
            }
        });
    }

    /** The message as {@link JsonText} writes it, read back: what the object's message must be. */
    private static String escaped(byte[] src, int from, int to) {
        byte[] out = new byte[(to - from) * JsonText.MAX_EXPANSION + 2];
        out[0] = '"';
        int n = JsonText.escape(src, from, to, out, 1);
        out[n++] = '"';
        try {
            return JSON.readValue(out, 0, n, String.class);
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }

    private static JsonNode parse(String s) {
        try {
            return JSON.readTree(s);
        } catch (java.io.IOException e) {
            throw new AssertionError("not JSON: " + s, e);
        }
    }
}
