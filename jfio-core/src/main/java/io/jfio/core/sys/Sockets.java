package io.jfio.core.sys;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemorySegment;

/**
 * Socket constants from the Linux UAPI headers (linux/socket.h, asm-generic/socket.h, linux/in.h, linux/tcp.h) and
 * the C library's sys/socket.h, the same on x86_64 and aarch64, plus the {@code struct timeval} that SO_SNDTIMEO and
 * SO_RCVTIMEO take.
 *
 * <p>Thread-safe; constants and static helpers only.
 */
public final class Sockets {
    public static final int AF_INET = 2;                  // AF_INET in linux/socket.h
    public static final int AF_INET6 = 10;                // AF_INET6

    public static final int SOCK_STREAM = 1;              // SOCK_STREAM in linux/net.h
    public static final int SOCK_NONBLOCK = Fcntl.O_NONBLOCK; // SOCK_NONBLOCK = O_NONBLOCK
    public static final int SOCK_CLOEXEC = Fcntl.O_CLOEXEC;   // SOCK_CLOEXEC = O_CLOEXEC

    public static final int SOL_SOCKET = 1;               // SOL_SOCKET in asm-generic/socket.h
    public static final int SO_REUSEADDR = 2;             // SO_REUSEADDR
    public static final int SO_SNDBUF = 7;                // SO_SNDBUF
    public static final int SO_RCVBUF = 8;                // SO_RCVBUF
    public static final int SO_KEEPALIVE = 9;             // SO_KEEPALIVE
    public static final int SO_RCVTIMEO = 20;             // SO_RCVTIMEO_OLD (64-bit time_t: the same struct)
    public static final int SO_SNDTIMEO = 21;             // SO_SNDTIMEO_OLD

    public static final int IPPROTO_TCP = 6;              // IPPROTO_TCP in linux/in.h
    public static final int TCP_NODELAY = 1;              // TCP_NODELAY in linux/tcp.h

    public static final int SHUT_RD = 0;                  // SHUT_RD in sys/socket.h
    public static final int SHUT_WR = 1;                  // SHUT_WR
    public static final int SHUT_RDWR = 2;                // SHUT_RDWR

    public static final int MSG_NOSIGNAL = 0x4000;        // MSG_NOSIGNAL in linux/socket.h

    /** {@code struct timeval {time_t tv_sec; suseconds_t tv_usec;}}: 16 bytes on 64-bit Linux. */
    public static final long TIMEVAL_SIZE = 16;

    private Sockets() {
    }

    /** Writes {@code millis} as a {@code struct timeval} into {@code tv} (16 bytes); 0 means no timeout. */
    public static void setTimeval(MemorySegment tv, long millis) {
        tv.set(JAVA_LONG, 0, millis / 1000);
        tv.set(JAVA_LONG, 8, (millis % 1000) * 1000);
    }
}
