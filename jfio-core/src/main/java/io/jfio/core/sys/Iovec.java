package io.jfio.core.sys;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct iovec} from linux/uio.h.
 *
 * {@snippet lang = c:
 * struct iovec {
 *     void  *iov_base;   // 0
 *     size_t iov_len;    // 8
 * };                     // 16 bytes
 * }
 *
 * <p>Thread-safe; static accessors over caller-owned segments.
 */
public final class Iovec {
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("iov_base"),
            JAVA_LONG.withName("iov_len"));
    public static final long SIZE = 16;
    public static final long OFF_BASE = 0;
    public static final long OFF_LEN = 8;

    private Iovec() {
    }

    /** Fills entry {@code index} of an iovec array with the address and size of {@code buffer}. */
    public static void set(MemorySegment array, int index, MemorySegment buffer) {
        long base = index * SIZE;
        array.set(JAVA_LONG, base + OFF_BASE, buffer.address());
        array.set(JAVA_LONG, base + OFF_LEN, buffer.byteSize());
    }

    public static long base(MemorySegment array, int index) {
        return array.get(JAVA_LONG, index * SIZE + OFF_BASE);
    }

    public static long len(MemorySegment array, int index) {
        return array.get(JAVA_LONG, index * SIZE + OFF_LEN);
    }
}
