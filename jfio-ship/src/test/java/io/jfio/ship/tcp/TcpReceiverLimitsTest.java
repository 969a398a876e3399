package io.jfio.ship.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.ship.config.ShipConfig;
import io.jfio.ship.metrics.MetricsServer;
import io.jfio.ship.metrics.ShipMetrics;
import io.jfio.ship.testing.ReceiverMain;
import io.jfio.ship.testing.ShipRun;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TcpReceiver under pressure, with real sockets and receiver processes: the connection limit, direct memory running
 * out, the descriptor limit; and the defaults that keep the receiver and the metrics endpoint on this machine.
 */
class TcpReceiverLimitsTest {
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    /** Sends the handshake and reads the receiver's answer: true when it answered, false when it closed. */
    private static boolean handshake(Socket s) throws IOException {
        s.setSoTimeout(10_000);
        s.getOutputStream().write(TcpProtocol.HANDSHAKE_BYTES);
        byte[] reply = s.getInputStream().readNBytes(TcpProtocol.HANDSHAKE_BYTES.length);
        return reply.length == TcpProtocol.HANDSHAKE_BYTES.length;
    }

    private static long lines(String text, String containing) {
        return text.lines().filter(l -> l.contains(containing)).count();
    }

    @Test
    void connectionsBeyondTheLimitAreClosedAtOnceWithOneLogLine() throws Exception {
        ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
        PrintStream log = new PrintStream(logBytes, true, StandardCharsets.UTF_8);
        try (TcpReceiver r = TcpReceiver.start(LOOPBACK, null, TcpReceiver.Options.defaults().withMaxConnections(2),
                log)) {
            Socket a = new Socket(InetAddress.getLoopbackAddress(), r.port());
            Socket b = new Socket(InetAddress.getLoopbackAddress(), r.port());
            assertTrue(handshake(a) && handshake(b), "the first two connections are served");
            for (int i = 0; i < 20; i++) {
                try (Socket extra = new Socket(InetAddress.getLoopbackAddress(), r.port())) {
                    extra.setSoTimeout(10_000);
                    extra.getOutputStream().write(TcpProtocol.HANDSHAKE_BYTES);
                    assertEquals(-1, readOrReset(extra.getInputStream()), "connection " + (i + 3) + " was closed");
                }
            }
            String text = logBytes.toString(StandardCharsets.UTF_8);
            assertTrue(lines(text, "connection limit") >= 1 && lines(text, "connection limit") <= 2, text);
            a.close();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (r.connections() > 1 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            try (Socket c = new Socket(InetAddress.getLoopbackAddress(), r.port())) {
                assertTrue(handshake(c), "a connection is served again once one has ended");
            }
            b.close();
        }
    }

    /** -1 at the end of the stream; a reset (the receiver closed with our handshake unread) counts as the end. */
    private static int readOrReset(InputStream in) throws IOException {
        try {
            return in.read();
        } catch (SocketTimeoutException e) {
            throw e;
        } catch (IOException e) {
            return -1;
        }
    }

    @Test
    void runningOutOfDirectMemoryClosesTheConnectionsItCannotServe(@TempDir Path tmp) throws Exception {
        Path err = tmp.resolve("receiver.err");
        Process p = ShipRun.java(ReceiverMain.class, List.of("-XX:MaxDirectMemorySize=3m"), "-", "1000")
                .redirectError(err.toFile()).start();
        List<Socket> clients = new ArrayList<>();
        try {
            int port = port(p);
            for (int i = 0; i < 20; i++) {
                clients.add(new Socket(InetAddress.getLoopbackAddress(), port));
            }
            // Give every connection's reader the time to get (or fail to get) its buffer.
            Thread.sleep(1000);
            for (Socket s : clients) {
                s.close();
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            int closeWait = closeWait(port);
            while (closeWait > 0 && System.nanoTime() < deadline) {
                Thread.sleep(50);
                closeWait = closeWait(port);
            }
            String text = Files.readString(err);
            assertEquals(0, closeWait, "receiver sockets left in CLOSE_WAIT; receiver log:\n" + text);
            assertTrue(lines(text, "direct buffer memory") >= 1, "direct memory ran out: " + text);
            assertFalse(text.contains("\tat "), "no stack traces: " + text);
            assertTrue(text.lines().count() <= 4, "at most a line a second: " + text);
        } finally {
            p.destroyForcibly().waitFor();
        }
    }

    @Test
    void atTheDescriptorLimitTheAcceptLoopBacksOffAndLogsAFewLines(@TempDir Path tmp) throws Exception {
        Path err = tmp.resolve("receiver.err");
        List<String> java = ShipRun.java(ReceiverMain.class, List.of("-XX:MaxDirectMemorySize=1g"), "-", "10000")
                .command();
        // ulimit -n sets the soft and the hard limit: the JVM cannot raise it again.
        List<String> cmd = new ArrayList<>(List.of("bash", "-c", "ulimit -n 200 && exec \"$@\"", "receiver"));
        cmd.addAll(java);
        Process p = new ProcessBuilder(cmd).redirectError(err.toFile()).start();
        List<Socket> clients = new ArrayList<>();
        try {
            int port = port(p);
            // More than the receiver has descriptors for. A busy receiver accepts slowly: while its backlog is full,
            // connecting times out; keep going until it has run out of descriptors (or 300 are open).
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            int open = 0;
            while (open < 300 && System.nanoTime() < until && lines(Files.readString(err), "accept failed") == 0) {
                Socket s = new Socket();
                clients.add(s);
                try {
                    s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
                    open++;
                } catch (SocketTimeoutException e) {
                    Thread.sleep(100);
                }
            }
            Thread.sleep(2500);
            String text = Files.readString(err);
            long failed = lines(text, "accept failed");
            assertTrue(failed >= 1, "the descriptor limit was reached: " + text);
            assertTrue(failed <= 5, "accept failures are logged at most once a second: " + failed + " lines");
            assertFalse(text.contains("\tat "), "no stack traces");
            for (Socket s : clients) {
                s.close();
            }
            // Once descriptors are free again, the receiver serves new connections.
            boolean served = false;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!served && System.nanoTime() < deadline) {
                try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
                    served = handshake(s);
                } catch (IOException e) {
                    Thread.sleep(100);
                }
            }
            assertTrue(served, "served again after the limit: " + ShipRun.tail(err, 5));
        } finally {
            for (Socket s : clients) {
                s.close();
            }
            p.destroyForcibly().waitFor();
        }
    }

    @Test
    void theMetricsEndpointListensOnLoopbackByDefault(@TempDir Path tmp) throws Exception {
        ShipConfig cfg = ShipRun.config(List.of(tmp.resolve("*.log").toString()), tmp.resolve("out"),
                tmp.resolve("state"), Map.of("metrics", "0"));
        assertEquals("127.0.0.1", cfg.metrics().getHostString());
        try (MetricsServer m = new MetricsServer(cfg.metrics(), new ShipMetrics(), List::of)) {
            assertTrue(m.address().getAddress().isLoopbackAddress(), m.address().toString());
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), m.port())) {
                assertTrue(s.isConnected());
            }
            Optional<InetAddress> other = nonLoopbackAddress();
            if (other.isPresent()) {
                assertThrows(ConnectException.class, () -> new Socket(other.get(), m.port()).close(),
                        "not reachable through " + other.get());
            }
        }
    }

    /** A local IPv4 address that is not loopback, if this machine has one. */
    static Optional<InetAddress> nonLoopbackAddress() throws IOException {
        return NetworkInterface.networkInterfaces().filter(i -> {
            try {
                return i.isUp() && !i.isLoopback();
            } catch (IOException e) {
                return false;
            }
        }).flatMap(NetworkInterface::inetAddresses).filter(a -> a instanceof Inet4Address).findFirst();
    }

    /** Reads {@code port=N} from the receiver process's stdout. */
    private static int port(Process p) throws IOException {
        String line = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream(),
                StandardCharsets.US_ASCII)).readLine();
        assertTrue(line != null && line.startsWith("port="), "no port line: " + line);
        return Integer.parseInt(line.substring(5).strip());
    }

    /** Sockets in CLOSE_WAIT whose local port is {@code port} (this network namespace: the receiver's). */
    private static int closeWait(int port) throws IOException {
        int n = 0;
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            Path f = Path.of(table);
            if (!Files.exists(f)) continue;
            for (String line : Files.readAllLines(f)) {
                String[] c = line.trim().split("\\s+");
                if (c.length < 4 || !c[1].contains(":")) continue;
                int local = Integer.parseInt(c[1].substring(c[1].indexOf(':') + 1), 16);
                if (local == port && c[3].equals("08")) n++;
            }
        }
        return n;
    }
}
