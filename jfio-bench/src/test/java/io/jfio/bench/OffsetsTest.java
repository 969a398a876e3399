package io.jfio.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;

class OffsetsTest {
    private static final long SEED = 20_251_121L;

    @Test
    void onePassVisitsEveryBlockExactlyOnceAtAlignedOffsets() {
        Offsets o = new Offsets(10_000, 4096, SEED);
        Offsets.Cursor c = o.cursor(true);
        BitSet seen = new BitSet();
        long off;
        int n = 0;
        while ((off = c.next()) >= 0) {
            assertEquals(0, off % 4096, "seed=" + SEED);
            int block = (int) (off / 4096);
            assertTrue(block < 10_000 && !seen.get(block), "block " + block + " twice, seed=" + SEED);
            seen.set(block);
            n++;
        }
        assertEquals(10_000, n);
        assertEquals(10_000, c.handedOut());
        assertEquals(-1, c.next(), "an exhausted one-pass cursor stays exhausted");
    }

    @Test
    void firstCountNeverRepeatsABlockWithinOnePassAndWrapsAfterIt() {
        Offsets o = new Offsets(300, 8192, SEED);
        long[] some = o.first(200);
        assertEquals(200, java.util.Arrays.stream(some).distinct().count(), "seed=" + SEED);
        for (long off : some) assertTrue(off % 8192 == 0 && off < 300L * 8192, "offset " + off);
        long[] more = o.first(450);
        assertEquals(300, java.util.Arrays.stream(more).distinct().count(), "one pass covers every block");
        assertEquals(more[0], more[300], "the second pass starts over");
    }

    @Test
    void sameSeedGivesTheSameSequenceAndAnotherSeedAnother() {
        Offsets a = new Offsets(1000, 4096, SEED);
        Offsets b = new Offsets(1000, 4096, SEED);
        Offsets c = new Offsets(1000, 4096, SEED + 1);
        List<Long> sa = new ArrayList<>();
        List<Long> sc = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            assertEquals(a.offset(i), b.offset(i));
            sa.add(a.offset(i));
            sc.add(c.offset(i));
        }
        assertNotEquals(sa, sc);
    }

    @Test
    void isNotTheIdentityOrder() {
        Offsets o = new Offsets(1000, 4096, SEED);
        int inPlace = 0;
        for (int i = 0; i < 1000; i++) {
            if (o.offset(i) == i * 4096L) inPlace++;
        }
        assertTrue(inPlace < 20, "a random permutation leaves about one block in place, not " + inPlace);
    }

    @Test
    void wrappingCursorStartsOverAfterOnePass() {
        Offsets o = new Offsets(100, 4096, SEED);
        Offsets.Cursor c = o.cursor(false);
        long first = c.next();
        for (int i = 1; i < 100; i++) c.next();
        assertEquals(first, c.next());
    }

    @Test
    void concurrentThreadsShareOnePassWithoutDuplicates() throws InterruptedException {
        Offsets o = new Offsets(50_000, 4096, SEED);
        Offsets.Cursor c = o.cursor(true);
        ConcurrentLinkedQueue<Long> got = new ConcurrentLinkedQueue<>();
        List<Thread> ts = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            Thread th = new Thread(() -> {
                long off;
                while ((off = c.next()) >= 0) got.add(off);
            });
            ts.add(th);
            th.start();
        }
        for (Thread th : ts) th.join();
        assertEquals(50_000, got.size());
        assertEquals(50_000, got.stream().distinct().count());
    }
}
