package io.jfio.core.watch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jfio.core.sys.Statfs;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The inotify limits, reached for real: a child JVM runs in a new user namespace ({@code unshare -U -r}) whose
 * {@code user.max_inotify_watches} / {@code user.max_inotify_instances} the test lowers. Since Linux 5.11 these are
 * counted per namespace as well, so nothing outside the child is affected and nothing global needs restoring.
 * Skipped where unprivileged user namespaces are not available.
 */
class WatchLimitTest {

    private static String runInNamespace(String sysctl, int value, String scenario, Path dir) throws Exception {
        assumeTrue(userNamespacesWork(), "unshare -U -r does not work here");
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        String cp = location(InotifyWatcher.class) + ":" + location(LimitChild.class);
        String script = "echo " + value + " > /proc/sys/user/" + sysctl + " || exit 97; exec \"$0\" "
                + "--enable-native-access=ALL-UNNAMED -Xmx128m -cp \"$1\" " + LimitChild.class.getName()
                + " \"$2\" \"$3\"";
        Process p = new ProcessBuilder("unshare", "-U", "-r", "sh", "-c", script, java, cp, scenario, dir.toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "child did not finish");
        assumeTrue(p.exitValue() != 97, "cannot set /proc/sys/user/" + sysctl + " in a user namespace: " + out);
        assertEquals(0, p.exitValue(), out);
        return out;
    }

    private static boolean userNamespacesWork() {
        try {
            Process p = new ProcessBuilder("unshare", "-U", "-r", "true").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    private static String location(Class<?> c) throws URISyntaxException {
        return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }

    @Test
    void shouldReportTheWatchLimitAndFallBackToPolling(@TempDir Path dir) throws Exception {
        String out = runInNamespace("max_inotify_watches", 3, "watches", dir);
        List<String> lines = out.lines().toList();
        assertTrue(lines.contains("MAX 3"), out);
        String limit = lines.stream().filter(l -> l.startsWith("LIMIT ")).findFirst().orElse(null);
        assertNotNull(limit, out);
        assertTrue(limit.contains("errno=ENOSPC") && limit.contains("limit=user.max_inotify_watches=3"), limit);
        assertTrue(limit.contains("sysctl -w user.max_inotify_watches="), limit);
        assertTrue(lines.contains("COUNT 0"), "the partial tree's watches must be removed: " + out);
        Path tree = dir.resolve("tree");
        assertTrue(lines.contains("POLLED [" + tree + "]"), out);
        assertTrue(lines.contains("EVENT CREATE " + tree.resolve("d3/f")), out);
        assertTrue(lines.contains("EVENT MODIFY " + tree.resolve("d3/f")), out);
        assertTrue(lines.contains("SMALL-POLLED []"), out);
        assertTrue(lines.contains("EVENT CREATE " + dir.resolve("small/a/e")), out);
        assertTrue(lines.contains("GROWN-POLLED [" + dir.resolve("small") + "]"), out);
        assertTrue(lines.contains("EVENT CREATE " + dir.resolve("small/a/c/g")), out);
        assertTrue(out.contains("WARNING") && out.contains("instead of inotify"), "the fallback is logged: " + out);
    }

    @Test
    void shouldPollWhenNoInotifyInstanceIsLeft(@TempDir Path dir) throws Exception {
        String out = runInNamespace("max_inotify_instances", 0, "instances", dir);
        assertTrue(out.contains("LIMIT inotify_init1 failed: errno=EMFILE"), out);
        assertTrue(out.contains("limit=user.max_inotify_instances=0"), out);
        assertTrue(out.contains("MECHANISM polling every 30 ms (inotify unavailable: inotify_init1 failed"), out);
        assertTrue(out.contains("EVENT CREATE " + dir.resolve("f")), out);
    }

    @Test
    void shouldPollFileSystemsWhoseChangesInotifyCannotSee() {
        for (long magic : new long[] {Statfs.NFS_SUPER_MAGIC, Statfs.FUSE_SUPER_MAGIC, Statfs.CIFS_SUPER_MAGIC,
            Statfs.SMB2_SUPER_MAGIC, Statfs.V9FS_MAGIC, Statfs.CEPH_SUPER_MAGIC}) {
            String why = FileWatchers.inotifyUnsupportedReason(magic);
            assertNotNull(why, Statfs.name(magic));
            assertTrue(why.contains(Statfs.name(magic)), why);
        }
        for (long magic : new long[] {Statfs.EXT4_SUPER_MAGIC, Statfs.XFS_SUPER_MAGIC, Statfs.BTRFS_SUPER_MAGIC,
            Statfs.TMPFS_MAGIC, Statfs.OVERLAYFS_SUPER_MAGIC}) {
            assertNull(FileWatchers.inotifyUnsupportedReason(magic), Statfs.name(magic));
        }
    }

    @Test
    void shouldReadTheLimits() {
        assertTrue(FileWatchers.maxUserWatches() > 0);
        assertTrue(FileWatchers.maxUserInstances() > 0);
        assertTrue(FileWatchers.maxQueuedEvents() > 1, "sysctl files must be read in one read");
    }
}
