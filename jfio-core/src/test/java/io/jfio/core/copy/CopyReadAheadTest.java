package io.jfio.core.copy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Workers open a batch's small files ahead of copying them (and advise the kernel to read them) only where the
 * descriptor limit leaves room for it: a copy in a child JVM under a low {@code RLIMIT_NOFILE} (prlimit) turns it off
 * and one under a high limit turns it on, and both copy every file exactly, with no failure.
 */
class CopyReadAheadTest {

    private static void tree(Path src) throws Exception {
        SplittableRandom rnd = new SplittableRandom(42);
        for (int d = 0; d < 6; d++) {
            Path dir = Files.createDirectories(src.resolve("d" + d));
            for (int f = 0; f < 45; f++) {
                byte[] b = new byte[rnd.nextInt(0, 40_000)];
                rnd.nextBytes(b);
                Files.write(dir.resolve("f" + f), b);
            }
        }
        Files.write(src.resolve("big"), new byte[3 << 20]); // above the read-ahead's size: copied as before
    }

    /** The child's output; it must exit 0. */
    private static String copyUnderLimit(int nofile, Path src, Path dst) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("prlimit", "--nofile=" + nofile + ":" + nofile, "--"));
        cmd.addAll(ChildJvm.command(src.toString(), dst.toString()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), log);
        assumeTrue(!log.contains("prlimit: "), "prlimit cannot run here: " + log);
        assertEquals(0, p.exitValue(), log);
        return log;
    }

    @Test
    void shouldReadAheadOnlyWhereDescriptorsAllowAndCopyEverythingEitherWay(@TempDir Path dir) throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/prlimit")), "needs prlimit (util-linux)");
        Path src = dir.resolve("src");
        tree(src);
        TreeSnapshot before = TreeSnapshot.take(src);

        // Four workers need 4 x 5 descriptors and a margin: enough for them, not for 16 files each held ahead.
        String low = copyUnderLimit(96, src, dir.resolve("low"));
        assertTrue(low.contains("read_ahead=false"), low);
        String high = copyUnderLimit(4096, src, dir.resolve("high"));
        assertTrue(high.contains("read_ahead=true"), high);

        for (String out : List.of("low", "high")) {
            Path dst = dir.resolve(out);
            before.assertCopiedAs(TreeSnapshot.of(dst, before), TreeSnapshot.Check.ALL);
            before.assertSameContent(src, dst);
        }
    }
}
