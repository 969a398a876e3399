package io.jfio.core.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class TempBuffersTest {
    @Test
    void buffersArePageAlignedPowersOfTwoAndBigEnough() {
        for (long size : new long[] {0, 1, 4095, 4096, 4097, 100_000, TempBuffers.MAX_CACHED}) {
            MemorySegment s = TempBuffers.take(size);
            assertTrue(s.byteSize() >= size, "size " + size);
            assertEquals(0, s.address() % 4096, "page-aligned");
            assertEquals(1, Long.bitCount(s.byteSize()), "power of two");
            TempBuffers.give(s);
        }
    }

    @Test
    void aGivenBufferIsReusedByTheSameThread() {
        MemorySegment a = TempBuffers.take(10_000);
        TempBuffers.give(a);
        MemorySegment b = TempBuffers.take(9_000);
        assertSame(a, b);
        MemorySegment c = TempBuffers.take(9_000);
        assertNotSame(b, c, "a buffer is handed out once until given back");
        TempBuffers.give(b);
        TempBuffers.give(c);
    }

    @Test
    void oversizedBuffersAreNeverCached() {
        MemorySegment big = TempBuffers.take(TempBuffers.MAX_CACHED + 1);
        assertEquals(TempBuffers.MAX_CACHED + 1, big.byteSize());
        TempBuffers.give(big);
        MemorySegment next = TempBuffers.take(TempBuffers.MAX_CACHED + 1);
        assertNotSame(big, next);
    }

    @Test
    void theCacheHoldsAFewBuffersPerThreadAndKeepsTheBiggest() {
        MemorySegment[] many = new MemorySegment[8];
        for (int i = 0; i < many.length; i++) many[i] = TempBuffers.take(4096L << i);
        for (MemorySegment s : many) TempBuffers.give(s);
        // Bounded: of the eight, only the biggest few stay; the smallest ask is served by one of those.
        MemorySegment small = TempBuffers.take(1);
        assertTrue(small.byteSize() >= many[many.length - 4].byteSize(), "kept the biggest buffers");
        TempBuffers.give(small);
    }

    @Test
    void virtualThreadsShareOnePool() throws Exception {
        AtomicReference<MemorySegment> first = new AtomicReference<>();
        Thread.ofVirtual().start(() -> TempBuffers.give(firstTaken(first))).join();
        AtomicReference<MemorySegment> second = new AtomicReference<>();
        Thread.ofVirtual().start(() -> second.set(TempBuffers.take(123_456))).join();
        assertSame(first.get(), second.get(), "a buffer given back on one virtual thread serves the next");
        TempBuffers.give(second.get());
    }

    private static MemorySegment firstTaken(AtomicReference<MemorySegment> into) {
        MemorySegment s = TempBuffers.take(123_456);
        into.set(s);
        return s;
    }
}
