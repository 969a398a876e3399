package io.jfio.core.copy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.abort;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jfio.core.sys.LibC;
import io.jfio.core.testing.TestSeed;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link TreeCopy} where another user can write the target: a directory swapped for a symlink while the copy runs,
 * a symlink planted at a file's name; and the copy's handling of FIFOs, devices and --fsync of the target's parent.
 */
class CopySafetyTest {
    private static final int DIRS = 6;
    private static final int FILES_PER_DIR = 450;
    private static final int FILES_PER_SUBDIR = 50;
    private static final int S_IFMT = 0170000;
    private static final int S_IFIFO = 0010000;

    /**
     * Swaps each top-level target directory, a random 0-80 ms after it appears (so sometimes at once, sometimes
     * while its files are being copied), with a symlink to a directory outside the target (renameat2
     * RENAME_EXCHANGE), then back and forth now and then, until the stop file exists; prints how many swaps it made.
     */
    private static final String ATTACKER = """
            import ctypes, os, platform, random, stat, sys, time
            shared, outside, stop, seed = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
            names = sys.argv[5:]
            libc = ctypes.CDLL(None, use_errno=True)
            nr = 316 if platform.machine() == 'x86_64' else 276
            rnd = random.Random(seed)
            def exchange(a, b):
                return libc.syscall(ctypes.c_long(nr), ctypes.c_long(-100), a.encode(), ctypes.c_long(-100),
                                    b.encode(), ctypes.c_long(2)) == 0
            for n in names:
                os.symlink(outside, os.path.join(shared, '.l-' + n))
            swaps = 0
            armed = {}
            while not os.path.exists(stop):
                for n in names:
                    p = os.path.join(shared, n)
                    try:
                        st = os.lstat(p)
                    except FileNotFoundError:
                        continue
                    at = armed.setdefault(n, time.monotonic() + rnd.random() * 0.08)
                    if time.monotonic() < at:
                        continue
                    if stat.S_ISDIR(st.st_mode) or rnd.random() < 0.3:
                        if exchange(p, os.path.join(shared, '.l-' + n)):
                            swaps += 1
                pause = rnd.random() * 0.0004
                if pause > 0.0002:
                    time.sleep(pause)
            print(swaps, flush=True)
            """;

    @Test
    void shouldWriteNothingOutsideTheTargetWhileAnotherUserSwapsItsDirectoriesForSymlinks(@TempDir Path dir)
            throws Exception {
        raceRounds(dir, 3);
    }

    @Test
    void shouldWriteNothingOutsideTheTargetWithoutOpenat2(@TempDir Path dir) throws Exception {
        DirFds.forceWalk(true);
        try {
            raceRounds(dir, 2);
        } finally {
            DirFds.forceWalk(false);
        }
    }

    /**
     * The command that runs the python script {@code script} as the attacker: uid and gid 65534 without groups when
     * the test runs as root, else as the test's own user. Aborts the test where python3 or setpriv is missing.
     */
    static List<String> attackerCommand(Path script) {
        // The system's python: one under root's home (pyenv) is not reachable for the unprivileged attacker.
        String python = Files.isExecutable(Path.of("/usr/bin/python3")) ? "/usr/bin/python3" : "python3";
        assumeTrue(python.startsWith("/") || onPath(python),
                "the attacker is a python3 script, and python3 is not installed");
        boolean root = LibC.geteuid() == 0;
        if (root && !onPath("setpriv")) {
            abort("running as root, the attacker needs setpriv (util-linux) to drop to an unprivileged user");
        }
        List<String> cmd = new ArrayList<>();
        if (root) cmd.addAll(List.of("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"));
        cmd.addAll(List.of(python, script.toString()));
        return cmd;
    }

    private static void raceRounds(Path dir, int rounds) throws Exception {
        boolean root = LibC.geteuid() == 0;
        Path script = dir.resolve("attack.py");
        Files.writeString(script, ATTACKER);
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rw-r--r--"));
        List<String> attack = attackerCommand(script);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path src = dir.resolve("src");
        List<Path> sources = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (int d = 0; d < DIRS; d++) {
            Path top = src.resolve("d" + d);
            Path sub = top.resolve("sub");
            Files.createDirectories(sub);
            for (int f = 0; f < FILES_PER_DIR; f++) Files.writeString(top.resolve("f" + f), "data " + d + "/" + f);
            for (int f = 0; f < FILES_PER_SUBDIR; f++) Files.writeString(sub.resolve("g" + f), "sub " + f);
            Files.setPosixFilePermissions(top, PosixFilePermissions.fromString("rwxrwxrwx"));
            Files.setPosixFilePermissions(sub, PosixFilePermissions.fromString("rwxrwxrwx"));
            sources.add(top);
            names.add("d" + d);
        }
        TestSeed seed = TestSeed.pick();
        long totalSwaps = 0;
        for (int round = 0; round < rounds; round++) {
            Path shared = Files.createDirectory(dir.resolve("shared" + round));
            Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
            Path outside = Files.createDirectory(dir.resolve("outside" + round));
            Files.setPosixFilePermissions(outside, PosixFilePermissions.fromString("rwx------"));
            Path stop = dir.resolve("stop" + round);
            List<String> cmd = new ArrayList<>(attack);
            cmd.addAll(List.of(shared.toString(), outside.toString(), stop.toString(),
                    Long.toString(seed.value() + round)));
            cmd.addAll(names);
            Process attacker = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            try {
                // The attacker's symlinks exist before the copy starts: it is ready to swap.
                for (int i = 0; i < 500 && !Files.isSymbolicLink(shared.resolve(".l-d" + (DIRS - 1))); i++) {
                    Thread.sleep(10);
                }
                if (!attacker.isAlive()) {
                    throw new AssertionError("attacker did not start: " + new String(attacker.getInputStream()
                            .readAllBytes(), StandardCharsets.UTF_8));
                }
                TreeCopyTest.Run r = TreeCopyTest.copy(sources, shared, CopyOptions.archive().build());
                Files.createFile(stop);
                assertTrue(attacker.waitFor(30, TimeUnit.SECONDS), "attacker did not stop");
                String out = new String(attacker.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
                assertEquals(0, attacker.exitValue(), "attacker failed: " + out);
                totalSwaps += Long.parseLong(out.lines().reduce((a, b) -> b).orElse("0").trim());

                String what = "round " + round + " " + seed + ": files=" + r.result().files() + " failures="
                        + r.result().failureCount() + " first failures="
                        + r.failures().subList(0, Math.min(3, r.failures().size()));
                System.out.println("round " + round + ": swaps=" + out + " files=" + r.result().files()
                        + " failures=" + r.result().failureCount());
                assertTrue(Files.isDirectory(outside, LinkOption.NOFOLLOW_LINKS), what);
                assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(outside,
                        LinkOption.NOFOLLOW_LINKS)), "the outside directory's mode changed: " + what);
                try (Stream<Path> in = Files.list(outside)) {
                    assertEquals(List.of(), in.toList(), "written outside the target: " + what);
                }
                if (root) {
                    assertEquals(0, ((Number) Files.getAttribute(outside, "unix:uid", LinkOption.NOFOLLOW_LINKS))
                            .intValue(), "the outside directory's owner changed: " + what);
                }
                if (r.failures().isEmpty()) {
                    assertEquals(DIRS * (FILES_PER_DIR + FILES_PER_SUBDIR), regularFiles(shared),
                            "no failure reported, so every file must be in the target: " + what);
                } else {
                    assertFalse(r.result().ok(), what);
                    for (CopyFailure f : r.failures()) {
                        assertTrue(f.message().contains("replaced"), "a failure other than the swap: " + what);
                    }
                }
            } finally {
                attacker.destroyForcibly();
                attacker.waitFor(10, TimeUnit.SECONDS);
            }
        }
        assertTrue(totalSwaps > 0, "the attacker never swapped a directory: the test proved nothing");
    }

    private static long regularFiles(Path dir) throws IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            return all.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)).count();
        }
    }

    static boolean onPath(String program) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, program))) return true;
        }
        return false;
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void shouldReplaceASymlinkPlantedAtAFilesNameNotWriteThroughIt(boolean archive, @TempDir Path dir)
            throws Exception {
        Path src = Files.createDirectories(dir.resolve("src"));
        Files.writeString(src.resolve("f.txt"), "new content");
        Path outside = Files.createDirectories(dir.resolve("outside"));
        Path victim = Files.writeString(outside.resolve("victim"), "secret");
        Files.setPosixFilePermissions(victim, PosixFilePermissions.fromString("rw-------"));
        Path planted = Files.createDirectories(dir.resolve("dst/src")).resolve("f.txt");
        Files.createSymbolicLink(planted, victim);

        CopyOptions o = archive ? CopyOptions.archive().build() : CopyOptions.builder().recursive(true).build();
        TreeCopyTest.Run r = TreeCopyTest.copy(List.of(src), dir.resolve("dst"), o);

        TreeCopyTest.assertOk(r);
        assertEquals("secret", Files.readString(victim));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(victim)));
        assertTrue(Files.isRegularFile(planted, LinkOption.NOFOLLOW_LINKS), "the planted symlink is still there");
        assertEquals("new content", Files.readString(planted));
    }

    @Test
    void shouldCopyWhatDevNullReadsWithoutRecursive(@TempDir Path dir) throws Exception {
        Path dst = dir.resolve("x");
        TreeCopyTest.Run r = TreeCopyTest.copy(List.of(Path.of("/dev/null")), dst, CopyOptions.builder().build());
        TreeCopyTest.assertOk(r);
        assertTrue(Files.isRegularFile(dst, LinkOption.NOFOLLOW_LINKS), "not a regular file: " + dst);
        assertEquals(0, Files.size(dst));
    }

    @Test
    void shouldCopyWhatAFifoReadsWithoutRecursive(@TempDir Path dir) throws Exception {
        Path fifo = mkfifo(dir.resolve("fifo"));
        Process writer = new ProcessBuilder("sh", "-c", "printf 'hello from the writer' > \"$0\"", fifo.toString())
                .start();
        try {
            Path dst = dir.resolve("x");
            TreeCopyTest.Run r = TreeCopyTest.copy(List.of(fifo), dst, CopyOptions.builder().build());
            TreeCopyTest.assertOk(r);
            assertTrue(Files.isRegularFile(dst, LinkOption.NOFOLLOW_LINKS), "not a regular file: " + dst);
            assertEquals("hello from the writer", Files.readString(dst));
            assertTrue(writer.waitFor(10, TimeUnit.SECONDS));
        } finally {
            writer.destroyForcibly();
        }
    }

    @Test
    void shouldRecreateAFifoWithArchive(@TempDir Path dir) throws Exception {
        Path fifo = mkfifo(dir.resolve("fifo"));
        Path dst = dir.resolve("x");
        TreeCopyTest.Run r = TreeCopyTest.copy(List.of(fifo), dst, CopyOptions.archive().build());
        TreeCopyTest.assertOk(r);
        int mode = ((Number) Files.getAttribute(dst, "unix:mode", LinkOption.NOFOLLOW_LINKS)).intValue();
        assertEquals(S_IFIFO, mode & S_IFMT, "not a FIFO: " + dst);
    }

    @Test
    void shouldWriteIntoAFifoOrDeviceNamedAsTheTargetAndReplaceOneInsideATree(@TempDir Path dir) throws Exception {
        Path src = Files.writeString(dir.resolve("f"), "data for the reader");
        Path fifo = mkfifo(dir.resolve("fifo"));
        Path out = dir.resolve("out");
        Process reader = new ProcessBuilder("sh", "-c", "cat \"$0\" > \"$1\"", fifo.toString(), out.toString())
                .start();
        try {
            TreeCopyTest.Run r = TreeCopyTest.copy(List.of(src), fifo, CopyOptions.archive().build());
            TreeCopyTest.assertOk(r);
            assertTrue(reader.waitFor(10, TimeUnit.SECONDS), "the reader saw no end of data");
            assertEquals("data for the reader", Files.readString(out));
            int mode = ((Number) Files.getAttribute(fifo, "unix:mode", LinkOption.NOFOLLOW_LINKS)).intValue();
            assertEquals(S_IFIFO, mode & S_IFMT, "still a FIFO: " + fifo);
        } finally {
            reader.destroyForcibly();
        }
        if (LibC.geteuid() == 0) {
            Path dev = dir.resolve("null");
            Process mk = new ProcessBuilder("mknod", dev.toString(), "c", "1", "3").redirectErrorStream(true).start();
            assertTrue(mk.waitFor(10, TimeUnit.SECONDS) && mk.exitValue() == 0, "mknod failed");
            TreeCopyTest.assertOk(TreeCopyTest.copy(List.of(src), dev, CopyOptions.builder().build()));
            int mode = ((Number) Files.getAttribute(dev, "unix:mode", LinkOption.NOFOLLOW_LINKS)).intValue();
            assertEquals(0020000, mode & S_IFMT, "still a character device: " + dev);
        }
        // Inside a tree a FIFO at a file's name is replaced, not opened: nobody reads it, and the copy goes on.
        Path tree = Files.createDirectory(dir.resolve("tree"));
        Files.writeString(tree.resolve("x"), "x");
        Path target = Files.createDirectories(dir.resolve("target/tree"));
        mkfifo(target.resolve("x"));
        TreeCopyTest.assertOk(TreeCopyTest.copy(List.of(tree), target.getParent(), CopyOptions.archive().build()));
        assertTrue(Files.isRegularFile(target.resolve("x"), LinkOption.NOFOLLOW_LINKS));
        assertEquals("x", Files.readString(target.resolve("x")));
    }

    @Test
    void shouldWriteThroughASymlinkNamedAsTheTargetToAFifoOrDevice(@TempDir Path dir) throws Exception {
        // jfio copy log /dev/stdout, or an image to /dev/disk/by-id/...: symlinks to a FIFO, a terminal, a device.
        // cp writes into what they lead to; replacing the link would break it (as root, in /dev) and write nothing.
        Path src = Files.writeString(dir.resolve("f"), "through the link");
        Path fifo = mkfifo(dir.resolve("fifo"));
        Path link = Files.createSymbolicLink(dir.resolve("link"), fifo);
        Path out = dir.resolve("out");
        Process reader = new ProcessBuilder("sh", "-c", "cat \"$0\" > \"$1\"", fifo.toString(), out.toString())
                .start();
        try {
            TreeCopyTest.assertOk(TreeCopyTest.copy(List.of(src), link, CopyOptions.builder().build()));
            assertTrue(reader.waitFor(10, TimeUnit.SECONDS), "the reader saw no end of data");
            assertEquals("through the link", Files.readString(out));
            assertTrue(Files.isSymbolicLink(link), "the link stays");
        } finally {
            reader.destroyForcibly();
        }
        Path toNull = Files.createSymbolicLink(dir.resolve("to-null"), Path.of("/dev/null"));
        TreeCopyTest.assertOk(TreeCopyTest.copy(List.of(src), toNull, CopyOptions.archive().build()));
        assertTrue(Files.isSymbolicLink(toNull), "the link stays");
        // a symlink to a regular file is still replaced (docs/copy.md)
        Path toFile = Files.createSymbolicLink(dir.resolve("to-file"), dir.resolve("out"));
        TreeCopyTest.assertOk(TreeCopyTest.copy(List.of(src), toFile, CopyOptions.builder().build()));
        assertTrue(Files.isRegularFile(toFile, LinkOption.NOFOLLOW_LINKS));
        assertEquals("through the link", Files.readString(out));
    }

    private static Path mkfifo(Path p) throws Exception {
        Process mk = new ProcessBuilder("mkfifo", p.toString()).redirectErrorStream(true).start();
        assertTrue(mk.waitFor(10, TimeUnit.SECONDS) && mk.exitValue() == 0, "mkfifo failed");
        return p;
    }

    @Test
    void shouldFsyncTheDirectoryThatGetsTheNewTopLevelName(@TempDir Path dir) throws Exception {
        assumeTrue(onPath("strace"), "strace is not installed: the fsync calls cannot be observed");
        Path src = Files.createDirectories(dir.resolve("src/sub"));
        Files.writeString(src.resolve("f"), "x");
        Path parent = Files.createDirectories(dir.resolve("parent"));
        Path trace = dir.resolve("trace.txt");
        List<String> cmd = new ArrayList<>(List.of("strace", "-f", "-qq", "-y", "-e", "trace=fsync", "-o",
                trace.toString()));
        cmd.addAll(ChildJvm.command("--fsync", dir.resolve("src").toString(), parent.resolve("new").toString()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "copy timed out");
        if (p.exitValue() != 0 && out.contains("ptrace")) abort("strace cannot trace here: " + out);
        assertEquals(0, p.exitValue(), out);
        assertEquals("x", Files.readString(parent.resolve("new/sub/f")));
        String t = Files.readString(trace);
        Pattern parentSync = Pattern.compile("fsync\\(\\d+<" + Pattern.quote(parent.toRealPath().toString())
                + ">\\)\\s+=\\s+0");
        assertTrue(parentSync.matcher(t).find(), "no fsync of " + parent + " in:\n" + t);
        Pattern newSync = Pattern.compile("fsync\\(\\d+<" + Pattern.quote(parent.toRealPath().resolve("new")
                .toString()) + ">\\)\\s+=\\s+0");
        assertTrue(newSync.matcher(t).find(), "no fsync of the new directory in:\n" + t);
    }
}
