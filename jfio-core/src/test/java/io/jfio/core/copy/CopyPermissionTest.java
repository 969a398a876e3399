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
 * give away is silently not kept, like cp -a.
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
        Path out = Files.createDirectory(dir.resolve("out"));
        TortureTree.chmod(out, 0777);
        Path dst = out.resolve("dst");

        List<String> cmd = new ArrayList<>(List.of("/usr/bin/setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY,
                "--clear-groups", "--"));
        cmd.addAll(ChildJvm.command(src.toString(), dst.toString()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), log);
        assumeTrue(!log.contains("Error occurred during initialization of VM")
                && !log.contains("Could not find or load main class"), "the JVM cannot start as nobody: " + log);
        assertEquals(1, p.exitValue(), log);
        assertTrue(log.contains("secret") && log.contains("errno=EACCES"), log);
        assertTrue(log.lines().anyMatch(l -> l.contains("source=" + locked) && l.contains("errno=EACCES")), log);
        assertEquals("anyone", Files.readString(dst.resolve("readable")));
        assertEquals("anyone too", Files.readString(dst.resolve("open/also-readable")));
        assertFalse(Files.exists(dst.resolve("secret")));
        assertTrue(Files.isDirectory(dst.resolve("locked")), "the directory is made, as cp does");
        assertFalse(Files.exists(dst.resolve("locked/inside")));
        assertEquals(NOBODY, owner(dst.resolve("readable")), "root's ownership silently not kept");
    }

    private static int owner(Path p) throws IOException {
        return ((Number) Files.getAttribute(p, "unix:uid")).intValue();
    }
}
