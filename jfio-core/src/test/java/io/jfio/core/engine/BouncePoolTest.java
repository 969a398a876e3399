package io.jfio.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The engines' bounce-buffer pool: buffers are reused, idle memory stays bounded, close frees what is idle. */
class BouncePoolTest {

    @Test
    void shouldReuseAGivenBackBufferOfTheSameSizeClass() {
        try (BouncePool pool = new BouncePool()) {
            BouncePool.Buffer a = pool.take(4096);
            long address = a.segment().address();
            pool.give(a);
            BouncePool.Buffer b = pool.take(3000);
            assertEquals(address, b.segment().address(), "the idle buffer of the class is handed out again");
            assertEquals(3000, b.segment().byteSize());
            assertEquals(0, b.segment().address() % 4096, "4 KiB aligned for O_DIRECT");
            pool.give(b);
        }
    }

    @Test
    void shouldKeepAtMostTheBoundOfIdleMemoryPerClass() {
        try (BouncePool pool = new BouncePool()) {
            List<BouncePool.Buffer> taken = new ArrayList<>();
            for (int i = 0; i < 16; i++) taken.add(pool.take(BouncePool.MAX_CLASS));
            for (BouncePool.Buffer b : taken) pool.give(b);
            assertEquals(BouncePool.RETAINED_BYTES, pool.retainedBytes());
            BouncePool.Buffer big = pool.take(BouncePool.MAX_CLASS + 1);
            assertEquals(BouncePool.MAX_CLASS + 1, big.segment().byteSize());
            pool.give(big);
            assertEquals(BouncePool.RETAINED_BYTES, pool.retainedBytes(), "buffers above the largest class are freed");
        }
    }

    @Test
    void shouldFreeIdleBuffersOnCloseAndBuffersGivenBackAfterIt() {
        BouncePool pool = new BouncePool();
        BouncePool.Buffer idle = pool.take(100);
        BouncePool.Buffer inUse = pool.take(100);
        pool.give(idle);
        assertTrue(pool.retainedBytes() > 0);
        pool.close();
        assertEquals(0, pool.retainedBytes());
        assertFalse(idle.segment().scope().isAlive(), "an idle buffer is freed by close");
        assertTrue(inUse.segment().scope().isAlive(), "a buffer in use stays until given back");
        pool.give(inUse);
        assertFalse(inUse.segment().scope().isAlive());
        assertEquals(0, pool.retainedBytes());
    }
}
