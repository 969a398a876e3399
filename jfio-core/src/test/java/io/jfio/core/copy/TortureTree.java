package io.jfio.core.copy;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.core.sys.Errno;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import io.jfio.core.sys.PathBytes;
import io.jfio.core.sys.Timespec;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Builds the tree every copy must get exactly right: empty and sparse files (one over 4 GiB apparent size), every
 * kind of symlink (absolute, relative, dangling, looping), hard links across directories, unicode, 255-byte and
 * non-UTF-8 names, deep nesting, FIFOs, read-only files and directories, setuid, xattrs, odd timestamps, and as root
 * foreign ownership and a device node.
 *
 * <p>Not thread-safe. What could not be created here (no user xattrs, not root) is listed in {@link #skipped}.
 */
final class TortureTree {
    final List<String> skipped = new ArrayList<>();
    final boolean root = LibC.geteuid() == 0;

    /** Builds the tree under {@code dir}, which must not exist; {@code seed} drives the file contents. */
    static TortureTree build(Path dir, long seed) throws IOException {
        TortureTree t = new TortureTree();
        t.make(dir, new SplittableRandom(seed));
        return t;
    }

    private void make(Path d, SplittableRandom rnd) throws IOException {
        Files.createDirectories(d);
        Files.createFile(d.resolve("empty"));
        write(d.resolve("small"), bytes(rnd, 6));
        write(d.resolve("medium"), bytes(rnd, 1_000_003));
        write(d.resolve("block-exact"), bytes(rnd, 65536));

        // Sparse: over 4 GiB apparent, data at the start, middle and very end.
        try (RandomAccessFile f = new RandomAccessFile(d.resolve("sparse-5g").toFile(), "rw")) {
            f.setLength(5L << 30);
            f.seek(0);
            f.write(bytes(rnd, 4096));
            f.seek(3L << 30);
            f.write(bytes(rnd, 100_000));
            f.seek((5L << 30) - 3);
            f.write(new byte[] {1, 2, 3});
        }
        try (RandomAccessFile f = new RandomAccessFile(d.resolve("sparse-holes-only").toFile(), "rw")) {
            f.setLength(10L << 20);
        }
        try (RandomAccessFile f = new RandomAccessFile(d.resolve("sparse-trailing-hole").toFile(), "rw")) {
            f.write(bytes(rnd, 70_000));
            f.setLength(9L << 20);
        }

        Files.createSymbolicLink(d.resolve("link-absolute"), Path.of("/etc/hostname"));
        Files.createSymbolicLink(d.resolve("link-relative"), Path.of("small"));
        Files.createSymbolicLink(d.resolve("link-dangling"), Path.of("no/such/target"));
        Files.createSymbolicLink(d.resolve("link-loop-a"), Path.of("link-loop-b"));
        Files.createSymbolicLink(d.resolve("link-loop-b"), Path.of("link-loop-a"));
        Files.createDirectories(d.resolve("links"));
        Files.createSymbolicLink(d.resolve("links/to-dir"), Path.of(".."));

        Files.createLink(d.resolve("hard-a"), d.resolve("medium"));
        Files.createDirectories(d.resolve("other"));
        Files.createLink(d.resolve("other/hard-b"), d.resolve("medium"));
        write(d.resolve("other/pair-1"), bytes(rnd, 333));
        Files.createLink(d.resolve("other/pair-2"), d.resolve("other/pair-1"));

        write(d.resolve("ünïcødé-文件-🎉"), bytes(rnd, 100));
        write(d.resolve("x".repeat(255)), bytes(rnd, 10));
        rawName(d, new byte[] {'b', 'a', 'd', (byte) 0xff, (byte) 0xfe, 'n', 'a', 'm', 'e'});

        Path deep = d;
        for (int i = 0; i < 40; i++) deep = deep.resolve("level-" + i);
        Files.createDirectories(deep);
        write(deep.resolve("bottom"), bytes(rnd, 1234));
        Files.createDirectories(d.resolve("empty-dir"));

        try (Arena a = Arena.ofConfined()) {
            assertEquals(0, LibC.mknodat(Fcntl.AT_FDCWD, a.allocateFrom(d.resolve("fifo").toString()),
                    Fcntl.S_IFIFO | 0640, 0));
            if (root) {
                int r = LibC.mknodat(Fcntl.AT_FDCWD, a.allocateFrom(d.resolve("null-device").toString()),
                        Fcntl.S_IFCHR | 0644, io.jfio.core.sys.Statx.makedev(1, 3));
                if (r != 0) skipped.add("device node: mknod errno=" + Errno.name(r));
            } else {
                skipped.add("device node: not root");
            }
        }

        write(d.resolve("read-only"), bytes(rnd, 50));
        Files.setPosixFilePermissions(d.resolve("read-only"), PosixFilePermissions.fromString("r--r--r--"));
        write(d.resolve("setuid"), bytes(rnd, 20));
        chmod(d.resolve("setuid"), 04755);
        write(d.resolve("group-exec"), bytes(rnd, 20));
        chmod(d.resolve("group-exec"), 0751);
        Files.createDirectories(d.resolve("read-only-dir"));
        write(d.resolve("read-only-dir/inside"), bytes(rnd, 70));
        Files.createDirectories(d.resolve("sticky-dir"));
        chmod(d.resolve("sticky-dir"), 01777);

        write(d.resolve("with-xattrs"), bytes(rnd, 40));
        Files.createDirectories(d.resolve("dir-with-xattrs"));
        if (setXattr(d.resolve("with-xattrs"), "user.colour", "blue".getBytes(StandardCharsets.UTF_8))) {
            setXattr(d.resolve("with-xattrs"), "user.empty", new byte[0]);
            setXattr(d.resolve("with-xattrs"), "user.binary", bytes(rnd, 300));
            setXattr(d.resolve("dir-with-xattrs"), "user.dir", "1".getBytes(StandardCharsets.UTF_8));
        } else {
            skipped.add("xattrs: user namespace unsupported here");
        }

        if (root) {
            write(d.resolve("foreign-owner"), bytes(rnd, 30));
            chown(d.resolve("foreign-owner"), 1234, 5678, false);
            Files.createSymbolicLink(d.resolve("foreign-link"), Path.of("small"));
            chown(d.resolve("foreign-link"), 4321, 8765, true);
            Files.createDirectories(d.resolve("foreign-dir"));
            chown(d.resolve("foreign-dir"), 2222, 3333, false);
        } else {
            skipped.add("foreign ownership: not root");
        }

        // Odd timestamps, set last (creating entries inside a directory moves its mtime).
        times(d.resolve("small"), 915_148_800_987_654_321L, 981_173_106_123_456_789L, false);
        times(d.resolve("link-relative"), 1_000_000_001L, 1_012_615_322_500_000_000L, true);
        times(d.resolve("empty"), -1_500_000_000L, 0L, false);
        // the read-only directory gets its mode last, or the file inside could not have been written
        chmod(d.resolve("read-only-dir"), 0555);
    }

    private static byte[] bytes(SplittableRandom rnd, int n) {
        byte[] b = new byte[n];
        rnd.nextBytes(b);
        return b;
    }

    private static void write(Path p, byte[] b) throws IOException {
        Files.write(p, b);
    }

    private static void rawName(Path dir, byte[] name) {
        try (Arena a = Arena.ofConfined()) {
            byte[] path = PathBytes.join(PathBytes.bytes(dir), name);
            MemorySegment p = a.allocate(path.length + 1);
            MemorySegment.copy(path, 0, p, JAVA_BYTE, 0, path.length);
            int fd = LibC.openat(Fcntl.AT_FDCWD, p, Fcntl.O_CREAT | Fcntl.O_WRONLY | Fcntl.O_CLOEXEC, 0644);
            assertTrue(fd >= 0);
            MemorySegment data = a.allocateFrom("not utf-8", StandardCharsets.UTF_8);
            assertEquals(9, LibC.write(fd, data, 9));
            LibC.close(fd);
        }
    }

    static void chmod(Path p, int mode) {
        try (Arena a = Arena.ofConfined()) {
            assertEquals(0, LibC.fchmodat(Fcntl.AT_FDCWD, a.allocateFrom(p.toString()), mode));
        }
    }

    static void chown(Path p, int uid, int gid, boolean link) {
        try (Arena a = Arena.ofConfined()) {
            assertEquals(0, LibC.fchownat(Fcntl.AT_FDCWD, a.allocateFrom(p.toString()), uid, gid,
                    link ? Fcntl.AT_SYMLINK_NOFOLLOW : 0));
        }
    }

    static void times(Path p, long atime, long mtime, boolean link) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment t = a.allocate(Timespec.LAYOUT, 2);
            Timespec.setNanos(t, 0, atime);
            Timespec.setNanos(t, 1, mtime);
            assertEquals(0, LibC.utimensat(Fcntl.AT_FDCWD, a.allocateFrom(p.toString()), t,
                    link ? Fcntl.AT_SYMLINK_NOFOLLOW : 0));
        }
    }

    static boolean setXattr(Path p, String name, byte[] value) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(Math.max(1, value.length));
            MemorySegment.copy(value, 0, v, JAVA_BYTE, 0, value.length);
            int r = LibC.lsetxattr(a.allocateFrom(p.toString()), a.allocateFrom(name), v, value.length, 0);
            if (r == -Errno.EOPNOTSUPP) return false;
            assertEquals(0, r, "lsetxattr " + name);
            return true;
        }
    }
}
