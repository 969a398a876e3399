package io.jfio.core.sys;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * sockaddr_in and sockaddr_in6 against linux/in.h and linux/in6.h, then the socket downcalls end to end: an FFM
 * socket connects to a JDK listener over IPv4 and IPv6 loopback, sends with send(2) and sendfile(2), and receives.
 */
class SocketBindingsTest {

    @Test
    void shouldMatchKernelSockaddrLayouts() {
        assertEquals(16, SockaddrIn.LAYOUT.byteSize());
        assertEquals(SockaddrIn.SIZE, SockaddrIn.LAYOUT.byteSize());
        assertEquals(0, SockaddrIn.LAYOUT.byteOffset(groupElement("sin_family")));
        assertEquals(SockaddrIn.OFF_PORT, SockaddrIn.LAYOUT.byteOffset(groupElement("sin_port")));
        assertEquals(2, SockaddrIn.OFF_PORT);
        assertEquals(SockaddrIn.OFF_ADDR, SockaddrIn.LAYOUT.byteOffset(groupElement("sin_addr")));
        assertEquals(4, SockaddrIn.OFF_ADDR);

        assertEquals(28, SockaddrIn6.LAYOUT.byteSize());
        assertEquals(SockaddrIn6.SIZE, SockaddrIn6.LAYOUT.byteSize());
        assertEquals(2, SockaddrIn6.LAYOUT.byteOffset(groupElement("sin6_port")));
        assertEquals(4, SockaddrIn6.LAYOUT.byteOffset(groupElement("sin6_flowinfo")));
        assertEquals(8, SockaddrIn6.LAYOUT.byteOffset(groupElement("sin6_addr")));
        assertEquals(SockaddrIn6.OFF_ADDR, SockaddrIn6.LAYOUT.byteOffset(groupElement("sin6_addr")));
        assertEquals(24, SockaddrIn6.LAYOUT.byteOffset(groupElement("sin6_scope_id")));
        assertEquals(SockaddrIn6.OFF_SCOPE_ID, SockaddrIn6.LAYOUT.byteOffset(groupElement("sin6_scope_id")));
    }

    @Test
    void shouldWritePortInNetworkOrder() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment sa = a.allocate(SockaddrIn.LAYOUT);
            SockaddrIn.set(sa, new byte[] {127, 0, 0, 1}, 0x1234);
            assertEquals(0x12, sa.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 2));
            assertEquals(0x34, sa.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 3));
            assertEquals(127, sa.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 4));
            assertEquals(0x1234, SockaddrIn.port(sa));
        }
    }

    @Test
    void shouldConnectAndSendOverIpv4(@TempDir Path dir) throws Exception {
        roundTrip(InetAddress.getByName("127.0.0.1"), dir);
    }

    @Test
    void shouldConnectAndSendOverIpv6(@TempDir Path dir) throws Exception {
        InetAddress loop6 = InetAddress.getByName("::1");
        boolean v6;
        try (ServerSocketChannel probe = ServerSocketChannel.open()) {
            probe.bind(new InetSocketAddress(loop6, 0));
            v6 = true;
        } catch (java.io.IOException e) {
            v6 = false;
        }
        assumeTrue(v6, "no IPv6 loopback on this machine");
        roundTrip(loop6, dir);
    }

    private static void roundTrip(InetAddress address, Path dir) throws Exception {
        Path file = dir.resolve("f");
        Files.writeString(file, "from sendfile\n");
        try (ServerSocketChannel server = ServerSocketChannel.open(); Arena a = Arena.ofConfined()) {
            server.bind(new InetSocketAddress(address, 0));
            int port = ((InetSocketAddress) server.getLocalAddress()).getPort();
            boolean v6 = address instanceof Inet6Address;
            int fd = LibC.socket(v6 ? Sockets.AF_INET6 : Sockets.AF_INET,
                    Sockets.SOCK_STREAM | Sockets.SOCK_CLOEXEC, 0);
            assertTrue(fd >= 0, "socket: " + Errno.name(fd));
            int fileFd = -1;
            try {
                MemorySegment one = a.allocate(JAVA_INT);
                one.set(JAVA_INT, 0, 1);
                assertEquals(0, LibC.setsockopt(fd, Sockets.IPPROTO_TCP, Sockets.TCP_NODELAY, one, 4));
                MemorySegment sa;
                if (v6) {
                    sa = a.allocate(SockaddrIn6.LAYOUT);
                    SockaddrIn6.set(sa, address.getAddress(), port, 0);
                } else {
                    sa = a.allocate(SockaddrIn.LAYOUT);
                    SockaddrIn.set(sa, address.getAddress(), port);
                }
                assertEquals(0, LibC.connect(fd, sa, (int) sa.byteSize()));
                try (SocketChannel peer = server.accept()) {
                    MemorySegment msg = a.allocateFrom("from send\n", StandardCharsets.US_ASCII);
                    long len = msg.byteSize() - 1;
                    assertEquals(len, LibC.send(fd, msg, len, Sockets.MSG_NOSIGNAL));
                    fileFd = LibC.openat(Fcntl.AT_FDCWD, file.toString(), Fcntl.O_RDONLY | Fcntl.O_CLOEXEC, 0);
                    assertEquals(14, LibC.sendfile(fd, fileFd, MemorySegment.NULL, 14));
                    assertEquals(0, LibC.shutdown(fd, Sockets.SHUT_WR));
                    ByteBuffer got = ByteBuffer.allocate(64);
                    while (peer.read(got) >= 0) {
                        // until the FIN that shutdown sent
                    }
                    assertEquals("from send\nfrom sendfile\n",
                            new String(got.array(), 0, got.position(), StandardCharsets.US_ASCII));
                    peer.write(ByteBuffer.wrap("ok".getBytes(StandardCharsets.US_ASCII)));
                    MemorySegment in = a.allocate(8);
                    assertEquals(2, LibC.recv(fd, in, 8, 0));
                }
            } finally {
                if (fileFd >= 0) {
                    LibC.close(fileFd);
                }
                LibC.close(fd);
            }
        }
    }
}
