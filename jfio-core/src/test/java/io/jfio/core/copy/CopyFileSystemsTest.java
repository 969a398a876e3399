package io.jfio.core.copy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import io.jfio.core.sys.Statx;
import io.jfio.core.sys.Timespec;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Copies between real file systems mounted for the test (root only; skipped where mounting is not allowed): across
 * devices copy_file_range gives EXDEV and the copy falls back; on XFS with reflink (when mkfs.xfs is installed) the
 * data is shared, and {@code --reflink=always} fails files that cannot be reflinked; tmpfs keeps any 64-bit
 * timestamp (ext4 only 1901 to 2446), so times far from 1970 are tried there.
 */
class CopyFileSystemsTest {
    private final List<Path> mounts = new java.util.ArrayList<>();

    private static boolean run(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        return p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0;
    }

    private Path mount(Path at, String... how) throws Exception {
        Files.createDirectories(at);
        String[] cmd = new String[how.length + 2];
        cmd[0] = "mount";
        System.arraycopy(how, 0, cmd, 1, how.length);
        cmd[cmd.length - 1] = at.toString();
        assumeTrue(run(cmd), "cannot mount here: " + String.join(" ", cmd));
        mounts.add(at);
        return at;
    }

    @AfterEach
    void unmount() throws Exception {
        for (int i = mounts.size() - 1; i >= 0; i--) {
            if (!run("umount", mounts.get(i).toString())) run("umount", "-l", mounts.get(i).toString());
        }
    }

    private static byte[] data(int n, long seed) {
        byte[] b = new byte[n];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }

    @Test
    void shouldFallBackWhenCopyFileRangeCannotCrossDevices(@TempDir Path dir) throws Exception {
        assumeTrue(LibC.geteuid() == 0, "needs root to mount a tmpfs");
        Path tmpfs = mount(dir.resolve("tmpfs"), "-t", "tmpfs", "-o", "size=64m", "tmpfs");
        Path src = dir.resolve("src");
        Files.createDirectories(src.resolve("sub"));
        byte[] big = data(5 << 20, 1);
        Files.write(src.resolve("sub/big"), big);
        Files.writeString(src.resolve("small"), "small");
        TreeCopyTest.Run r = TreeCopyTest.copy(List.of(src), tmpfs.resolve("dst"), CopyOptions.archive().build());
        TreeCopyTest.assertOk(r);
        assertArrayEquals(big, Files.readAllBytes(tmpfs.resolve("dst/sub/big")));
        CopyEvent e = r.event("/sub/big");
        assertTrue(e.method() == CopyMethod.URING || e.method() == CopyMethod.READ_WRITE, e.toString());
        assertTrue(r.notices().stream().anyMatch(n -> n.startsWith("copy_file_range unavailable")
                && n.contains("errno=EXDEV")), r.notices().toString());
    }

    @Test
    void shouldReflinkOnXfsAndRefuseWithReflinkAlwaysWhereItCannot(@TempDir Path dir) throws Exception {
        assumeTrue(LibC.geteuid() == 0, "needs root to mount a loop device");
        assumeTrue(Files.isExecutable(Path.of("/usr/sbin/mkfs.xfs")) || Files.isExecutable(Path.of("/sbin/mkfs.xfs")),
                "needs mkfs.xfs (xfsprogs)");
        Path image = dir.resolve("xfs.img");
        try (var f = new java.io.RandomAccessFile(image.toFile(), "rw")) {
            f.setLength(320L << 20);
        }
        assumeTrue(run("mkfs.xfs", "-q", "-m", "reflink=1", image.toString()), "mkfs.xfs failed");
        Path xfs = mount(dir.resolve("xfs"), "-o", "loop", image.toString());
        Path src = Files.createDirectories(xfs.resolve("src"));
        byte[] a = data(3 << 20, 2);
        Files.write(src.resolve("a"), a);
        Files.writeString(src.resolve("b"), "bee");
        TreeCopyTest.Run r = TreeCopyTest.copy(List.of(src), xfs.resolve("dst"), CopyOptions.archive()
                .reflink(CopyOptions.Reflink.ALWAYS).build());
        TreeCopyTest.assertOk(r);
        assertEquals(CopyMethod.REFLINK, r.event("/dst/a").method());
        assertEquals(0, r.event("/dst/a").bytes(), "a reflink writes no data");
        assertArrayEquals(a, Files.readAllBytes(xfs.resolve("dst/a")));
        assertEquals("bee", Files.readString(xfs.resolve("dst/b"), StandardCharsets.UTF_8));

        // A file large enough to be split is reflinked whole too (the reflink comes before the split decision).
        TreeCopyTest.Run big = TreeCopyTest.copy(List.of(src), xfs.resolve("dst-split"), CopyOptions.archive()
                .jobs(4).sequential(false).splitThreshold(1 << 20).chunkSize(1 << 20).build());
        TreeCopyTest.assertOk(big);
        assertEquals(CopyMethod.REFLINK, big.event("/dst-split/a").method(), big.event("/dst-split/a").toString());
        assertEquals(1, big.event("/dst-split/a").chunks());
        assertEquals(0, big.event("/dst-split/a").bytes());
        assertArrayEquals(a, Files.readAllBytes(xfs.resolve("dst-split/a")));

        // across devices nothing can be reflinked: always makes each file fail, and nothing partial is left
        Path other = Files.createDirectories(dir.resolve("other"));
        TreeCopyTest.Run no = TreeCopyTest.copy(List.of(src.resolve("a")), other, CopyOptions.archive()
                .reflink(CopyOptions.Reflink.ALWAYS).build());
        assertEquals(1, no.failures().size(), no.failures().toString());
        assertTrue(no.failures().get(0).message().startsWith("ioctl(FICLONE) failed: errno=EXDEV"),
                no.failures().toString());
        try (var s = Files.list(other)) {
            assertFalse(s.findAny().isPresent(), "no file, not even a temporary one");
        }
    }

    /** Seconds and nanoseconds of an access or modification time. */
    private record Time(long sec, int nsec) {
    }

    private static void setTimes(Path p, Time atime, Time mtime) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment t = a.allocate(Timespec.LAYOUT, 2);
            Timespec.set(t, 0, atime.sec(), atime.nsec());
            Timespec.set(t, 1, mtime.sec(), mtime.nsec());
            assertEquals(0, LibC.utimensat(Fcntl.AT_FDCWD, a.allocateFrom(p.toString()), t,
                    Fcntl.AT_SYMLINK_NOFOLLOW), p.toString());
        }
    }

    /** The access and modification times of {@code p} (not following a symlink). */
    private static List<Time> times(Path p) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment sx = a.allocate(Statx.LAYOUT);
            assertEquals(0, LibC.statx(Fcntl.AT_FDCWD, a.allocateFrom(p.toString()), Fcntl.AT_SYMLINK_NOFOLLOW,
                    Statx.STATX_BASIC_STATS, sx), p.toString());
            return List.of(new Time(Statx.timeSec(sx, Statx.OFF_ATIME), Statx.timeNsec(sx, Statx.OFF_ATIME)),
                    new Time(Statx.timeSec(sx, Statx.OFF_MTIME), Statx.timeNsec(sx, Statx.OFF_MTIME)));
        }
    }

    @Test
    void shouldKeepTimesBeyondWhatNanosecondsSinceTheEpochCanHold(@TempDir Path dir) throws Exception {
        assumeTrue(LibC.geteuid() == 0, "needs root to mount a tmpfs");
        Path tmpfs = mount(dir.resolve("tmpfs"), "-t", "tmpfs", "-o", "size=16m", "tmpfs");
        Time after2262 = new Time(9_223_372_036L, 854_775_808); // 2262-04-11 23:47:16.854775808, 1 ns past
        Time year2400 = new Time(13_569_465_600L, 123_456_789);
        Time before1677 = new Time(-9_223_372_037L, 145_224_191); // 1677-09-21 00:12:43.145224191, 1 ns before
        Time year1600 = new Time(-11_676_096_000L, 500_000_000);
        Time exact = new Time(1_700_000_000L, 1);
        Path src = Files.createDirectories(tmpfs.resolve("src/dir"));
        Files.writeString(src.resolve("future"), "f");
        Files.writeString(src.resolve("past"), "p");
        Files.writeString(src.resolve("exact"), "e");
        Files.createSymbolicLink(src.resolve("link"), Path.of("future"));
        setTimes(src.resolve("future"), year2400, after2262);
        setTimes(src.resolve("past"), year1600, before1677);
        setTimes(src.resolve("exact"), exact, exact);
        setTimes(src.resolve("link"), before1677, year2400);
        setTimes(src, year1600, year2400);

        TreeCopyTest.Run r = TreeCopyTest.copy(List.of(src), tmpfs.resolve("dst"), CopyOptions.archive().build());
        TreeCopyTest.assertOk(r);
        Path dst = tmpfs.resolve("dst");
        assertEquals(List.of(year2400, after2262), times(dst.resolve("future")));
        assertEquals(List.of(year1600, before1677), times(dst.resolve("past")));
        assertEquals(List.of(exact, exact), times(dst.resolve("exact")));
        assertEquals(List.of(before1677, year2400), times(dst.resolve("link")));
        assertEquals(List.of(year1600, year2400), times(dst));

        // Resumed as after an interruption (the marker put back): same size and mtime is complete, whatever the
        // year.
        try (Arena a = Arena.ofConfined()) {
            MemorySegment sx = a.allocate(Statx.LAYOUT);
            assertEquals(0, LibC.statx(Fcntl.AT_FDCWD, a.allocateFrom(src.toString()), 0, Meta.MASK, sx));
            int fd = LibC.openat(Fcntl.AT_FDCWD, a.allocateFrom(dst.toString()), Fcntl.O_RDONLY | Fcntl.O_DIRECTORY
                    | Fcntl.O_CLOEXEC, 0);
            assertTrue(fd >= 0);
            assertEquals(0, ResumeMarker.write(fd, Meta.of(sx)));
            LibC.close(fd);
        }
        TreeCopyTest.Run again = TreeCopyTest.copy(List.of(src), dst, CopyOptions.archive().build());
        TreeCopyTest.assertOk(again);
        for (String n : List.of("/future", "/past", "/exact")) {
            assertEquals(CopyEvent.Outcome.SKIPPED_COMPLETE, again.event(n).outcome(), n);
        }

        // --update: a source from after 2262 is newer than a target from now, one from 1600 is not.
        Path upd = Files.createDirectories(tmpfs.resolve("upd"));
        Files.writeString(upd.resolve("future"), "old");
        Files.writeString(upd.resolve("past"), "new");
        TreeCopyTest.Run u = TreeCopyTest.copy(List.of(src.resolve("future"), src.resolve("past")), upd,
                CopyOptions.archive().overwrite(CopyOptions.Overwrite.UPDATE).build());
        TreeCopyTest.assertOk(u);
        assertEquals(CopyEvent.Outcome.COPIED, u.event("/future").outcome());
        assertEquals("f", Files.readString(upd.resolve("future")));
        assertEquals(CopyEvent.Outcome.SKIPPED_NOT_NEWER, u.event("/past").outcome());
        assertEquals("new", Files.readString(upd.resolve("past")));
    }
}
