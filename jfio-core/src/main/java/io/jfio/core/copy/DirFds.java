package io.jfio.core.copy;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jfio.core.sys.Errno;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import io.jfio.core.sys.PathBytes;
import io.jfio.core.sys.Statx;
import java.lang.foreign.MemorySegment;

/**
 * Opens the copy's directories as descriptors that are known to be the right ones, so that every later call works
 * relative to a directory this copy verified rather than to a path another user could redirect.
 *
 * <p>Not thread-safe; one per worker, using its {@link Scratch}. A target directory is opened beneath the target
 * directory the copy started from (its stand-in's {@link DirNode#rootFd}) with {@code openat2(RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS)}, or, on kernels without openat2, one component at a time with {@code O_NOFOLLOW}; either
 * way no symlink below the given target is followed, and the directory found must have the device and inode
 * recorded when the copy created or adopted it. A source directory is opened the same way beneath the top-level
 * source directory (its {@link DirNode#srcTop}, opened when the copy starts), and must have the device and inode
 * its listing saw; only with {@code -L}, where every symlink is to be followed, is it opened by its path. When a
 * directory fails these checks it is reported once and marked broken: nothing is copied into or out of it any
 * more.
 */
final class DirFds {
    /**
     * Set once the kernel said it has no openat2 (ENOSYS, or EPERM from a seccomp filter where the walk then
     * worked): the component-by-component walk is used from then.
     */
    private static volatile boolean noOpenat2;

    private final CopyContext ctx;
    private final Scratch s;

    DirFds(CopyContext ctx, Scratch s) {
        this.ctx = ctx;
        this.s = s;
    }

    /**
     * Opens {@code d}'s target directory: {@code O_PATH} when {@code readable} is false (enough to create, link,
     * rename and stat entries in it), else {@code O_RDONLY} (for fchmod, fsetxattr, fsync on it).
     *
     * @return the descriptor, or -1 after reporting and marking {@code d} broken
     */
    int openTarget(DirNode d, boolean readable) {
        return openTarget(d, readable ? Fcntl.O_RDONLY : Fcntl.O_PATH, false);
    }

    /**
     * Opens {@code d}'s target directory {@code O_RDONLY} where we may read it, else {@code O_PATH}; {@link
     * #lastReadable} tells which.
     *
     * @return the descriptor, or -1 after reporting and marking {@code d} broken
     */
    int openTargetReadableIfAllowed(DirNode d) {
        return openTarget(d, Fcntl.O_RDONLY, true);
    }

    /** Whether the last descriptor opened by an {@code ...ReadableIfAllowed} method is O_RDONLY (else O_PATH). */
    boolean lastReadable;

    private int openTarget(DirNode d, int access, boolean pathIfDenied) {
        int flags = Fcntl.O_DIRECTORY | Fcntl.O_NOFOLLOW | Fcntl.O_CLOEXEC;
        int fd = openTargetUnchecked(d, access | flags);
        lastReadable = access == Fcntl.O_RDONLY && fd >= 0;
        if (fd == -Errno.EACCES && pathIfDenied) fd = openTargetUnchecked(d, Fcntl.O_PATH | flags);
        if (fd < 0) {
            if (redirected(fd)) {
                replaced(d, d.dst, "a directory of the target was replaced by a symlink or a file while copying");
            } else if (d.breakOnce()) {
                ctx.fail(d.src, d.dst, "open (target directory)", fd, d.dst);
            }
            return -1;
        }
        if (d.isStandIn()) return fd;
        int r = LibC.statx(fd, s.empty, Fcntl.AT_EMPTY_PATH, Statx.STATX_INO, s.statx2);
        if (r < 0 || Statx.dev(s.statx2) != d.dstDev || Statx.ino(s.statx2) != d.dstIno) {
            LibC.close(fd);
            replaced(d, d.dst, "the target directory was replaced by another directory while copying");
            return -1;
        }
        return fd;
    }

    private int openTargetUnchecked(DirNode d, int flags) {
        int rootFd = d.root.rootFd;
        if (d.dstRel.length == 0) {
            Names.putAscii(s.dirPath, ".");
            return LibC.openat(rootFd, s.dirPath, flags, 0);
        }
        DirNode t = d.aside;
        if (t == null || t.renamed) return openBelow(rootFd, d.dstRel, flags);
        // Inside a directory built aside: its path holds the temporary name until the rename, which takes the
        // same lock, so the path and the name the kernel resolves cannot pass each other.
        synchronized (t) {
            return openBelow(rootFd, d.dstRelNow(), flags);
        }
    }

    /**
     * Opens {@code d}'s source directory ({@code O_PATH} unless {@code readable}), following a symlink only where
     * the options say so, and checks it is the directory that was listed.
     *
     * @return the descriptor, or -1 after reporting and marking {@code d} broken
     */
    int openSource(DirNode d, boolean readable) {
        return openSource(d, readable ? Fcntl.O_RDONLY : Fcntl.O_PATH, false);
    }

    /**
     * Opens {@code d}'s source directory as {@link #openSource} does, {@code O_RDONLY} where we may read it, else
     * {@code O_PATH}; {@link #lastReadable} tells which. Opening a directory does not move its atime (reading it
     * does).
     */
    int openSourceReadableIfAllowed(DirNode d) {
        return openSource(d, Fcntl.O_RDONLY, true);
    }

    private int openSource(DirNode d, int access, boolean pathIfDenied) {
        int fd = openSourceUnchecked(d, access);
        lastReadable = access == Fcntl.O_RDONLY && fd >= 0;
        if (fd == -Errno.EACCES && pathIfDenied) fd = openSourceUnchecked(d, Fcntl.O_PATH);
        if (fd < 0) {
            if (redirected(fd) && !d.isStandIn() && !followsAll()) {
                replaced(d, d.src, SOURCE_REDIRECTED);
            } else if (d.breakOnce()) {
                ctx.fail(d.src, d.dst, "open (source directory)", fd, d.src);
            }
            return -1;
        }
        if (d.isStandIn() || sameAsListed(fd, d)) return fd;
        LibC.close(fd);
        replaced(d, d.src, SOURCE_REPLACED);
        return -1;
    }

    /** Why a source directory is not used when the path to it now leads through a symlink or a file. */
    static final String SOURCE_REDIRECTED = "a directory of the source was replaced by a symlink or a file while "
            + "copying";
    /** Why a source directory is not used when another directory is at its name now. */
    static final String SOURCE_REPLACED = "the source directory was replaced while copying";

    /**
     * Opens {@code d}'s source directory with {@code access} ({@code O_RDONLY} or {@code O_PATH}, optionally with
     * {@code O_NOATIME}) without checking or reporting anything: beneath its top-level source directory following no
     * symlink, except for a stand-in (the directory holding a top-level source: followed, as cp does) and with
     * {@code -L} (by its path, following symlinks as asked).
     *
     * @return the descriptor or -errno; {@link #redirected} tells whether the path led through a symlink or a file
     */
    int openSourceUnchecked(DirNode d, int access) {
        int flags = access | Fcntl.O_DIRECTORY | Fcntl.O_CLOEXEC;
        if (d.isStandIn() || followsAll()) {
            boolean follow = d.isStandIn() || followSource(d);
            if (PathBytes.put(s.dirPath, d.src) < 0) return -Errno.ENAMETOOLONG;
            return LibC.openat(Fcntl.AT_FDCWD, s.dirPath, flags | (follow ? 0 : Fcntl.O_NOFOLLOW), 0);
        }
        if (d.srcRel.length == 0) {
            Names.putAscii(s.dirPath, ".");
            return LibC.openat(d.srcTop.srcTopFd, s.dirPath, flags, 0);
        }
        return openBelow(d.srcTop.srcTopFd, d.srcRel, flags | Fcntl.O_NOFOLLOW);
    }

    /** True for the errors of a path that led through a symlink, out of its start, or through a non-directory. */
    static boolean redirected(int negErrno) {
        return negErrno == -Errno.ELOOP || negErrno == -Errno.EXDEV || negErrno == -Errno.ENOTDIR;
    }

    /** With {@code -L} every symlink in the source is followed: its directories are opened by their paths. */
    private boolean followsAll() {
        return ctx.options.dereference() == CopyOptions.Dereference.ALWAYS;
    }

    /**
     * True when the file open as {@code fd} is the one its directory's listing saw as {@code m}: same device, inode
     * and type. Otherwise another file was put at its name since, and what would be copied is not what {@code m}
     * describes (its owner and mode would go to another file's data).
     */
    boolean sameAsListed(int fd, Meta m) {
        int r = LibC.statx(fd, s.empty, Fcntl.AT_EMPTY_PATH, Statx.STATX_TYPE | Statx.STATX_INO, s.statx2);
        return r == 0 && Statx.dev(s.statx2) == m.dev() && Statx.ino(s.statx2) == m.ino()
                && (Statx.mode(s.statx2) & Fcntl.S_IFMT) == m.type();
    }

    /** True when the directory open as {@code fd} is the source directory {@code d} the listing found. */
    boolean sameAsListed(int fd, DirNode d) {
        return sameAsListed(fd, d.meta);
    }

    /** Whether {@code d}'s source is opened following a symlink (-L everywhere, -H for a top-level source). */
    boolean followSource(DirNode d) {
        CopyOptions.Dereference deref = ctx.options.dereference();
        return deref == CopyOptions.Dereference.ALWAYS
                || (d.parent != null && d.parent.isStandIn() && deref == CopyOptions.Dereference.COMMAND_LINE);
    }

    /** Reports, once per directory, that {@code d} cannot be trusted any more, and marks it broken. */
    void replaced(DirNode d, byte[] path, String what) {
        if (d.breakOnce()) {
            ctx.fail(d.src, d.dst, what + ": path=" + Names.show(path) + "; nothing more is copied into it",
                    Errno.ELOOP);
        }
    }

    /**
     * Opens {@code rel} beneath {@code rootFd} following no symlink: {@code openat2(RESOLVE_BENEATH |
     * RESOLVE_NO_SYMLINKS)}, or component by component with {@code O_NOFOLLOW} where the kernel has no openat2.
     *
     * @return the descriptor or -errno (ELOOP, EXDEV or ENOTDIR when the path leads through a symlink or a file)
     */
    private int openBelow(int rootFd, byte[] rel, int flags) {
        if (PathBytes.put(s.dirPath, rel) < 0) return -Errno.ENAMETOOLONG;
        int fd = noOpenat2 ? -Errno.ENOSYS : openBeneath(rootFd, flags);
        if (fd == -Errno.ENOSYS || fd == -Errno.EPERM) {
            boolean denied = fd == -Errno.EPERM;
            fd = walk(rootFd, rel, flags);
            if (!denied || fd >= 0) noOpenat2 = true;
        }
        return fd;
    }

    private int openBeneath(int rootFd, int flags) {
        MemorySegment how = s.openHow;
        how.set(JAVA_LONG, 0, flags & 0xffffffffL);
        how.set(JAVA_LONG, 8, 0);
        how.set(JAVA_LONG, 16, Fcntl.RESOLVE_BENEATH | Fcntl.RESOLVE_NO_SYMLINKS);
        return LibC.openat2(rootFd, s.dirPath, how);
    }

    /** Opens {@code rel} below {@code rootFd} one component at a time, following no symlink. */
    private int walk(int rootFd, byte[] rel, int flags) {
        int cur = rootFd;
        int start = 0;
        while (true) {
            int end = start;
            while (end < rel.length && rel[end] != '/') end++;
            boolean last = end >= rel.length;
            int len = end - start;
            if (len == 2 && rel[start] == '.' && rel[start + 1] == '.') {
                if (cur != rootFd) LibC.close(cur);
                return -Errno.EXDEV;
            }
            MemorySegment.copy(rel, start, s.dirPath, JAVA_BYTE, 0, len);
            s.dirPath.set(JAVA_BYTE, len, (byte) 0);
            int next = LibC.openat(cur, s.dirPath, last ? flags : Fcntl.O_PATH | Fcntl.O_DIRECTORY | Fcntl.O_NOFOLLOW
                    | Fcntl.O_CLOEXEC, 0);
            if (cur != rootFd) LibC.close(cur);
            if (next < 0 || last) return next;
            cur = next;
            start = end + 1;
            while (start < rel.length && rel[start] == '/') start++;
        }
    }

    /** For tests: makes the copy use the component-by-component walk, as on a kernel without openat2. */
    static void forceWalk(boolean walk) {
        noOpenat2 = walk;
    }
}
