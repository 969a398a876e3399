package io.jfio.ship;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jfio.core.sys.LibC;
import io.jfio.ship.config.ShipConfig;
import io.jfio.ship.sink.DirSink;
import io.jfio.ship.testing.ShipRun;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What another local user can plant in a watched directory: symlinks to files only root may read, symlinked
 * directories, directories swapped for symlinks while the shipper runs; and who may read what the shipper writes.
 * Runs as root where it can (the attacker is uid 65534), as it would be deployed.
 */
class HostileSourcesTest {
    private static final int NOBODY = 65534;
    @TempDir
    Path tmp;

    private static void chownNoFollow(Path p, int uid) throws Exception {
        Process c = new ProcessBuilder("chown", "-h", uid + ":" + uid, p.toString()).inheritIO().start();
        assertEquals(0, c.waitFor());
    }

    private static String shipped(Path out) throws Exception {
        return Files.isDirectory(out) ? new String(DirSink.readAll(out), StandardCharsets.UTF_8) : "";
    }

    private Path secret() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("root-only"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        Path s = dir.resolve("secret");
        Files.writeString(s, "SECRET\n");
        Files.setPosixFilePermissions(s, PosixFilePermissions.fromString("rw-------"));
        return s;
    }

    @Test
    void aUsersSymlinkToARootOnlyFileIsNotShippedWithOrWithoutFollowSymlinks() throws Exception {
        assumeTrue(LibC.geteuid() == 0, "needs root: the link must belong to another user");
        Path secret = secret();
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Files.writeString(logs.resolve("app.log"), "ok\n");
        Path evil = Files.createSymbolicLink(logs.resolve("evil.log"), secret);
        chownNoFollow(evil, NOBODY);
        for (String follow : List.of("false", "true")) {
            Path out = tmp.resolve("out-" + follow);
            ShipConfig cfg = ShipRun.config(List.of(logs + "/*.log"), out, tmp.resolve("state-" + follow),
                    Map.of("follow-symlinks", follow));
            ByteArrayOutputStream log = new ByteArrayOutputStream();
            ShipRun.once(cfg, log);
            assertEquals("ok\n", shipped(out), "follow-symlinks=" + follow);
            assertTrue(log.toString(StandardCharsets.UTF_8).contains("symlink-skipped"), log.toString());
        }
    }

    @Test
    void aSymlinkedDirectoryUnderADoubleStarIsFollowedOnlyWhenAsked() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path elsewhere = Files.createDirectories(tmp.resolve("elsewhere"));
        Files.writeString(elsewhere.resolve("x.log"), "elsewhere\n");
        Files.writeString(logs.resolve("a.log"), "a\n");
        Files.createSymbolicLink(logs.resolve("sub"), elsewhere);
        Path out = tmp.resolve("out");
        ShipRun.once(ShipRun.config(List.of(logs + "/**/*.log"), out, tmp.resolve("state"), Map.of()),
                new ByteArrayOutputStream());
        assertEquals("a\n", shipped(out));
        Path out2 = tmp.resolve("out2");
        ShipRun.once(ShipRun.config(List.of(logs + "/**/*.log"), out2, tmp.resolve("state2"),
                Map.of("follow-symlinks", "true")), new ByteArrayOutputStream());
        assertEquals(Set.of("a", "elsewhere"), Set.of(shipped(out2).split("\n")));
    }

    @Test
    void theOwnersOptionShipsOnlyTheirFiles() throws Exception {
        assumeTrue(LibC.geteuid() == 0, "needs root to give a file to another user");
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Files.writeString(logs.resolve("root.log"), "root\n");
        Path theirs = logs.resolve("nobody.log");
        Files.writeString(theirs, "nobody\n");
        chownNoFollow(theirs, NOBODY);
        Path out = tmp.resolve("out");
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        ShipRun.once(ShipRun.config(List.of(logs + "/*.log"), out, tmp.resolve("state"), Map.of("owners", "root")),
                log);
        assertEquals("root\n", shipped(out));
        assertTrue(log.toString(StandardCharsets.UTF_8).contains("owner-skipped"), log.toString());
    }

    /**
     * A user who may write the watched directory swaps a subdirectory with a symlink to a root-only directory, over
     * and over, while the shipper runs: nothing of the root-only directory may be shipped.
     */
    @Test
    void aDirectorySwappedForASymlinkWhileShippingLeadsNowhere() throws Exception {
        Path secretDir = Files.createDirectories(tmp.resolve("root-only"));
        Files.setPosixFilePermissions(secretDir, PosixFilePermissions.fromString("rwx------"));
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Files.setPosixFilePermissions(logs, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path sub = Files.createDirectories(logs.resolve("sub"));
        Path swap = logs.resolve("swap");
        Files.createSymbolicLink(swap, secretDir);
        for (int i = 0; i < 50; i++) {
            Files.writeString(sub.resolve("f" + i + ".log"), "public " + i + "\n");
            Files.writeString(secretDir.resolve("f" + i + ".log"), "SECRET " + i + "\n");
        }
        String script = String.join("\n",
                "import ctypes, os, sys, time",
                "libc = ctypes.CDLL(None, use_errno=True)",
                "a, b = sys.argv[1].encode(), sys.argv[2].encode()",
                "end = time.time() + float(sys.argv[3])",
                "while time.time() < end:",
                "    libc.renameat2(-100, a, -100, b, 2)", // RENAME_EXCHANGE
                "");
        Path py = tmp.resolve("swap.py");
        Files.writeString(py, script);
        List<String> cmd = new java.util.ArrayList<>();
        if (LibC.geteuid() == 0) {
            chownNoFollow(swap, NOBODY);
            chownNoFollow(sub, NOBODY);
            cmd.addAll(List.of("setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups"));
        }
        // The system's python: one under root's home is not the attacker's to run.
        String python = Files.exists(Path.of("/usr/bin/python3")) ? "/usr/bin/python3" : "python3";
        cmd.addAll(List.of(python, py.toString(), sub.toString(), swap.toString(), "6"));
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwx--x--x")); // the attacker's way in
        Process attacker = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        long swapping = System.nanoTime();
        Path out = tmp.resolve("out");
        try (ShipRun run = ShipRun.start(ShipRun.config(List.of(logs + "/*/*.log"), out, tmp.resolve("state"),
                Map.of("poll", "20ms")))) {
            String said = new String(attacker.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(attacker.waitFor(30, TimeUnit.SECONDS));
            assertEquals(0, attacker.exitValue(), said);
            Thread.sleep(500);
        } finally {
            attacker.destroyForcibly();
        }
        assertTrue(System.nanoTime() - swapping > 5_000_000_000L, "the attacker swapped for 6 s");
        String got = shipped(out);
        assertFalse(got.contains("SECRET"), got);
        Set<String> lines = new HashSet<>(List.of(got.split("\n")));
        lines.remove("");
        assertTrue(lines.size() <= 50, "no line twice as another file: " + lines.size());
    }

    @Test
    void outputsStateAndCheckpointsAreTheShippersOnly() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path src = logs.resolve("a.log");
        Files.writeString(src, "a\n");
        Files.setPosixFilePermissions(src, PosixFilePermissions.fromString("rw-------"));
        Path out = tmp.resolve("new/out");
        Path state = tmp.resolve("newstate/state");
        ShipRun.once(ShipRun.config(List.of(logs + "/*.log"), out, state, Map.of()), new ByteArrayOutputStream());
        assertEquals("rwx------", perms(out));
        assertEquals("rwx------", perms(state));
        for (Path seg : DirSink.segments(out)) assertEquals("rw-------", perms(seg));
        try (var s = Files.list(state)) {
            for (Path f : s.toList()) {
                if (Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)) {
                    assertEquals("rw-------", perms(f), f.toString());
                }
            }
        }
        Path out2 = tmp.resolve("out2");
        ShipRun.once(ShipRun.config(List.of(logs + "/*.log"), out2, tmp.resolve("state2"),
                Map.of("output-mode", "0640")), new ByteArrayOutputStream());
        assertEquals("rwxr-x---", perms(out2));
        for (Path seg : DirSink.segments(out2)) assertEquals("rw-r-----", perms(seg));
        // A reader of the segments goes by the commit to know which bytes are delivered: it may read it too.
        assertEquals("rw-r-----", perms(out2.resolve("ship.commit")));
        assertEquals("rw-------", perms(out2.resolve(".jfio-sink.lock")));
        assertEquals("rw-------", perms(out.resolve("ship.commit")));
    }

    private static String perms(Path p) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
    }

    @Test
    void plantedSymlinksAtTheLockFilesAreRefusedAndTheirTargetsUntouched() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Files.writeString(logs.resolve("a.log"), "a\n");
        Path victim = tmp.resolve("victim");
        Files.writeString(victim, "precious\n");
        Path out = Files.createDirectories(tmp.resolve("out"));
        Files.createSymbolicLink(out.resolve(".jfio-sink.lock"), victim);
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        java.io.IOException e = org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class,
                () -> ShipRun.once(ShipRun.config(List.of(logs + "/*.log"), out, tmp.resolve("state"), Map.of()), log));
        assertTrue(e.getMessage().contains("symbolic link"), e.getMessage());
        Path state = Files.createDirectories(tmp.resolve("state2"));
        Files.createSymbolicLink(state.resolve("lock"), victim);
        e = org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class,
                () -> ShipRun.once(ShipRun.config(List.of(logs + "/*.log"), tmp.resolve("out2"), state, Map.of()),
                        log));
        assertTrue(e.getMessage().contains("symbolic link"), e.getMessage());
        assertEquals("precious\n", Files.readString(victim));
    }

    @Test
    void everySinkNameHasItsOwnCheckpointFile() {
        Set<String> files = new HashSet<>();
        for (String name : List.of("ä", "ö", "_", "-", "a_b", "a-b", "a b", "a/b", "..", "main", "_5F")) {
            String f = Shipper.checkpointFile(name);
            assertTrue(f.matches("checkpoints-[A-Za-z0-9._-]+\\.bin"), f);
            assertTrue(files.add(f), "two names share " + f);
        }
        assertEquals("checkpoints-main.bin", Shipper.checkpointFile("main"), "plain names keep their file");
        assertNotEquals(Shipper.checkpointFile("ä"), Shipper.checkpointFile("ö"));
    }
}
