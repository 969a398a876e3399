package io.jfio.bench.suite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jfio.bench.uring.CacheMode;
import io.jfio.core.sys.Errno;
import io.jfio.core.sys.LibC;
import io.jfio.core.testing.Fds;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file system that refuses O_DIRECT: the run says so, the O_DIRECT rows are left out with the reason, the other
 * cold cells still run, and the test files are gone afterwards. The refusing file system is a real ramfs mounted for
 * the test (open(O_DIRECT) fails there with EINVAL; needs root, skipped otherwise).
 */
class DirectIoTest {
    @Test
    void einvalAtOpenMeansTheFileSystemHasNoDirectIo() {
        DirectIo d = DirectIo.fromOpenErrno(Errno.EINVAL);
        assertFalse(d.supported());
        assertTrue(d.detail().contains("EINVAL") && d.detail().contains("does not support O_DIRECT"), d.detail());
        String note = d.skippedNote("the direct rows");
        assertTrue(note.startsWith("the direct rows not run: O_DIRECT unsupported here"), note);
        assertTrue(note.contains("fdatasync + POSIX_FADV_DONTNEED"), note);
        DirectIo other = DirectIo.fromOpenErrno(Errno.EACCES);
        assertTrue(other.detail().contains("EACCES") && !other.detail().contains("does not support"), other.detail());
    }

    @Test
    void diskBackedDirectoryTakesDirectIo() throws Exception {
        assertTrue(DirectIo.probe(CacheStateTest.diskDir()).supported(), "ext4/xfs under target/ take O_DIRECT");
    }

    @Test
    void shouldSkipDirectRowsWithTheReasonAndRemoveTestFilesOnAFileSystemWithoutODirect(@TempDir Path tmp)
            throws Exception {
        assumeTrue(LibC.geteuid() == 0, "needs root to mount a ramfs");
        Path mnt = Files.createDirectory(tmp.resolve("ramfs"));
        assumeTrue(run("mount", "-t", "ramfs", "ramfs", mnt.toString()), "cannot mount a ramfs here");
        try {
            DirectIo probed = DirectIo.probe(mnt);
            assertFalse(probed.supported(), "ramfs took O_DIRECT: " + probed.detail());
            assertTrue(probed.detail().contains("EINVAL"), probed.detail());
            int[] run = {0};
            Fds.assertNoLeak("a suite run on ramfs", () -> {
                Path out = tmp.resolve("report-" + run[0]++);
                SuiteOptions o = SuiteOptions.defaults(mnt, 42).withScale(SuiteOptions.Scale.TINY)
                        .withFio(false, false).withAllowTmpfs(true).withOnly(List.of("uring")).withPlots(false);
                SuiteResult r = SuiteRunner.run(o, out, new PrintWriter(new StringWriter()), false);
                assertTrue(r.setup().stream().anyMatch(s -> s.startsWith("O_DIRECT: unsupported here: open(O_DIRECT) "
                        + "failed with EINVAL (the file system does not support O_DIRECT)")), r.setup().toString());
                ExperimentResult u = r.results().get(0);
                assertEquals(ExperimentResult.Status.OK, u.status(), u.reason());
                assertTrue(u.notes().stream().anyMatch(n -> n.startsWith("table 1's direct (O_DIRECT) rows not run: "
                        + "O_DIRECT unsupported here: open(O_DIRECT) failed with EINVAL")), u.notes().toString());
                Table t = u.tables().get(0);
                assertFalse(t.rows().isEmpty(), "hot and cold rows still run");
                for (int i = 0; i < t.rows().size(); i++) {
                    assertFalse(t.cell(i, "cache").equals(CacheMode.DIRECT.label()), t.markdown());
                }
                try (Stream<Path> s = Files.list(mnt)) {
                    List<Path> left = s.toList();
                    assertTrue(left.isEmpty(), "test files left behind on the ramfs: " + left);
                }
            });
        } finally {
            if (!run("umount", mnt.toString())) run("umount", "-l", mnt.toString());
        }
    }

    private static boolean run(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
    }
}
