package io.jfio.core.copy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link TreeCopy} run by root on a source another user can write: that user swaps a subdirectory for a symlink to
 * a directory only root may read, or swaps their own file with one of root's, while the copy runs. Nothing only
 * root could read may end up in the target where the other user can read it.
 *
 * <p>Not thread-safe; JUnit runs each test on one thread (the attacker is a second process).
 */
class CopySourceSafetyTest {
    private static final String SECRET = "SECRET";
    private static final int SUB_FILES = 50;
    private static final int DEEPER_FILES = 20;
    private static final int PAIRS = 100;
    private static final int NOBODY = 65534;

    /**
     * Exchanges the paths of a random pair of the ones given (renameat2 RENAME_EXCHANGE), again and again, until the
     * stop file exists; prints how many exchanges it made.
     */
    private static final String ATTACKER = """
            import ctypes, os, platform, random, sys, time
            stop, seed = sys.argv[1], int(sys.argv[2])
            pairs = [(sys.argv[i], sys.argv[i + 1]) for i in range(3, len(sys.argv), 2)]
            libc = ctypes.CDLL(None, use_errno=True)
            nr = 316 if platform.machine() == 'x86_64' else 276
            rnd = random.Random(seed)
            swaps = 0
            n = 0
            while True:
                n += 1
                if n % 64 == 0 and os.path.exists(stop):
                    break
                a, b = pairs[rnd.randrange(len(pairs))]
                if libc.syscall(ctypes.c_long(nr), ctypes.c_long(-100), a.encode(), ctypes.c_long(-100),
                                b.encode(), ctypes.c_long(2)) == 0:
                    swaps += 1
                if rnd.random() < 0.01:
                    time.sleep(0.0002)
            print(swaps, flush=True)
            """;

    @Test
    void shouldNeverCopyARootOnlyDirectorySwappedInForASubdirectory(@TempDir Path dir) throws Exception {
        directorySwapRounds(dir, 12);
    }

    @Test
    void shouldNeverCopyARootOnlyDirectorySwappedInForASubdirectoryWithoutOpenat2(@TempDir Path dir)
            throws Exception {
        DirFds.forceWalk(true);
        try {
            directorySwapRounds(dir, 8);
        } finally {
            DirFds.forceWalk(false);
        }
    }

    @Test
    void shouldNeverCopyRootsFileWithTheOwnerAndModeOfTheFileItWasSwappedWith(@TempDir Path dir) throws Exception {
        fileSwapRounds(dir, 12);
    }

    @Test
    void shouldNeverCopyRootsFileWithTheOwnerAndModeOfTheFileItWasSwappedWithWithoutOpenat2(@TempDir Path dir)
            throws Exception {
        DirFds.forceWalk(true);
        try {
            fileSwapRounds(dir, 8);
        } finally {
            DirFds.forceWalk(false);
        }
    }

    /**
     * src/w (the attacker's to write) holds sub (files, and deeper/ with more) and .l, a symlink to outside (root's
     * only, with the same names holding the secret); the attacker exchanges sub and .l while root copies src.
     */
    private static void directorySwapRounds(Path dir, int rounds) throws Exception {
        List<String> attack = prepareAttacker(dir);
        Path w = dir.resolve("src/w");
        Path sub = Files.createDirectories(w.resolve("sub/deeper"));
        Path outside = Files.createDirectories(dir.resolve("outside/deeper"));
        for (int f = 0; f < SUB_FILES; f++) {
            Files.writeString(w.resolve("sub/g" + f), "sub " + f);
            Files.writeString(dir.resolve("outside/g" + f), SECRET + " " + f);
        }
        for (int f = 0; f < DEEPER_FILES; f++) {
            Files.writeString(sub.resolve("h" + f), "deeper " + f);
            Files.writeString(outside.resolve("h" + f), SECRET + " deeper " + f);
        }
        Files.writeString(dir.resolve("outside/secret"), SECRET);
        Files.setPosixFilePermissions(dir.resolve("outside"), PosixFilePermissions.fromString("rwx------"));
        Files.createSymbolicLink(w.resolve(".l"), dir.resolve("outside"));
        for (Path p : List.of(w, w.resolve("sub"), sub)) {
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxrwxrwx"));
        }
        long swaps = race(dir, attack, rounds, List.of(w.resolve("sub").toString(), w.resolve(".l").toString()),
                (dst, r, what) -> {
                    assertNoSecretReadableByOthers(dst, true, what);
                    if (!r.failures().isEmpty()) return;
                    // Each name was a symlink or the directory when it was listed (the listing may have seen the
                    // directory under both names, or under neither): each directory copied must be complete.
                    for (String name : List.of("sub", ".l")) {
                        Path p = dst.resolve("w").resolve(name);
                        if (Files.isSymbolicLink(p)) continue;
                        assertEquals(SUB_FILES + DEEPER_FILES, regularFiles(p),
                                "no failure reported, so every file must be in the target: " + p + " " + what);
                    }
                });
        assertTrue(swaps > 0, "the attacker never swapped the directory: the test proved nothing");
    }

    /**
     * src/w (the attacker's to write) holds pairs f_i (the attacker's, rw-r--r--) and s_i (root's, rw-------, a
     * secret); the attacker exchanges the two files of a pair while root copies src.
     */
    private static void fileSwapRounds(Path dir, int rounds) throws Exception {
        List<String> attack = prepareAttacker(dir);
        boolean root = LibC.geteuid() == 0;
        Path w = Files.createDirectories(dir.resolve("src/w"));
        List<String> pairs = new ArrayList<>();
        for (int i = 0; i < PAIRS; i++) {
            Path pub = Files.writeString(w.resolve("f" + i), "public " + i);
            Files.setPosixFilePermissions(pub, PosixFilePermissions.fromString("rw-r--r--"));
            if (root) Files.setAttribute(pub, "unix:uid", NOBODY, LinkOption.NOFOLLOW_LINKS);
            Path secret = Files.writeString(w.resolve("s" + i), SECRET + " " + i);
            Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
            pairs.add(pub.toString());
            pairs.add(secret.toString());
        }
        Files.setPosixFilePermissions(w, PosixFilePermissions.fromString("rwxrwxrwx"));
        long swaps = race(dir, attack, rounds, pairs, (dst, r, what) -> {
            assertNoSecretReadableByOthers(dst, false, what);
            if (r.failures().isEmpty()) {
                assertEquals(2 * PAIRS, regularFiles(dst), "no failure reported, so every file must be in the "
                        + "target: " + what);
            }
        });
        assertTrue(swaps > 0, "the attacker never swapped a file: the test proved nothing");
    }

    /** Writes the attacker's script into {@code dir} (made traversable for it) and returns the command to run it. */
    private static List<String> prepareAttacker(Path dir) throws IOException {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path script = dir.resolve("attack.py");
        Files.writeString(script, ATTACKER);
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rw-r--r--"));
        Files.createDirectories(dir.resolve("src"));
        return CopySafetyTest.attackerCommand(script);
    }

    /** What each round checks of its target and the copy's report. */
    @FunctionalInterface
    private interface RoundCheck {
        void check(Path dst, TreeCopyTest.Run r, String what) throws IOException;
    }

    /**
     * Runs the attacker on {@code pairs} while copying dir/src with -a {@code rounds} times, each into a new target;
     * checks every round; returns how many exchanges the attacker made.
     */
    private static long race(Path dir, List<String> attack, int rounds, List<String> pairs, RoundCheck check)
            throws Exception {
        TestSeed seed = TestSeed.pick();
        Path stop = dir.resolve("stop");
        List<String> cmd = new ArrayList<>(attack);
        cmd.addAll(List.of(stop.toString(), Long.toString(seed.value())));
        cmd.addAll(pairs);
        Process attacker = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        long failed = 0;
        try {
            for (int round = 0; round < rounds; round++) {
                Path dst = dir.resolve("dst" + round);
                TreeCopyTest.Run r = TreeCopyTest.copy(List.of(dir.resolve("src")), dst,
                        CopyOptions.archive().build());
                if (!attacker.isAlive()) {
                    throw new AssertionError("the attacker stopped: " + new String(attacker.getInputStream()
                            .readAllBytes(), StandardCharsets.UTF_8));
                }
                String what = "round " + round + " " + seed + ": files=" + r.result().files() + " failures="
                        + r.result().failureCount() + " first failures="
                        + r.failures().subList(0, Math.min(3, r.failures().size()));
                check.check(dst, r, what);
                if (!r.failures().isEmpty()) {
                    failed++;
                    assertFalse(r.result().ok(), what);
                    for (CopyFailure f : r.failures()) {
                        assertTrue(f.message().contains("replaced"), "a failure other than the swap: " + what);
                    }
                }
            }
            Files.createFile(stop);
            assertTrue(attacker.waitFor(30, TimeUnit.SECONDS), "attacker did not stop");
            String out = new String(attacker.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            assertEquals(0, attacker.exitValue(), "attacker failed: " + out);
            System.out.println("swaps=" + out + " rounds=" + rounds + " rounds with failures=" + failed);
            return Long.parseLong(out.lines().reduce((a, b) -> b).orElse("0").trim());
        } finally {
            attacker.destroyForcibly();
            attacker.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /**
     * Fails if a regular file below {@code dst} holds the secret and another user could read it (not owned by root,
     * when the test runs as root, or readable by group or others); with {@code none}, if any file holds it at all.
     */
    private static void assertNoSecretReadableByOthers(Path dst, boolean none, String what) throws IOException {
        boolean root = LibC.geteuid() == 0;
        try (Stream<Path> all = Files.walk(dst)) {
            for (Path p : all.filter(q -> Files.isRegularFile(q, LinkOption.NOFOLLOW_LINKS)).toList()) {
                if (!Files.readString(p).startsWith(SECRET)) continue;
                assertFalse(none, "the secret was copied into the target: " + p + " " + what);
                int uid = ((Number) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS)).intValue();
                String mode = PosixFilePermissions.toString(Files.getPosixFilePermissions(p,
                        LinkOption.NOFOLLOW_LINKS));
                assertTrue((!root || uid == 0) && mode.endsWith("------"), "the secret was copied with another "
                        + "file's owner or mode: " + p + " uid=" + uid + " mode=" + mode + " " + what);
            }
        }
    }

    private static long regularFiles(Path dir) throws IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            return all.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)).count();
        }
    }
}
