package io.jfio.core.copy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.abort;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jfio.core.file.PageCache;
import io.jfio.core.sys.Errno;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import io.jfio.core.sys.PathBytes;
import io.jfio.core.testing.Fds;
import io.jfio.core.testing.TestSeed;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.foreign.Arena;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@link TreeCopy} on real trees: exactness against the source and against cp -a, methods, resumption, errors. */
class TreeCopyTest {

    /** What a copy reported. */
    record Run(CopyResult result, List<CopyFailure> failures, List<String> notices, List<CopyEvent> events) {
        CopyEvent event(String suffix) {
            return events.stream().filter(e -> e.target().endsWith(suffix)).findFirst()
                    .orElseThrow(() -> new AssertionError("no event for " + suffix + " in " + events));
        }
    }

    static Run copy(List<Path> sources, Path target, CopyOptions options) {
        return copy(sources, target, options, e -> { });
    }

    static Run copy(List<Path> sources, Path target, CopyOptions options, Consumer<CopyEvent> onEntry) {
        List<CopyFailure> failures = Collections.synchronizedList(new ArrayList<>());
        List<String> notices = Collections.synchronizedList(new ArrayList<>());
        List<CopyEvent> events = Collections.synchronizedList(new ArrayList<>());
        TreeCopy c = TreeCopy.of(sources, target, options, new CopyListener() {
            @Override
            public boolean wantsEntries() {
                return true;
            }

            @Override
            public void onEntry(CopyEvent event) {
                events.add(event);
                onEntry.accept(event);
            }

            @Override
            public void onFailure(CopyFailure f) {
                failures.add(f);
            }

            @Override
            public void onNotice(String message) {
                notices.add(message);
            }
        });
        CopyResult r = c.run();
        return new Run(r, List.copyOf(failures), List.copyOf(notices), List.copyOf(events));
    }

    /**
     * Creates {@code src} holding {@code dirs} directories {@code d0, d1, ...} of {@code files} small files
     * {@code f0, f1, ...} each, every file's content naming it.
     */
    static Path smallTree(Path src, int dirs, int files) throws IOException {
        Files.createDirectory(src);
        for (int d = 0; d < dirs; d++) {
            Path sub = Files.createDirectory(src.resolve("d" + d));
            for (int f = 0; f < files; f++) Files.writeString(sub.resolve("f" + f), "content " + d + "/" + f);
        }
        return src;
    }

    /** A copy cancelled from its listener once {@code entries} entries were reported. */
    static CopyResult cancelledAfter(List<Path> sources, Path target, CopyOptions options, int entries) {
        AtomicReference<TreeCopy> running = new AtomicReference<>();
        // Two workers report entries at once: the count must be atomic, or both can read entries - 1 and neither
        // cancels.
        AtomicInteger seen = new AtomicInteger();
        TreeCopy c = TreeCopy.of(sources, target, options, new CopyListener() {
            @Override
            public boolean wantsEntries() {
                return true;
            }

            @Override
            public void onEntry(CopyEvent event) {
                if (seen.incrementAndGet() == entries) running.get().cancel();
            }
        });
        running.set(c);
        return c.run();
    }

    static void assertOk(Run r) {
        assertTrue(r.failures().isEmpty(), "failures: " + r.failures());
        assertTrue(r.result().ok(), "result: " + r.result());
    }

    /** The data method, and whether the copy is parallel. */
    enum Mode {
        PARALLEL_AUTO(null, 4),
        SEQUENTIAL_COPY_FILE_RANGE(CopyMethod.COPY_FILE_RANGE, 1),
        URING(CopyMethod.URING, 3),
        READ_WRITE(CopyMethod.READ_WRITE, 2);

        final CopyMethod method;
        final int jobs;

        Mode(CopyMethod method, int jobs) {
            this.method = method;
            this.jobs = jobs;
        }
    }

    private static boolean haveCp() {
        try {
            Process p = new ProcessBuilder("cp", "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    private static void cpArchive(Path src, Path dst) throws Exception {
        Process p = new ProcessBuilder("cp", "-a", src.toString(), dst.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "cp -a timed out");
        assertEquals(0, p.exitValue(), "cp -a failed: " + out);
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void shouldCopyTheTortureTreeExactlyAsCpArchiveDoes(Mode mode, @TempDir Path dir) throws Exception {
        TestSeed seed = TestSeed.pick();
        seed.run(s -> {
            Path src = dir.resolve("src");
            TortureTree tree = TortureTree.build(src, s.value());
            // cp first: it reads the sources without O_NOATIME, so the snapshot taken after it is what both keep
            boolean cp = mode == Mode.PARALLEL_AUTO && haveCp();
            Path cpDst = dir.resolve("cp-dst");
            if (cp) cpArchive(src, cpDst);
            TreeSnapshot before = TreeSnapshot.take(src);

            Path dst = dir.resolve("dst");
            CopyOptions.Builder b = CopyOptions.archive().jobs(mode.jobs).sequential(mode.jobs == 1);
            if (mode.method != null) b.method(mode.method);
            Run r;
            try {
                r = copy(List.of(src), dst, b.build());
            } catch (IllegalStateException e) {
                abort("io_uring unavailable: " + e.getMessage());
                return;
            }
            assertOk(r);
            TreeSnapshot copied = TreeSnapshot.of(dst, before);
            before.assertCopiedAs(copied, TreeSnapshot.Check.ALL);
            before.assertSameContent(src, dst);
            assertEquals(before.nodes.keySet(), TreeSnapshot.names(dst), "the copy holds exactly the source's names");
            assertFalse(Files.exists(dst.resolve(ResumeMarker.NAME)), "resume marker removed after success");
            if (mode.method != null) {
                CopyEvent file = r.event("/block-exact");
                assertEquals(mode.method, file.method(), file.toString());
            }
            CopyEvent sparse = r.event("/sparse-5g");
            assertTrue(sparse.sparse(), sparse.toString());
            assertTrue(sparse.bytes() < (1 << 20), "holes not written: " + sparse);
            if (cp) {
                // Against cp -a: everything but atimes, which cp itself moved on the source while reading it.
                TreeSnapshot byCp = TreeSnapshot.of(cpDst, before);
                byCp.assertCopiedAs(copied, new TreeSnapshot.Check(false, false, true, true));
            }
            if (!tree.skipped.isEmpty()) System.out.println("torture tree: not covered here: " + tree.skipped);
        });
    }

    /**
     * Directories of 0 to 40 entries: those whose entries fit in one batch are mostly finished by the worker that
     * listed them, through the descriptors of the listing; the larger ones by whichever worker copies their last
     * entry. Each must get its mode (read-only, sticky, setgid), times and xattrs either way.
     */
    @ParameterizedTest
    @EnumSource(value = Mode.class, names = {"PARALLEL_AUTO", "SEQUENTIAL_COPY_FILE_RANGE"})
    void shouldGiveEveryDirectoryItsAttributesWhicheverWorkerFinishesIt(Mode mode, @TempDir Path dir)
            throws Exception {
        Path src = dir.resolve("src");
        int[] modes = {0755, 0555, 0700, 01777, 02755, 0750};
        int dirs = 42;
        for (int i = 0; i < dirs; i++) {
            Path d = src.resolve("d" + i);
            Files.createDirectories(d);
            for (int f = 0; f < i; f++) Files.writeString(d.resolve("f" + f), "file " + f + " of " + i);
            if (i % 7 == 3) Files.createDirectories(d.resolve("sub"));
            TortureTree.setXattr(d, "user.dir", ("d" + i).getBytes(StandardCharsets.UTF_8));
        }
        for (int i = 0; i < dirs; i++) {
            Path d = src.resolve("d" + i);
            TortureTree.times(d, 1_000_000_000L * (i + 1) + i, 1_500_000_000_123_456_789L + i, false);
            TortureTree.chmod(d, modes[i % modes.length]);
        }
        TreeSnapshot before = TreeSnapshot.take(src);
        Path dst = dir.resolve("dst");
        Run r = copy(List.of(src), dst, CopyOptions.archive().jobs(mode.jobs).sequential(mode.jobs == 1).build());
        assertOk(r);
        TreeSnapshot copied = TreeSnapshot.of(dst, before);
        before.assertCopiedAs(copied, TreeSnapshot.Check.ALL);
        before.assertSameContent(src, dst);
        assertEquals(before.nodes.keySet(), TreeSnapshot.names(dst), "the copy holds exactly the source's names");
    }

    @Test
    void shouldCountInADryRunWhatTheCopyThenDoes(@TempDir Path dir) throws Exception {
        Path src = Files.createDirectories(dir.resolve("src/a/b"));
        Files.writeString(src.resolve("one"), "0123456789");
        Files.write(dir.resolve("src/a/two"), new byte[100_000]);
        Files.createLink(dir.resolve("src/three"), src.resolve("one"));
        Files.createLink(dir.resolve("src/a/four"), src.resolve("one"));
        Files.createSymbolicLink(dir.resolve("src/link"), Path.of("a"));
        for (int jobs : new int[] {1, 4}) {
            Path dst = dir.resolve("dst-" + jobs);
            Run dry = copy(List.of(dir.resolve("src")), dst, CopyOptions.archive().jobs(jobs).dryRun(true).build());
            assertOk(dry);
            assertFalse(Files.exists(dst), "a dry run creates nothing");
            CopyResult d = dry.result();
            // One copy of the linked file's data, two links to it, as the copy below makes.
            assertEquals(List.of(2L, 100_010L, 3L, 1L, 2L), List.of(d.files(), d.bytes(), d.directories(),
                    d.symlinks(), d.hardLinks()), d.toString());
            Run real = copy(List.of(dir.resolve("src")), dst, CopyOptions.archive().jobs(jobs).build());
            assertOk(real);
            CopyResult c = real.result();
            assertEquals(List.of(d.files(), d.bytes(), d.directories(), d.symlinks(), d.hardLinks()),
                    List.of(c.files(), c.bytes(), c.directories(), c.symlinks(), c.hardLinks()), c.toString());
            TreeSnapshot.take(dir.resolve("src")).assertSameContent(dir.resolve("src"), dst);
        }
    }

    @Test
    void shouldNotCountInADryRunTheBytesOfFilesItWouldSkip(@TempDir Path dir) throws Exception {
        Path src = Files.createDirectory(dir.resolve("src"));
        Files.write(src.resolve("new"), new byte[1000]);
        Files.write(src.resolve("kept"), new byte[500]);
        Path dst = Files.createDirectories(dir.resolve("dst/src"));
        Files.writeString(dst.resolve("kept"), "old");
        CopyOptions.Builder noClobber = CopyOptions.archive().overwrite(CopyOptions.Overwrite.NEVER);
        Run dry = copy(List.of(src), dst.getParent(), noClobber.dryRun(true).build());
        assertOk(dry);
        Run real = copy(List.of(src), dst.getParent(), CopyOptions.archive().overwrite(CopyOptions.Overwrite.NEVER)
                .build());
        assertOk(real);
        assertEquals(1000, real.result().bytes());
        assertEquals(real.result().bytes(), dry.result().bytes(), "the dry run's bytes are the copy's");
    }

    @Test
    void shouldCountASparseFileInADryRunByItsDataNotItsLength(@TempDir Path dir) throws Exception {
        Path src = Files.createDirectory(dir.resolve("src"));
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(src.resolve("sparse"),
                java.nio.file.StandardOpenOption.CREATE_NEW, java.nio.file.StandardOpenOption.WRITE)) {
            ch.write(java.nio.ByteBuffer.wrap(new byte[] {1, 2, 3, 4}), 0);
            ch.write(java.nio.ByteBuffer.wrap(new byte[] {5, 6, 7, 8}), (1L << 30) - 4);
        }
        Run dry = copy(List.of(src), dir.resolve("dst"), CopyOptions.archive().dryRun(true).build());
        assertOk(dry);
        Run real = copy(List.of(src), dir.resolve("dst"), CopyOptions.archive().build());
        assertOk(real);
        long written = real.result().bytes();
        assertTrue(written < 1 << 20, "the copy wrote the data only: " + written);
        // What the file system allocated for the two blocks of data, a little more on some file systems.
        assertTrue(dry.result().bytes() >= written && dry.result().bytes() <= written + (1 << 20),
                "dry run " + dry.result().bytes() + " against the copy's " + written);
    }

    @Test
    void shouldSplitLargeFilesAcrossWorkers(@TempDir Path dir) throws Exception {
        Path src = Files.createDirectory(dir.resolve("src"));
        byte[] data = new byte[(9 << 20) + 12345];
        new SplittableRandom(7).nextBytes(data);
        Files.write(src.resolve("big"), data);
        try (RandomAccessFile f = new RandomAccessFile(src.resolve("big-sparse").toFile(), "rw")) {
            f.setLength(64L << 20);
            for (int i = 0; i < 6; i++) {
                f.seek(i * (10L << 20) + 777);
                f.write(data, i * 1000, 3 << 20);
            }
        }
        // Only a source that must come from the device is split (a cached one is copied in one piece). Before the
        // snapshot: the residency check maps the file, which updates its atime.
        PageCache.evict(src.resolve("big"));
        PageCache.evict(src.resolve("big-sparse"));
        assumeTrue(PageCache.residency(src.resolve("big")).fraction() < 0.5, "the page cache cannot be dropped here");
        TreeSnapshot before = TreeSnapshot.take(src);
        Path dst = dir.resolve("dst");
        Run r = copy(List.of(src), dst, CopyOptions.archive().jobs(4).sequential(false).splitThreshold(1 << 20)
                .chunkSize(1 << 20).build());
        assertOk(r);
        assertTrue(r.event("/big").chunks() >= 9, r.event("/big").toString());
        assertTrue(r.event("/big-sparse").chunks() >= 18, r.event("/big-sparse").toString());
        assertTrue(r.event("/big-sparse").sparse());
        before.assertCopiedAs(TreeSnapshot.of(dst, before), TreeSnapshot.Check.ALL);
        before.assertSameContent(src, dst);
    }

    @Test
    void shouldNotSplitFileAlreadyInPageCache(@TempDir Path dir) throws Exception {
        Path src = Files.createDirectory(dir.resolve("src"));
        byte[] data = new byte[(9 << 20) + 4321];
        new SplittableRandom(11).nextBytes(data);
        Files.write(src.resolve("big"), data);
        try (Arena arena = Arena.ofConfined()) {
            int fd = LibC.openat(Fcntl.AT_FDCWD, src.resolve("big").toString(), Fcntl.O_RDONLY | Fcntl.O_CLOEXEC, 0);
            assertTrue(fd >= 0);
            int rc = LibC.cachestat(fd, arena.allocate(LibC.CACHESTAT_RANGE_SIZE),
                    arena.allocate(LibC.CACHESTAT_SIZE));
            LibC.close(fd);
            assumeTrue(rc != -Errno.ENOSYS, "cachestat(2) needs Linux 6.5");
            // A file of our own is never refused by the kernel's per-file check: EPERM is a seccomp filter.
            assumeTrue(rc != -Errno.EPERM, "cachestat(2) refused (EPERM) by a seccomp filter");
            assertEquals(0, rc, Errno.name(-rc));
        }
        assertTrue(PageCache.warm(src.resolve("big")).fraction() > 0.99);
        Path dst = dir.resolve("dst");
        Run r = copy(List.of(src), dst, CopyOptions.archive().jobs(4).sequential(false).splitThreshold(1 << 20)
                .chunkSize(1 << 20).build());
        assertOk(r);
        assertEquals(1, r.event("/big").chunks(), r.event("/big").toString());
        assertArrayEquals(data, Files.readAllBytes(dst.resolve("big")));
    }

    @Test
    void shouldJudgeALargeSourceCachedBySamplesSpreadOverIt(@TempDir Path dir) throws Exception {
        Path src = Files.createDirectory(dir.resolve("src"));
        byte[] data = new byte[(40 << 20) + 999]; // above the 16 samples of 1 MiB: judged by samples
        new SplittableRandom(13).nextBytes(data);
        Path big = src.resolve("big");
        Files.write(big, data);
        assertTrue(PageCache.warm(big).fraction() > 0.99);
        CopyOptions o = CopyOptions.archive().jobs(4).sequential(false).splitThreshold(1 << 20).chunkSize(1 << 20)
                .build();
        Run cached = copy(List.of(src), dir.resolve("cached"), o);
        assertOk(cached);
        assertEquals(1, cached.event("/big").chunks(), "cached: one piece: " + cached.event("/big"));
        // Only the first 4 MiB in the cache: the samples after them are not, so the file is split.
        PageCache.evict(big);
        assumeTrue(PageCache.residency(big).fraction() < 0.05, "the page cache cannot be dropped here");
        try (RandomAccessFile f = new RandomAccessFile(big.toFile(), "r")) {
            f.readFully(new byte[4 << 20]);
        }
        Run front = copy(List.of(src), dir.resolve("front"), o);
        assertOk(front);
        assertTrue(front.event("/big").chunks() >= 2, "mostly uncached: split: " + front.event("/big"));
        assertArrayEquals(data, Files.readAllBytes(dir.resolve("cached/big")));
        assertArrayEquals(data, Files.readAllBytes(dir.resolve("front/big")));
    }

    @Test
    void shouldNotSplitWhenSequential(@TempDir Path dir) throws Exception {
        Path src = Files.createDirectory(dir.resolve("src"));
        Files.write(src.resolve("big"), new byte[3 << 20]);
        Run r = copy(List.of(src), dir.resolve("dst"), CopyOptions.archive().sequential(true).splitThreshold(1 << 20)
                .chunkSize(1 << 20).build());
        assertOk(r);
        assertEquals(1, r.event("/big").chunks());
        assertTrue(r.notices().stream().anyMatch(n -> n.startsWith("workers=1 split_large_files=false")),
                r.notices().toString());
    }

    @Test
    void shouldReplaceEveryTargetWhenRunAgainAfterACompleteCopyAsCpDoes(@TempDir Path dir) throws Exception {
        Path src = dir.resolve("src");
        TortureTree.build(src, 11);
        Path dst = Files.createDirectory(dir.resolve("dst"));
        CopyOptions o = CopyOptions.archive().jobs(3).sequential(false).build();
        Run first = copy(List.of(src), dst, o);
        assertOk(first);
        Files.writeString(src.resolve("small"), "changed content");
        TreeSnapshot before = TreeSnapshot.take(src);
        Run again = copy(List.of(src), dst, o); // dst exists: into dst/src, the same target as the first run
        assertOk(again);
        // No marker of an interrupted run: nothing is taken for complete, every file is copied again.
        assertEquals(0, again.result().skipped(), again.result().toString());
        assertEquals(first.result().files(), again.result().files(), again.result().toString());
        assertEquals(first.result().symlinks(), again.result().symlinks(), again.result().toString());
        before.assertCopiedAs(TreeSnapshot.of(dst.resolve("src"), before), new TreeSnapshot.Check(true, false, true,
                true));
        before.assertSameContent(src, dst.resolve("src"));
    }

    @Test
    void shouldReplaceAnUnrelatedTargetOfTheSameSizeAndTime(@TempDir Path dir) throws Exception {
        // Reproducible builds give many files one fixed time; a target of the same size and time is not a copy.
        Path build = Files.createDirectory(dir.resolve("build"));
        Path deploy = Files.createDirectory(dir.resolve("deploy"));
        Files.writeString(build.resolve("app.conf"), "version=2\n");
        Files.writeString(deploy.resolve("app.conf"), "version=1\n");
        TortureTree.times(build.resolve("app.conf"), 315_532_800_000_000_000L, 315_532_800_000_000_000L, false);
        TortureTree.times(deploy.resolve("app.conf"), 315_532_800_000_000_000L, 315_532_800_000_000_000L, false);
        Run file = copy(List.of(build.resolve("app.conf")), deploy.resolve("app.conf"), CopyOptions.archive().build());
        assertOk(file);
        assertEquals("version=2\n", Files.readString(deploy.resolve("app.conf")));
        Files.writeString(deploy.resolve("app.conf"), "version=1\n");
        TortureTree.times(deploy.resolve("app.conf"), 315_532_800_000_000_000L, 315_532_800_000_000_000L, false);
        assertOk(copy(List.of(build), deploy, CopyOptions.archive().noTargetDirectory(true).build()));
        assertEquals("version=2\n", Files.readString(deploy.resolve("app.conf")));
    }

    @Test
    void shouldCopyASourceFileNamedLikeTheResumeMarker(@TempDir Path dir) throws Exception {
        Path src = Files.createDirectories(dir.resolve("s/sub"));
        Files.writeString(src.getParent().resolve(ResumeMarker.NAME), "notes");
        Files.writeString(src.resolve(ResumeMarker.NAME), "n2");
        assertOk(copy(List.of(src.getParent()), dir.resolve("d"), CopyOptions.archive().build()));
        assertEquals("notes", Files.readString(dir.resolve("d").resolve(ResumeMarker.NAME)));
        assertEquals("n2", Files.readString(dir.resolve("d/sub").resolve(ResumeMarker.NAME)));
        Path into = Files.createDirectory(dir.resolve("into"));
        assertOk(copy(List.of(src.getParent()), into, CopyOptions.archive().build()));
        assertEquals("notes", Files.readString(into.resolve("s").resolve(ResumeMarker.NAME)));
    }

    @Test
    void shouldRemoveDeadRunsTemporaryFilesOnlyWhereItResumesThatRun(@TempDir Path dir) throws Exception {
        Path src = smallTree(dir.resolve("src"), 4, 40);
        Path dst = dir.resolve("dst");
        CopyOptions o = CopyOptions.archive().jobs(2).sequential(false).build();
        assertTrue(cancelledAfter(List.of(src), dst, o, 30).cancelled());
        assertTrue(Files.exists(dst.resolve(ResumeMarker.NAME)));
        // What a killed run on a file system without O_TMPFILE leaves: a temporary file of a process gone.
        Files.createDirectories(dst.resolve("d1"));
        Path stale = Files.writeString(dst.resolve("d1/.jfio-999999999-1f.part"), "half a file");
        // A file of the same pattern in a directory that no interrupted run of this copy left: someone's data.
        Path other = Files.createDirectories(dir.resolve("other/d1"));
        Path theirs = Files.writeString(other.resolve(".jfio-999999999-2a.part"), "user data");
        Files.writeString(other.getParent().resolve(".jfio-999999998-3.part"), "user data");

        assertOk(copy(List.of(src), dst, o));
        assertFalse(Files.exists(stale), "a dead run's temporary file where that run is resumed");
        assertOk(copy(List.of(src), other.getParent(), CopyOptions.archive().jobs(2).sequential(false)
                .noTargetDirectory(true).build()));
        assertEquals("user data", Files.readString(theirs));
        assertEquals("user data", Files.readString(other.getParent().resolve(".jfio-999999998-3.part")));
    }

    @Test
    void shouldNotResumeIntoADirectoryWhoseMarkerAnotherUserPlanted(@TempDir Path dir) throws Exception {
        assumeTrue(LibC.geteuid() == 0, "needs root to give the marker to another user");
        Path src = smallTree(dir.resolve("src"), 1, 3);
        Path dst = Files.createDirectory(dir.resolve("dst"));
        // Another user who may write dst puts the marker of this source there, and a file of the same size and
        // time as a source file, with other bytes: a resumed run would take it for complete.
        Path marker = Files.writeString(dst.resolve(ResumeMarker.NAME), "jfio-copy dev="
                + Files.getAttribute(src, "unix:dev") + " ino=" + Files.getAttribute(src, "unix:ino") + "\n");
        Path first;
        try (var files = Files.walk(src)) {
            first = files.filter(Files::isRegularFile).sorted().findFirst().orElseThrow();
        }
        Path planted = dst.resolve(src.relativize(first));
        Files.createDirectories(planted.getParent());
        byte[] data = Files.readAllBytes(first);
        java.util.Arrays.fill(data, (byte) 'X');
        Files.write(planted, data);
        Files.setLastModifiedTime(planted, Files.getLastModifiedTime(first));
        Files.setAttribute(marker, "unix:uid", 65534);

        Run r = copy(List.of(src), dst, CopyOptions.archive().build());
        assertOk(r);
        assertTrue(r.notices().stream().noneMatch(n -> n.startsWith("resuming")), r.notices().toString());
        assertTrue(Files.isDirectory(dst.resolve("src")), "copied into dst, as cp does with an existing directory");
        TreeSnapshot.take(src).assertSameContent(src, dst.resolve("src"));
    }

    @Test
    void shouldFinishAnInterruptedCopyWhenTheSameCommandRunsAgain(@TempDir Path dir) throws Exception {
        Path src = smallTree(dir.resolve("src"), 10, 50);
        TreeSnapshot before = TreeSnapshot.take(src);
        Path dst = dir.resolve("dst");
        CopyOptions o = CopyOptions.archive().jobs(2).sequential(false).build();
        CopyResult cancelled = cancelledAfter(List.of(src), dst, o, 100);
        assertTrue(cancelled.cancelled());
        assertTrue(cancelled.files() < 500, "cancelled early: " + cancelled);
        assertTrue(Files.exists(dst.resolve(ResumeMarker.NAME)), "an unfinished copy keeps its resume marker");

        Run again = copy(List.of(src), dst, o); // the same command: dst exists now, but carries the marker
        assertOk(again);
        assertTrue(again.notices().stream().anyMatch(n -> n.startsWith("resuming")), again.notices().toString());
        assertFalse(Files.exists(dst.resolve("src")), "resumed into dst, not into dst/src");
        assertEquals(cancelled.files(), again.result().skipped(), "what the first run put in place is complete");
        assertEquals(500 - cancelled.files(), again.result().files());
        before.assertCopiedAs(TreeSnapshot.of(dst, before), TreeSnapshot.Check.ALL);
        before.assertSameContent(src, dst);
        assertEquals(before.nodes.keySet(), TreeSnapshot.names(dst));
        // and once complete, the same command behaves like cp: a copy inside
        assertOk(copy(List.of(src), dst, o));
        assertTrue(Files.isDirectory(dst.resolve("src/d3")));
    }

    @Test
    void shouldNeverOverwriteWithNoClobberAndReplaceOnlyOlderWithUpdate(@TempDir Path dir) throws Exception {
        Path src = Files.createDirectory(dir.resolve("src"));
        Files.writeString(src.resolve("a"), "new a");
        Files.writeString(src.resolve("b"), "new b");
        Files.writeString(src.resolve("c"), "new c");
        Path dst = Files.createDirectories(dir.resolve("dst/src"));
        Files.writeString(dst.resolve("a"), "old a");
        Files.writeString(dst.resolve("b"), "newer b");
        TortureTree.times(dst.resolve("a"), 0, 1_000_000_000L, false);
        TortureTree.times(dst.resolve("b"), 0, 4_000_000_000_000_000_000L, false);

        Run n = copy(List.of(src), dir.resolve("dst"), CopyOptions.archive().overwrite(CopyOptions.Overwrite.NEVER)
                .build());
        assertOk(n);
        assertEquals("old a", Files.readString(dst.resolve("a")));
        assertEquals("newer b", Files.readString(dst.resolve("b")));
        assertEquals("new c", Files.readString(dst.resolve("c")));
        assertEquals(CopyEvent.Outcome.SKIPPED_EXISTS, n.event("/a").outcome());

        Run u = copy(List.of(src), dir.resolve("dst"), CopyOptions.archive().overwrite(CopyOptions.Overwrite.UPDATE)
                .build());
        assertOk(u);
        assertEquals("new a", Files.readString(dst.resolve("a")), "older target replaced");
        assertEquals("newer b", Files.readString(dst.resolve("b")), "newer target kept");
        assertEquals(CopyEvent.Outcome.SKIPPED_NOT_NEWER, u.event("/b").outcome());
    }

    @Test
    void shouldLinkHardLinksOnlyToACopyNotToATargetThatNoClobberKept(@TempDir Path dir) throws Exception {
        // b, a and c are one file. With -n, the kept target of b is not a copy of it: cp copies a, and links c to
        // a. One worker, so that b, given first, is met first.
        Path src = Files.createDirectory(dir.resolve("src"));
        Files.writeString(src.resolve("b"), "source");
        Files.createLink(src.resolve("a"), src.resolve("b"));
        Files.createLink(src.resolve("c"), src.resolve("b"));
        List<Path> sources = List.of(src.resolve("b"), src.resolve("a"), src.resolve("c"));
        Path dst = Files.createDirectory(dir.resolve("dst"));
        Files.writeString(dst.resolve("b"), "old b");
        assertOk(copy(sources, dst, CopyOptions.archive().jobs(1).overwrite(CopyOptions.Overwrite.NEVER).build()));
        assertEquals("old b", Files.readString(dst.resolve("b")));
        assertEquals("source", Files.readString(dst.resolve("a")));
        assertEquals("source", Files.readString(dst.resolve("c")));
        assertEquals(Files.getAttribute(dst.resolve("a"), "unix:ino"),
                Files.getAttribute(dst.resolve("c"), "unix:ino"));

        // The same when the first name fails (a directory is at its target): the others are still one file.
        Path dst2 = Files.createDirectory(dir.resolve("dst2"));
        Files.createDirectory(dst2.resolve("b"));
        Run r = copy(sources, dst2, CopyOptions.archive().jobs(1).build());
        assertEquals(1, r.failures().size(), r.failures().toString());
        assertEquals("source", Files.readString(dst2.resolve("a")));
        assertEquals(Files.getAttribute(dst2.resolve("a"), "unix:ino"),
                Files.getAttribute(dst2.resolve("c"), "unix:ino"));
    }

    @Test
    void shouldFollowCpSemanticsForSourcesAndTarget(@TempDir Path dir) throws Exception {
        Path a = Files.writeString(dir.resolve("a.txt"), "A");
        Path b = Files.writeString(dir.resolve("b.txt"), "B");
        Path d = Files.createDirectory(dir.resolve("d"));
        CopyOptions plain = CopyOptions.builder().build();
        assertOk(copy(List.of(a), dir.resolve("renamed.txt"), plain));
        assertEquals("A", Files.readString(dir.resolve("renamed.txt")));
        assertOk(copy(List.of(a, b), d, plain));
        assertEquals("B", Files.readString(d.resolve("b.txt")));
        assertOk(copy(List.of(a), d.resolve("a.txt"), plain)); // over an existing file: replaced atomically
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> copy(List.of(a, b), dir.resolve("renamed.txt"), plain));
        assertTrue(e.getMessage().contains("target is not a directory"), e.getMessage());
        Run noR = copy(List.of(d), dir.resolve("d2"), plain);
        assertEquals(1, noR.failures().size());
        assertTrue(noR.failures().get(0).message().contains("omitting directory"), noR.failures().toString());
        // without -p the mode is the source's less the umask and times are new
        TortureTree.chmod(a, 0777);
        assertOk(copy(List.of(a), dir.resolve("plain-mode"), plain));
        int mode = ((Number) Files.getAttribute(dir.resolve("plain-mode"), "unix:mode")).intValue() & 0777;
        assertEquals(0777 & ~Storage.umask(), mode);
    }

    /** The permission, setuid, setgid and sticky bits of each entry under {@code root} (not following symlinks). */
    private static Map<String, String> modes(Path root) throws IOException {
        Map<String, String> m = new TreeMap<>();
        try (var w = Files.walk(root)) {
            for (Path p : (Iterable<Path>) w::iterator) {
                int mode = ((Number) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS))
                        .intValue();
                m.put(root.relativize(p).toString(), Integer.toOctalString(mode & 07777));
            }
        }
        return m;
    }

    @Test
    void shouldKeepADirectorysStickyBitWithoutPreserveAsCpDoes(@TempDir Path dir) throws Exception {
        int umask = Storage.umask();
        Path src = Files.createDirectory(dir.resolve("src"));
        int[] modes = {01777, 03755, 07777, 04711, 01700, 0750};
        for (int m : modes) {
            TortureTree.chmod(Files.createDirectory(src.resolve("d" + Integer.toOctalString(m))), m);
            Path f = src.resolve("f" + Integer.toOctalString(m));
            Files.writeString(f, "f");
            TortureTree.chmod(f, m);
        }
        TortureTree.chmod(src, 0755);
        // A target directory with setgid: new directories inherit it (mkdir does that), files do not.
        Path plainOut = Files.createDirectory(dir.resolve("plain"));
        Path setgidOut = Files.createDirectory(dir.resolve("setgid"));
        TortureTree.chmod(setgidOut, 02777);
        for (boolean defaults : new boolean[] {false, true}) {
            CopyOptions o = CopyOptions.builder().recursive(true).defaultPermissions(defaults).build();
            for (Path out : List.of(plainOut, setgidOut)) {
                Path dst = out.resolve(defaults ? "defaults" : "source");
                assertOk(copy(List.of(src), dst, o));
                int sg = out == setgidOut ? 02000 : 0;
                Map<String, String> want = new TreeMap<>();
                want.put("", Integer.toOctalString((defaults ? 0777 : 0755) & ~umask | sg));
                for (int m : modes) {
                    String n = Integer.toOctalString(m);
                    want.put("d" + n, Integer.toOctalString((defaults ? 0777 : m & 0777) & ~umask | m & 01000 | sg));
                    want.put("f" + n, Integer.toOctalString((defaults ? 0666 : m & 0777) & ~umask));
                }
                assertEquals(want, modes(dst), dst.toString());
                if (haveCp()) {
                    Path cpDst = out.resolve("cp-" + dst.getFileName());
                    List<String> cmd = new ArrayList<>(List.of("cp", "-r"));
                    if (defaults) cmd.add("--no-preserve=mode");
                    cmd.addAll(List.of(src.toString(), cpDst.toString()));
                    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
                    String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                    assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, log);
                    assertEquals(modes(cpDst), modes(dst), "as cp " + String.join(" ", cmd));
                }
            }
        }
    }

    /** Runs cp with {@code args} in {@code cwd}; fails the test if it fails. */
    private static void cp(Path cwd, List<String> args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("cp"));
        cmd.addAll(args);
        Process p = new ProcessBuilder(cmd).directory(cwd.toFile()).redirectErrorStream(true).start();
        String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, cmd + ": " + log);
    }

    @Test
    void shouldKeepAnInheritedSetgidWhereCpDoes(@TempDir Path dir) throws Exception {
        Path src = Files.createDirectory(dir.resolve("src"));
        int[] modes = {0750, 0700, 01777, 02750, 04700};
        for (int m : modes) TortureTree.chmod(Files.createDirectory(src.resolve("d" + Integer.toOctalString(m))), m);
        TortureTree.chmod(src, 0755);
        Path out = Files.createDirectory(dir.resolve("setgid"));
        TortureTree.chmod(out, 02777);

        // -p: cp sets the permission bits alone where the source has no setuid, setgid or sticky bit (the
        // directory keeps the setgid it inherited), else the whole mode.
        assertOk(copy(List.of(src), out.resolve("archive"), CopyOptions.archive().build()));
        Map<String, String> want = new TreeMap<>();
        want.put("", "2755");
        for (int m : modes) {
            want.put("d" + Integer.toOctalString(m), Integer.toOctalString((m & 07000) == 0 ? m | 02000 : m));
        }
        assertEquals(want, modes(out.resolve("archive")));

        // --parents: the directories it makes inherit setgid like the others (with -p, where the source has no
        // special bits: /tmp's sticky bit makes its copy's mode exact; compared with cp below)
        Path leaf = src.resolve("d750");
        Files.createDirectory(out.resolve("parents"));
        Files.createDirectory(out.resolve("parents-archive"));
        assertOk(copy(List.of(leaf), out.resolve("parents"), CopyOptions.builder().recursive(true).parents(true)
                .build()));
        assertOk(copy(List.of(leaf), out.resolve("parents-archive"), CopyOptions.archive().parents(true).build()));
        Path made = out.resolve("parents");
        for (Path d = made.resolve(leaf.toString().substring(1)); !d.equals(made); d = d.getParent()) {
            int mode = ((Number) Files.getAttribute(d, "unix:mode")).intValue();
            assertTrue((mode & 02000) != 0, d + " " + Integer.toOctalString(mode));
        }

        assumeTrue(haveCp(), "no cp to compare with");
        cp(dir, List.of("-a", "src", "setgid/cp-archive"));
        assertEquals(modes(out.resolve("cp-archive")), modes(out.resolve("archive")), "as cp -a");
        // cp -a --parents fails on an absolute source here: it is given src/d750 from dir, and compared from src
        for (String o : List.of("-r", "-a")) {
            Path cpOut = Files.createDirectory(out.resolve("cp-parents" + o));
            cp(dir, List.of(o, "--parents", "src/d750", cpOut.toString()));
            Path ours = out.resolve(o.equals("-r") ? "parents" : "parents-archive").resolve(dir.toString()
                    .substring(1)).resolve("src");
            assertEquals(modes(cpOut.resolve("src")), modes(ours), "as cp " + o + " --parents");
        }
    }

    @Test
    void shouldCopyTheContentsOfADotSourceIntoTheTargetItself(@TempDir Path dir) throws Exception {
        Path sd = Files.createDirectories(dir.resolve("a/sd"));
        Files.writeString(sd.resolve("x"), "x");
        Path c = Files.createDirectory(dir.resolve("c"));
        CopyOptions r = CopyOptions.builder().recursive(true).build();
        assertOk(copy(List.of(sd.resolve(".")), c, r)); // cp -r a/sd/. c: c/x
        assertEquals("x", Files.readString(c.resolve("x")));
        assertFalse(Files.exists(c.resolve("sd")));
        Path e = Files.createDirectory(dir.resolve("e"));
        assertOk(copy(List.of(sd.resolve("..")), e, r)); // cp -r a/sd/.. e: what a holds, in e
        assertEquals("x", Files.readString(e.resolve("sd/x")));
        assertOk(copy(List.of(sd.resolve(".")), dir.resolve("new"), r)); // a new target: the copy itself
        assertEquals("x", Files.readString(dir.resolve("new/x")));
    }

    @Test
    void shouldRefuseALaterSourceWithTheSameTargetName(@TempDir Path dir) throws Exception {
        Path fa = Files.writeString(Files.createDirectory(dir.resolve("fa")).resolve("n"), "FA");
        Path fb = Files.writeString(Files.createDirectory(dir.resolve("fb")).resolve("n"), "FB");
        Path j = Files.createDirectory(dir.resolve("j"));
        Run files = copy(List.of(fa, fb), j, CopyOptions.archive().build());
        assertEquals("FA", Files.readString(j.resolve("n")), "the first source named, every time");
        assertEquals(1, files.failures().size(), files.failures().toString());
        assertTrue(files.failures().get(0).message().contains("will not overwrite just-created"),
                files.failures().toString());
        assertFalse(files.result().ok());

        Path ax = Files.createDirectories(dir.resolve("a/x"));
        Path bx = Files.createDirectories(dir.resolve("b/x"));
        Files.writeString(ax.resolve("f"), "A");
        Files.writeString(bx.resolve("f"), "B");
        Files.writeString(bx.resolve("only-b"), "B");
        Path k = Files.createDirectory(dir.resolve("k"));
        Run dirs = copy(List.of(ax, bx), k, CopyOptions.archive().jobs(2).sequential(false).build());
        assertEquals("A", Files.readString(k.resolve("x/f")));
        assertFalse(Files.exists(k.resolve("x/only-b")), "nothing of the refused source");
        assertEquals(1, dirs.failures().size(), dirs.failures().toString());
        assertTrue(dirs.failures().get(0).message().contains("will not merge"), dirs.failures().toString());
    }

    @Test
    void shouldRefuseToReplaceAFileWithASymlinkToItself(@TempDir Path dir) throws Exception {
        // cp -a link file, where link points to file: cp says "are the same file"; replacing the file with the
        // link would lose its data and leave a link that points to itself.
        Path file = Files.writeString(dir.resolve("file"), "precious");
        Path link = Files.createSymbolicLink(dir.resolve("link"), Path.of("file"));
        Run top = copy(List.of(link), file, CopyOptions.archive().build());
        assertEquals(1, top.failures().size(), top.failures().toString());
        assertTrue(top.failures().get(0).message().contains("same file"), top.failures().toString());
        assertFalse(Files.isSymbolicLink(file));
        assertEquals("precious", Files.readString(file));

        // the same inside a tree: src/x -> ../dst/x, copied into dst
        Path src = Files.createDirectory(dir.resolve("src"));
        Path dst = Files.createDirectory(dir.resolve("dst"));
        Files.writeString(dst.resolve("x"), "kept");
        Files.createSymbolicLink(src.resolve("x"), Path.of("../dst/x"));
        Files.createSymbolicLink(src.resolve("y"), Path.of("../dst/x")); // dst/y does not exist: copied
        Run tree = copy(List.of(dir.resolve("src/.")), dst, CopyOptions.archive().build());
        assertEquals(1, tree.failures().size(), tree.failures().toString());
        assertTrue(tree.failures().get(0).message().contains("same file"), tree.failures().toString());
        assertFalse(Files.isSymbolicLink(dst.resolve("x")));
        assertEquals("kept", Files.readString(dst.resolve("x")));
        assertTrue(Files.isSymbolicLink(dst.resolve("y")));
    }

    @Test
    void shouldRefuseToCopyADirectoryIntoItselfOrPseudoFiles(@TempDir Path dir) throws Exception {
        Path src = Files.createDirectories(dir.resolve("src/inner"));
        Run r = copy(List.of(dir.resolve("src")), src, CopyOptions.archive().build());
        assertEquals(1, r.failures().size());
        assertTrue(r.failures().get(0).message().contains("into itself"), r.failures().toString());
        assertFalse(Files.exists(src.resolve("src")));

        assumeTrue(Files.exists(Path.of("/proc/self/status")), "no /proc");
        Path dst = Files.createDirectory(dir.resolve("out"));
        Files.writeString(dir.resolve("ok"), "fine");
        Run p = copy(List.of(Path.of("/proc/self/status"), dir.resolve("ok")), dst, CopyOptions.builder().build());
        assertEquals(1, p.failures().size(), p.failures().toString());
        assertTrue(p.failures().get(0).message().contains("file_system=proc"), p.failures().toString());
        assertEquals("fine", Files.readString(dst.resolve("ok")), "the rest is copied");
        assertFalse(Files.exists(dst.resolve("status")));
    }

    @Test
    void shouldRefuseToCopyADirectoryIntoItselfWhenItsNameDoesNotDecode(@TempDir Path dir) throws Exception {
        // "src" and 0xff: as a string the name ends in U+FFFD, which names another path; the check goes by bytes.
        Path src = Files.createDirectory(PathBytes.path(PathBytes.join(PathBytes.bytes(dir),
                new byte[] {'s', 'r', 'c', (byte) 0xff})));
        assumeTrue(src.toString().contains("\uFFFD"), "0xff decodes in sun.jnu.encoding=" + PathBytes.JNU);
        Path inner = Files.createDirectory(src.resolve("inner"));
        Run r = copy(List.of(src), inner, CopyOptions.archive().build());
        assertEquals(1, r.failures().size(), r.failures().toString());
        assertTrue(r.failures().get(0).message().contains("into itself"), r.failures().toString());
        try (var s = Files.list(inner)) {
            assertEquals(0, s.count(), "nothing copied into the source");
        }
    }

    @Test
    void shouldReportAFileThatVanishesAndCopyTheRest(@TempDir Path dir) throws Exception {
        Path src = Files.createDirectory(dir.resolve("src"));
        int n = Copier.BATCH_ENTRIES + 4;
        for (int i = 0; i < n; i++) Files.writeString(src.resolve("f" + i), "file " + i);
        // The listing sorts a directory's files by inode: the one with the highest is in the last batch, whose files
        // are opened (read ahead) only after the first batch's are copied.
        Path victim = null;
        long maxIno = -1;
        for (int i = 0; i < n; i++) {
            long ino = ((Number) Files.getAttribute(src.resolve("f" + i), "unix:ino")).longValue();
            if (ino > maxIno) {
                maxIno = ino;
                victim = src.resolve("f" + i);
            }
        }
        Path gone = victim;
        Run r = copy(List.of(src), dir.resolve("dst"), CopyOptions.archive().jobs(1).build(), e -> {
            if (e.kind() == CopyEvent.Kind.FILE) {
                try {
                    Files.deleteIfExists(gone);
                } catch (IOException ex) {
                    throw new RuntimeException(ex);
                }
            }
        });
        assertEquals(1, r.failures().size(), r.failures().toString());
        CopyFailure f = r.failures().get(0);
        assertTrue(f.message().contains("vanished") && f.message().contains("errno=ENOENT"), f.toString());
        assertTrue(f.source().endsWith("/" + gone.getFileName()), f.toString());
        assertEquals(n - 1, r.result().files());
        assertFalse(r.result().ok());
        assertTrue(Files.exists(dir.resolve("dst/.jfio-copy.resume")), "failures keep the resume marker");
    }

    @Test
    void shouldReportNoSpaceAndLeaveNoPartialFile(@TempDir Path dir) throws Exception {
        assumeTrue(LibC.geteuid() == 0, "needs root to mount a small tmpfs");
        Path mnt = Files.createDirectory(dir.resolve("small"));
        Process m = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", mnt.toString())
                .redirectErrorStream(true).start();
        m.getInputStream().readAllBytes();
        assumeTrue(m.waitFor(30, TimeUnit.SECONDS) && m.exitValue() == 0, "cannot mount a tmpfs here");
        try {
            Path src = Files.createDirectory(dir.resolve("src"));
            Files.write(src.resolve("too-big"), new byte[3 << 20]);
            Files.writeString(src.resolve("small-1"), "fits");
            Files.writeString(src.resolve("small-2"), "fits too");
            Run r = copy(List.of(src.resolve("too-big"), src.resolve("small-1"), src.resolve("small-2")), mnt,
                    CopyOptions.archive().jobs(1).build());
            assertEquals(1, r.failures().size(), r.failures().toString());
            assertTrue(r.failures().get(0).message().contains("errno=ENOSPC"), r.failures().toString());
            assertFalse(Files.exists(mnt.resolve("too-big")), "no partial file under the final name");
            assertEquals("fits", Files.readString(mnt.resolve("small-1")));
            assertEquals("fits too", Files.readString(mnt.resolve("small-2")));
            try (var s = Files.list(mnt)) {
                assertEquals(Set.of("small-1", "small-2"), new TreeSet<>(s.map(p -> p.getFileName().toString())
                        .toList()), "no temporary file left either");
            }
        } finally {
            Process u = new ProcessBuilder("umount", "-l", mnt.toString()).redirectErrorStream(true).start();
            u.getInputStream().readAllBytes();
            u.waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void shouldNotLeakDescriptors(@TempDir Path dir) throws Exception {
        Path src = dir.resolve("src");
        TortureTree.build(src, 3);
        int[] n = {0};
        Fds.assertNoLeak("tree copy", () -> {
            Path dst = dir.resolve("dst" + n[0]++);
            assertOk(copy(List.of(src), dst, CopyOptions.archive().jobs(4).sequential(false).splitThreshold(1 << 20)
                    .chunkSize(1 << 20).verify(true).build()));
        });
    }

    @Test
    void shouldReleaseEveryDescriptorWhenCancelledMidway(@TempDir Path dir) throws Exception {
        Path src = Files.createDirectory(dir.resolve("src"));
        byte[] data = new byte[48 << 20];
        new SplittableRandom(9).nextBytes(data);
        Files.write(src.resolve("big"), data);
        for (int i = 0; i < 300; i++) Files.writeString(src.resolve("small-" + i), "x".repeat(i));
        SplittableRandom rnd = new SplittableRandom(TestSeed.pick().value());
        int[] n = {0};
        Fds.assertNoLeak("cancelled copies", () -> {
            for (int round = 0; round < 4; round++) {
                Path dst = dir.resolve("dst" + n[0]++);
                TreeCopy c = TreeCopy.of(List.of(src), dst, CopyOptions.archive().jobs(3).sequential(false)
                        .splitThreshold(1 << 20).chunkSize(1 << 20).build(), CopyListener.NONE);
                Thread t = Thread.ofPlatform().start(c::run);
                Thread.sleep(rnd.nextInt(30));
                c.cancel();
                t.join();
                if (Files.exists(dst)) {
                    try (var s = Files.walk(dst)) {
                        assertTrue(s.noneMatch(p -> p.getFileName().toString().endsWith(".part")),
                                "no temporary file left");
                    }
                }
            }
        });
    }

    @Test
    void shouldFindTheFirstDifferenceWhenVerifying(@TempDir Path dir) throws Exception {
        byte[] data = new byte[3 << 20];
        new SplittableRandom(5).nextBytes(data);
        Path a = dir.resolve("a");
        Path b = dir.resolve("b");
        Files.write(a, data);
        data[(3 << 19) + 17] ^= 1;
        Files.write(b, data);
        CopyContext ctx = new CopyContext(CopyOptions.builder().build(), CopyListener.NONE);
        try (Scratch s = new Scratch(1 << 20)) {
            DataCopy dc = new DataCopy(ctx, s);
            int fa = LibC.openat(Fcntl.AT_FDCWD, a.toString(), Fcntl.O_RDONLY | Fcntl.O_CLOEXEC, 0);
            int fb = LibC.openat(Fcntl.AT_FDCWD, b.toString(), Fcntl.O_RDONLY | Fcntl.O_CLOEXEC, 0);
            try {
                assertEquals((3 << 19) + 17,
                        dc.compare(fa, fb, data.length, false, PathBytes.bytes(a), PathBytes.bytes(b)));
                assertEquals(-1, dc.compare(fa, fa, data.length, false, PathBytes.bytes(a), PathBytes.bytes(a)));
            } finally {
                LibC.close(fa);
                LibC.close(fb);
            }
            // a hole in the source must read as zeros in the copy
            Path sparse = dir.resolve("sparse");
            Path dense = dir.resolve("dense");
            try (RandomAccessFile f = new RandomAccessFile(sparse.toFile(), "rw")) {
                f.setLength(8 << 20);
            }
            byte[] z = new byte[8 << 20];
            z[5 << 20] = 9;
            Files.write(dense, z);
            int fs = LibC.openat(Fcntl.AT_FDCWD, sparse.toString(), Fcntl.O_RDONLY | Fcntl.O_CLOEXEC, 0);
            int fd = LibC.openat(Fcntl.AT_FDCWD, dense.toString(), Fcntl.O_RDONLY | Fcntl.O_CLOEXEC, 0);
            try {
                assertEquals(5 << 20,
                        dc.compare(fs, fd, 8 << 20, true, PathBytes.bytes(sparse), PathBytes.bytes(dense)));
            } finally {
                LibC.close(fs);
                LibC.close(fd);
            }
        }
    }

    @Test
    void shouldRecogniseOnlyStaleTemporaryNames() {
        long me = ProcessHandle.current().pid();
        assertFalse(CopyContext.isStaleTemp((".jfio-" + me + "-1f.part").getBytes(StandardCharsets.US_ASCII), me));
        assertTrue(CopyContext.isStaleTemp(".jfio-999999999-1f.part".getBytes(StandardCharsets.US_ASCII), me));
        assertFalse(CopyContext.isStaleTemp(".jfio-999999999-xyz.part".getBytes(StandardCharsets.US_ASCII), me));
        assertFalse(CopyContext.isStaleTemp("report.part".getBytes(StandardCharsets.US_ASCII), me));
        assertFalse(CopyContext.isStaleTemp(".jfio-1-2.txt".getBytes(StandardCharsets.US_ASCII), me));
    }
}
