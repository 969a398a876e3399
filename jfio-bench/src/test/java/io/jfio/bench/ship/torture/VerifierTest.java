package io.jfio.bench.ship.torture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The verifier on made-up sink contents. */
class VerifierTest {
    private static byte[] lines(Object... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Object p : parts) {
            byte[] b = p instanceof long[] wn ? TortureRecord.format((int) wn[0], wn[1])
                    : ((String) p).getBytes(StandardCharsets.US_ASCII);
            out.writeBytes(b);
        }
        return out.toByteArray();
    }

    private static long[] r(int w, long n) {
        return new long[] {w, n};
    }

    private static Ledger plain(int w, long written) {
        return new Ledger(w, written, List.of(), List.of());
    }

    @Test
    void shouldCountEverythingOnceWhenAllArrivedOnce() {
        Verifier v = new Verifier(List.of(plain(0, 3), plain(1, 2)));
        v.addBytes("s", "seg1", lines(r(0, 0), r(1, 0), r(0, 1)));
        v.addBytes("s", "seg2", lines(r(1, 1), r(0, 2)));
        Verifier.Counts c = v.counts();
        assertEquals(5, c.written());
        assertEquals(5, c.delivered());
        assertEquals(0, c.lost() + c.duplicated() + c.damaged() + c.torn() + c.outOfOrder());
        assertTrue(Verdict.reasons("dir", 3, 0, c, 100).isEmpty());
    }

    @Test
    void shouldCountLostDuplicatedDamagedTornAndOutOfOrder() {
        Ledger w0 = new Ledger(0, 6, List.of(3L), List.of(new Ledger.File("w0.log.1", 0, 3, false, true)));
        Verifier v = new Verifier(List.of(w0));
        // 0 1 2 | 4 4 3 (step back) | garbage | a record nobody wrote | torn end. 5 is missing.
        v.addBytes("s", "seg", lines(r(0, 0), r(0, 1), r(0, 2), r(0, 4), r(0, 4), r(0, 3), "not a record\n",
                r(0, 99), "w=0 n=00000"));
        Verifier.Counts c = v.counts();
        assertEquals(6, c.written());
        assertEquals(6, c.delivered());
        assertEquals(1, c.lost());
        assertEquals(List.of("w=0 n=5 in w0.log (generation 1)"), c.lostSamples());
        assertEquals(1, c.duplicated());
        assertEquals(TortureRecord.SIZE, c.duplicateBytes());
        assertEquals(2, c.damaged());
        assertTrue(c.damagedSamples().get(1).contains("never written"), c.damagedSamples().toString());
        assertEquals(1, c.torn());
        assertEquals(1, c.outOfOrder());
        List<String> why = Verdict.reasons("dir", 2, 0, c, 1000);
        assertEquals(List.of("1 record(s) lost", "2 damaged line(s)", "1 torn stream end(s)",
                "1 duplicate record(s) (75 bytes)"), why);
    }

    @Test
    void shouldNameTheDeletedFileOfALostRecord() {
        Ledger w0 = new Ledger(0, 4, List.of(2L), List.of(new Ledger.File("w0.log.1", 0, 2, false, true)));
        Verifier v = new Verifier(List.of(w0));
        v.addBytes("s", "seg", lines(r(0, 0), r(0, 2), r(0, 3)));
        assertEquals(List.of("w=0 n=1 in w0.log.1 (renamed, deleted)"), v.counts().lostSamples());
        assertEquals(1, v.counts().lostDeleted());
    }

    @Test
    void shouldCountADeliveredCopytruncateCopyAsDuplicatesAndSayWhereTheyCameFrom() {
        // Records 0-2 were copied to w0.log.1 before w0.log was truncated: two files held them.
        Ledger w0 = new Ledger(0, 4, List.of(3L), List.of(new Ledger.File("w0.log.1", 0, 3, true, false)));
        Verifier v = new Verifier(List.of(w0));
        v.addBytes("s", "seg", lines(r(0, 0), r(0, 1), r(0, 2), r(0, 3), r(0, 0), r(0, 1), r(0, 2), r(0, 3),
                r(0, 1)));
        Verifier.Counts c = v.counts();
        assertEquals(5, c.duplicated(), "records 0 and 2 twice, record 3 twice, record 1 three times");
        assertEquals(4, c.copies(), "of which records 0-2, which the copy held too");
        assertEquals(0, c.lost());
    }

    @Test
    void shouldKeepStreamsApartForOrderAndTornEnds() {
        Verifier v = new Verifier(List.of(plain(0, 4)));
        // A tcp connection cut by a kill ends in part of a record; the next connection resends from record 1.
        byte[] cut = lines(r(0, 0), r(0, 1), r(0, 2));
        v.addBytes("conn1", "receive-1", java.util.Arrays.copyOf(cut, cut.length - 30));
        v.addBytes("conn2", "receive-2", lines(r(0, 1), r(0, 2), r(0, 3)));
        Verifier.Counts c = v.counts();
        assertEquals(0, c.outOfOrder(), "a resend on a new connection is not out of order");
        assertEquals(1, c.torn());
        assertEquals(0, c.damaged());
        assertEquals(1, c.duplicated());
        assertEquals(0, c.lost());
        assertTrue(Verdict.reasons("tcp", 1, 0, c, 1000).isEmpty(), "a torn connection end is no tcp failure");
    }

    @Test
    void shouldReadKafkaValuesWithoutNewlines() {
        Verifier v = new Verifier(List.of(plain(0, 2)));
        byte[] a = TortureRecord.format(0, 0);
        byte[] b = TortureRecord.format(0, 1);
        v.addRecord("/logs/w0.log", "p0 o0", java.util.Arrays.copyOf(a, a.length - 1));
        v.addRecord("/logs/w0.log", "p0 o1", java.util.Arrays.copyOf(b, b.length - 1));
        v.addRecord("/logs/w0.log", "p0 o2", b);
        Verifier.Counts c = v.counts();
        assertEquals(0, c.lost());
        assertEquals(1, c.damaged(), "a value with its newline is not a record");
    }
}
