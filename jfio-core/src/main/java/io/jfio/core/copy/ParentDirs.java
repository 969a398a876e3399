package io.jfio.core.copy;

import io.jfio.core.sys.Errno;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import io.jfio.core.sys.PathBytes;
import io.jfio.core.sys.Statx;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * {@code --parents}: the directories between the target directory and a source's copy ({@code DIR/a/b} for
 * {@code a/b/c}), created one component at a time beneath the target directory's descriptor without following a
 * symlink, and given the attributes of the source directories they stand for once the copy is done.
 *
 * <p>Not thread-safe; used by the thread that runs the {@link TreeCopy}, before the workers start and after they
 * stop. Keeps the directories it created open ({@code O_PATH}) until {@link #finish}.
 */
final class ParentDirs {
    private final CopyContext ctx;
    /** Directories this copy created, in creation order. */
    private final List<Made> made = new ArrayList<>();

    /** A directory created for {@code src}: open as {@code fd} ({@code O_PATH}). */
    private record Made(byte[] src, byte[] dst, int fd) {
    }

    ParentDirs(CopyContext ctx) {
        this.ctx = ctx;
    }

    /**
     * Opens (creating what is missing) the directories {@code rel}'s leading components name beneath {@code dirFd},
     * the target directory {@code tgt}.
     *
     * @param src the source as given, whose leading components these directories copy
     * @param rel the source's name under the target directory ({@link #relative})
     * @return an {@code O_PATH} descriptor of the deepest one (the caller closes it), or -1 after reporting; in a
     *         dry run -2 when a directory would be created (nothing below it exists)
     */
    int open(int dirFd, byte[] tgt, byte[] src, byte[] rel, Arena a) {
        List<byte[]> parts = components(rel);
        MemorySegment name = a.allocate(Fcntl.NAME_MAX + 1);
        MemorySegment sx = a.allocate(Statx.LAYOUT);
        int fd = LibC.openat(dirFd, a.allocateFrom("."), Fcntl.O_PATH | Fcntl.O_DIRECTORY | Fcntl.O_CLOEXEC, 0);
        if (fd < 0) {
            ctx.fail(src, tgt, "open (target directory)", fd, tgt);
            return -1;
        }
        byte[] dst = tgt;
        byte[] srcPrefix = src.length > 0 && src[0] == '/' ? new byte[] {'/'} : new byte[0];
        for (int i = 0; i < parts.size() - 1; i++) {
            byte[] part = parts.get(i);
            dst = PathBytes.join(dst, part);
            srcPrefix = srcPrefix.length == 0 ? part : PathBytes.join(srcPrefix, part);
            PathBytes.put(name, part);
            boolean created = false;
            if (ctx.options.dryRun()) {
                int r = LibC.statx(fd, name, Fcntl.AT_SYMLINK_NOFOLLOW, Statx.STATX_TYPE, sx);
                if (r == -Errno.ENOENT) {
                    LibC.close(fd);
                    for (int j = i; j < parts.size() - 1; j++) {
                        if (j > i) {
                            dst = PathBytes.join(dst, parts.get(j));
                            srcPrefix = PathBytes.join(srcPrefix, parts.get(j));
                        }
                        created(srcPrefix, dst);
                    }
                    return -2;
                }
            } else {
                int r = LibC.mkdirat(fd, name, 0700);
                if (r < 0 && r != -Errno.EEXIST) {
                    ctx.fail(src, dst, "mkdir", r, dst);
                    LibC.close(fd);
                    return -1;
                }
                created = r == 0;
            }
            int next = LibC.openat(fd, name, Fcntl.O_PATH | Fcntl.O_DIRECTORY | Fcntl.O_NOFOLLOW | Fcntl.O_CLOEXEC, 0);
            LibC.close(fd);
            if (next < 0) {
                String why = next == -Errno.ENOTDIR || next == -Errno.ELOOP
                        ? "open (--parents: not a directory, or a symlink, which is not followed)" : "open";
                ctx.fail(src, dst, why, next, dst);
                return -1;
            }
            fd = next;
            if (created) {
                int keep = LibC.openat(fd, a.allocateFrom("."), Fcntl.O_PATH | Fcntl.O_DIRECTORY | Fcntl.O_CLOEXEC, 0);
                if (keep >= 0) made.add(new Made(srcPrefix, dst, keep));
                created(srcPrefix, dst);
            }
        }
        return fd;
    }

    private void created(byte[] src, byte[] dst) {
        if (ctx.events) {
            ctx.listener.onEntry(new CopyEvent(CopyEvent.Kind.DIRECTORY, CopyEvent.Outcome.CREATED, Names.show(src),
                    Names.show(dst), null, 0, 0, false, 1));
        }
    }

    /** Gives the created directories their source directories' attributes (deepest first), and closes them. */
    void finish(Copier c) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment path = a.allocate(Fcntl.PATH_MAX + 1);
            MemorySegment sx = a.allocate(Statx.LAYOUT);
            MemorySegment dot = a.allocateFrom(".");
            for (int i = made.size() - 1; i >= 0; i--) {
                Made m = made.get(i);
                int srcFd = -1;
                int dstFd = -1;
                try {
                    if (PathBytes.put(path, m.src) < 0) continue;
                    // The source directory as cp names it: by path, following symlinks as for the source itself.
                    srcFd = LibC.openat(Fcntl.AT_FDCWD, path, Fcntl.O_RDONLY | Fcntl.O_DIRECTORY | Fcntl.O_CLOEXEC, 0);
                    if (srcFd < 0) {
                        ctx.fail(m.src, m.dst, "open (source directory)", srcFd, m.src);
                        continue;
                    }
                    int r = LibC.statx(srcFd, a.allocateFrom(""), Fcntl.AT_EMPTY_PATH, Meta.MASK, sx);
                    if (r < 0) {
                        ctx.fail(m.src, m.dst, "statx", r, m.src);
                        continue;
                    }
                    dstFd = LibC.openat(m.fd, dot, Fcntl.O_RDONLY | Fcntl.O_DIRECTORY | Fcntl.O_CLOEXEC, 0);
                    if (dstFd < 0) {
                        ctx.fail(m.src, m.dst, "open", dstFd, m.dst);
                        continue;
                    }
                    Attributes.Failure f = c.applyToParent(dstFd, Meta.of(sx));
                    if (f != null) ctx.fail(m.src, m.dst, f.call(), f.errno(), m.dst);
                } finally {
                    if (srcFd >= 0) LibC.close(srcFd);
                    if (dstFd >= 0) LibC.close(dstFd);
                }
            }
        }
        close();
    }

    /** Closes the descriptors of the created directories (also when the copy stopped early). */
    void close() {
        for (Made m : made) LibC.close(m.fd);
        made.clear();
    }

    /**
     * A source's name under the target directory: its components but empty ones and {@code .}, joined; null when one
     * is {@code ..} (the copy would land outside the target directory).
     */
    static byte[] relative(byte[] src) {
        List<byte[]> parts = components(src);
        if (parts == null || parts.isEmpty()) return null;
        byte[] rel = parts.get(0);
        for (int i = 1; i < parts.size(); i++) rel = PathBytes.join(rel, parts.get(i));
        return rel;
    }

    /** The components of a relative path but empty ones and {@code .}; null when one is {@code ..}. */
    private static List<byte[]> components(byte[] rel) {
        List<byte[]> out = new ArrayList<>();
        int start = 0;
        for (int i = 0; i <= rel.length; i++) {
            if (i == rel.length || rel[i] == '/') {
                byte[] c = Arrays.copyOfRange(rel, start, i);
                if (Arrays.equals(c, new byte[] {'.', '.'})) return null;
                if (c.length > 0 && !Arrays.equals(c, new byte[] {'.'})) out.add(c);
                start = i + 1;
            }
        }
        return out;
    }
}
