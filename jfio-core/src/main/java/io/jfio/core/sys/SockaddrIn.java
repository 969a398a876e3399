package io.jfio.core.sys;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * {@code struct sockaddr_in} from linux/in.h: an IPv4 address and port, both in network byte order.
 *
 * {@snippet lang = c:
 * struct sockaddr_in {
 *     __kernel_sa_family_t sin_family;   // 0  AF_INET
 *     __be16               sin_port;     // 2
 *     struct in_addr       sin_addr;     // 4  __be32
 *     unsigned char        __pad[8];     // 8  zero
 * };                                     // 16 bytes
 * }
 *
 * <p>Thread-safe; static accessors over caller-owned segments.
 */
public final class SockaddrIn {
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_SHORT.withName("sin_family"),
            JAVA_SHORT.withName("sin_port"),
            JAVA_INT.withName("sin_addr"),
            MemoryLayout.sequenceLayout(8, JAVA_BYTE).withName("__pad"));
    public static final long SIZE = 16;
    public static final long OFF_FAMILY = 0;
    public static final long OFF_PORT = 2;
    public static final long OFF_ADDR = 4;

    static final ValueLayout.OfShort BE_SHORT = JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN);

    private SockaddrIn() {
    }

    /** Fills {@code sa} (16 bytes) with AF_INET, {@code port} and the 4 address bytes as written (network order). */
    public static void set(MemorySegment sa, byte[] address, int port) {
        if (address.length != 4 || port < 0 || port > 65535) {
            throw new IllegalArgumentException("sockaddr_in: address length=" + address.length + " port=" + port);
        }
        sa.asSlice(0, SIZE).fill((byte) 0);
        sa.set(JAVA_SHORT, OFF_FAMILY, (short) Sockets.AF_INET);
        sa.set(BE_SHORT, OFF_PORT, (short) port);
        MemorySegment.copy(address, 0, sa, JAVA_BYTE, OFF_ADDR, 4);
    }

    /** The port, from network byte order. */
    public static int port(MemorySegment sa) {
        return Short.toUnsignedInt(sa.get(BE_SHORT, OFF_PORT));
    }
}
