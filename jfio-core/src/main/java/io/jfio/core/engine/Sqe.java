package io.jfio.core.engine;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct io_uring_sqe}, the 64-byte submission queue entry, from linux/io_uring.h (Linux 6.1 UAPI). Unions
 * are named after the member jfio uses.
 *
 * {@snippet lang = c:
 * struct io_uring_sqe {
 *     __u8  opcode;        // 0
 *     __u8  flags;         // 1   IOSQE_*
 *     __u16 ioprio;        // 2
 *     __s32 fd;            // 4
 *     union { __u64 off; __u64 addr2; };                    // 8
 *     union { __u64 addr; __u64 splice_off_in; };           // 16
 *     __u32 len;           // 24
 *     union { __u32 rw_flags, fsync_flags, timeout_flags, cancel_flags, open_flags, statx_flags,
 *             fadvise_advice, splice_flags, ...; };         // 28
 *     __u64 user_data;     // 32
 *     union { __u16 buf_index; __u16 buf_group; };          // 40
 *     __u16 personality;   // 42
 *     union { __s32 splice_fd_in; __u32 file_index; };      // 44
 *     union { struct { __u64 addr3; __u64 __pad2[1]; }; __u8 cmd[0]; };  // 48
 * };                       // 64
 * }
 *
 * <p>Not thread-safe; SQEs are written only by the ring's owner thread.
 */
final class Sqe {
    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_BYTE.withName("opcode"),
            JAVA_BYTE.withName("flags"),
            JAVA_SHORT.withName("ioprio"),
            JAVA_INT.withName("fd"),
            JAVA_LONG.withName("off"),
            JAVA_LONG.withName("addr"),
            JAVA_INT.withName("len"),
            JAVA_INT.withName("op_flags"),
            JAVA_LONG.withName("user_data"),
            JAVA_SHORT.withName("buf_index"),
            JAVA_SHORT.withName("personality"),
            JAVA_INT.withName("splice_fd_in"),
            JAVA_LONG.withName("addr3"),
            MemoryLayout.paddingLayout(8));

    static final long SIZE = 64;
    static final long OFF_OPCODE = 0;
    static final long OFF_FLAGS = 1;
    static final long OFF_IOPRIO = 2;
    static final long OFF_FD = 4;
    static final long OFF_OFF = 8;
    static final long OFF_ADDR = 16;
    static final long OFF_LEN = 24;
    static final long OFF_OP_FLAGS = 28;
    static final long OFF_USER_DATA = 32;
    static final long OFF_BUF_INDEX = 40;
    static final long OFF_PERSONALITY = 42;
    static final long OFF_SPLICE_FD_IN = 44;
    static final long OFF_ADDR3 = 48;
    static final long OFF_PAD2 = 56;

    private Sqe() {
    }

    /**
     * Writes every field of the SQE at {@code base} in {@code sqes}, so no stale bytes of an earlier request
     * survive (the kernel reads fields that some opcodes do not use and rejects non-zero values with EINVAL).
     */
    static void write(MemorySegment sqes, long base, int opcode, int flags, int fd, long off, long addr, int len,
                      int opFlags, long userData, int bufIndex, int spliceFdIn, long addr3) {
        sqes.set(JAVA_BYTE, base + OFF_OPCODE, (byte) opcode);
        sqes.set(JAVA_BYTE, base + OFF_FLAGS, (byte) flags);
        sqes.set(JAVA_SHORT, base + OFF_IOPRIO, (short) 0);
        sqes.set(JAVA_INT, base + OFF_FD, fd);
        sqes.set(JAVA_LONG, base + OFF_OFF, off);
        sqes.set(JAVA_LONG, base + OFF_ADDR, addr);
        sqes.set(JAVA_INT, base + OFF_LEN, len);
        sqes.set(JAVA_INT, base + OFF_OP_FLAGS, opFlags);
        sqes.set(JAVA_LONG, base + OFF_USER_DATA, userData);
        sqes.set(JAVA_SHORT, base + OFF_BUF_INDEX, (short) bufIndex);
        sqes.set(JAVA_SHORT, base + OFF_PERSONALITY, (short) 0);
        sqes.set(JAVA_INT, base + OFF_SPLICE_FD_IN, spliceFdIn);
        sqes.set(JAVA_LONG, base + OFF_ADDR3, addr3);
        sqes.set(JAVA_LONG, base + OFF_PAD2, 0L);
    }

    static int opcode(MemorySegment sqes, long base) {
        return Byte.toUnsignedInt(sqes.get(JAVA_BYTE, base + OFF_OPCODE));
    }

    static int flags(MemorySegment sqes, long base) {
        return Byte.toUnsignedInt(sqes.get(JAVA_BYTE, base + OFF_FLAGS));
    }

    static long userData(MemorySegment sqes, long base) {
        return sqes.get(JAVA_LONG, base + OFF_USER_DATA);
    }
}
