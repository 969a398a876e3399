package io.jfio.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.core.copy.CopyProgress;
import io.jfio.core.copy.CopyResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code jfio copy} through {@link Cli#commandLine}: options, exit codes, output. */
class CopyCommandTest {

    private static Path tree(Path dir) throws Exception {
        Path src = Files.createDirectories(dir.resolve("src/sub"));
        Files.writeString(dir.resolve("src/a"), "alpha");
        Files.writeString(dir.resolve("src/sub/b"), "beta");
        Files.createSymbolicLink(dir.resolve("src/link"), Path.of("a"));
        return dir.resolve("src");
    }

    @Test
    void shouldCopyATreeAndPrintOneSummaryLine(@TempDir Path dir) throws Exception {
        Path src = tree(dir);
        Path dst = dir.resolve("dst");
        CliTest.Run r = CliTest.run("copy", "-a", src.toString(), dst.toString());
        assertEquals(ExitCodes.OK, r.exit(), r.err());
        assertEquals("", r.out());
        assertEquals(1, r.err().lines().count(), r.err());
        assertTrue(r.err().startsWith("jfio copy: copied 2 files (9 bytes) in "), r.err());
        assertTrue(r.err().contains("2 directories, 1 symlinks") && r.err().contains("0 failed"), r.err());
        assertEquals("beta", Files.readString(dst.resolve("sub/b")));
        assertEquals(Path.of("a"), Files.readSymbolicLink(dst.resolve("link")));
    }

    @Test
    void shouldShowTheMethodOfEveryFileWithDebug(@TempDir Path dir) throws Exception {
        Path src = tree(dir);
        CliTest.Run r = CliTest.run("copy", "-a", "--debug", "-j", "2", src.toString(), dir.resolve("dst").toString());
        assertEquals(ExitCodes.OK, r.exit(), r.err());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("file copied: source=" + src.resolve("a"))
                && l.contains("method=")), r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("symlink copied:")), r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("directory copied:")), r.out());
        assertTrue(r.err().contains("jfio copy: debug: workers=2"), r.err());
    }

    @Test
    void shouldForceAMethod(@TempDir Path dir) throws Exception {
        Path src = tree(dir);
        CliTest.Run r = CliTest.run("copy", "-a", "--debug", "--method=read_write", "--block-size=64k",
                src.toString(), dir.resolve("dst").toString());
        assertEquals(ExitCodes.OK, r.exit(), r.err());
        assertTrue(r.out().lines().filter(l -> l.startsWith("file copied:")).allMatch(l -> l.contains(
                "method=read_write")), r.out());
    }

    @Test
    void shouldListEachFailureAndExitOne(@TempDir Path dir) throws Exception {
        Path src = tree(dir);
        Path missing = dir.resolve("missing");
        Path dst = Files.createDirectory(dir.resolve("dst"));
        CliTest.Run r = CliTest.run("copy", "-r", missing.toString(), src.toString(), dst.toString());
        assertEquals(ExitCodes.FAILED, r.exit(), r.err());
        assertTrue(r.err().lines().anyMatch(l -> l.startsWith("jfio copy: cannot copy: source=" + missing)
                && l.contains("errno=ENOENT")), r.err());
        assertTrue(r.err().contains("1 failed"), r.err());
        assertEquals("alpha", Files.readString(dst.resolve("src/a")), "the rest is copied");
    }

    @Test
    void shouldRejectBadUsageWithExitTwo(@TempDir Path dir) throws Exception {
        Path src = tree(dir);
        Path file = dir.resolve("src/a");
        List<List<String>> bad = List.of(
                List.of("copy", src.toString()),
                List.of("copy", "-n", "-u", src.toString(), dir.resolve("x").toString()),
                List.of("copy", "-L", "-P", src.toString(), dir.resolve("x").toString()),
                List.of("copy", "-j", "0", src.toString(), dir.resolve("x").toString()),
                List.of("copy", "--reflink=sometimes", src.toString(), dir.resolve("x").toString()),
                List.of("copy", "--method=teleport", src.toString(), dir.resolve("x").toString()),
                List.of("copy", "--progress=loud", src.toString(), dir.resolve("x").toString()),
                List.of("copy", "--block-size=3", src.toString(), dir.resolve("x").toString()),
                List.of("copy", "--no-such-option", src.toString(), dir.resolve("x").toString()),
                List.of("copy", file.toString(), src.toString() + "/sub/b", file.toString()));
        for (List<String> args : bad) {
            CliTest.Run r = CliTest.run(args.toArray(String[]::new));
            assertEquals(ExitCodes.USAGE, r.exit(), args + ": " + r.err());
            assertTrue(r.err().startsWith("jfio copy: "), args + ": " + r.err());
        }
        assertFalse(Files.exists(dir.resolve("x")));
    }

    @Test
    void shouldNotOverwriteWithNoClobber(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("new"), "new");
        Files.writeString(dir.resolve("old"), "old");
        CliTest.Run r = CliTest.run("copy", "-n", dir.resolve("new").toString(), dir.resolve("old").toString());
        assertEquals(ExitCodes.OK, r.exit(), r.err());
        assertEquals("old", Files.readString(dir.resolve("old")));
        assertTrue(r.err().contains("1 skipped"), r.err());
    }

    @Test
    void shouldDrawProgressAsBarAndLines() {
        CopyProgress walking = new CopyProgress(1200, 50L << 20, false, 300, 10L << 20, 10L << 20, 0, 2_000_000_000L);
        String line = CopyProgressPrinter.line(walking);
        assertTrue(line.startsWith("300/1,200+ files  10.0 MiB/50.0 MiB+  5.0 MiB/s"), line);
        assertTrue(line.endsWith("ETA ?"), line);
        CopyProgress done = new CopyProgress(1200, 50L << 20, true, 600, 25L << 20, 20L << 20, 2, 5_000_000_000L);
        String bar = CopyProgressPrinter.bar(done);
        assertTrue(bar.startsWith("[############------------]  50%  600/1,200 files"), bar);
        assertTrue(bar.contains("2 failed") && bar.endsWith("ETA 0:05"), bar);
        assertEquals("1:01:01", CopyProgressPrinter.clock(3661));
        String s = CopyProgressPrinter.summary(new CopyResult(3, 3L << 20, 2, 1, 0, 1, 4, List.of(), 0,
                Duration.ofMillis(1500), false));
        assertEquals("copied 3 files (3.0 MiB) in 1.50 s, 2.0 MiB/s; 2 directories, 1 symlinks, 1 hard links, "
                + "0 special files, 4 skipped, 0 failed", s);
    }
}
