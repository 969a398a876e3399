package io.jfio.bench.ship.torture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class TortureRecordTest {
    private static TortureRecord.Id parseLine(byte[] rec) {
        return TortureRecord.parse(rec, 0, rec.length - 1);
    }

    @Test
    void shouldBeFixedSizeAndParseBack() {
        for (int w : new int[] {0, 2, 9, 10, 999}) {
            for (long n : new long[] {0, 1, 12345, TortureRecord.MAX_SEQ}) {
                byte[] r = TortureRecord.format(w, n);
                assertEquals(TortureRecord.SIZE, r.length, "w=" + w + " n=" + n);
                assertEquals('\n', r[r.length - 1]);
                assertEquals(new TortureRecord.Id(w, n), parseLine(r));
            }
        }
        String s = new String(TortureRecord.format(2, 12345), StandardCharsets.US_ASCII);
        assertTrue(s.startsWith("w=2 n=0000012345 c="), s);
    }

    @Test
    void shouldRejectEveryChangedByteAndOtherLengths() {
        byte[] r = TortureRecord.format(3, 4242);
        for (int i = 0; i < r.length - 1; i++) {
            byte[] bad = r.clone();
            bad[i] ^= 0x01;
            assertNull(parseLine(bad), "byte " + i + " changed");
        }
        assertNull(TortureRecord.parse(r, 0, r.length - 2), "one byte short");
        assertNull(TortureRecord.parse(r, 1, r.length - 2), "first byte missing");
        assertNull(TortureRecord.parse(r, 0, r.length), "newline included");
        // The front of one record glued to the back of another: same length, valid-looking head.
        byte[] a = TortureRecord.format(1, 10);
        byte[] b = TortureRecord.format(1, 11);
        byte[] mixed = a.clone();
        System.arraycopy(b, 40, mixed, 40, b.length - 40);
        assertNull(parseLine(mixed));
    }

    @Test
    void shouldRefuseValuesOutOfRange() {
        assertThrows(IllegalArgumentException.class, () -> TortureRecord.format(1000, 0));
        assertThrows(IllegalArgumentException.class, () -> TortureRecord.format(0, TortureRecord.MAX_SEQ + 1));
        assertThrows(IllegalArgumentException.class, () -> TortureRecord.format(-1, 0));
    }
}
