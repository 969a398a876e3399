package io.jfio.bench.suite.experiments;

import io.jfio.core.sys.ErrnoException;
import io.jfio.core.sys.LibC;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * A TCP client socket made with socket(2) and connect(2), for the transfer experiment: sendfile and splice need the
 * socket's descriptor, and the JDK does not give out a SocketChannel's descriptor without opening sun.nio.ch.
 *
 * <p>Thread-safe; stateless. Handles are built once; errno is captured with {@code captureCallState}.
 */
final class Sockets {
    private static final int AF_INET = 2;          // AF_INET in bits/socket.h
    private static final int SOCK_STREAM = 1;      // SOCK_STREAM
    private static final int SOCK_CLOEXEC = 02000000; // SOCK_CLOEXEC (= O_CLOEXEC)

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    /** int socket(int domain, int type, int protocol). */
    private static final MethodHandle SOCKET = LINKER.downcallHandle(
            LINKER.defaultLookup().find("socket").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_INT,  // domain
                    ValueLayout.JAVA_INT,  // type
                    ValueLayout.JAVA_INT), // protocol
            Linker.Option.captureCallState("errno"));

    /** int connect(int fd, const struct sockaddr *addr, socklen_t len). */
    private static final MethodHandle CONNECT = LINKER.downcallHandle(
            LINKER.defaultLookup().find("connect").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_INT,  // fd
                    ValueLayout.ADDRESS,   // struct sockaddr_in *
                    ValueLayout.JAVA_INT), // sizeof(struct sockaddr_in) = 16
            Linker.Option.captureCallState("errno"));

    private Sockets() {
    }

    /** A blocking TCP socket connected to 127.0.0.1:{@code port}; the caller closes it with LibC.close. */
    static int connectLoopback(int port) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cap = a.allocate(CAPTURE);
            int fd = (int) SOCKET.invokeExact(cap, AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
            if (fd < 0) throw new ErrnoException("socket", (int) ERRNO.get(cap, 0L), "127.0.0.1:" + port);
            // struct sockaddr_in { sa_family_t sin_family; in_port_t sin_port (network order); in_addr sin_addr; }
            MemorySegment addr = a.allocate(16, 4);
            addr.set(ValueLayout.JAVA_SHORT, 0, (short) AF_INET);
            addr.set(ValueLayout.JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN), 2, (short) port);
            addr.set(ValueLayout.JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN), 4, 0x7f00_0001);
            int rc = (int) CONNECT.invokeExact(cap, fd, addr, 16);
            if (rc < 0) {
                int errno = (int) ERRNO.get(cap, 0L);
                LibC.close(fd);
                throw new ErrnoException("connect", errno, "127.0.0.1:" + port);
            }
            return fd;
        } catch (ErrnoException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("socket/connect downcall failed", t);
        }
    }
}
