package io.jfio.core.sys;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct statx} from linux/stat.h (Linux 6.1 UAPI; 256 bytes, the same on every architecture).
 *
 * {@snippet lang = c:
 * struct statx_timestamp { __s64 tv_sec; __u32 tv_nsec; __s32 __reserved; };   // 16 bytes
 * struct statx {
 *     __u32 stx_mask;            // 0x00
 *     __u32 stx_blksize;         // 0x04
 *     __u64 stx_attributes;      // 0x08
 *     __u32 stx_nlink;           // 0x10
 *     __u32 stx_uid;             // 0x14
 *     __u32 stx_gid;             // 0x18
 *     __u16 stx_mode;            // 0x1c
 *     __u16 __spare0[1];         // 0x1e
 *     __u64 stx_ino;             // 0x20
 *     __u64 stx_size;            // 0x28
 *     __u64 stx_blocks;          // 0x30
 *     __u64 stx_attributes_mask; // 0x38
 *     struct statx_timestamp stx_atime, stx_btime, stx_ctime, stx_mtime; // 0x40, 0x50, 0x60, 0x70
 *     __u32 stx_rdev_major, stx_rdev_minor;  // 0x80, 0x84
 *     __u32 stx_dev_major, stx_dev_minor;    // 0x88, 0x8c
 *     __u64 stx_mnt_id;                      // 0x90
 *     __u32 stx_dio_mem_align;               // 0x98
 *     __u32 stx_dio_offset_align;            // 0x9c
 *     __u64 __spare3[12];                    // 0xa0
 * };                                         // 0x100
 * }
 *
 * <p>Thread-safe; static accessors over caller-owned segments.
 */
public final class Statx {
    public static final int STATX_TYPE = 0x1;              // STATX_TYPE
    public static final int STATX_MODE = 0x2;              // STATX_MODE
    public static final int STATX_NLINK = 0x4;             // STATX_NLINK
    public static final int STATX_UID = 0x8;               // STATX_UID
    public static final int STATX_GID = 0x10;              // STATX_GID
    public static final int STATX_ATIME = 0x20;            // STATX_ATIME
    public static final int STATX_MTIME = 0x40;            // STATX_MTIME
    public static final int STATX_CTIME = 0x80;            // STATX_CTIME
    public static final int STATX_INO = 0x100;             // STATX_INO
    public static final int STATX_SIZE = 0x200;            // STATX_SIZE
    public static final int STATX_BLOCKS = 0x400;          // STATX_BLOCKS
    public static final int STATX_BASIC_STATS = 0x7ff;     // STATX_BASIC_STATS
    public static final int STATX_BTIME = 0x800;           // STATX_BTIME
    public static final int STATX_MNT_ID = 0x1000;         // STATX_MNT_ID
    public static final int STATX_DIOALIGN = 0x2000;       // STATX_DIOALIGN (Linux 6.1)

    private static final StructLayout TIMESTAMP = MemoryLayout.structLayout(
            JAVA_LONG.withName("tv_sec"),
            JAVA_INT.withName("tv_nsec"),
            JAVA_INT.withName("__reserved"));

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_INT.withName("stx_mask"),
            JAVA_INT.withName("stx_blksize"),
            JAVA_LONG.withName("stx_attributes"),
            JAVA_INT.withName("stx_nlink"),
            JAVA_INT.withName("stx_uid"),
            JAVA_INT.withName("stx_gid"),
            JAVA_SHORT.withName("stx_mode"),
            MemoryLayout.paddingLayout(2),
            JAVA_LONG.withName("stx_ino"),
            JAVA_LONG.withName("stx_size"),
            JAVA_LONG.withName("stx_blocks"),
            JAVA_LONG.withName("stx_attributes_mask"),
            TIMESTAMP.withName("stx_atime"),
            TIMESTAMP.withName("stx_btime"),
            TIMESTAMP.withName("stx_ctime"),
            TIMESTAMP.withName("stx_mtime"),
            JAVA_INT.withName("stx_rdev_major"),
            JAVA_INT.withName("stx_rdev_minor"),
            JAVA_INT.withName("stx_dev_major"),
            JAVA_INT.withName("stx_dev_minor"),
            JAVA_LONG.withName("stx_mnt_id"),
            JAVA_INT.withName("stx_dio_mem_align"),
            JAVA_INT.withName("stx_dio_offset_align"),
            MemoryLayout.sequenceLayout(12, JAVA_LONG).withName("__spare3"));

    public static final long OFF_MASK = 0x00;
    public static final long OFF_BLKSIZE = 0x04;
    public static final long OFF_ATTRIBUTES = 0x08;
    public static final long OFF_NLINK = 0x10;
    public static final long OFF_UID = 0x14;
    public static final long OFF_GID = 0x18;
    public static final long OFF_MODE = 0x1c;
    public static final long OFF_INO = 0x20;
    public static final long OFF_SIZE = 0x28;
    public static final long OFF_BLOCKS = 0x30;
    public static final long OFF_ATIME = 0x40;
    public static final long OFF_BTIME = 0x50;
    public static final long OFF_CTIME = 0x60;
    public static final long OFF_MTIME = 0x70;
    public static final long OFF_RDEV_MAJOR = 0x80;
    public static final long OFF_RDEV_MINOR = 0x84;
    public static final long OFF_DEV_MAJOR = 0x88;
    public static final long OFF_DEV_MINOR = 0x8c;
    public static final long OFF_MNT_ID = 0x90;
    public static final long OFF_DIO_MEM_ALIGN = 0x98;
    public static final long OFF_DIO_OFFSET_ALIGN = 0x9c;

    private Statx() {
    }

    public static int mask(MemorySegment s) {
        return s.get(JAVA_INT, OFF_MASK);
    }

    public static int blksize(MemorySegment s) {
        return s.get(JAVA_INT, OFF_BLKSIZE);
    }

    public static long nlink(MemorySegment s) {
        return Integer.toUnsignedLong(s.get(JAVA_INT, OFF_NLINK));
    }

    public static int uid(MemorySegment s) {
        return s.get(JAVA_INT, OFF_UID);
    }

    public static int gid(MemorySegment s) {
        return s.get(JAVA_INT, OFF_GID);
    }

    /** File type and permission bits ({@code S_IFMT} and the rest). */
    public static int mode(MemorySegment s) {
        return Short.toUnsignedInt(s.get(JAVA_SHORT, OFF_MODE));
    }

    public static long ino(MemorySegment s) {
        return s.get(JAVA_LONG, OFF_INO);
    }

    public static long size(MemorySegment s) {
        return s.get(JAVA_LONG, OFF_SIZE);
    }

    /** Allocated space in 512-byte blocks. */
    public static long blocks(MemorySegment s) {
        return s.get(JAVA_LONG, OFF_BLOCKS);
    }

    /** The seconds since the epoch of the timestamp at one of the {@code OFF_*TIME} offsets (signed). */
    public static long timeSec(MemorySegment s, long timestampOffset) {
        return s.get(JAVA_LONG, timestampOffset);
    }

    /** The nanoseconds (0 to 999,999,999) of the timestamp at one of the {@code OFF_*TIME} offsets. */
    public static int timeNsec(MemorySegment s, long timestampOffset) {
        return s.get(JAVA_INT, timestampOffset + 8);
    }

    /**
     * A timestamp at one of the {@code OFF_*TIME} offsets, in nanoseconds since the epoch. A long holds 1677-09-21 to
     * 2262-04-11: a time outside is {@link Long#MIN_VALUE} or {@link Long#MAX_VALUE}, so it still compares as earlier
     * or later than every time within; {@link #timeSec} and {@link #timeNsec} give it exactly.
     */
    public static long timeNanos(MemorySegment s, long timestampOffset) {
        return nanos(s.get(JAVA_LONG, timestampOffset), Integer.toUnsignedLong(s.get(JAVA_INT, timestampOffset + 8)));
    }

    /** {@code sec} seconds and {@code nsec} nanoseconds since the epoch as nanoseconds, held at the long's ends. */
    public static long nanos(long sec, long nsec) {
        // Before the epoch, a second less is counted in the nanoseconds so that 1677-09-21's last ones still fit.
        long borrow = sec < 0 ? 1 : 0;
        try {
            return Math.addExact(Math.multiplyExact(sec + borrow, 1_000_000_000L), nsec - borrow * 1_000_000_000L);
        } catch (ArithmeticException e) {
            return sec < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }

    public static long mtimeNanos(MemorySegment s) {
        return timeNanos(s, OFF_MTIME);
    }

    public static int devMajor(MemorySegment s) {
        return s.get(JAVA_INT, OFF_DEV_MAJOR);
    }

    public static int devMinor(MemorySegment s) {
        return s.get(JAVA_INT, OFF_DEV_MINOR);
    }

    /** The device as the kernel's {@code dev_t} encoding ({@code makedev}), as {@code st_dev} would give it. */
    public static long dev(MemorySegment s) {
        return makedev(devMajor(s), devMinor(s));
    }

    public static long mntId(MemorySegment s) {
        return s.get(JAVA_LONG, OFF_MNT_ID);
    }

    /** Required memory alignment for O_DIRECT buffers; 0 when unsupported or not reported. */
    public static int dioMemAlign(MemorySegment s) {
        return (mask(s) & STATX_DIOALIGN) != 0 ? s.get(JAVA_INT, OFF_DIO_MEM_ALIGN) : 0;
    }

    /** Required file offset alignment for O_DIRECT; 0 when unsupported or not reported. */
    public static int dioOffsetAlign(MemorySegment s) {
        return (mask(s) & STATX_DIOALIGN) != 0 ? s.get(JAVA_INT, OFF_DIO_OFFSET_ALIGN) : 0;
    }

    /** glibc's {@code gnu_dev_makedev}: the 64-bit dev_t of a major/minor pair. */
    public static long makedev(int major, int minor) {
        long maj = Integer.toUnsignedLong(major);
        long min = Integer.toUnsignedLong(minor);
        return ((maj & 0x00000fffL) << 8) | ((maj & 0xfffff000L) << 32)
                | (min & 0x000000ffL) | ((min & 0xffffff00L) << 12);
    }
}
