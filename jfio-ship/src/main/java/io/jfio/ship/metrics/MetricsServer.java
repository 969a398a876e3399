package io.jfio.ship.metrics;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;

/**
 * Serves {@link ShipMetrics} at {@code /metrics} over HTTP with the JDK's own server (no dependency), on one daemon
 * thread.
 *
 * <p>Thread-safe; {@link #close} is idempotent.
 */
public final class MetricsServer implements AutoCloseable {
    private final HttpServer server;

    /**
     * Starts serving.
     *
     * @param address where to listen (port 0: any free port; see {@link #port}); the configuration's default host
     *                is 127.0.0.1
     */
    public MetricsServer(InetSocketAddress address, ShipMetrics metrics) throws IOException {
        InetSocketAddress bind = address.isUnresolved()
                ? new InetSocketAddress(address.getHostString(), address.getPort()) : address;
        server = HttpServer.create(bind, 16);
        server.createContext("/metrics", exchange -> {
            try (exchange) {
                if (!exchange.getRequestMethod().equals("GET") && !exchange.getRequestMethod().equals("HEAD")) {
                    exchange.sendResponseHeaders(405, -1);
                    return;
                }
                byte[] body = metrics.render().getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
                boolean head = exchange.getRequestMethod().equals("HEAD");
                exchange.sendResponseHeaders(200, head ? -1 : body.length);
                if (!head) {
                    try (OutputStream out = exchange.getResponseBody()) {
                        out.write(body);
                    }
                }
            }
        });
        server.setExecutor(Executors.newSingleThreadExecutor(r -> Thread.ofPlatform().daemon(true)
                .name("jfio-ship-metrics").unstarted(r)));
        server.start();
    }

    /** The address listened on. */
    public InetSocketAddress address() {
        return server.getAddress();
    }

    /** The port listened on. */
    public int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
