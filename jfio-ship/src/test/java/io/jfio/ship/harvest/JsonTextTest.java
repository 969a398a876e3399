package io.jfio.ship.harvest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.jfio.core.testing.TestSeed;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Bytes as JSON string contents: the output is parsed back by Jackson (which refuses invalid UTF-8 and unescaped
 * control characters), valid UTF-8 comes back unchanged, and every byte outside a valid sequence comes back as
 * U+FFFD.
 */
class JsonTextTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static String roundTrip(byte[] in) throws Exception {
        byte[] out = new byte[in.length * JsonText.MAX_EXPANSION + 2];
        out[0] = '"';
        int n = JsonText.escape(in, 0, in.length, out, 1);
        out[n++] = '"';
        return JSON.readValue(out, 0, n, String.class);
    }

    private static byte[] bytes(int... b) {
        byte[] out = new byte[b.length];
        for (int i = 0; i < b.length; i++) out[i] = (byte) b[i];
        return out;
    }

    @Test
    void shouldKeepValidUtf8AndEscapeQuotesBackslashesAndControlCharacters() throws Exception {
        String s = "plain \"quoted\" back\\slash tab\t nl\n cr\r bell\u0007 nul\u0000 del\u007f é 中 😀";
        assertEquals(s, roundTrip(s.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void shouldReplaceEachByteOutsideAValidSequence() throws Exception {
        assertEquals("a\uFFFDb", roundTrip(bytes('a', 0x80, 'b')), "a stray continuation byte");
        assertEquals("\uFFFD\uFFFD", roundTrip(bytes(0xff, 0xfe)), "bytes that never occur in UTF-8");
        assertEquals("\uFFFD\uFFFDx", roundTrip(bytes(0xe2, 0x82, 'x')), "a truncated three-byte sequence");
        assertEquals("\uFFFD\uFFFD", roundTrip(bytes(0xc0, 0xaf)), "an overlong '/'");
        assertEquals("\uFFFD\uFFFD\uFFFD", roundTrip(bytes(0xed, 0xa0, 0x80)), "an encoded surrogate");
        assertEquals("\uFFFD\uFFFD\uFFFD\uFFFD", roundTrip(bytes(0xf4, 0x90, 0x80, 0x80)), "above U+10FFFF");
        assertEquals("\uFFFD\uFFFD\uFFFD", roundTrip(bytes(0xf0, 0x9f, 0x98)), "a sequence cut by the end");
    }

    @Test
    void shouldTurnRandomBytesIntoValidJsonThatKeepsEveryValidCharacter() {
        TestSeed.pick().run(seed -> {
            SplittableRandom rnd = seed.random();
            String[] valid = {"a", "Z", " ", "\t", "\n", "\"", "\\", "\u0000", "é", "中", "😀", "\u007f"};
            int[] invalid = {0x80, 0xbf, 0xc0, 0xc1, 0xf5, 0xff, 0xfe};
            for (int round = 0; round < 2000; round++) {
                ByteArrayOutputStream in = new ByteArrayOutputStream();
                StringBuilder expected = new StringBuilder();
                int tokens = rnd.nextInt(40);
                for (int k = 0; k < tokens; k++) {
                    if (rnd.nextInt(4) == 0) {
                        in.write(invalid[rnd.nextInt(invalid.length)]);
                        expected.append('\uFFFD');
                    } else {
                        String v = valid[rnd.nextInt(valid.length)];
                        in.writeBytes(v.getBytes(StandardCharsets.UTF_8));
                        expected.append(v);
                    }
                }
                assertEquals(expected.toString(), roundTrip(in.toByteArray()), "round " + round);
            }
        });
    }

    @Test
    void shouldTellPlainWordsExactlyLikeAByteLoop() {
        TestSeed.pick().run(seed -> {
            SplittableRandom rnd = seed.random();
            int[] edges = {0x00, 0x1f, 0x20, 0x21, 0x22, 0x23, 0x5b, 0x5c, 0x5d, 0x7e, 0x7f, 0x80, 0xff};
            for (int round = 0; round < 200_000; round++) {
                long x = 0;
                boolean plain = true;
                for (int k = 0; k < 8; k++) {
                    int b = rnd.nextInt(3) == 0 ? edges[rnd.nextInt(edges.length)] : 0x20 + rnd.nextInt(0x5f);
                    x |= (long) b << (8 * k);
                    plain &= b >= 0x20 && b < 0x80 && b != '"' && b != '\\';
                }
                assertEquals(plain, JsonText.plain(x), Long.toHexString(x));
            }
        });
    }

    @Test
    void shouldWriteOffsetsInDecimalLikeLongToString() {
        TestSeed.pick().run(seed -> {
            SplittableRandom rnd = seed.random();
            byte[] out = new byte[32];
            long[] edges = {0, 9, 10, 99, 100, 101, 999, 1000, Long.MAX_VALUE};
            for (long v : edges) {
                int n = NdjsonEncoder.decimal(v, out, 3);
                assertEquals(Long.toString(v), new String(out, 3, n - 3, StandardCharsets.US_ASCII));
            }
            for (long p = 1; p > 0 && p <= Long.MAX_VALUE / 10 * 10; p *= 10) {
                for (long v : new long[] {p - 1, p, p + 1}) {
                    int n = NdjsonEncoder.decimal(v, out, 0);
                    assertEquals(Long.toString(v), new String(out, 0, n, StandardCharsets.US_ASCII), "v=" + v);
                }
                if (p > Long.MAX_VALUE / 10) break;
            }
            for (int bit = 0; bit < 63; bit++) {
                for (long v : new long[] {(1L << bit) - 1, 1L << bit}) {
                    int n = NdjsonEncoder.decimal(v, out, 0);
                    assertEquals(Long.toString(v), new String(out, 0, n, StandardCharsets.US_ASCII), "v=" + v);
                }
            }
            for (int round = 0; round < 100_000; round++) {
                long v = rnd.nextLong(Long.MAX_VALUE) >>> rnd.nextInt(63);
                int n = NdjsonEncoder.decimal(v, out, 0);
                assertEquals(Long.toString(v), new String(out, 0, n, StandardCharsets.US_ASCII));
            }
        });
    }
}
