package io.jfio.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ConnectException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code jfio receive}: where it listens by default, and startup errors as one line, an exit code, no leftovers. */
class ReceiveCommandTest {
    @TempDir
    Path tmp;

    private static void assertOneLine(CliResult r, String... parts) {
        List<String> lines = r.err().strip().lines().toList();
        assertEquals(1, lines.size(), r.err());
        for (String p : parts) {
            assertTrue(lines.get(0).contains(p), "'" + p + "' in: " + r.err());
        }
    }

    @Test
    void aHostThatDoesNotResolveIsAUsageErrorAndCreatesNothing() {
        Path out = tmp.resolve("out");
        CliResult r = CliResult.run("receive", "--listen", "no.such.host.invalid:5140", "--to", out.toString());
        assertEquals(ExitCodes.USAGE, r.exit(), r.err());
        assertOneLine(r, "--listen", "no.such.host.invalid", "cannot resolve");
        assertFalse(Files.exists(out), "no output directory for a receiver that never listened");
    }

    @Test
    void aPortInUseNamesTheOptionAndCreatesNothing() throws IOException {
        Path out = tmp.resolve("out");
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CliResult r = CliResult.run("receive", "--listen", "127.0.0.1:" + taken.getLocalPort(), "--to",
                    out.toString());
            assertEquals(ExitCodes.ENVIRONMENT, r.exit(), r.err());
            assertOneLine(r, "--listen 127.0.0.1:" + taken.getLocalPort(), "in use");
        }
        assertFalse(Files.exists(out), "no output directory for a receiver that never listened");
    }

    @Test
    void anOutputDirectoryThatCannotBeMadeNamesTheOptionAndFreesThePort() throws IOException {
        Path file = tmp.resolve("file");
        Files.writeString(file, "x");
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        CliResult r = CliResult.run("receive", "--listen", "127.0.0.1:" + port, "--to", file.resolve("sub").toString());
        assertEquals(ExitCodes.ENVIRONMENT, r.exit(), r.err());
        assertOneLine(r, "--to " + file.resolve("sub"), "Not a directory");
        try (ServerSocket again = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            assertEquals(port, again.getLocalPort(), "the receiver's listening socket was closed");
        }
    }

    @Test
    void aPortAloneListensOnLoopbackOnly() throws Exception {
        String java = ProcessHandle.current().info().command().orElseThrow();
        Path err = tmp.resolve("receive.err");
        Process p = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-cp",
                System.getProperty("java.class.path"), Main.class.getName(), "receive", "--listen", "0", "--to",
                tmp.resolve("out").toString()).redirectErrorStream(true).redirectOutput(err.toFile()).start();
        try {
            Matcher m = Pattern.compile("event=listening address=([0-9.]+):(\\d+)").matcher("");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (System.nanoTime() < deadline && !(m = m.reset(Files.readString(err))).find()) {
                assertTrue(p.isAlive(), Files.readString(err));
                Thread.sleep(20);
            }
            assertEquals("127.0.0.1", m.group(1), Files.readString(err));
            int port = Integer.parseInt(m.group(2));
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
                assertTrue(s.isConnected());
            }
            Optional<InetAddress> other = nonLoopbackAddress();
            if (other.isPresent()) {
                assertThrows(ConnectException.class, () -> new Socket(other.get(), port).close(),
                        "not reachable through " + other.get());
            }
        } finally {
            p.destroy();
            p.waitFor(30, TimeUnit.SECONDS);
            p.destroyForcibly();
        }
    }

    @Test
    void aSyncIntervalTakesTheUnitsEveryCommandTakes() throws Exception {
        CliResult bad = CliResult.run("receive", "--listen", "127.0.0.1:0", "--to", tmp.resolve("out").toString(),
                "--sync-interval", "10x");
        assertEquals(ExitCodes.USAGE, bad.exit(), bad.err());
        assertOneLine(bad, "--sync-interval: '10x' is not a duration: use a number with ns, us, ms, s");
        assertFalse(Files.exists(tmp.resolve("out")));

        String java = ProcessHandle.current().info().command().orElseThrow();
        Path err = tmp.resolve("receive.err");
        Process p = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-cp",
                System.getProperty("java.class.path"), Main.class.getName(), "receive", "--listen", "0", "--to",
                tmp.resolve("out").toString(), "--sync-interval", "0.5s").redirectErrorStream(true)
                .redirectOutput(err.toFile()).start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (System.nanoTime() < deadline && !Files.readString(err).contains("event=listening")) {
                assertTrue(p.isAlive(), Files.readString(err));
                Thread.sleep(20);
            }
            assertTrue(Files.readString(err).contains("sync-interval=500ms"), Files.readString(err));
        } finally {
            p.destroy();
            p.waitFor(30, TimeUnit.SECONDS);
            p.destroyForcibly();
        }
    }

    @Test
    void aConnectionLimitBelowOneIsAUsageError() {
        CliResult r = CliResult.run("receive", "--listen", "127.0.0.1:0", "--to", tmp.resolve("out").toString(),
                "--max-connections", "0");
        assertEquals(ExitCodes.USAGE, r.exit(), r.err());
        assertOneLine(r, "--max-connections");
    }

    @Test
    void unusableTlsOrTokenFilesAreUsageErrorsNamingTheOption() throws IOException {
        Path token = tmp.resolve("token");
        Files.writeString(token, "0123456789abcdef0123456789abcdef\n");
        Files.setPosixFilePermissions(token, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
        Path out = tmp.resolve("out");
        CliResult r = CliResult.run("receive", "--listen", "127.0.0.1:0", "--to", out.toString(), "--token-file",
                token.toString());
        assertEquals(ExitCodes.USAGE, r.exit(), r.err());
        assertOneLine(r, "--token-file", "readable by every user");
        r = CliResult.run("receive", "--listen", "127.0.0.1:0", "--to", out.toString(), "--tls-cert", token.toString());
        assertEquals(ExitCodes.USAGE, r.exit(), r.err());
        assertOneLine(r, "needs its key");
        r = CliResult.run("receive", "--listen", "127.0.0.1:0", "--to", out.toString(), "--tls-cert",
                tmp.resolve("missing.pem").toString(), "--tls-key", tmp.resolve("missing.key").toString());
        assertEquals(ExitCodes.USAGE, r.exit(), r.err());
        assertOneLine(r, "--tls-cert", "missing.pem does not exist");
        assertFalse(Files.exists(out));
    }

    @Test
    void shipAndReceiveProcessesTalkTlsWithAClientCertificateAndAToken() throws Exception {
        io.jfio.ship.testing.TestPki pki = io.jfio.ship.testing.TestPki.create(
                Files.createDirectories(tmp.resolve("pki")));
        Path token = tmp.resolve("token");
        Files.writeString(token, "0123456789abcdef0123456789abcdef\n");
        Files.setPosixFilePermissions(token, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        String java = ProcessHandle.current().info().command().orElseThrow();
        Path err = tmp.resolve("receive.err");
        Path out = tmp.resolve("out");
        Process p = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-cp",
                System.getProperty("java.class.path"), Main.class.getName(), "receive", "--listen", "0", "--to",
                out.toString(), "--tls-cert", pki.serverCert.toString(), "--tls-key", pki.serverKey.toString(),
                "--tls-client-ca", pki.ca.toString(), "--token-file", token.toString())
                .redirectErrorStream(true).redirectOutput(err.toFile()).start();
        try {
            Matcher m = Pattern.compile("event=listening address=([0-9.]+):(\\d+)").matcher("");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (System.nanoTime() < deadline && !(m = m.reset(Files.readString(err))).find()) {
                assertTrue(p.isAlive(), Files.readString(err));
                Thread.sleep(20);
            }
            assertTrue(Files.readString(err).contains("tls=\"on, client certificate required\" token=required"),
                    Files.readString(err));
            StringBuilder sb = new StringBuilder();
            for (int i = 1; i <= 10_000; i++) sb.append("record ").append(i).append('\n');
            Path file = tmp.resolve("app.log");
            Files.writeString(file, sb);
            CliResult ship = CliResult.run("ship", "--from", file.toString(), "--to", "tcp:localhost:" + m.group(2),
                    "--state", tmp.resolve("state").toString(), "--once", "--tcp-tls", "--tcp-tls-ca",
                    pki.ca.toString(),
                    "--tcp-tls-cert", pki.clientCert.toString(), "--tcp-tls-key", pki.clientKey.toString(),
                    "--tcp-token-file", token.toString());
            assertEquals(ExitCodes.OK, ship.exit(), ship.err());
            StringBuilder got = new StringBuilder();
            try (var files = Files.list(out)) {
                for (Path f : files.sorted().toList()) got.append(Files.readString(f));
            }
            assertEquals(sb.toString(), got.toString());
        } finally {
            p.destroy();
            p.waitFor(30, TimeUnit.SECONDS);
            p.destroyForcibly();
        }
    }

    private static Optional<InetAddress> nonLoopbackAddress() throws IOException {
        return NetworkInterface.networkInterfaces().filter(i -> {
            try {
                return i.isUp() && !i.isLoopback();
            } catch (IOException e) {
                return false;
            }
        }).flatMap(NetworkInterface::inetAddresses).filter(a -> a instanceof Inet4Address).findFirst();
    }
}
