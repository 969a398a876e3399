package io.jfio.core.sys;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct timespec} from linux/time_types.h (the 64-bit {@code __kernel_timespec}, which is the C library's
 * {@code struct timespec} on x86_64 and aarch64), and the {@code times[2]} array of utimensat(2).
 *
 * {@snippet lang = c:
 * struct timespec {
 *     time_t tv_sec;    // 0
 *     long   tv_nsec;   // 8
 * };                    // 16 bytes
 * }
 *
 * <p>Thread-safe; static accessors over caller-owned segments.
 */
public final class Timespec {
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("tv_sec"),
            JAVA_LONG.withName("tv_nsec"));
    public static final long SIZE = 16;
    public static final long OFF_SEC = 0;
    public static final long OFF_NSEC = 8;

    private Timespec() {
    }

    /** Sets entry {@code index} of a timespec array to {@code nanos} since the epoch (negative: before 1970). */
    public static void setNanos(MemorySegment array, int index, long nanos) {
        long base = index * SIZE;
        array.set(JAVA_LONG, base + OFF_SEC, Math.floorDiv(nanos, 1_000_000_000L));
        array.set(JAVA_LONG, base + OFF_NSEC, Math.floorMod(nanos, 1_000_000_000L));
    }

    /** Sets entry {@code index} of a timespec array to {@code sec} seconds since the epoch and {@code nsec}. */
    public static void set(MemorySegment array, int index, long sec, long nsec) {
        long base = index * SIZE;
        array.set(JAVA_LONG, base + OFF_SEC, sec);
        array.set(JAVA_LONG, base + OFF_NSEC, nsec);
    }

    /** Sets entry {@code index} to a special value: tv_sec 0 and {@link Fcntl#UTIME_OMIT} or UTIME_NOW. */
    public static void setSpecial(MemorySegment array, int index, long utimeFlag) {
        long base = index * SIZE;
        array.set(JAVA_LONG, base + OFF_SEC, 0L);
        array.set(JAVA_LONG, base + OFF_NSEC, utimeFlag);
    }

    public static long sec(MemorySegment array, int index) {
        return array.get(JAVA_LONG, index * SIZE + OFF_SEC);
    }

    public static long nsec(MemorySegment array, int index) {
        return array.get(JAVA_LONG, index * SIZE + OFF_NSEC);
    }
}
