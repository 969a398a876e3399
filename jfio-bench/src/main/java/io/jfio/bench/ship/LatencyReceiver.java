package io.jfio.bench.ship;

import io.jfio.ship.tcp.TcpProtocol;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A loopback TCP listener for the latency runs: it takes jfio's acknowledged stream (handshake echoed, then an
 * 8-byte cumulative acknowledgement after every read) or a plain newline stream (rsyslog's omfwd), stamps every
 * read with the monotonic clock and feeds the lines to a {@link Latencies}.
 *
 * <p>It acknowledges what it has received, without an fsync: the latency measured is append-to-arrival at the
 * receiver, and jfio's {@code TcpReceiver}'s batched fsync (10 ms) would only delay the shipper's window, which at
 * these rates never fills. Thread-safe; one thread per connection.
 */
final class LatencyReceiver implements AutoCloseable {
    private static final byte[] HANDSHAKE = TcpProtocol.HANDSHAKE.getBytes(StandardCharsets.US_ASCII);
    /** How much of a stream tells jfio's handshake from a plain stream. */
    private static final int MAGIC = TcpProtocol.MAGIC_PREFIX.length();

    private final ServerSocket server;
    private final Latencies latencies;
    private final long origin;
    private final Thread acceptor;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    /**
     * Listens on 127.0.0.1 at an ephemeral port.
     *
     * @param origin the {@link System#nanoTime()} that append times in the lines count from
     */
    LatencyReceiver(Latencies latencies, long origin) throws IOException {
        this.latencies = latencies;
        this.origin = origin;
        this.server = new ServerSocket();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        this.acceptor = Thread.ofPlatform().daemon().name("jfio-bench-ship-accept").start(this::accept);
    }

    int port() {
        return server.getLocalPort();
    }

    /** Connections accepted so far. */
    int connections() {
        return sockets.size();
    }

    private void accept() {
        while (!closed) {
            try {
                Socket s = server.accept();
                s.setTcpNoDelay(true);
                sockets.add(s);
                Thread.ofPlatform().daemon().name("jfio-bench-ship-recv").start(() -> serve(s));
            } catch (IOException e) {
                if (!closed) System.err.println("bench ship: accept failed: " + e);
                return;
            }
        }
    }

    private void serve(Socket s) {
        Latencies.Parser parser = latencies.new Parser();
        byte[] buf = new byte[256 << 10];
        try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
            int head = in.readNBytes(buf, 0, MAGIC);
            boolean ack = head == MAGIC && Arrays.equals(buf, 0, MAGIC, HANDSHAKE, 0, MAGIC);
            long received = 0;
            byte[] ackBytes = new byte[TcpProtocol.ACK_BYTES];
            if (ack) {
                int rest = in.readNBytes(buf, MAGIC, HANDSHAKE.length - MAGIC);
                if (rest != HANDSHAKE.length - MAGIC) return;
                out.write(HANDSHAKE);
                out.flush();
            } else if (head > 0) {
                parser.feed(buf, 0, head, System.nanoTime() - origin);
                received = head;
            }
            while (true) {
                int n = in.read(buf);
                if (n < 0) break;
                long now = System.nanoTime() - origin;
                parser.feed(buf, 0, n, now);
                received += n;
                if (ack) {
                    for (int i = 0; i < ackBytes.length; i++) ackBytes[i] = (byte) (received >>> (56 - 8 * i));
                    out.write(ackBytes);
                }
            }
        } catch (IOException e) {
            if (!closed) System.err.println("bench ship: receiver connection failed: " + e);
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        server.close();
        for (Socket s : sockets) s.close();
        try {
            acceptor.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
