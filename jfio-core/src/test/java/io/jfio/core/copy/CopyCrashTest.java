package io.jfio.core.copy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.core.file.PageCache;
import io.jfio.core.sys.PathBytes;
import io.jfio.core.testing.TestSeed;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills a real copy with SIGKILL in the middle and checks what survives: no file under a final name is partial
 * (every one has the source's full content, size and mtime: its attributes come before its name), anything else is
 * a temporary name; then the same command finishes the copy exactly and leaves no temporary file.
 */
class CopyCrashTest {
    private static final Pattern TEMP = Pattern.compile("\\.jfio-\\d+-[0-9a-f]+\\.part");

    @Test
    void shouldLeaveNoPartialFileUnderAFinalNameWhenKilledAndFinishOnRerun(@TempDir Path dir) throws Exception {
        TestSeed.pick().run(seed -> {
            Path src = dir.resolve("src");
            SplittableRandom rnd = seed.random();
            for (int d = 0; d < 20; d++) {
                Path sub = Files.createDirectories(src.resolve("dir-" + d));
                for (int f = 0; f < 100; f++) {
                    byte[] b = new byte[1 + rnd.nextInt(64 << 10)];
                    rnd.nextBytes(b);
                    Files.write(sub.resolve("file-" + f), b);
                }
            }
            byte[] big = new byte[48 << 20];
            rnd.nextBytes(big);
            Files.write(src.resolve("big"), big);
            Files.createSymbolicLink(src.resolve("dir-3/link"), Path.of("file-1"));
            Files.createLink(src.resolve("dir-4/hard"), src.resolve("dir-5/file-5"));
            // Out of the page cache, so that the child splits it across workers and a kill can land in a shared
            // file (a cached source is copied in one piece).
            PageCache.evict(src.resolve("big"));
            TreeSnapshot before = TreeSnapshot.take(src);

            Path dst = dir.resolve("dst");
            // --fsync makes every file durable before it is named: slow enough to be caught in the middle.
            Process p = new ProcessBuilder(ChildJvm.command("--fsync", src.toString(), dst.toString()))
                    .redirectErrorStream(true).redirectOutput(dir.resolve("child.log").toFile()).start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (countFiles(dst) < 150 && p.isAlive() && System.nanoTime() < deadline) Thread.sleep(5);
            assertTrue(p.isAlive(), "the copy finished before it could be killed: "
                    + Files.readString(dir.resolve("child.log")));
            p.destroyForcibly(); // SIGKILL: no shutdown hook, no cleanup
            assertTrue(p.waitFor(30, TimeUnit.SECONDS));
            assertEquals(137, p.exitValue(), "killed by SIGKILL");

            int complete = 0;
            int completeUnlinked = 0;
            int temporary = 0;
            try (Stream<Path> s = Files.walk(dst)) {
                for (Path q : s.toList()) {
                    String name = q.getFileName().toString();
                    if (TEMP.matcher(name).matches() || name.equals(ResumeMarker.NAME)) {
                        temporary++;
                        continue;
                    }
                    String rel = dst.relativize(q).toString();
                    TreeSnapshot.Node n = before.nodes.get(rel);
                    assertTrue(n != null, "a name the source does not have: " + rel);
                    if (Files.isRegularFile(q, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                        assertEquals(n.size(), Files.size(q), "partial file under a final name: " + rel);
                        assertEquals(n.mtime(), ((java.nio.file.attribute.FileTime) Files.getAttribute(q,
                                "lastModifiedTime")).to(TimeUnit.NANOSECONDS), "attributes before the name: " + rel);
                        TreeSnapshot.assertSameBytes(PathBytes.bytes(src.resolve(rel)), PathBytes.bytes(q));
                        complete++;
                        // The two names of the hard link: a rerun that finds the missing name first copies the
                        // data under it and re-links the other, so a complete one need not be skipped.
                        if (!rel.equals("dir-4/hard") && !rel.equals("dir-5/file-5")) completeUnlinked++;
                    }
                }
            }
            assertTrue(complete >= 150, "files complete before the kill: " + complete);
            assertTrue(complete < 2002, "killed mid-copy: " + complete);
            assertTrue(temporary >= 1, "the resume marker at least");

            // The same command again: resumes into dst (the marker), skips what is complete, finishes the rest.
            TreeCopyTest.Run again = TreeCopyTest.copy(List.of(src), dst, CopyOptions.archive().jobs(4)
                    .sequential(false).build());
            TreeCopyTest.assertOk(again);
            assertTrue(again.result().skipped() >= completeUnlinked, "complete files skipped: " + completeUnlinked
                    + " of " + complete + ": " + again.result());
            before.assertCopiedAs(TreeSnapshot.of(dst, before), new TreeSnapshot.Check(true, false, true, true));
            before.assertSameContent(src, dst);
            assertEquals(before.nodes.keySet(), TreeSnapshot.names(dst), "no temporary file or marker left");
        });
    }

    private static int countFiles(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) return 0;
        try (Stream<Path> s = Files.walk(dir)) {
            // Final names only: the resume marker and temporary files are regular files too, and counting them
            // could stop the wait one complete file short of what the test then asserts.
            return (int) s.filter(q -> Files.isRegularFile(q, java.nio.file.LinkOption.NOFOLLOW_LINKS))
                    .map(q -> q.getFileName().toString())
                    .filter(n -> !TEMP.matcher(n).matches() && !n.equals(ResumeMarker.NAME)).count();
        } catch (java.io.UncheckedIOException e) {
            return 0; // a directory changed under the walk; look again
        }
    }
}
