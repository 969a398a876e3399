package io.jfio.core.sys;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * The kernel's {@code struct stat} as filled by the fstat system call. Its shape differs by architecture; the layout
 * for this machine is chosen when the class loads.
 *
 * {@snippet lang = c:
 * // x86_64 (arch/x86/include/uapi/asm/stat.h): 144 bytes
 * struct stat {
 *     __kernel_ulong_t st_dev;      // 0
 *     __kernel_ulong_t st_ino;      // 8
 *     __kernel_ulong_t st_nlink;    // 16
 *     unsigned int     st_mode;     // 24
 *     unsigned int     st_uid;      // 28
 *     unsigned int     st_gid;      // 32
 *     unsigned int     __pad0;      // 36
 *     __kernel_ulong_t st_rdev;     // 40
 *     __kernel_long_t  st_size;     // 48
 *     __kernel_long_t  st_blksize;  // 56
 *     __kernel_long_t  st_blocks;   // 64
 *     struct timespec  st_atim, st_mtim, st_ctim;  // 72, 88, 104
 *     __kernel_long_t  __unused[3]; // 120
 * };
 * // aarch64 (asm-generic/stat.h): 128 bytes
 * struct stat {
 *     unsigned long st_dev;   // 0
 *     unsigned long st_ino;   // 8
 *     unsigned int  st_mode;  // 16
 *     unsigned int  st_nlink; // 20
 *     unsigned int  st_uid;   // 24
 *     unsigned int  st_gid;   // 28
 *     unsigned long st_rdev;  // 32
 *     unsigned long __pad1;   // 40
 *     long          st_size;  // 48
 *     int           st_blksize; // 56
 *     int           __pad2;   // 60
 *     long          st_blocks;  // 64
 *     struct timespec st_atim, st_mtim, st_ctim; // 72, 88, 104
 *     unsigned int  __unused4, __unused5;        // 120
 * };
 * }
 *
 * <p>Thread-safe; static accessors over caller-owned segments.
 */
public final class Stat {
    private static final boolean X86 = Platform.isX86();

    private static final StructLayout TIMESPEC = MemoryLayout.structLayout(
            JAVA_LONG.withName("tv_sec"), JAVA_LONG.withName("tv_nsec"));

    public static final StructLayout LAYOUT = X86
            ? MemoryLayout.structLayout(
                    JAVA_LONG.withName("st_dev"),
                    JAVA_LONG.withName("st_ino"),
                    JAVA_LONG.withName("st_nlink"),
                    JAVA_INT.withName("st_mode"),
                    JAVA_INT.withName("st_uid"),
                    JAVA_INT.withName("st_gid"),
                    MemoryLayout.paddingLayout(4),
                    JAVA_LONG.withName("st_rdev"),
                    JAVA_LONG.withName("st_size"),
                    JAVA_LONG.withName("st_blksize"),
                    JAVA_LONG.withName("st_blocks"),
                    TIMESPEC.withName("st_atim"),
                    TIMESPEC.withName("st_mtim"),
                    TIMESPEC.withName("st_ctim"),
                    MemoryLayout.paddingLayout(24))
            : MemoryLayout.structLayout(
                    JAVA_LONG.withName("st_dev"),
                    JAVA_LONG.withName("st_ino"),
                    JAVA_INT.withName("st_mode"),
                    JAVA_INT.withName("st_nlink"),
                    JAVA_INT.withName("st_uid"),
                    JAVA_INT.withName("st_gid"),
                    JAVA_LONG.withName("st_rdev"),
                    MemoryLayout.paddingLayout(8),
                    JAVA_LONG.withName("st_size"),
                    JAVA_INT.withName("st_blksize"),
                    MemoryLayout.paddingLayout(4),
                    JAVA_LONG.withName("st_blocks"),
                    TIMESPEC.withName("st_atim"),
                    TIMESPEC.withName("st_mtim"),
                    TIMESPEC.withName("st_ctim"),
                    MemoryLayout.paddingLayout(8));

    public static final long OFF_DEV = 0;
    public static final long OFF_INO = 8;
    public static final long OFF_MODE = X86 ? 24 : 16;
    public static final long OFF_SIZE = 48;
    public static final long OFF_BLOCKS = 64;
    public static final long OFF_MTIM = 88;

    private Stat() {
    }

    public static long dev(MemorySegment s) {
        return s.get(JAVA_LONG, OFF_DEV);
    }

    public static long ino(MemorySegment s) {
        return s.get(JAVA_LONG, OFF_INO);
    }

    public static int mode(MemorySegment s) {
        return s.get(JAVA_INT, OFF_MODE);
    }

    public static long size(MemorySegment s) {
        return s.get(JAVA_LONG, OFF_SIZE);
    }

    public static long blocks(MemorySegment s) {
        return s.get(JAVA_LONG, OFF_BLOCKS);
    }

    /** The modification time in nanoseconds since the epoch, held at the long's ends as {@link Statx#nanos}. */
    public static long mtimeNanos(MemorySegment s) {
        return Statx.nanos(s.get(JAVA_LONG, OFF_MTIM), s.get(JAVA_LONG, OFF_MTIM + 8));
    }
}
