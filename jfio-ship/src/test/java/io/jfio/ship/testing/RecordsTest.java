package io.jfio.ship.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

/** The checker's own rules: what counts as a record, as torn, as damage. */
class RecordsTest {
    private static String rec(int n) {
        return "g=0 n=" + n + " " + "x".repeat(n % 50);
    }

    @Test
    void shouldCountTornRecordsApartAndFailOnDamage() {
        // A copy ending in part of record 3, files concatenated: the rest of the text runs on after it.
        String text = rec(1) + "\n" + rec(2) + "\n" + rec(3).substring(0, 9) + rec(4) + "\n" + "g=0 n=5 xx";
        Records r = Records.parseAllowingTorn(text, 10);
        assertEquals(1, r.count[1]);
        assertEquals(1, r.count[2]);
        assertEquals(0, r.count[3]);
        assertEquals(1, r.count[4]);
        assertEquals(0, r.count[5]);
        assertEquals(2, r.torn);
        // A whole record run together with the next: its newline is missing, so it is torn too.
        assertEquals(1, Records.parseAllowingTorn(rec(6) + rec(7), 10).torn);
        assertThrows(AssertionFailedError.class, () -> Records.parseAllowingTorn("g=0 n=3 xxxx\n", 10),
                "more padding than the record has is damage, not a cut");
        assertThrows(AssertionFailedError.class, () -> Records.parseAllowingTorn("g=0 n= xx\n", 10));
        assertThrows(AssertionFailedError.class, () -> Records.parseAllowingTorn("hello\n", 10));
    }
}
