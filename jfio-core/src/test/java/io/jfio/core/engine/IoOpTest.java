package io.jfio.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.core.sys.Errno;
import io.jfio.core.sys.ErrnoException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Argument checks of the {@link IoOp} factories, which fail before anything reaches an engine. */
class IoOpTest {

    @Test
    void shouldRejectHeapSegmentAsBuffer() {
        MemorySegment heap = MemorySegment.ofArray(new byte[16]);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> IoOp.read(3, heap, 0));
        assertTrue(e.getMessage().contains("heap segment"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> IoOp.write(3, heap, 0));
        assertThrows(IllegalArgumentException.class, () -> IoOp.readFixed(3, heap, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> IoOp.writev(3, new MemorySegment[] {heap}, 0));
        assertThrows(IllegalArgumentException.class,
                () -> IoOp.read(3, MemorySegment.ofBuffer(ByteBuffer.allocate(8)), 0));
        // A direct buffer is native memory: accepted.
        assertEquals(8, IoOp.read(3, MemorySegment.ofBuffer(ByteBuffer.allocateDirect(8)), 0).length());
    }

    @Test
    void shouldRejectSegmentOfClosedArena() {
        Arena a = Arena.ofConfined();
        MemorySegment s = a.allocate(16);
        a.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> IoOp.read(3, s, 0));
        assertTrue(e.getMessage().contains("closed arena"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> IoOp.write(3, s, 0));
    }

    @Test
    void shouldRejectNegativeOffsetsAndLengths() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(16);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> IoOp.read(3, s, -1));
            assertTrue(e.getMessage().contains("offset=-1"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> IoOp.write(3, s, Long.MIN_VALUE));
            assertThrows(IllegalArgumentException.class, () -> IoOp.fallocate(3, 0, 0, 0));
            assertThrows(IllegalArgumentException.class, () -> IoOp.fallocate(3, 0, -5, 10));
            assertThrows(IllegalArgumentException.class, () -> IoOp.fadvise(3, 0, -1, 0));
            assertThrows(IllegalArgumentException.class, () -> IoOp.fadvise(3, 0, 1L << 32, 0));
            assertThrows(IllegalArgumentException.class, () -> IoOp.syncFileRange(3, -1, 0, 0));
            assertThrows(IllegalArgumentException.class, () -> IoOp.splice(3, -1, 4, -1, -1, 0));
            assertThrows(IllegalArgumentException.class, () -> IoOp.timeout(Duration.ofMillis(-1)));
            assertThrows(IllegalArgumentException.class,
                    () -> IoOp.readv(3, new MemorySegment[IoOp.IOV_MAX + 1], 0));
            assertThrows(IllegalArgumentException.class, () -> IoOp.readv(3, new MemorySegment[] {s}, -1));
        }
    }

    @Test
    void shouldCapReadLengthAtKernelMaximum() {
        MemorySegment huge = MemorySegment.ofAddress(4096).reinterpret(3L << 30);
        assertEquals(IoOp.MAX_RW, IoOp.read(3, huge, 0).length());
        assertEquals(0x7ffff000, IoOp.MAX_RW);
    }

    @Test
    void shouldLinkOnceAndOnlyUnsubmittedRequests() {
        IoOp a = IoOp.nop();
        IoOp b = IoOp.nop();
        assertSame(b, a.link(b));
        assertSame(b, a.next());
        assertThrows(IllegalStateException.class, () -> a.link(IoOp.nop()));
        assertThrows(IllegalArgumentException.class, () -> b.link(b));
    }

    @Test
    void shouldRefuseResultBeforeCompletion() throws IOException {
        IoOp op = IoOp.fsync(5);
        assertFalse(op.isDone());
        assertThrows(IllegalStateException.class, op::result);
        assertEquals("fsync", op.name());
        assertEquals("fdatasync", IoOp.fdatasync(5).name());
        ErrnoException e = assertThrows(ErrnoException.class, () -> op.path("/p").check(-Errno.EIO));
        assertEquals("fsync failed: errno=EIO (Input/output error) fd=5 path=/p", e.getMessage());
        assertEquals(7, op.check(7));
    }
}
