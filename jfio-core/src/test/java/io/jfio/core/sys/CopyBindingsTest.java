package io.jfio.core.sys;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bindings the tree copy uses (xattrs, ownership, modes, times, names, links, directory reading, limits, file
 * system type, reflink) against real files, and their structs against the kernel headers.
 */
class CopyBindingsTest {

    private static MemorySegment str(Arena a, Path p) {
        return a.allocateFrom(p.toString());
    }

    private static long statxTime(Arena a, Path p, long off, int flags) {
        MemorySegment sx = a.allocate(Statx.LAYOUT);
        assertEquals(0, LibC.statx(Fcntl.AT_FDCWD, str(a, p), flags, Statx.STATX_BASIC_STATS, sx));
        return Statx.timeNanos(sx, off);
    }

    @Test
    void shouldMatchKernelLayoutsOfNewStructs() {
        assertEquals(16, Timespec.LAYOUT.byteSize());
        assertEquals(8, Timespec.LAYOUT.byteOffset(groupElement("tv_nsec")));
        assertEquals(16, Rlimit.LAYOUT.byteSize());
        assertEquals(Rlimit.OFF_MAX, Rlimit.LAYOUT.byteOffset(groupElement("rlim_max")));
        assertEquals(120, Statfs.LAYOUT.byteSize());
        assertEquals(Statfs.OFF_BAVAIL, Statfs.LAYOUT.byteOffset(groupElement("f_bavail")));
        assertEquals(Statfs.OFF_FSID, Statfs.LAYOUT.byteOffset(groupElement("f_fsid")));
        assertEquals(Statfs.OFF_NAMELEN, Statfs.LAYOUT.byteOffset(groupElement("f_namelen")));
        assertEquals(Statfs.OFF_FLAGS, Statfs.LAYOUT.byteOffset(groupElement("f_flags")));
        assertEquals(19, Dirent64.OFF_NAME);
        assertEquals(0x40049409L, Fcntl.FICLONE);
        assertEquals((1L << 30) - 2, Fcntl.UTIME_OMIT);
        assertEquals(1, Fcntl.RENAME_NOREPLACE);
        assertEquals(7, Rlimit.RLIMIT_NOFILE);
    }

    @Test
    void shouldCheckSegmentsPassedThroughTheSharedSyscallHandleLikeAnyDowncall(@TempDir Path dir) throws Exception {
        Path f = Files.writeString(dir.resolve("f"), "x");
        // A segment of a closed arena, one confined to another thread, and a heap segment are refused by the linker
        // before the kernel sees an address; a negative descriptor (AT_FDCWD) and unsigned flags pass unchanged.
        Arena closed = Arena.ofConfined();
        MemorySegment gone = str(closed, f);
        closed.close();
        assertThrows(IllegalStateException.class, () -> LibC.openat(Fcntl.AT_FDCWD, gone, Fcntl.O_RDONLY, 0));
        try (Arena shared = Arena.ofShared(); Arena confined = Arena.ofConfined()) {
            MemorySegment mine = str(confined, f);
            Throwable[] seen = new Throwable[1];
            Thread t = Thread.ofPlatform().start(() -> {
                try {
                    LibC.openat(Fcntl.AT_FDCWD, mine, Fcntl.O_RDONLY, 0);
                } catch (Throwable e) {
                    seen[0] = e;
                }
            });
            t.join();
            assertTrue(seen[0] instanceof WrongThreadException, "confined to another thread: " + seen[0]);
            assertThrows(IllegalArgumentException.class, () -> LibC.openat(Fcntl.AT_FDCWD,
                    MemorySegment.ofArray(f.toString().getBytes(StandardCharsets.UTF_8)), Fcntl.O_RDONLY, 0));
            int fd = LibC.openat(Fcntl.AT_FDCWD, str(shared, f), Fcntl.O_RDONLY | Fcntl.O_CLOEXEC, 0);
            assertTrue(fd >= 0, "openat: " + fd);
            assertEquals(0, LibC.close(fd));
            assertEquals(-Errno.EBADF, LibC.close(fd));
        }
    }

    @Test
    void shouldSetListGetAndRemoveXattrsByDescriptorAndPath(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("f");
        Files.writeString(f, "x");
        try (Arena a = Arena.ofConfined()) {
            int fd = LibC.openat(Fcntl.AT_FDCWD, str(a, f), Fcntl.O_RDWR | Fcntl.O_CLOEXEC, 0);
            assertTrue(fd >= 0);
            try {
                MemorySegment name = a.allocateFrom("user.colour");
                MemorySegment value = a.allocateFrom("blue", StandardCharsets.UTF_8);
                int set = LibC.fsetxattr(fd, name, value, 4, 0);
                assumeTrue(set != -Errno.EOPNOTSUPP, "no user xattrs on this file system");
                assertEquals(0, set);
                assertEquals(-Errno.EEXIST, LibC.fsetxattr(fd, name, value, 4, Fcntl.XATTR_CREATE));
                MemorySegment buf = a.allocate(256);
                assertEquals(4, LibC.fgetxattr(fd, name, MemorySegment.NULL, 0), "size query");
                assertEquals(4, LibC.fgetxattr(fd, name, buf, 256));
                assertEquals("blue", new String(buf.asSlice(0, 4).toArray(JAVA_BYTE), StandardCharsets.UTF_8));
                assertEquals(-Errno.ERANGE, LibC.fgetxattr(fd, name, buf, 2));
                long n = LibC.flistxattr(fd, buf, 256);
                assertTrue(names(buf, n).contains("user.colour"), "listed: " + names(buf, n));
                // the same through the path calls
                assertEquals(4, LibC.lgetxattr(str(a, f), name, buf, 256));
                assertTrue(names(buf, LibC.llistxattr(str(a, f), buf, 256)).contains("user.colour"));
                MemorySegment name2 = a.allocateFrom("user.empty");
                assertEquals(0, LibC.lsetxattr(str(a, f), name2, buf, 0, 0));
                assertEquals(0, LibC.fgetxattr(fd, name2, buf, 256), "empty value");
                assertEquals(0, LibC.fremovexattr(fd, name));
                assertEquals(-Errno.ENODATA, LibC.fgetxattr(fd, name, buf, 256));
            } finally {
                LibC.close(fd);
            }
        }
    }

    private static Set<String> names(MemorySegment buf, long n) {
        Set<String> out = new TreeSet<>();
        int start = 0;
        for (int i = 0; i < n; i++) {
            if (buf.get(JAVA_BYTE, i) == 0) {
                out.add(new String(buf.asSlice(start, i - start).toArray(JAVA_BYTE), StandardCharsets.UTF_8));
                start = i + 1;
            }
        }
        return out;
    }

    @Test
    void shouldChangeModeAndOwnershipOfFilesAndSymlinks(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("f");
        Files.writeString(f, "x");
        Path link = dir.resolve("l");
        Files.createSymbolicLink(link, f);
        try (Arena a = Arena.ofConfined()) {
            int fd = LibC.openat(Fcntl.AT_FDCWD, str(a, f), Fcntl.O_RDONLY | Fcntl.O_CLOEXEC, 0);
            try {
                assertEquals(0, LibC.fchmod(fd, 0640));
                assertEquals("rw-r-----", PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
                assertEquals(0, LibC.fchmodat(Fcntl.AT_FDCWD, str(a, f), 0604));
                assertEquals("rw----r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
                int uid = LibC.geteuid();
                int gid = LibC.getegid();
                assertEquals(uid, ((Number) Files.getAttribute(f, "unix:uid")).intValue());
                assertEquals(0, LibC.fchown(fd, -1, -1), "no change is always permitted");
                assertEquals(0, LibC.fchown(fd, uid, gid));
                if (uid == 0) {
                    assertEquals(0, LibC.fchown(fd, 1234, 5678));
                    assertEquals(1234, ((Number) Files.getAttribute(f, "unix:uid")).intValue());
                    assertEquals(0, LibC.fchownat(Fcntl.AT_FDCWD, str(a, link), 4321, 8765,
                            Fcntl.AT_SYMLINK_NOFOLLOW));
                    assertEquals(4321, ((Number) Files.getAttribute(link, "unix:uid", LinkOption.NOFOLLOW_LINKS))
                            .intValue());
                    assertEquals(1234, ((Number) Files.getAttribute(f, "unix:uid")).intValue(), "target untouched");
                } else {
                    assertEquals(-Errno.EPERM, LibC.fchown(fd, uid + 1, -1));
                }
            } finally {
                LibC.close(fd);
            }
        }
    }

    @Test
    void shouldSetTimesToTheNanosecondAndOmitOne(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("f");
        Files.writeString(f, "x");
        Path link = dir.resolve("l");
        Files.createSymbolicLink(link, f);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment times = a.allocate(Timespec.LAYOUT, 2);
            Timespec.setNanos(times, 0, 915_148_800_987_654_321L);
            Timespec.setNanos(times, 1, 981_173_106_123_456_789L);
            int fd = LibC.openat(Fcntl.AT_FDCWD, str(a, f), Fcntl.O_RDONLY | Fcntl.O_CLOEXEC, 0);
            try {
                assertEquals(0, LibC.futimens(fd, times));
            } finally {
                LibC.close(fd);
            }
            assertEquals(915_148_800_987_654_321L, statxTime(a, f, Statx.OFF_ATIME, 0));
            assertEquals(981_173_106_123_456_789L, statxTime(a, f, Statx.OFF_MTIME, 0));
            // UTIME_OMIT leaves the atime; a time before 1970 works too
            Timespec.setSpecial(times, 0, Fcntl.UTIME_OMIT);
            Timespec.setNanos(times, 1, -1_500_000_000L);
            assertEquals(-2, Timespec.sec(times, 1)); // -1.5 s = -2 s + 0.5 s: tv_nsec is never negative
            assertEquals(500_000_000, Timespec.nsec(times, 1));
            assertEquals(0, LibC.utimensat(Fcntl.AT_FDCWD, str(a, f), times, 0));
            assertEquals(915_148_800_987_654_321L, statxTime(a, f, Statx.OFF_ATIME, 0));
            assertEquals(-1_500_000_000L, statxTime(a, f, Statx.OFF_MTIME, 0));
            // a symlink itself
            Timespec.setNanos(times, 0, 1_000_000_001L);
            Timespec.setNanos(times, 1, 2_000_000_002L);
            assertEquals(0, LibC.utimensat(Fcntl.AT_FDCWD, str(a, link), times, Fcntl.AT_SYMLINK_NOFOLLOW));
            assertEquals(2_000_000_002L, statxTime(a, link, Statx.OFF_MTIME, Fcntl.AT_SYMLINK_NOFOLLOW));
            assertEquals(-1_500_000_000L, statxTime(a, f, Statx.OFF_MTIME, 0), "target untouched");
        }
    }

    @Test
    void shouldCreateAndRemoveDirectoriesFifosSymlinksAndLinks(@TempDir Path dir) throws Exception {
        try (Arena a = Arena.ofConfined()) {
            Path d = dir.resolve("d");
            assertEquals(0, LibC.mkdirat(Fcntl.AT_FDCWD, str(a, d), 0700));
            assertEquals(-Errno.EEXIST, LibC.mkdirat(Fcntl.AT_FDCWD, str(a, d), 0700));
            assertTrue(Files.isDirectory(d));
            Path fifo = dir.resolve("fifo");
            assertEquals(0, LibC.mknodat(Fcntl.AT_FDCWD, str(a, fifo), Fcntl.S_IFIFO | 0640, 0));
            assertTrue(Files.exists(fifo, LinkOption.NOFOLLOW_LINKS) && !Files.isRegularFile(fifo));
            MemorySegment sx = a.allocate(Statx.LAYOUT);
            assertEquals(0, LibC.statx(Fcntl.AT_FDCWD, str(a, fifo), Fcntl.AT_SYMLINK_NOFOLLOW,
                    Statx.STATX_BASIC_STATS, sx));
            assertEquals(Fcntl.S_IFIFO, Statx.mode(sx) & Fcntl.S_IFMT);
            Path link = dir.resolve("link");
            assertEquals(0, LibC.symlinkat(a.allocateFrom("../some/where"), Fcntl.AT_FDCWD, str(a, link)));
            assertEquals(-Errno.EEXIST, LibC.symlinkat(a.allocateFrom("x"), Fcntl.AT_FDCWD, str(a, link)));
            MemorySegment buf = a.allocate(Fcntl.PATH_MAX);
            long n = LibC.readlinkat(Fcntl.AT_FDCWD, str(a, link), buf, Fcntl.PATH_MAX);
            assertEquals("../some/where", new String(buf.asSlice(0, n).toArray(JAVA_BYTE), StandardCharsets.UTF_8));
            assertEquals(-Errno.EINVAL, LibC.readlinkat(Fcntl.AT_FDCWD, str(a, d), buf, Fcntl.PATH_MAX));
            Path f = dir.resolve("f");
            Files.writeString(f, "data");
            Path hard = dir.resolve("hard");
            assertEquals(0, LibC.linkat(Fcntl.AT_FDCWD, str(a, f), Fcntl.AT_FDCWD, str(a, hard), 0));
            assertEquals(Files.getAttribute(f, "unix:ino"), Files.getAttribute(hard, "unix:ino"));
            assertEquals(-Errno.EEXIST, LibC.linkat(Fcntl.AT_FDCWD, str(a, f), Fcntl.AT_FDCWD, str(a, hard), 0));
            assertEquals(0, LibC.unlinkat(Fcntl.AT_FDCWD, str(a, hard), 0));
            assertEquals(0, LibC.unlinkat(Fcntl.AT_FDCWD, str(a, d), Fcntl.AT_REMOVEDIR));
            assertFalse(Files.exists(d));
        }
    }

    @Test
    void shouldRenameWithoutReplacingWhenAsked(@TempDir Path dir) throws Exception {
        Path a1 = dir.resolve("a");
        Path b1 = dir.resolve("b");
        Files.writeString(a1, "A");
        Files.writeString(b1, "B");
        try (Arena a = Arena.ofConfined()) {
            int r = LibC.renameat2(Fcntl.AT_FDCWD, str(a, a1), Fcntl.AT_FDCWD, str(a, b1), Fcntl.RENAME_NOREPLACE);
            assumeTrue(r != -Errno.EINVAL, "RENAME_NOREPLACE unsupported here");
            assertEquals(-Errno.EEXIST, r);
            assertEquals("B", Files.readString(b1));
            assertEquals(0, LibC.renameat2(Fcntl.AT_FDCWD, str(a, a1), Fcntl.AT_FDCWD, str(a, b1), 0));
            assertEquals("A", Files.readString(b1));
            assertFalse(Files.exists(a1));
        }
    }

    @Test
    void shouldNameAnUnnamedTmpfileByLinkingItThroughProc(@TempDir Path dir) throws Exception {
        try (Arena a = Arena.ofConfined()) {
            int fd = LibC.openat(Fcntl.AT_FDCWD, str(a, dir), Fcntl.O_TMPFILE | Fcntl.O_WRONLY | Fcntl.O_CLOEXEC,
                    0600);
            assumeTrue(fd != -Errno.EOPNOTSUPP, "no O_TMPFILE on this file system");
            assertTrue(fd >= 0, "open(O_TMPFILE) errno=" + Errno.name(fd));
            try {
                MemorySegment data = a.allocateFrom("hello", StandardCharsets.UTF_8);
                assertEquals(5, LibC.write(fd, data, 5));
                try (var s = Files.list(dir)) {
                    assertEquals(0, s.count(), "an O_TMPFILE file has no name");
                }
                Path named = dir.resolve("named");
                assertEquals(0, LibC.linkat(Fcntl.AT_FDCWD, a.allocateFrom("/proc/self/fd/" + fd), Fcntl.AT_FDCWD,
                        str(a, named), Fcntl.AT_SYMLINK_FOLLOW));
                assertEquals("hello", Files.readString(named));
                if (LibC.geteuid() == 0) {
                    Path second = dir.resolve("second");
                    assertEquals(0, LibC.linkat(fd, a.allocateFrom(""), Fcntl.AT_FDCWD, str(a, second),
                            Fcntl.AT_EMPTY_PATH));
                    assertEquals("hello", Files.readString(second));
                }
            } finally {
                LibC.close(fd);
            }
        }
    }

    @Test
    void shouldListEveryEntryWithGetdents64(@TempDir Path dir) throws Exception {
        List<String> want = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            String name = "file-" + i + "-" + "ü".repeat(i % 7);
            Files.writeString(dir.resolve(name), "x");
            want.add(name);
        }
        Files.createDirectory(dir.resolve("sub"));
        want.add("sub");
        try (Arena a = Arena.ofConfined()) {
            int fd = LibC.openat(Fcntl.AT_FDCWD, str(a, dir), Fcntl.O_RDONLY | Fcntl.O_DIRECTORY | Fcntl.O_CLOEXEC, 0);
            assertTrue(fd >= 0);
            try {
                MemorySegment buf = a.allocate(4096, 8); // small, so that listing takes several calls
                List<String> got = new ArrayList<>();
                int dirs = 0;
                int dots = 0;
                while (true) {
                    long n = LibC.getdents64(fd, buf, buf.byteSize());
                    assertTrue(n >= 0, "getdents64 errno=" + Errno.name((int) n));
                    if (n == 0) break;
                    for (long rec = 0; rec < n; rec += Dirent64.reclen(buf, rec)) {
                        if (Dirent64.isDotOrDotDot(buf, rec)) {
                            dots++;
                            continue;
                        }
                        assertTrue(Dirent64.ino(buf, rec) != 0);
                        String name = new String(Dirent64.nameBytes(buf, rec), StandardCharsets.UTF_8);
                        got.add(name);
                        if (Dirent64.type(buf, rec) == Dirent64.DT_DIR) {
                            dirs++;
                            assertEquals("sub", name);
                        } else {
                            assertEquals(Dirent64.DT_REG, Dirent64.type(buf, rec));
                        }
                    }
                }
                assertEquals(2, dots);
                assertEquals(1, dirs);
                assertEquals(new TreeSet<>(want), new TreeSet<>(got));
                assertEquals(want.size(), got.size());
            } finally {
                LibC.close(fd);
            }
        }
    }

    @Test
    void shouldReportOpenFileLimitFileSystemTypeTerminalAndIds(@TempDir Path dir) throws IOException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment rl = a.allocate(Rlimit.LAYOUT);
            assertEquals(0, LibC.getrlimit(Rlimit.RLIMIT_NOFILE, rl));
            assertTrue(Rlimit.cur(rl) > 0);
            assertTrue(Rlimit.max(rl) == Rlimit.RLIM_INFINITY || Rlimit.max(rl) >= Rlimit.cur(rl));
            // the kernel's own account of the same limit: "Max open files  <soft>  <hard>  files"
            String limits = Files.readAllLines(Path.of("/proc/self/limits")).stream()
                    .filter(l -> l.startsWith("Max open files")).findFirst().orElseThrow();
            String[] f = limits.substring("Max open files".length()).trim().split("\\s+");
            assertEquals(f[0], Long.toString(Rlimit.cur(rl)), limits);
            assertEquals(f[1], Rlimit.max(rl) == Rlimit.RLIM_INFINITY ? "unlimited" : Long.toString(Rlimit.max(rl)),
                    limits);

            MemorySegment sf = a.allocate(Statfs.LAYOUT);
            int proc = LibC.openat(Fcntl.AT_FDCWD, "/proc/self/status", Fcntl.O_RDONLY | Fcntl.O_CLOEXEC, 0);
            assumeTrue(proc >= 0, "no /proc");
            try {
                assertEquals(0, LibC.fstatfs(proc, sf));
                assertEquals(Statfs.PROC_SUPER_MAGIC, Statfs.type(sf));
                assertTrue(Statfs.isPseudo(Statfs.type(sf)));
                assertEquals("proc", Statfs.name(Statfs.type(sf)));
            } finally {
                LibC.close(proc);
            }
            int d = LibC.openat(Fcntl.AT_FDCWD, str(a, dir), Fcntl.O_RDONLY | Fcntl.O_DIRECTORY | Fcntl.O_CLOEXEC, 0);
            try {
                assertEquals(0, LibC.fstatfs(d, sf));
                assertFalse(Statfs.isPseudo(Statfs.type(sf)), "a temp dir is on a real file system: "
                        + Statfs.name(Statfs.type(sf)));
                assertTrue(Statfs.bsize(sf) > 0);
                assertEquals(255, Statfs.namelen(sf));
                assertTrue(Statfs.blocks(sf) >= Statfs.bfree(sf) && Statfs.bfree(sf) >= Statfs.bavail(sf));
                assertEquals(-Errno.ENOTTY, LibC.isatty(d));
            } finally {
                LibC.close(d);
            }
            assertEquals(-Errno.EBADF, LibC.isatty(-1));
            assertEquals(-Errno.EBADF, LibC.fstatfs(-1, sf));
            // /proc/self belongs to the effective user and group
            assertEquals((int) Files.getAttribute(Path.of("/proc/self/"), "unix:uid"), LibC.geteuid());
            assertEquals((int) Files.getAttribute(Path.of("/proc/self/"), "unix:gid"), LibC.getegid());
            // a pseudo-terminal's master is a terminal
            int pty = LibC.openat(Fcntl.AT_FDCWD, "/dev/ptmx", Fcntl.O_RDWR | Fcntl.O_NOCTTY | Fcntl.O_CLOEXEC, 0);
            assumeTrue(pty >= 0, "no /dev/ptmx");
            try {
                assertEquals(1, LibC.isatty(pty));
            } finally {
                LibC.close(pty);
            }
        }
    }

    @Test
    void shouldReflinkOrSayWhyNot(@TempDir Path dir) throws Exception {
        Path src = dir.resolve("src");
        byte[] content = new byte[3 * 4096];
        for (int i = 0; i < content.length; i++) content[i] = (byte) i;
        Files.write(src, content);
        Path dst = dir.resolve("dst");
        try (Arena a = Arena.ofConfined()) {
            int in = LibC.openat(Fcntl.AT_FDCWD, str(a, src), Fcntl.O_RDONLY | Fcntl.O_CLOEXEC, 0);
            int out = LibC.openat(Fcntl.AT_FDCWD, str(a, dst), Fcntl.O_WRONLY | Fcntl.O_CREAT | Fcntl.O_CLOEXEC, 0600);
            try {
                int r = LibC.ficlone(out, in);
                if (r == 0) {
                    assertArrayEquals(content, Files.readAllBytes(dst));
                } else {
                    // ext4 and tmpfs cannot: the errno must be one that means "not here", which the copy falls
                    // back from
                    assertTrue(Set.of(-Errno.EOPNOTSUPP, -Errno.EXDEV, -Errno.EINVAL, -Errno.ENOTTY).contains(r),
                            "unexpected FICLONE errno=" + Errno.name(r));
                }
                assertEquals(-Errno.EBADF, LibC.ficlone(out, -1));
            } finally {
                LibC.close(in);
                LibC.close(out);
            }
        }
    }
}
