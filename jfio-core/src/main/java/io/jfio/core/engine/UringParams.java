package io.jfio.core.engine;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct io_uring_params} with its {@code io_sqring_offsets} and {@code io_cqring_offsets}, from
 * linux/io_uring.h (Linux 6.1 UAPI).
 *
 * {@snippet lang = c:
 * struct io_sqring_offsets {          // 40 bytes
 *     __u32 head, tail, ring_mask, ring_entries, flags, dropped, array, resv1;  // 0 .. 28
 *     __u64 user_addr;                                                          // 32
 * };
 * struct io_cqring_offsets {          // 40 bytes
 *     __u32 head, tail, ring_mask, ring_entries, overflow, cqes, flags, resv1;  // 0 .. 28
 *     __u64 user_addr;                                                          // 32
 * };
 * struct io_uring_params {            // 120 bytes
 *     __u32 sq_entries;      // 0
 *     __u32 cq_entries;      // 4
 *     __u32 flags;           // 8
 *     __u32 sq_thread_cpu;   // 12
 *     __u32 sq_thread_idle;  // 16
 *     __u32 features;        // 20
 *     __u32 wq_fd;           // 24
 *     __u32 resv[3];         // 28
 *     struct io_sqring_offsets sq_off;  // 40
 *     struct io_cqring_offsets cq_off;  // 80
 * };
 * }
 *
 * <p>Thread-safe; static accessors over caller-owned segments.
 */
final class UringParams {
    static final StructLayout SQRING_OFFSETS = MemoryLayout.structLayout(
            JAVA_INT.withName("head"),
            JAVA_INT.withName("tail"),
            JAVA_INT.withName("ring_mask"),
            JAVA_INT.withName("ring_entries"),
            JAVA_INT.withName("flags"),
            JAVA_INT.withName("dropped"),
            JAVA_INT.withName("array"),
            JAVA_INT.withName("resv1"),
            JAVA_LONG.withName("user_addr"));

    static final StructLayout CQRING_OFFSETS = MemoryLayout.structLayout(
            JAVA_INT.withName("head"),
            JAVA_INT.withName("tail"),
            JAVA_INT.withName("ring_mask"),
            JAVA_INT.withName("ring_entries"),
            JAVA_INT.withName("overflow"),
            JAVA_INT.withName("cqes"),
            JAVA_INT.withName("flags"),
            JAVA_INT.withName("resv1"),
            JAVA_LONG.withName("user_addr"));

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_INT.withName("sq_entries"),
            JAVA_INT.withName("cq_entries"),
            JAVA_INT.withName("flags"),
            JAVA_INT.withName("sq_thread_cpu"),
            JAVA_INT.withName("sq_thread_idle"),
            JAVA_INT.withName("features"),
            JAVA_INT.withName("wq_fd"),
            MemoryLayout.sequenceLayout(3, JAVA_INT).withName("resv"),
            SQRING_OFFSETS.withName("sq_off"),
            CQRING_OFFSETS.withName("cq_off"));

    static final long OFF_SQ_ENTRIES = 0;
    static final long OFF_CQ_ENTRIES = 4;
    static final long OFF_FLAGS = 8;
    static final long OFF_FEATURES = 20;
    static final long OFF_SQ_OFF = 40;
    static final long OFF_CQ_OFF = 80;

    // offsets inside io_sqring_offsets
    static final long SQ_HEAD = 0;
    static final long SQ_TAIL = 4;
    static final long SQ_RING_MASK = 8;
    static final long SQ_RING_ENTRIES = 12;
    static final long SQ_FLAGS = 16;
    static final long SQ_DROPPED = 20;
    static final long SQ_ARRAY = 24;

    // offsets inside io_cqring_offsets
    static final long CQ_HEAD = 0;
    static final long CQ_TAIL = 4;
    static final long CQ_RING_MASK = 8;
    static final long CQ_RING_ENTRIES = 12;
    static final long CQ_OVERFLOW = 16;
    static final long CQ_CQES = 20;
    static final long CQ_FLAGS = 24;

    private UringParams() {
    }

    static int sqEntries(MemorySegment p) {
        return p.get(JAVA_INT, OFF_SQ_ENTRIES);
    }

    static int cqEntries(MemorySegment p) {
        return p.get(JAVA_INT, OFF_CQ_ENTRIES);
    }

    static int features(MemorySegment p) {
        return p.get(JAVA_INT, OFF_FEATURES);
    }

    static int sqOff(MemorySegment p, long field) {
        return p.get(JAVA_INT, OFF_SQ_OFF + field);
    }

    static int cqOff(MemorySegment p, long field) {
        return p.get(JAVA_INT, OFF_CQ_OFF + field);
    }
}
