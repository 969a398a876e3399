package io.jfio.core.engine;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct io_uring_cqe}, the 16-byte completion queue entry, from linux/io_uring.h (Linux 6.1 UAPI; jfio never
 * sets IORING_SETUP_CQE32).
 *
 * {@snippet lang = c:
 * struct io_uring_cqe {
 *     __u64 user_data;  // 0
 *     __s32 res;        // 8   result, or -errno
 *     __u32 flags;      // 12  IORING_CQE_F_*
 * };                    // 16
 * }
 *
 * <p>Not thread-safe; CQEs are read only by the ring's owner thread.
 */
final class Cqe {
    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("user_data"),
            JAVA_INT.withName("res"),
            JAVA_INT.withName("flags"));

    static final long SIZE = 16;
    static final long OFF_USER_DATA = 0;
    static final long OFF_RES = 8;
    static final long OFF_FLAGS = 12;

    private Cqe() {
    }

    static long userData(MemorySegment cqes, long base) {
        return cqes.get(JAVA_LONG, base + OFF_USER_DATA);
    }

    static int res(MemorySegment cqes, long base) {
        return cqes.get(JAVA_INT, base + OFF_RES);
    }

    static int flags(MemorySegment cqes, long base) {
        return cqes.get(JAVA_INT, base + OFF_FLAGS);
    }
}
