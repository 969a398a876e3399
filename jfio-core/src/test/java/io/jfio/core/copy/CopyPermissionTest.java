package io.jfio.core.copy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jfio.core.sys.LibC;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A copy by an unprivileged user (a child JVM run as nobody through setpriv; needs root to start it): files and
 * directories it may not read fail with EACCES, each reported, and everything else is copied; ownership it may not
 * give away is silently not kept, like cp -a, and then neither are the setuid and setgid bits.
 */
class CopyPermissionTest {
    private static final int NOBODY = 65534;

    @Test
    void shouldReportUnreadableEntriesAndCopyTheRestAsNonRoot(@TempDir Path dir) throws Exception {
        assumeTrue(LibC.geteuid() == 0, "needs root to run the copy as another user");
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")), "needs setpriv (util-linux)");
        TortureTree.chmod(dir, 0755);
        Path src = Files.createDirectory(dir.resolve("src"));
        Files.writeString(src.resolve("readable"), "anyone");
        Files.writeString(src.resolve("secret"), "root only");
        TortureTree.chmod(src.resolve("secret"), 0600);
        Path locked = Files.createDirectory(src.resolve("locked"));
        Files.writeString(locked.resolve("inside"), "x");
        TortureTree.chmod(locked, 0700);
        Files.createDirectory(src.resolve("open"));
        Files.writeString(src.resolve("open/also-readable"), "anyone too");
        // searchable but not readable: cp makes it and gives it its mode and times, though it lists nothing
        Path unlisted = Files.createDirectory(src.resolve("unlisted"));
        TortureTree.chmod(unlisted, 0711);
        TortureTree.times(unlisted, 0, 1_000_000_000L, false);
        Path out = Files.createDirectory(dir.resolve("out"));
        TortureTree.chmod(out, 0777);
        Path dst = out.resolve("dst");

        String log = copyAsNobody(src, dst, 1);
        assertTrue(log.contains("secret") && log.contains("errno=EACCES"), log);
        assertTrue(log.lines().anyMatch(l -> l.contains("source=" + locked) && l.contains("errno=EACCES")), log);
        assertEquals("anyone", Files.readString(dst.resolve("readable")));
        assertEquals("anyone too", Files.readString(dst.resolve("open/also-readable")));
        assertFalse(Files.exists(dst.resolve("secret")));
        assertTrue(Files.isDirectory(dst.resolve("locked")), "the directory is made, as cp does");
        assertFalse(Files.exists(dst.resolve("locked/inside")));
        assertEquals(NOBODY, owner(dst.resolve("readable")), "root's ownership silently not kept");
        assertEquals(1, log.lines().filter(l -> l.contains("source=" + unlisted)).count(), log);
        assertEquals("711", Integer.toOctalString(mode(dst.resolve("unlisted"))), log);
        assertEquals(1_000_000_000L, Files.getLastModifiedTime(dst.resolve("unlisted")).toMillis() * 1_000_000L,
                log);
    }

    /**
     * Runs {@code cp -a SRC DST} through {@link TreeCopy} in a child JVM as nobody, which must exit with
     * {@code exit}; its output.
     */
    private static String copyAsNobody(Path src, Path dst, int exit) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("/usr/bin/setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY,
                "--clear-groups", "--"));
        cmd.addAll(ChildJvm.command(src.toString(), dst.toString()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), log);
        assumeTrue(!log.contains("Error occurred during initialization of VM")
                && !log.contains("Could not find or load main class"), "the JVM cannot start as nobody: " + log);
        assertEquals(exit, p.exitValue(), log);
        return log;
    }

    @Test
    void shouldDropSetuidAndSetgidWhereOwnershipIsNotKept(@TempDir Path dir) throws Exception {
        assumeTrue(LibC.geteuid() == 0, "needs root to run the copy as another user");
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")), "needs setpriv (util-linux)");
        TortureTree.chmod(dir, 0755);
        Path src = Files.createDirectory(dir.resolve("src"));
        // file name -> owner, group, mode; the expected mode of the copy made by nobody, as GNU cp 9.1 gives it
        record Case(String name, boolean dir, int uid, int gid, int mode, int expected) {
        }
        List<Case> cases = List.of(
                new Case("root-prog", false, 0, 0, 06755, 0755), // owner and group not kept
                new Case("root-group", false, NOBODY, 0, 06755, 0755), // only the group not kept
                new Case("other-owner", false, 0, NOBODY, 04755, 0755), // only the owner not kept
                new Case("root-sticky", false, 0, 0, 01755, 0755), // cp drops a file's sticky bit too
                new Case("own-prog", false, NOBODY, NOBODY, 07755, 07755), // kept: nothing to drop
                new Case("root-group-dir", true, NOBODY, 0, 02775, 0775),
                new Case("root-dir", true, 0, 0, 07777, 01777), // a directory keeps its sticky bit
                new Case("other-owner-dir", true, 0, NOBODY, 06777, 0777),
                new Case("own-dir", true, NOBODY, NOBODY, 07777, 07777));
        for (Case c : cases) {
            Path p = src.resolve(c.name());
            if (c.dir()) {
                Files.createDirectory(p);
            } else {
                Files.writeString(p, c.name());
            }
            TortureTree.chown(p, c.uid(), c.gid(), false);
            TortureTree.chmod(p, c.mode()); // after chown, which clears setuid and setgid
        }
        Path out = Files.createDirectory(dir.resolve("out"));
        TortureTree.chmod(out, 0777);
        Path dst = out.resolve("dst");

        String log = copyAsNobody(src, dst, 0);
        for (Case c : cases) {
            Path q = dst.resolve(c.name());
            assertEquals(NOBODY, owner(q), c.name());
            assertEquals(Integer.toOctalString(c.expected()), Integer.toOctalString(mode(q)), c.name() + "\n" + log);
        }
    }

    private static int mode(Path p) throws IOException {
        return ((Number) Files.getAttribute(p, "unix:mode")).intValue() & 07777;
    }

    private static int owner(Path p) throws IOException {
        return ((Number) Files.getAttribute(p, "unix:uid")).intValue();
    }
}
