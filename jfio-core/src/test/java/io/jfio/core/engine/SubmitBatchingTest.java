package io.jfio.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import java.util.function.LongPredicate;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How many requests a ring hands to the kernel per io_uring_enter: at most {@link UringEngine#IDLE_BATCH_PROP} while
 * its thread has time to spare (so the kernel does not plug the block queue and hold a device's request until its
 * batch-mates are issued), up to {@link UringEngine#SUBMIT_BATCH_PROP} while it is busy. Counted with the engine's
 * own counters of requests and of submitting calls, not timed.
 */
class SubmitBatchingTest {
    private static final int DEPTH = 32;

    /** A request that resubmits itself from its completion until its rounds are done. */
    private static final class Chain implements Completion {
        private final IoEngine engine;
        private final Supplier<IoOp> next;
        private final LongPredicate ok;
        private final CountDownLatch done;
        private final AtomicLong failed;
        private int left;

        Chain(IoEngine engine, Supplier<IoOp> next, LongPredicate ok, int rounds, CountDownLatch done,
              AtomicLong failed) {
            this.engine = engine;
            this.next = next;
            this.ok = ok;
            this.left = rounds;
            this.done = done;
            this.failed = failed;
        }

        @Override
        public void complete(IoOp op, long result) {
            if (!ok.test(result)) failed.incrementAndGet();
            if (--left == 0) {
                done.countDown();
            } else {
                engine.submit(next.get(), this);
            }
        }
    }

    /**
     * Runs {@link #DEPTH} chains of {@code rounds} requests each, the {@code i}-th made by {@code next.apply(i)};
     * every result must pass {@code ok}.
     */
    private static void runChains(UringEngine e, int rounds, IntFunction<Supplier<IoOp>> next, LongPredicate ok)
            throws Exception {
        CountDownLatch done = new CountDownLatch(DEPTH);
        AtomicLong failed = new AtomicLong();
        for (int i = 0; i < DEPTH; i++) {
            Chain c = new Chain(e, next.apply(i), ok, rounds, done, failed);
            e.submit(c.next.get(), c);
        }
        assertTrue(done.await(60, TimeUnit.SECONDS), "requests did not finish");
        assertEquals(0, failed.get(), "requests that failed");
    }

    private static long ratio(UringEngine e) {
        long requests = e.requestsPerRing()[0];
        long calls = e.submitCallsPerRing()[0];
        assertTrue(calls > 0, "no submitting io_uring_enter counted");
        return Math.round((double) requests / calls * 100);
    }

    @Test
    void aRingWithTimeToSpareHandsOverAtMostTwoRequestsPerCall() throws Exception {
        // 32 timers of the same length complete together, so their callbacks resubmit 32 requests in one go; the
        // ring thread sleeps between the rounds. A batch of 8 per call (the busy ring's) would give a ratio near 8.
        try (UringEngine e = new UringEngine(256, Ring.DEFAULT_FLAGS, true, 1)) {
            runChains(e, 30, i -> () -> IoOp.timeout(Duration.ofMillis(3)), result -> result == 0);
            long r = ratio(e);
            assertTrue(r <= 200, "requests per submitting call x100 while the ring sleeps between rounds: " + r
                    + " (requests " + e.requestsPerRing()[0] + ", calls " + e.submitCallsPerRing()[0] + ")");
        }
    }

    @Test
    void aBusyRingStillBatches(@TempDir Path dir) throws Exception {
        // Reads of a cached file complete inside the call that submits them: the ring always has completions to
        // reap and never sleeps, so it keeps batching to save calls.
        Path p = dir.resolve("data");
        int blocks = 256;
        Files.write(p, new byte[blocks * 4096]);
        int fd = LibC.openat(Fcntl.AT_FDCWD, p.toString(), Fcntl.O_RDONLY | Fcntl.O_CLOEXEC, 0);
        try (UringEngine e = new UringEngine(256, Ring.DEFAULT_FLAGS, true, 1); Arena a = Arena.ofShared()) {
            runChains(e, 2_000, i -> {
                MemorySegment buf = a.allocate(4096, 4096);
                SplittableRandom rnd = new SplittableRandom(i);
                return () -> IoOp.read(fd, buf, (long) rnd.nextInt(blocks) * 4096);
            }, result -> result == 4096);
            long r = ratio(e);
            assertTrue(r >= 400, "requests per submitting call x100 on a ring that never sleeps: " + r
                    + " (requests " + e.requestsPerRing()[0] + ", calls " + e.submitCallsPerRing()[0] + ")");
        } finally {
            LibC.close(fd);
        }
    }

    @Test
    void rejectsANonPositiveIdleBatch() {
        String old = System.getProperty(UringEngine.IDLE_BATCH_PROP);
        System.setProperty(UringEngine.IDLE_BATCH_PROP, "0");
        try {
            IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
                    () -> new UringEngine(64, Ring.DEFAULT_FLAGS).close());
            assertTrue(ex.getMessage().contains(UringEngine.IDLE_BATCH_PROP), ex.getMessage());
        } finally {
            if (old == null) {
                System.clearProperty(UringEngine.IDLE_BATCH_PROP);
            } else {
                System.setProperty(UringEngine.IDLE_BATCH_PROP, old);
            }
        }
    }
}
