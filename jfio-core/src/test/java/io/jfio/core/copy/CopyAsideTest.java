package io.jfio.core.copy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.abort;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jfio.core.file.PageCache;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import io.jfio.core.sys.PathBytes;
import io.jfio.core.sys.Statx;
import io.jfio.core.testing.TestSeed;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Directories built aside ({@link CopyOptions#buildAside()}): a directory the copy creates where it would be seen is
 * built under a temporary name next to it and renamed into place when complete. Real copies, real child processes
 * killed with SIGKILL, strace for the shape of the system calls.
 */
class CopyAsideTest {
    /** The temporary names of "dst" built aside: derived from the source, or random when that one is taken. */
    private static final Pattern ASIDE = Pattern.compile("\\.dst\\.jfio-[0-9a-f]{16}");
    private static final Pattern PART = Pattern.compile("\\.jfio-\\d+-[0-9a-f]+\\.part");

    @Test
    void shouldNeverShowAPartialFileUnderAFinalNameWhenKilledWhileBuildingAsideAndFinishOnRerun(@TempDir Path dir)
            throws Exception {
        TestSeed seed = TestSeed.pick();
        System.out.println("CopyAsideTest kills: " + seed);
        seed.run(s -> {
            SplittableRandom rnd = s.random();
            Path src = dir.resolve("src");
            int files = 0;
            for (int d = 0; d < 8; d++) {
                Path sub = Files.createDirectories(src.resolve("dir-" + d + "/deep"));
                for (int f = 0; f < 60; f++) {
                    byte[] b = new byte[1 + rnd.nextInt(32 << 10)];
                    rnd.nextBytes(b);
                    Files.write((f % 3 == 0 ? sub : sub.getParent()).resolve("file-" + f), b);
                    files++;
                }
            }
            byte[] big = new byte[20 << 20];
            rnd.nextBytes(big);
            Files.write(src.resolve("big"), big);
            Files.createSymbolicLink(src.resolve("dir-3/link"), Path.of("file-1"));
            Files.createLink(src.resolve("dir-4/hard"), src.resolve("dir-5/file-5"));
            TortureTree.chmod(src.resolve("dir-6/deep"), 0555);
            TortureTree.chmod(src.resolve("dir-7"), 02750);
            TortureTree.times(src.resolve("dir-2"), 1_000_000_000L, 1_100_000_000_123_456_789L, false);
            PageCache.evict(src.resolve("big")); // split across workers: a kill can land in a shared file
            TreeSnapshot before = TreeSnapshot.take(src);
            Path dst = dir.resolve("dst");
            List<String> command = ChildJvm.command("--fsync", "--aside", src.toString(), dst.toString());

            int kills = 0;
            boolean finished = false;
            // Kills land while files are still being copied: aimed at least 120 files short of the end (the polling
            // below overshoots, by up to about 30 files on a busy machine), not in the last steps of the directories
            // (the documented window where a finished copy is left under its temporary name is not what this test is
            // about).
            int last = files - 120;
            for (int k = 0; k < 4 && !finished; k++) {
                int present = countFiles(dir);
                if (present >= last) break;
                int at = present + 1 + rnd.nextInt(last - present);
                Process p = new ProcessBuilder(command).redirectErrorStream(true)
                        .redirectOutput(dir.resolve("child-" + k + ".log").toFile()).start();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (countFiles(dir) < at && p.isAlive() && System.nanoTime() < deadline) Thread.sleep(2);
                p.destroyForcibly(); // SIGKILL, wherever it is
                assertTrue(p.waitFor(30, TimeUnit.SECONDS));
                if (p.exitValue() == 0) {
                    finished = true;
                } else {
                    assertEquals(137, p.exitValue(), Files.readString(dir.resolve("child-" + k + ".log")));
                    kills++;
                    // Killed after its last rename: the copy is complete, and the same command would now copy the
                    // source into it, as cp does once the target exists.
                    finished = Files.isDirectory(dst, LinkOption.NOFOLLOW_LINKS);
                }
                System.out.println("CopyAsideTest: run " + k + " " + (finished ? "finished" : "killed") + " at "
                        + countFiles(dir) + " files (aimed at " + at + ")");
                assertNothingPartialUnderFinalNames(before, src, dst);
                assertTrue(asideDirs(dir).size() <= 1, "a rerun adopts what the killed run built: "
                        + asideDirs(dir));
            }
            assertTrue(kills >= 1, "no run was killed mid-copy");
            // A copy finished inside the loop was read by the checks after it (every directory of the target).
            boolean readAfterDone = finished;
            if (!finished) {
                Process p = new ProcessBuilder(command).redirectErrorStream(true)
                        .redirectOutput(dir.resolve("rerun.log").toFile()).start();
                assertTrue(p.waitFor(120, TimeUnit.SECONDS));
                assertEquals(0, p.exitValue(), Files.readString(dir.resolve("rerun.log")));
            }
            assertEquals(List.of(), asideDirs(dir), "nothing left aside");
            // Access times only when no check read the finished target: setting a directory's times moves its ctime,
            // and under relatime the next read of a directory whose atime is older than its ctime moves the atime.
            before.assertCopiedAs(TreeSnapshot.of(dst, before), new TreeSnapshot.Check(!readAfterDone, false, true,
                    true));
            before.assertSameContent(src, dst);
            assertEquals(before.nodes.keySet(), TreeSnapshot.names(dst), "no temporary file or marker left");
        });
    }

    /** Whatever has a final name under {@code dst} is whole: the source's size, mtime and bytes. */
    private static void assertNothingPartialUnderFinalNames(TreeSnapshot before, Path src, Path dst)
            throws IOException {
        if (!Files.exists(dst, LinkOption.NOFOLLOW_LINKS)) return;
        try (Stream<Path> walk = Files.walk(dst)) {
            for (Path q : walk.toList()) {
                String name = q.getFileName().toString();
                if (PART.matcher(name).matches() || name.equals(ResumeMarker.NAME)) continue;
                String rel = dst.relativize(q).toString();
                TreeSnapshot.Node n = before.nodes.get(rel);
                assertTrue(n != null, "a name the source does not have: " + rel);
                if (!Files.isRegularFile(q, LinkOption.NOFOLLOW_LINKS)) continue;
                assertEquals(n.size(), Files.size(q), "partial file under a final name: " + rel);
                assertEquals(n.mtime(), ((FileTime) Files.getAttribute(q, "lastModifiedTime"))
                        .to(TimeUnit.NANOSECONDS), "attributes before the name: " + rel);
                TreeSnapshot.assertSameBytes(PathBytes.bytes(src.resolve(rel)), PathBytes.bytes(q));
            }
        }
    }

    @Test
    void shouldLeaveAnythingAtTheTemporaryNameThatIsNotOursUntouched(@TempDir Path dir) throws Exception {
        Path src = Files.createDirectories(dir.resolve("src/sub"));
        Files.writeString(src.resolve("f"), "data");
        Files.writeString(src.getParent().resolve("top"), "top");
        TreeSnapshot before = TreeSnapshot.take(dir.resolve("src"));
        byte[] marker = ("jfio-copy dev=" + meta(dir.resolve("src")).dev() + " ino=" + meta(dir.resolve("src")).ino()
                + "\n").getBytes(StandardCharsets.US_ASCII);
        Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));
        Files.writeString(elsewhere.resolve("theirs"), "theirs");
        List<String> cases = new ArrayList<>(List.of("no marker", "symlink", "open to others", "regular file"));
        if (LibC.geteuid() == 0) cases.add("another user's");
        for (String c : cases) {
            Path work = Files.createDirectories(dir.resolve("case-" + c.replace(' ', '-').replace("'", "")));
            Path dst = work.resolve("dst");
            Path decoy = work.resolve(asideName(dir.resolve("src"), "dst"));
            switch (c) {
                case "no marker" -> Files.writeString(Files.createDirectory(decoy).resolve("keep"), "keep");
                case "symlink" -> Files.createSymbolicLink(decoy, elsewhere);
                case "open to others" -> {
                    Files.write(Files.createDirectory(decoy).resolve(ResumeMarker.NAME), marker);
                    TortureTree.chmod(decoy, 0777);
                }
                case "regular file" -> Files.writeString(decoy, "a file");
                default -> {
                    Files.write(Files.createDirectory(decoy).resolve(ResumeMarker.NAME), marker);
                    TortureTree.chmod(decoy, 0700);
                    Files.setAttribute(decoy, "unix:uid", 4242, LinkOption.NOFOLLOW_LINKS);
                }
            }
            TreeSnapshot decoyBefore = Files.isSymbolicLink(decoy) ? TreeSnapshot.take(elsewhere)
                    : Files.isDirectory(decoy) ? TreeSnapshot.take(decoy) : null;
            String decoyBytes = Files.isRegularFile(decoy, LinkOption.NOFOLLOW_LINKS) ? Files.readString(decoy) : null;

            TreeCopyTest.Run r = copyAside(List.of(dir.resolve("src")), dst, CopyOptions.archive(), e -> { });
            TreeCopyTest.assertOk(r);
            before.assertCopiedAs(TreeSnapshot.of(dst, before), TreeSnapshot.Check.ALL);
            assertEquals(before.nodes.keySet(), TreeSnapshot.names(dst), c);
            if (c.equals("symlink")) {
                assertEquals(elsewhere, Files.readSymbolicLink(decoy), c);
                decoyBefore.assertCopiedAs(TreeSnapshot.of(elsewhere, decoyBefore), TreeSnapshot.Check.ALL);
                assertEquals(Set.of("theirs"), names(elsewhere), c);
            } else if (decoyBytes != null) {
                assertEquals(decoyBytes, Files.readString(decoy), c);
            } else {
                decoyBefore.assertCopiedAs(TreeSnapshot.of(decoy, decoyBefore), TreeSnapshot.Check.ALL);
                assertEquals(decoyBefore.nodes.keySet(), TreeSnapshot.names(decoy), c);
            }
            assertEquals(Set.of("dst", decoy.getFileName().toString()), names(work), c + ": nothing else left");
        }
    }

    @Test
    void shouldAdoptTheEmptyDirectoryARunKilledBeforeItsMarkerLeft(@TempDir Path dir) throws Exception {
        Path src = Files.createDirectories(dir.resolve("src/sub"));
        Files.writeString(src.resolve("f"), "data");
        TreeSnapshot before = TreeSnapshot.take(dir.resolve("src"));
        Path left = Files.createDirectory(dir.resolve(asideName(dir.resolve("src"), "dst")));
        TortureTree.chmod(left, 0700);
        TreeCopyTest.Run r = copyAside(List.of(dir.resolve("src")), dir.resolve("dst"), CopyOptions.archive(),
                e -> { });
        TreeCopyTest.assertOk(r);
        assertTrue(r.notices().stream().anyMatch(n -> n.startsWith("resuming an interrupted copy of a directory "
                + "built aside")), r.notices().toString());
        before.assertCopiedAs(TreeSnapshot.of(dir.resolve("dst"), before), TreeSnapshot.Check.ALL);
        assertEquals(before.nodes.keySet(), TreeSnapshot.names(dir.resolve("dst")));
        assertEquals(Set.of("src", "dst"), names(dir), "adopted and renamed, nothing left aside");
    }

    @Test
    void shouldFailClearlyKeepTheCopyAsideAndReplaceNothingWhenTheTargetAppearsWhileBuilding(@TempDir Path dir)
            throws Exception {
        Path src = TreeCopyTest.smallTree(dir.resolve("src"), 4, 40);
        TreeSnapshot before = TreeSnapshot.take(src);
        Path dst = dir.resolve("dst");
        AtomicBoolean made = new AtomicBoolean();
        TreeCopyTest.Run r = copyAside(List.of(src), dst, CopyOptions.archive().jobs(2).sequential(false),
                e -> {
                    if (e.kind() == CopyEvent.Kind.FILE && made.compareAndSet(false, true)) {
                        try {
                            Files.writeString(Files.createDirectory(dst).resolve("theirs"), "theirs");
                        } catch (IOException ex) {
                            throw new UncheckedIOException(ex);
                        }
                    }
                });
        assertTrue(made.get());
        assertFalse(r.result().ok(), r.result().toString());
        assertEquals(1, r.failures().size(), r.failures().toString());
        String message = r.failures().get(0).message();
        assertTrue(message.startsWith("the target appeared while copying: target=" + dst), message);
        List<String> aside = asideDirs(dir);
        assertEquals(1, aside.size(), aside.toString());
        assertTrue(message.endsWith("path=" + dir.resolve(aside.get(0))), message);
        assertEquals(Set.of("theirs"), names(dst), "nothing replaced");
        assertEquals("theirs", Files.readString(dst.resolve("theirs")));
        Path kept = dir.resolve(aside.get(0));
        before.assertSameContent(src, kept);
        Set<String> keptNames = new java.util.TreeSet<>(TreeSnapshot.names(kept));
        keptNames.remove(ResumeMarker.NAME);
        assertEquals(before.nodes.keySet(), keptNames, "the whole copy is kept aside");
    }

    @Test
    void shouldRenameWhatIsCompleteIntoPlaceWithItsMarkerWhenCancelledAndResumeOnRerun(@TempDir Path dir)
            throws Exception {
        Path src = TreeCopyTest.smallTree(dir.resolve("src"), 10, 50);
        TreeSnapshot before = TreeSnapshot.take(src);
        Path dst = dir.resolve("dst");
        CopyResult cancelled = TreeCopyTest.cancelledAfter(List.of(src), dst, CopyOptions.archive().jobs(2)
                .sequential(false).buildAside(true).build(), 100);
        assertTrue(cancelled.cancelled());
        assertTrue(cancelled.files() < 500, "cancelled early: " + cancelled);
        assertEquals(List.of(), asideDirs(dir), "renamed into place");
        assertTrue(Files.exists(dst.resolve(ResumeMarker.NAME)), "an unfinished copy keeps its resume marker");
        assertNothingPartialUnderFinalNames(before, src, dst);

        TreeCopyTest.Run again = copyAside(List.of(src), dst, CopyOptions.archive().jobs(2).sequential(false),
                e -> { });
        TreeCopyTest.assertOk(again);
        assertEquals(cancelled.files(), again.result().skipped(), "what the first run put in place is complete");
        before.assertCopiedAs(TreeSnapshot.of(dst, before), TreeSnapshot.Check.ALL);
        before.assertSameContent(src, dst);
        assertEquals(before.nodes.keySet(), TreeSnapshot.names(dst));
    }

    @Test
    void shouldExitOneNamingTheKeptCopyWhenTheTargetAppearsWhileAChildBuildsAside(@TempDir Path dir)
            throws Exception {
        Path src = Files.createDirectory(dir.resolve("src"));
        for (int f = 0; f < 400; f++) Files.writeString(src.resolve("f" + f), "content " + f);
        Path dst = dir.resolve("dst");
        Process p = new ProcessBuilder(ChildJvm.command("--fsync", "--aside", src.toString(), dst.toString()))
                .redirectErrorStream(true).redirectOutput(dir.resolve("child.log").toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (countFiles(dir) < 20 && p.isAlive() && System.nanoTime() < deadline) Thread.sleep(2);
        if (!p.isAlive()) abort("the copy finished before the target could appear");
        try {
            Files.createDirectory(dst);
        } catch (java.nio.file.FileAlreadyExistsException e) {
            p.waitFor(120, TimeUnit.SECONDS);
            abort("the copy renamed its directory into place before the target could appear");
        }
        Files.writeString(dst.resolve("theirs"), "theirs");
        assertTrue(p.waitFor(120, TimeUnit.SECONDS));
        String log = Files.readString(dir.resolve("child.log"));
        assertEquals(1, p.exitValue(), log);
        assertTrue(log.contains("the target appeared while copying"), log);
        assertEquals(Set.of("theirs"), names(dst));
        assertEquals(1, asideDirs(dir).size());
        assertEquals(400, names(dir.resolve(asideDirs(dir).get(0))).size(), "the whole copy, all but its name");
    }

    @Test
    void shouldLinkNoFileInADirectoryBuiltAsideAndRenameEachNewDirectoryOnce(@TempDir Path dir) throws Exception {
        assumeTrue(onPath("strace"), "strace is not installed: the system calls cannot be counted");
        Path src = Files.createDirectory(dir.resolve("src"));
        for (int d = 0; d < 3; d++) {
            Path sub = Files.createDirectories(src.resolve("d" + d + "/deeper"));
            for (int f = 0; f < 30; f++) Files.writeString(sub.resolve("f" + f), "x" + f);
            Files.writeString(sub.getParent().resolve("g"), "g");
        }
        for (int f = 0; f < 5; f++) Files.writeString(src.resolve("top" + f), "t" + f);

        // A new target: one directory built aside, one rename, no linkat at all.
        String fresh = trace(dir, src, dir.resolve("fresh"), "fresh");
        assertEquals(0, count(fresh, "linkat("), fresh);
        assertEquals(0, count(fresh, "O_TMPFILE"), fresh);
        assertEquals(1, count(fresh, "RENAME_NOREPLACE"), fresh);
        assertTrue(fresh.contains("\"fresh\", RENAME_NOREPLACE"), fresh);

        // Into an existing target that already has d0: the files of the existing directories are written unnamed
        // and linked (5 at the top, d0's g and d0/deeper's 30: it exists, and is adopted); d1 and d2 are new,
        // built aside and renamed, their files created directly.
        Path into = dir.resolve("merge");
        Files.createDirectories(into.resolve("src/d0/deeper"));
        String merged = trace(dir, src, into, "merge");
        Path merge = into.resolve("src");
        assertEquals(5 + 1 + 30, count(merged, "linkat("), merged);
        assertEquals(2, count(merged, "RENAME_NOREPLACE"), merged);
        TreeSnapshot before = TreeSnapshot.take(src);
        before.assertSameContent(src, merge);
        assertEquals(before.nodes.keySet(), TreeSnapshot.names(merge));
    }

    /** strace of a child copying {@code src} to {@code dst} with directories built aside: the calls that matter. */
    private static String trace(Path dir, Path src, Path dst, String name) throws Exception {
        Path out = dir.resolve(name + ".trace");
        List<String> cmd = new ArrayList<>(List.of("strace", "-f", "-qq", "-e", "trace=linkat,renameat2,openat",
                "-o", out.toString()));
        cmd.addAll(ChildJvm.command("--aside", src.toString(), dst.toString()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "copy timed out");
        if (p.exitValue() != 0 && log.contains("ptrace")) abort("strace cannot trace here: " + log);
        assertEquals(0, p.exitValue(), log);
        return Files.readString(out);
    }

    /** Calls in a trace: a call another thread interrupts is split, its name and arguments on the first line. */
    private static int count(String text, String what) {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) n++;
        return n;
    }

    /** A copy in this JVM with directories built aside; reports like {@link TreeCopyTest#copy}. */
    static TreeCopyTest.Run copyAside(List<Path> sources, Path target, CopyOptions.Builder options,
                                      Consumer<CopyEvent> onEntry) {
        return TreeCopyTest.copy(sources, target, options.buildAside(true).build(), onEntry);
    }

    /** The name a copy of {@code src} to {@code finalName} is built under first. */
    private static String asideName(Path src, String finalName) {
        return new String(Copier.asideName(finalName.getBytes(StandardCharsets.US_ASCII), meta(src), false),
                StandardCharsets.US_ASCII);
    }

    private static Meta meta(Path p) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment sx = a.allocate(Statx.LAYOUT);
            int r = LibC.statx(Fcntl.AT_FDCWD, a.allocateFrom(p.toString()), Fcntl.AT_SYMLINK_NOFOLLOW, Meta.MASK,
                    sx);
            assertEquals(0, r, "statx " + p);
            return Meta.of(sx);
        }
    }

    private static List<String> asideDirs(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(q -> q.getFileName().toString()).filter(n -> ASIDE.matcher(n).matches()).sorted().toList();
        }
    }

    private static Set<String> names(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(q -> q.getFileName().toString()).collect(java.util.stream.Collectors.toSet());
        }
    }

    /** Regular files under the final target and the directories built aside in {@code dir} (not the source). */
    private static int countFiles(Path dir) {
        int n = 0;
        try {
            for (String a : asideDirs(dir)) n += countRegular(dir.resolve(a));
            n += countRegular(dir.resolve("dst"));
        } catch (IOException | UncheckedIOException e) {
            return n; // renamed or changed under the walk; look again
        }
        return n;
    }

    private static int countRegular(Path root) throws IOException {
        if (!Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) return 0;
        try (Stream<Path> s = Files.walk(root)) {
            return (int) s.filter(q -> Files.isRegularFile(q, LinkOption.NOFOLLOW_LINKS))
                    .filter(q -> !q.getFileName().toString().equals(ResumeMarker.NAME)).count();
        }
    }

    private static boolean onPath(String tool) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, tool))) return true;
        }
        return false;
    }
}
