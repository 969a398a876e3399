package io.jfio.ship.testing;

import io.jfio.ship.tcp.TcpReceiver;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;

/**
 * A receiver process for the resource-limit tests: {@code java ReceiverMain [DIR|-] [MAX_CONNECTIONS]} listens on a
 * free loopback port, prints {@code port=N} on stdout, and runs until killed.
 *
 * <p>Not thread-safe; one per process.
 */
public final class ReceiverMain {
    private ReceiverMain() {
    }

    /** Runs the receiver. */
    public static void main(String[] args) throws Exception {
        Path dir = args.length > 0 && !args[0].equals("-") ? Path.of(args[0]) : null;
        TcpReceiver.Options o = TcpReceiver.Options.defaults();
        if (args.length > 1) {
            o = o.withMaxConnections(Integer.parseInt(args[1]));
        }
        TcpReceiver r = TcpReceiver.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), dir, o,
                System.err);
        System.out.println("port=" + r.port());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
