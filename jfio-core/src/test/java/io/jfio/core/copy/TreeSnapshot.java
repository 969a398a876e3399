package io.jfio.core.copy;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jfio.core.sys.Dirent64;
import io.jfio.core.sys.Errno;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import io.jfio.core.sys.PathBytes;
import io.jfio.core.sys.Statx;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Every attribute of every entry of a tree, read by raw bytes (names need not be UTF-8) with statx, readlink and the
 * l*xattr calls, without changing what it reads: directories are opened O_NOATIME and only after their own statx,
 * file contents are read O_NOATIME, and a target tree is read entry by entry from the source's names, so that no
 * listing of the target moves its directories' atimes before they are recorded.
 *
 * <p>Not thread-safe; a value once taken.
 */
final class TreeSnapshot {
    /** One entry: everything cp -a must preserve, and what identifies hard-link groups and sparse files. */
    record Node(String name, int mode, int uid, int gid, long size, long blocks, long atime, long mtime, long ino,
                long nlink, long rdev, String link, Map<String, String> xattrs) {
        int type() {
            return mode & Fcntl.S_IFMT;
        }
    }

    final Map<String, Node> nodes;
    /** Relative paths as raw bytes, by their display name. */
    final Map<String, byte[]> raw;

    private TreeSnapshot(Map<String, Node> nodes, Map<String, byte[]> raw) {
        this.nodes = nodes;
        this.raw = raw;
    }

    /** Walks {@code root} and records every entry ("" is the root itself). */
    static TreeSnapshot take(Path root) {
        Map<String, Node> nodes = new TreeMap<>();
        Map<String, byte[]> raw = new TreeMap<>();
        byte[] r = PathBytes.bytes(root);
        walk(r, new byte[0], nodes, raw);
        return new TreeSnapshot(nodes, raw);
    }

    /** Records the entries of {@code root} named like those of {@code like}, without listing {@code root}. */
    static TreeSnapshot of(Path root, TreeSnapshot like) {
        Map<String, Node> nodes = new TreeMap<>();
        byte[] r = PathBytes.bytes(root);
        for (Map.Entry<String, byte[]> e : like.raw.entrySet()) {
            Node n = stat(join(r, e.getValue()), e.getKey(), false);
            if (n != null) nodes.put(e.getKey(), n);
        }
        return new TreeSnapshot(nodes, like.raw);
    }

    /** The names (display form) a directory tree holds, by listing it: for "nothing extra" checks, done last. */
    static Set<String> names(Path root) {
        TreeSnapshot s = take(root);
        return new TreeSet<>(s.nodes.keySet());
    }

    private static byte[] join(byte[] a, byte[] b) {
        return b.length == 0 ? a : PathBytes.join(a, b);
    }

    private static void walk(byte[] root, byte[] rel, Map<String, Node> nodes, Map<String, byte[]> raw) {
        byte[] path = join(root, rel);
        String name = Names.show(rel);
        Node n = stat(path, name, true);
        if (n == null) fail("vanished while taking a snapshot: " + Names.show(path));
        nodes.put(name, n);
        raw.put(name, rel);
        if (n.type() != Fcntl.S_IFDIR) return;
        List<byte[]> children = new ArrayList<>();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(Fcntl.PATH_MAX + 1);
            PathBytes.put(p, path);
            int fd = LibC.openat(Fcntl.AT_FDCWD, p, Fcntl.O_RDONLY | Fcntl.O_DIRECTORY | Fcntl.O_CLOEXEC
                    | Fcntl.O_NOATIME | Fcntl.O_NOFOLLOW, 0);
            if (fd == -Errno.EPERM) {
                fd = LibC.openat(Fcntl.AT_FDCWD, p, Fcntl.O_RDONLY | Fcntl.O_DIRECTORY | Fcntl.O_CLOEXEC, 0);
            }
            assertTrue(fd >= 0, "open " + Names.show(path) + " errno=" + Errno.name(fd));
            try {
                MemorySegment buf = a.allocate(32 << 10, 8);
                while (true) {
                    long got = LibC.getdents64(fd, buf, buf.byteSize());
                    assertTrue(got >= 0);
                    if (got == 0) break;
                    for (long rec = 0; rec < got; rec += Dirent64.reclen(buf, rec)) {
                        if (!Dirent64.isDotOrDotDot(buf, rec)) children.add(Dirent64.nameBytes(buf, rec));
                    }
                }
            } finally {
                LibC.close(fd);
            }
        }
        for (byte[] c : children) walk(root, rel.length == 0 ? c : PathBytes.join(rel, c), nodes, raw);
    }

    /**
     * One entry. A symlink's atime moves when it is read (relatime moves an atime that is not newer than the
     * mtime), and nothing can read it without: with {@code settle} (a source) the link is read before the statx,
     * so the atime recorded is one no later read moves; without (a copy) the statx comes first.
     */
    private static Node stat(byte[] path, String name, boolean settle) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(Fcntl.PATH_MAX + 1);
            PathBytes.put(p, path);
            MemorySegment buf = a.allocate(Fcntl.PATH_MAX);
            long linkLen = settle ? LibC.readlinkat(Fcntl.AT_FDCWD, p, buf, Fcntl.PATH_MAX) : -1;
            MemorySegment sx = a.allocate(Statx.LAYOUT);
            int r = LibC.statx(Fcntl.AT_FDCWD, p, Fcntl.AT_SYMLINK_NOFOLLOW, Statx.STATX_BASIC_STATS, sx);
            if (r == -Errno.ENOENT) return null;
            assertEquals(0, r, "statx " + Names.show(path));
            int mode = Statx.mode(sx);
            String link = null;
            if ((mode & Fcntl.S_IFMT) == Fcntl.S_IFLNK) {
                long n = settle ? linkLen : LibC.readlinkat(Fcntl.AT_FDCWD, p, buf, Fcntl.PATH_MAX);
                assertTrue(n >= 0);
                link = HexFormat.of().formatHex(buf.asSlice(0, n).toArray(JAVA_BYTE));
            }
            Map<String, String> xattrs = new TreeMap<>();
            MemorySegment list = a.allocate(Fcntl.XATTR_LIST_MAX);
            long len = LibC.llistxattr(p, list, list.byteSize());
            MemorySegment value = a.allocate(Fcntl.XATTR_SIZE_MAX);
            int start = 0;
            for (int i = 0; i < len; i++) {
                if (list.get(JAVA_BYTE, i) != 0) continue;
                MemorySegment xn = list.asSlice(start, i - start + 1);
                String xname = new String(list.asSlice(start, i - start).toArray(JAVA_BYTE), StandardCharsets.UTF_8);
                long vl = LibC.lgetxattr(p, xn, value, value.byteSize());
                assertTrue(vl >= 0, "lgetxattr " + xname);
                xattrs.put(xname, HexFormat.of().formatHex(value.asSlice(0, vl).toArray(JAVA_BYTE)));
                start = i + 1;
            }
            long rdev = Statx.makedev(sx.get(java.lang.foreign.ValueLayout.JAVA_INT, Statx.OFF_RDEV_MAJOR),
                    sx.get(java.lang.foreign.ValueLayout.JAVA_INT, Statx.OFF_RDEV_MINOR));
            return new Node(name, mode, Statx.uid(sx), Statx.gid(sx), Statx.size(sx), Statx.blocks(sx),
                    Statx.timeNanos(sx, Statx.OFF_ATIME), Statx.mtimeNanos(sx), Statx.ino(sx), Statx.nlink(sx), rdev,
                    link, xattrs);
        }
    }

    /**
     * What to compare.
     *
     * @param atimes     access times
     * @param linkAtimes access times of symlinks: reading a symlink moves its atime and nothing reads one without,
     *                   so a copy that skips a complete symlink keeps the atime it had before a later read
     * @param rootTimes  times of the top directory
     * @param ownership  owner and group
     */
    record Check(boolean atimes, boolean linkAtimes, boolean rootTimes, boolean ownership) {
        static final Check ALL = new Check(true, true, true, true);
    }

    /**
     * Asserts that {@code copy} has every entry of this snapshot with the same type, mode, ownership, times (to
     * the nanosecond), size, symlink target, xattrs, device number, and the same hard-link groups; sparse files no
     * more allocated than the source plus 64 blocks (32 KiB) of slack.
     */
    void assertCopiedAs(TreeSnapshot copy, Check check) {
        List<String> diffs = new ArrayList<>();
        Map<Long, Set<String>> groupsSrc = new TreeMap<>();
        Map<Long, Set<String>> groupsDst = new TreeMap<>();
        for (Node s : nodes.values()) {
            Node d = copy.nodes.get(s.name());
            if (d == null) {
                diffs.add(s.name() + ": missing");
                continue;
            }
            boolean root = s.name().isEmpty();
            if (s.mode() != d.mode()) {
                diffs.add(s.name() + ": mode " + Integer.toOctalString(s.mode()) + " vs "
                        + Integer.toOctalString(d.mode()));
            }
            if (check.ownership() && (s.uid() != d.uid() || s.gid() != d.gid())) {
                diffs.add(s.name() + ": owner " + s.uid() + ":" + s.gid() + " vs " + d.uid() + ":" + d.gid());
            }
            if ((!root || check.rootTimes()) && s.mtime() != d.mtime()) {
                diffs.add(s.name() + ": mtime " + s.mtime() + " vs " + d.mtime());
            }
            boolean atimes = s.type() == Fcntl.S_IFLNK ? check.linkAtimes() : check.atimes();
            if (atimes && (!root || check.rootTimes()) && s.atime() != d.atime()) {
                diffs.add(s.name() + ": atime " + s.atime() + " vs " + d.atime());
            }
            if (s.type() != Fcntl.S_IFDIR && s.size() != d.size()) {
                diffs.add(s.name() + ": size " + s.size() + " vs " + d.size());
            }
            if (s.type() == Fcntl.S_IFREG && d.blocks() > s.blocks() + 64 && s.blocks() * 512 < s.size()) {
                diffs.add(s.name() + ": sparse file allocated " + d.blocks() + " blocks, source " + s.blocks());
            }
            if (s.link() != null && !s.link().equals(d.link())) diffs.add(s.name() + ": symlink target differs");
            if (!s.xattrs().equals(d.xattrs())) diffs.add(s.name() + ": xattrs " + s.xattrs() + " vs " + d.xattrs());
            if (s.rdev() != d.rdev()) diffs.add(s.name() + ": rdev " + s.rdev() + " vs " + d.rdev());
            if (s.type() != Fcntl.S_IFDIR && s.nlink() > 1) {
                groupsSrc.computeIfAbsent(s.ino(), k -> new TreeSet<>()).add(s.name());
                groupsDst.computeIfAbsent(d.ino(), k -> new TreeSet<>()).add(s.name());
            }
        }
        Set<Set<String>> gs = new java.util.HashSet<>(groupsSrc.values());
        Set<Set<String>> gd = new java.util.HashSet<>(groupsDst.values());
        if (!gs.equals(gd)) diffs.add("hard-link groups " + gs + " vs " + gd);
        if (!diffs.isEmpty()) {
            fail(diffs.size() + " differences:\n  " + String.join("\n  ", diffs.subList(0, Math.min(40,
                    diffs.size()))));
        }
    }

    /** Asserts that every regular file of this snapshot under {@code srcRoot} has the same bytes in {@code dstRoot}. */
    void assertSameContent(Path srcRoot, Path dstRoot) {
        byte[] s = PathBytes.bytes(srcRoot);
        byte[] d = PathBytes.bytes(dstRoot);
        for (Node n : nodes.values()) {
            if (n.type() != Fcntl.S_IFREG) continue;
            byte[] rel = raw.get(n.name());
            assertSameBytes(join(s, rel), join(d, rel));
        }
    }

    /** Asserts two files hold the same bytes, read O_NOATIME, holes included. */
    static void assertSameBytes(byte[] a, byte[] b) {
        try (Arena ar = Arena.ofConfined()) {
            int fa = open(ar, a);
            int fb = open(ar, b);
            try {
                MemorySegment ba = ar.allocate(1 << 20);
                MemorySegment bb = ar.allocate(1 << 20);
                long pos = 0;
                while (true) {
                    // Skip a hole both have: reading gigabytes of zeros proves nothing more.
                    long da = LibC.lseek(fa, pos, Fcntl.SEEK_DATA);
                    long db = LibC.lseek(fb, pos, Fcntl.SEEK_DATA);
                    if (da == -Errno.ENXIO && db == -Errno.ENXIO) return;
                    if (da >= 0 && db >= 0) pos = Math.min(da, db);
                    long na = LibC.pread(fa, ba, ba.byteSize(), pos);
                    long nb = LibC.pread(fb, bb, bb.byteSize(), pos);
                    assertEquals(na, nb, "length differs at offset " + pos + ": " + Names.show(b));
                    if (na == 0) return;
                    long mm = MemorySegment.mismatch(ba, 0, na, bb, 0, nb);
                    assertEquals(-1, mm, "content differs at offset " + (pos + mm) + ": " + Names.show(b));
                    pos += na;
                }
            } finally {
                LibC.close(fa);
                LibC.close(fb);
            }
        }
    }

    private static int open(Arena a, byte[] path) {
        MemorySegment p = a.allocate(Fcntl.PATH_MAX + 1);
        PathBytes.put(p, path);
        int fd = LibC.openat(Fcntl.AT_FDCWD, p, Fcntl.O_RDONLY | Fcntl.O_CLOEXEC | Fcntl.O_NOATIME, 0);
        if (fd == -Errno.EPERM) fd = LibC.openat(Fcntl.AT_FDCWD, p, Fcntl.O_RDONLY | Fcntl.O_CLOEXEC, 0);
        assertTrue(fd >= 0, "open " + Names.show(path) + " errno=" + Errno.name(fd));
        return fd;
    }
}
