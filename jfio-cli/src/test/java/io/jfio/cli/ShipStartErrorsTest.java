package io.jfio.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code jfio ship} that cannot start: one line naming the option and config key, the path or value and the
 * operating system's reason; exit 2 for a configuration that is wrong, 3 for one the machine refuses; no trace.
 */
class ShipStartErrorsTest {
    @TempDir
    Path tmp;

    /** Runs {@code jfio ship --once --from a.log args} and checks the exit code and the whole of stderr. */
    private void assertFails(int exit, String line, String... args) throws Exception {
        Path file = tmp.resolve("a.log");
        if (!Files.exists(file)) Files.writeString(file, "one\n");
        String[] all = new String[args.length + 4];
        all[0] = "ship";
        all[1] = "--once";
        all[2] = "--from";
        all[3] = file.toString();
        System.arraycopy(args, 0, all, 4, args.length);
        CliResult r = CliResult.run(all);
        assertEquals("jfio ship: " + line + System.lineSeparator(), r.err());
        assertEquals(exit, r.exit(), r.err());
    }

    @Test
    void stateDirectoryThatIsAFileIsNamedWithItsOption() throws Exception {
        Path file = Files.writeString(tmp.resolve("plain"), "x");
        assertFails(ExitCodes.ENVIRONMENT, "cannot create state directory " + file
                + ": Not a directory (--state, config key state)", "--to", "dir:" + tmp.resolve("out"),
                "--state", file.toString());
        assertFails(ExitCodes.ENVIRONMENT, "cannot create state directory " + file.resolve("sub")
                + ": Not a directory (--state, config key state)", "--to", "dir:" + tmp.resolve("out"),
                "--state", file.resolve("sub").toString());
    }

    @Test
    void readOnlyStateDirectoryIsNamedWithTheReason() throws Exception {
        Path mnt = Files.createDirectories(tmp.resolve("ro"));
        Tmpfs fs = Tmpfs.mount(mnt, "ro,size=64k");
        assumeTrue(fs != null, "needs to mount a read-only tmpfs (root, mount permitted): not available here");
        try (fs) {
            assertFails(ExitCodes.ENVIRONMENT, "cannot use state directory " + mnt
                    + ": Read-only file system (--state, config key state)", "--to", "dir:" + tmp.resolve("out"),
                    "--state", mnt.toString());
        }
    }

    @Test
    void sinkDirectoryThatCannotBeCreatedIsNamedWithItsOption() throws Exception {
        Path file = Files.writeString(tmp.resolve("plain"), "x");
        assertFails(ExitCodes.ENVIRONMENT, "cannot use sink directory " + file.resolve("out")
                + ": Not a directory (--to, config key to)", "--to", "dir:" + file.resolve("out"),
                "--state", tmp.resolve("state").toString());
        Path cfg = Files.writeString(tmp.resolve("ship.yaml"), "sinks:\n  archive: dir:" + file + "\n");
        assertFails(ExitCodes.ENVIRONMENT, "cannot use sink directory " + file
                + ": Not a directory (config key sinks.archive)", "--config", cfg.toString(),
                "--state", tmp.resolve("state").toString());
    }

    @Test
    void unresolvableHostsOfNetworkSinksAreEnvironmentErrors() throws Exception {
        String host = "no-such-host.invalid";
        UnknownHostException e = assertThrows(UnknownHostException.class, () -> InetAddress.getAllByName(host));
        String reason = e.getMessage().substring(e.getMessage().lastIndexOf(": ") + 2);
        assertFails(ExitCodes.ENVIRONMENT, "cannot resolve the host of sink main tcp:" + host + ":9: " + reason
                + " (--to, config key to)", "--to", "tcp:" + host + ":9", "--state", tmp.resolve("s1").toString());
        assertFails(ExitCodes.ENVIRONMENT, "cannot resolve the host of sink main kafka:" + host + ":9092/logs: "
                + reason + " (--to, config key to)", "--to", "kafka:" + host + ":9092/logs", "--state",
                tmp.resolve("s2").toString());
    }

    @Test
    void configFileThatCannotBeReadIsAUsageErrorWithTheReason() throws Exception {
        Path missing = tmp.resolve("missing.yaml");
        assertFails(ExitCodes.USAGE, "cannot read config file " + missing + ": No such file or directory (--config)",
                "--config", missing.toString());
        Path dir = Files.createDirectories(tmp.resolve("dir.yaml"));
        assertFails(ExitCodes.USAGE, "cannot read config file " + dir + ": Is a directory (--config)",
                "--config", dir.toString());
    }

    @Test
    void missingTlsFilesAreNamedWithTheirOption() throws Exception {
        Path ca = tmp.resolve("ca.pem");
        assertFails(ExitCodes.USAGE, "cannot read CA file " + ca + ": No such file or directory (--tcp-tls-ca, "
                + "config key tcp.tls-ca)", "--to", "tcp:127.0.0.1:9", "--state", tmp.resolve("s").toString(),
                "--tcp-tls", "--tcp-tls-ca", ca.toString());
        Path token = tmp.resolve("token");
        assertFails(ExitCodes.USAGE, "cannot read token file " + token + ": No such file or directory "
                + "(--tcp-token-file, config key tcp.token-file)", "--to", "tcp:127.0.0.1:9", "--state",
                tmp.resolve("s").toString(), "--tcp-token-file", token.toString());
    }

    @Test
    void globsThatDoNotCompileAreUsageErrorsNamingKeyGlobAndProblem() throws Exception {
        String state = tmp.resolve("s").toString();
        String to = "dir:" + tmp.resolve("out");
        Path open = tmp.resolve("[a.log");
        assertFails(ExitCodes.USAGE, "invalid glob: input=main from='" + open + "': a '[' without its closing ']' "
                + "(--from, config key from)", "--from", open.toString(), "--to", to, "--state", state);
        Path brace = tmp.resolve("{a,b.log");
        assertFails(ExitCodes.USAGE, "invalid glob: input=main from='" + brace + "': a '{' without its closing '}' "
                + "(--from, config key from)", "--from", brace.toString(), "--to", to, "--state", state);
        Path nested = tmp.resolve("{a,{b,c}}.log");
        assertFails(ExitCodes.USAGE, "invalid glob: input=main from='" + nested + "': a {..} inside another {..}: "
                + "list every alternative in one, as {a,b,c} (--from, config key from)", "--from", nested.toString(),
                "--to", to, "--state", state);
        assertFails(ExitCodes.USAGE, "invalid glob: input=main exclude='[': a '[' without its closing ']' "
                + "(--exclude, config key exclude)", "--exclude", "[", "--to", to, "--state", state);
        Path cfg = Files.writeString(tmp.resolve("ship.yaml"), "inputs:\n  - name: web\n    paths: [\""
                + tmp.resolve("*.log") + "\"]\n    exclude: [\"x/[z-a]\"]\nto: " + to + "\nstate: " + state + "\n");
        CliResult r = CliResult.run("ship", "--once", "--config", cfg.toString());
        assertEquals("jfio ship: invalid glob: input=web inputs.exclude='x/[z-a]': a range in [..] whose first "
                + "character comes after its last (config key inputs.exclude)" + System.lineSeparator(), r.err());
        assertEquals(ExitCodes.USAGE, r.exit());
        assertEquals(false, Files.exists(tmp.resolve("out")), "nothing was started");
    }
}
