package io.jfio.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.core.copy.CopyProgress;
import io.jfio.core.copy.CopyResult;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code jfio copy} through {@link Cli#run}: options, exit codes, output; the fast parser against picocli. */
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

    /**
     * What a copy loads at start-up, in a child JVM as {@code bin/jfio} runs it: no picocli class (the AOT cache
     * cannot hold them; each is read from the jar) and one downcall stub, the shared {@code syscall(2)} shape (each
     * other shape costs the linker 10-25 ms of start-up).
     */
    @Test
    void shouldStartACopyWithoutPicocliAndWithOneDowncallShape(@TempDir Path dir) throws Exception {
        Path src = tree(dir);
        Path log = dir.resolve("classes.log");
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(java.toString(), "--enable-native-access=ALL-UNNAMED",
                "-Xlog:class+load=info:file=" + log, "-cp", System.getProperty("java.class.path"),
                Main.class.getName(), "copy", "-a", "--progress=lines", src.toString(), dir.resolve("dst").toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("out").toFile()).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("the copy did not finish");
        }
        assertEquals(ExitCodes.OK, p.exitValue(), Files.readString(dir.resolve("out")));
        assertEquals("beta", Files.readString(dir.resolve("dst/sub/b")));
        List<String> loaded = Files.readAllLines(log);
        assertTrue(loaded.stream().anyMatch(l -> l.contains(" io.jfio.core.copy.TreeCopy ")), "the log has classes");
        assertEquals(List.of(), loaded.stream().filter(l -> l.contains(" picocli.")).toList());
        assertEquals(1, loaded.stream().filter(l -> l.contains("DowncallStub")).count(),
                String.join("\n", loaded.stream().filter(l -> l.contains("DowncallStub") || l.contains("LibC$"))
                        .toList()));
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
    void blockSizeTakesTheUnitsEveryCommandTakes(@TempDir Path dir) throws Exception {
        Path src = tree(dir);
        for (String size : List.of("1MiB", "1m", "256KiB", "0.5MiB", "4096")) {
            Path dst = dir.resolve("dst-" + size);
            CliTest.Run r = CliTest.run("copy", "-a", "--method=read_write", "--block-size", size, src.toString(),
                    dst.toString());
            assertEquals(ExitCodes.OK, r.exit(), size + ": " + r.err());
            assertTrue(Files.exists(dst.resolve("a")), size);
        }
        // 1MB is 10^6 bytes: not a power of two
        CliTest.Run r = CliTest.run("copy", "--block-size=1MB", src.toString(), dir.resolve("x").toString());
        assertEquals(ExitCodes.USAGE, r.exit(), r.err());
        assertTrue(r.err().contains("block_size=1000000"), r.err());
        r = CliTest.run("copy", "--block-size=1MX", src.toString(), dir.resolve("x").toString());
        assertEquals(ExitCodes.USAGE, r.exit(), r.err());
        assertTrue(r.err().startsWith("jfio copy: --block-size: '1MX' is not a size: use a number with B, kB, MB"),
                r.err());
        assertFalse(r.err().contains("\tat "), r.err());
        assertFalse(Files.exists(dir.resolve("x")));
    }

    @Test
    void shouldListEachFailureAndExitOne(@TempDir Path dir) throws Exception {
        Path src = tree(dir);
        Path missing = dir.resolve("missing");
        Path dst = Files.createDirectory(dir.resolve("dst"));
        CliTest.Run r = CliTest.run("copy", "-r", missing.toString(), src.toString(), dst.toString());
        assertEquals(ExitCodes.FAILED, r.exit(), r.err());
        assertTrue(r.err().lines().anyMatch(l -> l.startsWith("jfio copy: cannot copy: source='" + missing + "'")
                && l.contains("errno=ENOENT")), r.err());
        assertTrue(r.err().contains("1 failed"), r.err());
        assertEquals("alpha", Files.readString(dst.resolve("src/a")), "the rest is copied");
    }

    /** -v lines that cannot be written fail the copy, as with cp ("write error", exit 1). */
    @Test
    void shouldFailWhenVerboseLinesCannotBeWritten(@TempDir Path dir) throws Exception {
        Path src = tree(dir);
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(java.toString(), "--enable-native-access=ALL-UNNAMED", "-cp",
                System.getProperty("java.class.path"), Main.class.getName(), "copy", "-av", "--progress=none",
                src.toString(), dir.resolve("dst").toString())
                .redirectOutput(new java.io.File("/dev/full")).redirectError(dir.resolve("err").toFile()).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the copy did not finish");
        String err = Files.readString(dir.resolve("err"));
        assertEquals(ExitCodes.FAILED, p.exitValue(), err);
        assertTrue(err.contains("jfio copy: write error"), err);
        assertEquals("beta", Files.readString(dir.resolve("dst/sub/b")), "the copy itself is done");
    }

    /** A name with a newline is quoted as -v quotes it: it cannot add a line, such as a fake summary. */
    @Test
    void shouldQuoteNamesInMessages(@TempDir Path dir) throws Exception {
        Path src = tree(dir);
        String fake = "\njfio copy: copied 9 files (9 bytes) in 0.01 s; 0 failed";
        Path missing = dir.resolve("gone" + fake);
        Path dst = Files.createDirectory(dir.resolve("dst"));
        CliTest.Run r = CliTest.run("copy", "-r", "--progress=none", missing.toString(), src.toString(),
                dst.toString());
        assertEquals(ExitCodes.FAILED, r.exit(), r.err());
        List<String> lines = r.err().lines().toList();
        assertEquals(2, lines.size(), r.err());
        String quoted = "'" + dir + "/gone'$'\\n''jfio copy: copied 9 files (9 bytes) in 0.01 s; 0 failed'";
        assertEquals("jfio copy: cannot copy: source=" + quoted + " reason=statx failed: errno=ENOENT (No such "
                + "file or directory) path=" + quoted, lines.get(0));
        assertTrue(lines.get(1).startsWith("jfio copy: copied 2 files"), r.err());

        r = CliTest.run("copy", "-t", dir.resolve("no" + fake).toString(), src.toString());
        assertEquals(ExitCodes.USAGE, r.exit(), r.err());
        assertEquals(1, r.err().lines().count(), r.err());
        assertTrue(r.err().contains("target='" + dir + "/no'$'\\n''jfio copy:"), r.err());

        r = CliTest.run("copy", "-T", src.toString(), dst.toString(), "it's" + fake);
        assertEquals(ExitCodes.USAGE, r.exit(), r.err());
        assertTrue(r.err().startsWith("jfio copy: -T copies one SRC as DST: extra operand 'it'\\''s'$'\\n''jfio"),
                r.err());
    }

    @Test
    void shouldRejectBadUsageWithExitTwo(@TempDir Path dir) throws Exception {
        Path src = tree(dir);
        Path file = dir.resolve("src/a");
        List<List<String>> bad = List.of(
                List.of("copy", src.toString()),
                List.of("copy", "-n", "-u", src.toString(), dir.resolve("x").toString()),
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

    /** The fields picocli fills, as name=value, in declaration order. */
    private static List<String> fields(CopyCommand c) throws IllegalAccessException {
        List<String> out = new ArrayList<>();
        for (Field f : CopyCommand.class.getDeclaredFields()) {
            if (Modifier.isStatic(f.getModifiers()) || f.getName().equals("spec")) continue;
            f.setAccessible(true);
            out.add(f.getName() + "=" + Objects.toString(f.get(c)));
        }
        return out;
    }

    @Test
    void shouldParseWithoutPicocliExactlyAsPicocliDoesOrDecline() throws Exception {
        List<List<String>> accepted = List.of(
                List.of("a", "b"),
                List.of("-a", "src", "dst"),
                List.of("-aL", "--debug", "-j", "4", "s1", "s2", "dst"),
                List.of("-r", "--no-sequential", "--reflink=never", "--method", "uring", "--block-size=64k",
                        "--queue-depth", "16", "--progress=none", "s", "d"),
                List.of("--archive", "--no-clobber", "--verify", "--fsync", "--sequential", "s", "d"),
                List.of("-R", "-H", "s", "d", "e", "--jobs=2", "-u"),
                List.of("-P", "--update", "--", "-odd", "--name"),
                List.of("--recursive", "--dereference", "--progress", "lines", "s", "d"),
                List.of("-n", "--no-dereference", "--method=read_write", "s", "d"),
                // flags given again, and the last of -L, -P and -H, as cp takes them
                List.of("-a", "-a", "s", "d"), List.of("-rR", "s", "d"), List.of("-r", "--recursive", "s", "d"),
                List.of("-L", "-P", "s", "d"), List.of("-P", "-HL", "s", "d"), List.of("-LH", "s", "d"));
        List<List<String>> declined = List.of(
                List.of("--help"), List.of("--version", "a", "b"), List.of("-h", "a", "b"),
                List.of("a"), List.of("-a", "a"),
                List.of("--sequential", "--no-sequential", "s", "d"), List.of("-j", "2", "-j", "3", "s", "d"),
                List.of("--reflink", "s", "d"), List.of("--reflink", "never", "s", "d"),
                List.of("-j", "-1", "s", "d"), List.of("-j", "0x10", "s", "d"), List.of("-j4", "s", "d"),
                List.of("--jobs=", "s", "d"), List.of("-j", "9999999999", "s", "d"), List.of("-j"),
                List.of("--no-such-option", "s", "d"), List.of("-x", "s", "d"), List.of("-az", "s", "d"),
                List.of("--debug=true", "s", "d"), List.of("@args", "d"), List.of("-", "d"),
                List.of("--method", "--debug", "s", "d"), List.of("--progress"), List.of("s", "--jobs=2", "d"),
                List.of("s", "--", "d"), List.of("s", "d", "-a", "e"), List.of("s", "d", "--", "e"));
        for (List<String> args : accepted) {
            CopyCommand fast = new CopyCommand();
            assertTrue(fast.parse(args.toArray(String[]::new), 0), "declined: " + args);
            CopyCommand slow = new CopyCommand();
            new CommandLine(slow).setOverwrittenOptionsAllowed(true).parseArgs(args.toArray(String[]::new));
            assertEquals(fields(slow), fields(fast), args.toString());
        }
        for (List<String> args : declined) {
            assertFalse(new CopyCommand().parse(args.toArray(String[]::new), 0), "accepted: " + args);
        }
    }

    @Test
    void shouldGiveTheSameMessagesOnBothPaths(@TempDir Path dir) throws Exception {
        // A contradiction the fast parser accepts reaches the same check as through picocli ("-a" twice declines).
        Path src = tree(dir);
        String[] args = {"copy", "-n", "-u", src.toString(), dir.resolve("x").toString()};
        // Cli.run takes the fast path exactly when CopyCommand.parse accepts the command line.
        assertTrue(new CopyCommand().parse(args, 1), "the fast parser declines: Cli.run would use picocli");
        CliTest.Run fast = CliTest.run(args);
        // The same command line forced through picocli: the command line Cli.run falls back to.
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine picocli = Cli.commandLine(new PrintWriter(out), new PrintWriter(err), "copy");
        int slowExit = picocli.execute(args);
        assertEquals("copy", picocli.getParseResult().subcommand().commandSpec().name(), "parsed by picocli");
        assertEquals(ExitCodes.USAGE, fast.exit(), fast.err());
        assertEquals(ExitCodes.USAGE, slowExit, err.toString());
        assertEquals(err.toString(), fast.err());
        assertEquals(out.toString(), fast.out());
        assertTrue(fast.err().startsWith("jfio copy: "), fast.err());
        CliTest.Run engine = CliTest.runWithEngine("bogus", "copy", src.toString(), dir.resolve("y").toString());
        assertEquals(ExitCodes.USAGE, engine.exit(), engine.err());
        assertTrue(engine.err().startsWith("jfio copy: "), engine.err());
        assertFalse(Files.exists(dir.resolve("y")));
    }

    @Test
    void shouldBuildANewTargetAsideAndNameOnlyFinalPathsWithBuildAside(@TempDir Path dir) throws Exception {
        Path src = tree(dir);
        Path dst = dir.resolve("dst");
        CliTest.Run r = CliTest.run("copy", "-av", "--build-aside", src.toString(), dst.toString());
        assertEquals(ExitCodes.OK, r.exit(), r.err());
        assertEquals("beta", Files.readString(dst.resolve("sub/b")));
        assertEquals(Path.of("a"), Files.readSymbolicLink(dst.resolve("link")));
        assertTrue(r.out().contains("'" + src.resolve("sub/b") + "' -> '" + dst.resolve("sub/b") + "'"), r.out());
        assertFalse(r.out().contains(".jfio-"), r.out());
        try (var names = Files.list(dir)) {
            assertEquals(List.of("dst", "src"), names.map(p -> p.getFileName().toString()).sorted().toList(),
                    "nothing left aside");
        }
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
