package io.jfio.core.sys;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct rlimit} from linux/resource.h (64-bit {@code rlim_t} on x86_64 and aarch64), and the resource
 * numbers jfio asks about.
 *
 * {@snippet lang = c:
 * struct rlimit {
 *     rlim_t rlim_cur;   // 0: the soft limit, what the kernel enforces
 *     rlim_t rlim_max;   // 8: the hard limit, the ceiling for the soft one
 * };                     // 16 bytes
 * }
 *
 * <p>Thread-safe; static accessors over caller-owned segments.
 */
public final class Rlimit {
    public static final int RLIMIT_NOFILE = 7;             // RLIMIT_NOFILE in asm-generic/resource.h
    /** RLIM_INFINITY: no limit (all ones, read back as -1). */
    public static final long RLIM_INFINITY = -1L;          // RLIM_INFINITY

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("rlim_cur"),
            JAVA_LONG.withName("rlim_max"));
    public static final long OFF_CUR = 0;
    public static final long OFF_MAX = 8;

    private Rlimit() {
    }

    public static long cur(MemorySegment s) {
        return s.get(JAVA_LONG, OFF_CUR);
    }

    public static long max(MemorySegment s) {
        return s.get(JAVA_LONG, OFF_MAX);
    }
}
