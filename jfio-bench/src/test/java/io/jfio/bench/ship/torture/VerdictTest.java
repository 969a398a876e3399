package io.jfio.bench.ship.torture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class VerdictTest {
    private static Verifier.Counts dups(long duplicated) {
        return new Verifier.Counts(1000, 1000 + duplicated, 0, 0, duplicated, 0, 0, 0, 0, List.of(), List.of(),
                List.of());
    }

    @Test
    void shouldBoundByMaxInFlightPlusTheLargerOfBufferAndMaxRecordPlusOne() {
        assertEquals((64L << 20) + (1L << 20) + 1, Verdict.defaultBoundPerKill("tcp"));
        assertEquals((8L << 20) + (1L << 20) + 1, Verdict.defaultBoundPerKill("kafka"));
        assertEquals(1000 + 4096, Verdict.boundPerKill(1000, 4096, 100));
        assertEquals(1000 + 8193, Verdict.boundPerKill(1000, 4096, 8192));
    }

    @Test
    void shouldAllowKillsTimesTheBoundForAtLeastOnceSinksOnly() {
        long bound = 10 * TortureRecord.SIZE;
        assertTrue(Verdict.reasons("tcp", 2, 0, dups(20), bound).isEmpty(), "exactly 2 x bound");
        assertEquals(List.of("1575 duplicate bytes > 2 kills and outages x 750 bytes"),
                Verdict.reasons("kafka", 2, 0, dups(21), bound));
        assertEquals(List.of("1 duplicate record(s) (75 bytes)"), Verdict.reasons("dir", 2, 0, dups(1), bound));
        assertEquals(List.of("75 duplicate bytes > 0 kills and outages x 750 bytes"),
                Verdict.reasons("tcp", 0, 0, dups(1), bound), "no kill, no duplicate");
    }

    @Test
    void shouldCountAnOutageAsAKillForAtLeastOnceSinksAndAllowNoDuplicateIntoS3() {
        long bound = 10 * TortureRecord.SIZE;
        assertTrue(Verdict.reasons("tcp", 1, 1, dups(20), bound).isEmpty(), "1 kill and 1 outage x bound");
        assertEquals(List.of("1575 duplicate bytes > 2 kills and outages x 750 bytes"),
                Verdict.reasons("kafka", 0, 2, dups(21), bound));
        assertEquals(List.of("1 duplicate record(s) (75 bytes)"), Verdict.reasons("s3", 5, 5, dups(1), bound));
        assertFalse(Verdict.atLeastOnce("s3"));
    }

    @Test
    void shouldFailOutOfOrderOnlyWithoutKillsAndCopies() {
        Verifier.Counts c = new Verifier.Counts(10, 10, 0, 0, 0, 0, 0, 0, 3, List.of(), List.of(), List.of());
        assertTrue(Verdict.reasons("dir", 1, 0, c, 0).isEmpty());
        assertEquals(List.of("3 out of order without a kill or an outage"), Verdict.reasons("dir", 0, 0, c, 0));
        assertTrue(Verdict.reasons("s3", 0, 1, c, 0).isEmpty(), "an outage may reorder");
    }
}
