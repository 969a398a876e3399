package io.jfio.core.sys;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct epoll_event} from linux/eventpoll.h. On x86_64 the struct is packed (12 bytes, {@code data} at the
 * unaligned offset 4) so that 32-bit and 64-bit processes share one layout; elsewhere, aarch64 included, it has the
 * natural alignment (16 bytes, {@code data} at 8). The layout for this machine is chosen when the class loads.
 *
 * {@snippet lang = c:
 * #ifdef __x86_64__
 * #define EPOLL_PACKED __attribute__((packed))
 * #else
 * #define EPOLL_PACKED
 * #endif
 * struct epoll_event {
 *     __poll_t events;   // 0: EPOLL* bits
 *     __u64    data;     // 4 on x86_64, 8 on aarch64 (after 4 bytes of padding): returned as given
 * } EPOLL_PACKED;        // 12 bytes on x86_64, 16 on aarch64
 * }
 *
 * <p>Thread-safe; static accessors over caller-owned segments holding arrays of these.
 */
public final class EpollEvent {
    private static final boolean X86 = Platform.isX86();

    public static final StructLayout LAYOUT = X86
            ? MemoryLayout.structLayout(
                    JAVA_INT.withName("events"),
                    JAVA_LONG_UNALIGNED.withName("data")).withByteAlignment(4)
            : MemoryLayout.structLayout(
                    JAVA_INT.withName("events"),
                    MemoryLayout.paddingLayout(4),
                    JAVA_LONG.withName("data"));
    public static final long SIZE = X86 ? 12 : 16;
    public static final long OFF_EVENTS = 0;
    public static final long OFF_DATA = X86 ? 4 : 8;

    private EpollEvent() {
    }

    /** The {@code events} of element {@code i} of an array. */
    public static int events(MemorySegment array, int i) {
        return array.get(JAVA_INT, i * SIZE + OFF_EVENTS);
    }

    /** The {@code data} of element {@code i} of an array. */
    public static long data(MemorySegment array, int i) {
        return array.get(JAVA_LONG_UNALIGNED, i * SIZE + OFF_DATA);
    }

    /** Sets element {@code i} of an array. */
    public static void set(MemorySegment array, int i, int events, long data) {
        array.set(JAVA_INT, i * SIZE + OFF_EVENTS, events);
        array.set(JAVA_LONG_UNALIGNED, i * SIZE + OFF_DATA, data);
    }
}
