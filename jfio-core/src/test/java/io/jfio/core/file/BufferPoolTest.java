package io.jfio.core.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** {@link BufferPool}: aligned buffers, blocking acquire, and refusal of every misuse that could free live memory. */
class BufferPoolTest {

    @Test
    void shouldHandOutDistinctAlignedBuffers() throws Exception {
        try (BufferPool pool = new BufferPool(4, 8192, 4096)) {
            Set<Long> addresses = new HashSet<>();
            MemorySegment[] out = new MemorySegment[4];
            for (int i = 0; i < 4; i++) {
                out[i] = pool.acquire();
                assertEquals(8192, out[i].byteSize());
                assertEquals(0, out[i].address() % 4096, "buffer not aligned");
                assertTrue(addresses.add(out[i].address()));
            }
            assertEquals(4, pool.inUse());
            assertEquals(4 * 8192, pool.slab().byteSize());
            assertNull(pool.tryAcquire(10, TimeUnit.MILLISECONDS));
            for (MemorySegment s : out) pool.release(s);
            assertEquals(0, pool.inUse());
        }
    }

    @Test
    void shouldBlockAcquireUntilRelease() throws Exception {
        try (BufferPool pool = new BufferPool(1, 4096, 4096)) {
            MemorySegment only = pool.acquire();
            AtomicReference<MemorySegment> got = new AtomicReference<>();
            Thread t = Thread.ofVirtual().start(() -> {
                try {
                    got.set(pool.acquire());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            Thread.sleep(50);
            assertNull(got.get(), "acquire did not wait");
            pool.release(only);
            assertTimeoutPreemptively(Duration.ofSeconds(10), () -> t.join());
            assertEquals(only.address(), got.get().address());
            pool.release(got.get());
        }
    }

    @Test
    void shouldRefuseReleasingTwice() throws Exception {
        try (BufferPool pool = new BufferPool(2, 4096, 4096)) {
            MemorySegment s = pool.acquire();
            pool.release(s);
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> pool.release(s));
            assertTrue(e.getMessage().contains("released twice"), e.getMessage());
            assertEquals(0, pool.inUse());
        }
    }

    @Test
    void shouldRefuseForeignSegments() throws Exception {
        try (BufferPool pool = new BufferPool(2, 4096, 4096); Arena a = Arena.ofConfined()) {
            assertThrows(IllegalStateException.class, () -> pool.release(a.allocate(4096, 4096)));
            MemorySegment s = pool.acquire();
            assertThrows(IllegalStateException.class, () -> pool.release(s.asSlice(0, 100)));
            assertThrows(IllegalStateException.class, () -> pool.release(pool.slab().asSlice(100, 4096)));
            pool.release(s);
        }
    }

    @Test
    void shouldRefuseClosingWithBuffersOut() throws Exception {
        BufferPool pool = new BufferPool(2, 4096, 4096);
        MemorySegment s = pool.acquire();
        IllegalStateException e = assertThrows(IllegalStateException.class, pool::close);
        assertTrue(e.getMessage().contains("in_use=1"), e.getMessage());
        s.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 0, (byte) 1); // still alive
        pool.release(s);
        pool.close();
        pool.close(); // idempotent
        assertThrows(IllegalStateException.class, () -> s.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0));
    }

    @Test
    void shouldRejectBadShapes() {
        assertThrows(IllegalArgumentException.class, () -> new BufferPool(0, 4096, 4096));
        assertThrows(IllegalArgumentException.class, () -> new BufferPool(1, 0, 4096));
        assertThrows(IllegalArgumentException.class, () -> new BufferPool(1, 4096, 3000));
        assertThrows(IllegalArgumentException.class, () -> new BufferPool(1, 5000, 4096));
        try (BufferPool pool = new BufferPool(1, 512, 512)) {
            assertEquals(512, pool.bufferSize());
            assertEquals(1, pool.count());
            assertSame(pool.slab().scope(), pool.slab().scope());
        }
    }
}
