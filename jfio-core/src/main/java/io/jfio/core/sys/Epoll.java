package io.jfio.core.sys;

/**
 * epoll(7) constants from linux/eventpoll.h.
 *
 * <p>Thread-safe; constants only.
 */
public final class Epoll {
    public static final int EPOLL_CLOEXEC = Fcntl.O_CLOEXEC;   // EPOLL_CLOEXEC

    public static final int EPOLL_CTL_ADD = 1;                 // EPOLL_CTL_ADD
    public static final int EPOLL_CTL_DEL = 2;                 // EPOLL_CTL_DEL
    public static final int EPOLL_CTL_MOD = 3;                 // EPOLL_CTL_MOD

    public static final int EPOLLIN = 0x00000001;              // EPOLLIN
    public static final int EPOLLPRI = 0x00000002;             // EPOLLPRI
    public static final int EPOLLOUT = 0x00000004;             // EPOLLOUT
    public static final int EPOLLERR = 0x00000008;             // EPOLLERR
    public static final int EPOLLHUP = 0x00000010;             // EPOLLHUP
    public static final int EPOLLRDHUP = 0x00002000;           // EPOLLRDHUP
    public static final int EPOLLEXCLUSIVE = 1 << 28;          // EPOLLEXCLUSIVE
    public static final int EPOLLWAKEUP = 1 << 29;             // EPOLLWAKEUP
    public static final int EPOLLONESHOT = 1 << 30;            // EPOLLONESHOT
    public static final int EPOLLET = 1 << 31;                 // EPOLLET

    private Epoll() {
    }
}
