package io.jfio.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code jfio bench copy}: options and usage errors (the benchmark itself is tested in jfio-bench). */
class CopyBenchCommandTest {

    @Test
    void shouldRejectBadOptionsWithExitTwo(@TempDir Path dir) {
        List<List<String>> bad = List.of(
                List.of("bench", "copy", "--reps", "0"),
                List.of("bench", "copy", "--tools", "rsync"),
                List.of("bench", "copy", "--modes", "lukewarm"),
                List.of("bench", "copy", "--size", "lots"),
                List.of("bench", "copy", "--dir", dir.resolve("missing").toString(), "--tools", "cp"));
        for (List<String> args : bad) {
            CliTest.Run r = CliTest.run(args.toArray(String[]::new));
            assertEquals(ExitCodes.USAGE, r.exit(), args + ": " + r.err());
            assertTrue(r.err().startsWith("jfio bench copy: "), args + ": " + r.err());
        }
        CliTest.Run help = CliTest.run("bench", "--help");
        assertEquals(ExitCodes.OK, help.exit());
        assertTrue(help.out().contains("copy"), "bench lists its copy subcommand: " + help.out());
    }

    @Test
    void shouldParseSizesAndRunJfioTheWayAUserDoes() {
        assertEquals(4L << 30, bigSize("4g"));
        assertEquals(512L << 20, bigSize("512M"));
        assertEquals(512L << 20, bigSize("512MiB"));
        assertEquals(3L << 29, bigSize("1.5GiB"));
        assertEquals(2_000_000_000L, bigSize("2GB"));
        CliException e = assertThrows(CliException.class, () -> bigSize("-1"));
        assertEquals(ExitCodes.USAGE, e.exitCode());
        assertTrue(e.getMessage().startsWith("--size: '-1' is negative"), e.getMessage());
        List<String> cmd = CopyBenchCommand.jfioCommand();
        // from test classes there is no jar: this JVM with this class path
        assertTrue(cmd.get(cmd.size() - 1).equals(Main.class.getName()) || cmd.get(0).endsWith("bin/jfio")
                || cmd.contains("-jar"), cmd.toString());
    }

    /** The large file's bytes for {@code --size text}, read as the command line reads it. */
    private static long bigSize(String text) {
        CopyBenchCommand c = new CopyBenchCommand();
        new picocli.CommandLine(c).parseArgs("--size", text);
        return c.options().bigSize();
    }
}
