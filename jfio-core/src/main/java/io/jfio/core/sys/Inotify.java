package io.jfio.core.sys;

/**
 * inotify(7) constants from linux/inotify.h: the event bits of {@code inotify_add_watch} masks and of
 * {@code struct inotify_event}, the special watch flags, and the {@code inotify_init1} flags.
 *
 * <p>Thread-safe; constants only.
 */
public final class Inotify {
    public static final int IN_ACCESS = 1 << 0;            // IN_ACCESS: file was read
    public static final int IN_MODIFY = 1 << 1;            // IN_MODIFY: file was written
    public static final int IN_ATTRIB = 1 << 2;            // IN_ATTRIB: metadata changed (mode, times, owner, links)
    public static final int IN_CLOSE_WRITE = 1 << 3;       // IN_CLOSE_WRITE: a file open for writing was closed
    public static final int IN_CLOSE_NOWRITE = 1 << 4;     // IN_CLOSE_NOWRITE
    public static final int IN_OPEN = 1 << 5;              // IN_OPEN
    public static final int IN_MOVED_FROM = 1 << 6;        // IN_MOVED_FROM: renamed away from the watched directory
    public static final int IN_MOVED_TO = 1 << 7;          // IN_MOVED_TO: renamed into the watched directory
    public static final int IN_CREATE = 1 << 8;            // IN_CREATE
    public static final int IN_DELETE = 1 << 9;            // IN_DELETE
    public static final int IN_DELETE_SELF = 1 << 10;      // IN_DELETE_SELF: the watched object itself was deleted
    public static final int IN_MOVE_SELF = 1 << 11;        // IN_MOVE_SELF: the watched object itself was moved
    public static final int IN_UNMOUNT = 1 << 13;          // IN_UNMOUNT: its file system was unmounted
    public static final int IN_Q_OVERFLOW = 1 << 14;       // IN_Q_OVERFLOW: events were dropped (wd is -1)
    public static final int IN_IGNORED = 1 << 15;          // IN_IGNORED: the watch was removed
    public static final int IN_CLOSE = IN_CLOSE_WRITE | IN_CLOSE_NOWRITE;   // IN_CLOSE
    public static final int IN_MOVE = IN_MOVED_FROM | IN_MOVED_TO;          // IN_MOVE
    public static final int IN_ALL_EVENTS = IN_ACCESS | IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_CLOSE_NOWRITE
            | IN_OPEN | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE | IN_CREATE | IN_DELETE_SELF
            | IN_MOVE_SELF;                                 // IN_ALL_EVENTS

    public static final int IN_ONLYDIR = 1 << 24;          // IN_ONLYDIR: fail with ENOTDIR unless a directory
    public static final int IN_DONT_FOLLOW = 1 << 25;      // IN_DONT_FOLLOW: do not follow a final symlink
    public static final int IN_EXCL_UNLINK = 1 << 26;      // IN_EXCL_UNLINK: no events for unlinked children
    public static final int IN_MASK_CREATE = 1 << 28;      // IN_MASK_CREATE: fail with EEXIST if already watched
    public static final int IN_MASK_ADD = 1 << 29;         // IN_MASK_ADD: add to an existing watch's mask
    public static final int IN_ISDIR = 1 << 30;            // IN_ISDIR: the subject of the event is a directory
    public static final int IN_ONESHOT = 1 << 31;          // IN_ONESHOT

    public static final int IN_CLOEXEC = Fcntl.O_CLOEXEC;   // IN_CLOEXEC
    public static final int IN_NONBLOCK = Fcntl.O_NONBLOCK; // IN_NONBLOCK

    private Inotify() {
    }
}
