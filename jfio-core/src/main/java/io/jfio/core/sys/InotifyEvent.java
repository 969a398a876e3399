package io.jfio.core.sys;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct inotify_event} as read(2) returns it from an inotify descriptor (linux/inotify.h; the same on every
 * architecture): a fixed 16-byte header followed by {@code len} bytes of name, NUL-padded.
 *
 * {@snippet lang = c:
 * struct inotify_event {
 *     __s32 wd;       // 0: watch descriptor, -1 for IN_Q_OVERFLOW
 *     __u32 mask;     // 4: IN_* bits
 *     __u32 cookie;   // 8: the same for the IN_MOVED_FROM and IN_MOVED_TO of one rename, else 0
 *     __u32 len;      // 12: length of name including its NUL padding; 0 for events on the watched object itself
 *     char  name[];   // 16
 * };
 * }
 *
 * <p>Thread-safe; static accessors over caller-owned segments, where each record starts at the offset the previous
 * record's {@link #recordLength} gives.
 */
public final class InotifyEvent {
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_INT.withName("wd"),
            JAVA_INT.withName("mask"),
            JAVA_INT.withName("cookie"),
            JAVA_INT.withName("len"));
    /** Size of the header; the name follows it. */
    public static final long HEADER_SIZE = 16;
    public static final long OFF_WD = 0;
    public static final long OFF_MASK = 4;
    public static final long OFF_COOKIE = 8;
    public static final long OFF_LEN = 12;
    public static final long OFF_NAME = 16;
    /**
     * A buffer of this size always holds at least one event: the kernel fails a read too small for the next event
     * with EINVAL (header + NAME_MAX + NUL).
     */
    public static final int MIN_BUFFER = (int) HEADER_SIZE + Fcntl.NAME_MAX + 1;

    private InotifyEvent() {
    }

    public static int wd(MemorySegment buf, long rec) {
        return buf.get(JAVA_INT, rec + OFF_WD);
    }

    public static int mask(MemorySegment buf, long rec) {
        return buf.get(JAVA_INT, rec + OFF_MASK);
    }

    public static int cookie(MemorySegment buf, long rec) {
        return buf.get(JAVA_INT, rec + OFF_COOKIE);
    }

    public static int len(MemorySegment buf, long rec) {
        return buf.get(JAVA_INT, rec + OFF_LEN);
    }

    /** Bytes from this record to the next one. */
    public static long recordLength(MemorySegment buf, long rec) {
        return HEADER_SIZE + Integer.toUnsignedLong(len(buf, rec));
    }

    /** The name's bytes without the NUL padding; empty for events on the watched object itself. */
    public static byte[] nameBytes(MemorySegment buf, long rec) {
        return PathBytes.cString(buf, rec + OFF_NAME, rec + OFF_NAME + Integer.toUnsignedLong(len(buf, rec)));
    }
}
