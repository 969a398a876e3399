package io.jfio.bench.ship.torture;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
        assertTrue(Verdict.reasons("tcp", 2, dups(20), bound).isEmpty(), "exactly 2 x bound");
        assertEquals(List.of("1575 duplicate bytes > 2 kills x 750 bytes"),
                Verdict.reasons("kafka", 2, dups(21), bound));
        assertEquals(List.of("1 duplicate record(s) (75 bytes)"), Verdict.reasons("dir", 2, dups(1), bound));
        assertEquals(List.of("75 duplicate bytes > 0 kills x 750 bytes"), Verdict.reasons("tcp", 0, dups(1), bound),
                "no kill, no duplicate");
    }

    @Test
    void shouldFailOutOfOrderOnlyWithoutKillsAndCopies() {
        Verifier.Counts c = new Verifier.Counts(10, 10, 0, 0, 0, 0, 0, 0, 3, List.of(), List.of(), List.of());
        assertTrue(Verdict.reasons("dir", 1, c, 0).isEmpty());
        assertEquals(List.of("3 out of order without a kill"), Verdict.reasons("dir", 0, c, 0));
    }
}
