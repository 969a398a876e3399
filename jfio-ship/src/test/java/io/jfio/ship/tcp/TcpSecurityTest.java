package io.jfio.ship.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.ship.testing.ShipRun;
import io.jfio.ship.testing.SourceFile;
import io.jfio.ship.testing.TestPki;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS and the shared token between TcpSink (or a whole shipper) and TcpReceiver, over loopback sockets, with
 * certificates made by keytool: what passes arrives byte for byte; what does not is refused, logged, never written.
 */
class TcpSecurityTest {
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    private static final String TOKEN = "0123456789abcdef0123456789abcdef";

    @TempDir
    static Path pkiDir;
    static TestPki pki;

    @TempDir
    Path tmp;

    private final ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
    private final PrintStream log = new PrintStream(logBytes, true, StandardCharsets.UTF_8);

    @BeforeAll
    static void certificates() throws Exception {
        pki = TestPki.create(pkiDir);
    }

    private Path tokenFile(String name, String token) throws IOException {
        Path f = tmp.resolve(name);
        Files.writeString(f, token + "\n");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
        return f;
    }

    private String log() {
        return logBytes.toString(StandardCharsets.UTF_8);
    }

    /** Sends every batch of {@code src} and waits for their acknowledgements. */
    private static void shipAll(TcpSink sink, SourceFile src) throws Exception {
        List<CompletableFuture<Void>> futures = new ArrayList<>();
        for (int i = 0; i < src.batches(); i++) {
            futures.add(sink.send(src.batch(i)));
        }
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    }

    @Test
    void aShipperDeliversEveryByteOverTlsWithAClientCertificateAndAToken() throws Exception {
        Path token = tokenFile("token", TOKEN);
        TcpSecurity server = TcpSecurity.receiver(pki.serverCert, pki.serverKey, pki.ca, token);
        Path out = tmp.resolve("out");
        StringBuilder sb = new StringBuilder();
        for (int i = 1; i <= 20_000; i++) {
            sb.append("record ").append(i).append('\n');
        }
        Path file = tmp.resolve("app.log");
        Files.writeString(file, sb);
        try (TcpReceiver r = TcpReceiver.start(LOOPBACK, out, TcpReceiver.Options.defaults().withSecurity(server),
                log)) {
            var cfg = ShipRun.config(List.of(file.toString()), tmp.resolve("unused"), tmp.resolve("state"), Map.of(
                    "to", "tcp:localhost:" + r.port(), "tcp.tls", "true", "tcp.tls-ca", pki.ca.toString(),
                    "tcp.tls-cert", pki.clientCert.toString(), "tcp.tls-key", pki.clientKey.toString(),
                    "tcp.token-file", token.toString()));
            ByteArrayOutputStream shipLog = new ByteArrayOutputStream();
            assertTrue(ShipRun.once(cfg, shipLog), shipLog.toString(StandardCharsets.UTF_8));
            assertEquals(1, r.files().size(), log());
            assertEquals(sb.toString(), Files.readString(r.files().get(0)));
            assertEquals(sb.length(), r.durable());
        }
    }

    @Test
    void theSinkCopiesIntoTlsAndTheBytesArriveUnchanged() throws Exception {
        TcpSecurity server = TcpSecurity.receiver(pki.serverCert, pki.serverKey, null, null);
        TcpSecurity client = TcpSecurity.sender(true, pki.ca, null, null, null);
        try (SourceFile src = SourceFile.create(tmp.resolve("app.log"), "app", "line", 50_000, 100, 256 << 10);
             TcpReceiver r = TcpReceiver.start(LOOPBACK, tmp.resolve("out"),
                     TcpReceiver.Options.defaults().withSecurity(server), log)) {
            TcpSink sink = new TcpSink("127.0.0.1", r.port(), TcpSink.Options.defaults().withSecurity(client));
            try {
                shipAll(sink, src);
            } finally {
                sink.close();
            }
            assertEquals(src.content().length, sink.copiedBytes());
            assertArrayEquals(src.content(), Files.readAllBytes(r.files().get(0)));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (r.connections() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals("", log(), "a TLS session that ends cleanly logs nothing");
        }
    }

    @Test
    void aGracefulStopEndsATlsConnectionAtOnceWithEverythingAcknowledged() throws Exception {
        TcpSecurity server = TcpSecurity.receiver(pki.serverCert, pki.serverKey, null, null);
        TcpSecurity client = TcpSecurity.sender(true, pki.ca, null, null, null);
        try (SourceFile src = SourceFile.create(tmp.resolve("app.log"), "app", "line", 1000, 100, 64 << 10)) {
            TcpReceiver r = TcpReceiver.start(LOOPBACK, tmp.resolve("out"),
                    TcpReceiver.Options.defaults().withSecurity(server), log);
            TcpSink sink = new TcpSink("localhost", r.port(), TcpSink.Options.defaults().withSecurity(client));
            try {
                shipAll(sink, src);
                long start = System.nanoTime();
                r.shutdown(java.time.Duration.ofSeconds(5));
                long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertTrue(tookMillis < 3000, "the sender saw the end and closed: took " + tookMillis + " ms");
            } finally {
                sink.close();
                r.close();
            }
            assertArrayEquals(src.content(), Files.readAllBytes(r.files().get(0)));
            assertEquals(src.content().length, r.durable());
        }
    }

    @Test
    void aClientWithoutTheRightCertificateIsRefusedAndNothingIsWritten() throws Exception {
        TcpSecurity server = TcpSecurity.receiver(pki.serverCert, pki.serverKey, pki.ca, null);
        Path out = tmp.resolve("out");
        try (SourceFile src = SourceFile.create(tmp.resolve("app.log"), "app", "line", 1000, 100, 64 << 10);
             TcpReceiver r = TcpReceiver.start(LOOPBACK, out, TcpReceiver.Options.defaults().withSecurity(server),
                     log)) {
            for (TcpSecurity client : List.of(TcpSecurity.sender(true, pki.ca, null, null, null),
                    TcpSecurity.sender(true, pki.ca, pki.rogueCert, pki.rogueKey, null))) {
                TcpSink sink = new TcpSink("localhost", r.port(), TcpSink.Options.defaults().withSecurity(client));
                try {
                    assertThrows(Exception.class, () -> shipAll(sink, src));
                } finally {
                    sink.close();
                }
            }
            // Nor does plain TCP get in.
            TcpSink plain = new TcpSink("localhost", r.port(), TcpSink.Options.defaults()
                    .withConnectTimeout(java.time.Duration.ofSeconds(2)));
            try {
                assertThrows(IOException.class, () -> shipAll(plain, src));
            } finally {
                plain.close();
            }
            assertEquals(List.of(), r.files(), log());
            assertEquals(0, r.received());
            assertTrue(log().contains("refused connection from") && log().contains("TLS handshake failed"), log());
            try (var files = Files.list(out)) {
                assertEquals(0, files.count(), "nothing written");
            }
        }
    }

    @Test
    void theReceiverChecksTheServerNameAndTheSenderTheReceiversCa() throws Exception {
        TcpSecurity server = TcpSecurity.receiver(pki.serverCert, pki.serverKey, null, null);
        try (SourceFile src = SourceFile.create(tmp.resolve("app.log"), "app", "line", 100, 100, 64 << 10);
             TcpReceiver r = TcpReceiver.start(LOOPBACK, tmp.resolve("out"),
                     TcpReceiver.Options.defaults().withSecurity(server), log)) {
            // The JDK's trusted CAs do not know the test CA.
            TcpSink untrusting = new TcpSink("localhost", r.port(), TcpSink.Options.defaults()
                    .withSecurity(TcpSecurity.sender(true, null, null, null, null)));
            try {
                IOException e = assertThrows(IOException.class, () -> shipAll(untrusting, src));
                assertTrue(e.getMessage().contains("TLS handshake failed"), e.getMessage());
            } finally {
                untrusting.close();
            }
            assertEquals(List.of(), r.files());
        }
    }

    @Test
    void aWrongOrMissingTokenIsRefusedWithAClearLineAndNothingIsWritten() throws Exception {
        TcpSecurity server = TcpSecurity.receiver(null, null, null, tokenFile("token", TOKEN));
        Path wrong = tokenFile("wrong", "fedcba9876543210fedcba9876543210");
        Path out = tmp.resolve("out");
        try (SourceFile src = SourceFile.create(tmp.resolve("app.log"), "app", "line", 1000, 100, 64 << 10);
             TcpReceiver r = TcpReceiver.start(LOOPBACK, out, TcpReceiver.Options.defaults().withSecurity(server),
                     log)) {
            TcpSink bad = new TcpSink("localhost", r.port(), TcpSink.Options.defaults()
                    .withSecurity(TcpSecurity.sender(false, null, null, null, wrong)));
            try {
                IOException e = assertThrows(IOException.class, () -> shipAll(bad, src));
                assertTrue(e.getMessage().contains("refused the connection: wrong token"), e.getMessage());
            } finally {
                bad.close();
            }
            TcpSink none = new TcpSink("localhost", r.port(), TcpSink.Options.defaults());
            try {
                IOException e = assertThrows(IOException.class, () -> shipAll(none, src));
                assertTrue(e.getMessage().contains("token required"), e.getMessage());
            } finally {
                none.close();
            }
            // A plain stream (no handshake at all) is closed unread.
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), r.port())) {
                s.setSoTimeout(10_000);
                s.getOutputStream().write("plain line\n".getBytes(StandardCharsets.US_ASCII));
                s.shutdownOutput();
                assertEquals(-1, s.getInputStream().read());
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (r.connections() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(List.of(), r.files(), log());
            assertEquals(0, r.received());
            try (var files = Files.list(out)) {
                assertEquals(0, files.count(), "nothing written");
            }
            String text = log();
            assertTrue(text.contains("refused connection from") && text.contains("wrong token"), text);
            assertFalse(text.contains(TOKEN) || text.contains("fedcba9876543210"), "no token in the log: " + text);
        }
    }

    @Test
    void theRightTokenOverPlainTcpDeliversEveryByte() throws Exception {
        Path token = tokenFile("token", TOKEN);
        try (SourceFile src = SourceFile.create(tmp.resolve("app.log"), "app", "line", 20_000, 100, 64 << 10);
             TcpReceiver r = TcpReceiver.start(LOOPBACK, tmp.resolve("out"), TcpReceiver.Options.defaults()
                     .withSecurity(TcpSecurity.receiver(null, null, null, token)), log)) {
            TcpSink sink = new TcpSink("localhost", r.port(), TcpSink.Options.defaults()
                    .withSecurity(TcpSecurity.sender(false, null, null, null, token)));
            try {
                shipAll(sink, src);
            } finally {
                sink.close();
            }
            assertArrayEquals(src.content(), Files.readAllBytes(r.files().get(0)));
            assertEquals(src.content().length, sink.copiedBytes());
        }
    }

    @Test
    void aSilentPeerIsClosedAfterTheHandshakeTimeoutAndFreesItsSlot() throws Exception {
        TcpReceiver.Options o = TcpReceiver.Options.defaults().withMaxConnections(1)
                .withHandshakeTimeout(java.time.Duration.ofMillis(300))
                .withSecurity(TcpSecurity.receiver(null, null, null, tokenFile("token", TOKEN)));
        try (TcpReceiver r = TcpReceiver.start(LOOPBACK, tmp.resolve("out"), o, log);
             Socket silent = new Socket(InetAddress.getLoopbackAddress(), r.port())) {
            silent.setSoTimeout(10_000);
            long start = System.nanoTime();
            assertEquals(-1, silent.getInputStream().read(), "closed by the receiver");
            assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(250));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (r.connections() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(0, r.connections(), "the slot is free again");
            assertTrue(log().contains("no handshake within 300 ms"), log());
        }
    }

    @Test
    void aTokenFileThatOthersCanReadOrThatIsTooShortIsRejected() throws Exception {
        Path open = tmp.resolve("open");
        Files.writeString(open, TOKEN);
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rw-r--r--"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TokenFile.read(open));
        assertTrue(e.getMessage().contains("readable by every user"), e.getMessage());
        Path shortToken = tokenFile("short", "abc");
        e = assertThrows(IllegalArgumentException.class, () -> TokenFile.read(shortToken));
        assertTrue(e.getMessage().contains("16 to 200"), e.getMessage());
    }
}
