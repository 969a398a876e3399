package io.jfio.core.sys;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct sockaddr_in6} from linux/in6.h: an IPv6 address and port in network byte order; the scope id (the
 * interface index of a link-local address) in host order.
 *
 * {@snippet lang = c:
 * struct sockaddr_in6 {
 *     unsigned short  sin6_family;     // 0   AF_INET6
 *     __be16          sin6_port;       // 2
 *     __be32          sin6_flowinfo;   // 4
 *     struct in6_addr sin6_addr;       // 8   16 bytes
 *     __u32           sin6_scope_id;   // 24
 * };                                   // 28 bytes
 * }
 *
 * <p>Thread-safe; static accessors over caller-owned segments.
 */
public final class SockaddrIn6 {
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_SHORT.withName("sin6_family"),
            JAVA_SHORT.withName("sin6_port"),
            JAVA_INT.withName("sin6_flowinfo"),
            MemoryLayout.sequenceLayout(16, JAVA_BYTE).withName("sin6_addr"),
            JAVA_INT.withName("sin6_scope_id"));
    public static final long SIZE = 28;
    public static final long OFF_FAMILY = 0;
    public static final long OFF_PORT = 2;
    public static final long OFF_FLOWINFO = 4;
    public static final long OFF_ADDR = 8;
    public static final long OFF_SCOPE_ID = 24;

    private SockaddrIn6() {
    }

    /** Fills {@code sa} (28 bytes) with AF_INET6, {@code port}, the 16 address bytes and the scope id. */
    public static void set(MemorySegment sa, byte[] address, int port, int scopeId) {
        if (address.length != 16 || port < 0 || port > 65535) {
            throw new IllegalArgumentException("sockaddr_in6: address length=" + address.length + " port=" + port);
        }
        sa.asSlice(0, SIZE).fill((byte) 0);
        sa.set(JAVA_SHORT, OFF_FAMILY, (short) Sockets.AF_INET6);
        sa.set(SockaddrIn.BE_SHORT, OFF_PORT, (short) port);
        MemorySegment.copy(address, 0, sa, JAVA_BYTE, OFF_ADDR, 16);
        sa.set(JAVA_INT, OFF_SCOPE_ID, scopeId);
    }

    /** The port, from network byte order. */
    public static int port(MemorySegment sa) {
        return Short.toUnsignedInt(sa.get(SockaddrIn.BE_SHORT, OFF_PORT));
    }
}
