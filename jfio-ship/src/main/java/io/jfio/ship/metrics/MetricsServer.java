package io.jfio.ship.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * Serves {@link ShipMetrics} over HTTP with the JDK's own server (no dependency), on one daemon thread:
 * {@code /metrics} (Prometheus text: counters, per-sink gauges, process metrics), {@code /metrics/files} (the
 * per-file series, for a scrape job that wants them), {@code /health} (200 while the process serves) and
 * {@code /ready} (200 when every sink acknowledges and checkpoints are saved, else 503 with the reasons).
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
     * @param metrics what {@code /metrics} and {@code /metrics/files} show
     * @param notReady why the shipper is not ready (an empty list when it is), for {@code /ready}
     */
    public MetricsServer(InetSocketAddress address, ShipMetrics metrics, Supplier<List<String>> notReady)
            throws IOException {
        InetSocketAddress bind = address.isUnresolved()
                ? new InetSocketAddress(address.getHostString(), address.getPort()) : address;
        server = HttpServer.create(bind, 16);
        server.createContext("/metrics", exchange -> {
            String path = exchange.getRequestURI().getPath();
            if (path.equals("/metrics/files")) {
                respond(exchange, 200, PROMETHEUS, metrics.renderFiles());
            } else if (path.equals("/metrics") || path.equals("/metrics/")) {
                respond(exchange, 200, PROMETHEUS, metrics.render());
            } else {
                respond(exchange, 404, TEXT, "not found: " + path + "\n");
            }
        });
        server.createContext("/health", exchange -> respond(exchange, 200, TEXT, "ok\n"));
        server.createContext("/ready", exchange -> {
            List<String> problems = notReady.get();
            if (problems.isEmpty()) {
                respond(exchange, 200, TEXT, "ready\n");
            } else {
                respond(exchange, 503, TEXT, String.join("\n", problems) + "\n");
            }
        });
        server.setExecutor(Executors.newSingleThreadExecutor(r -> Thread.ofPlatform().daemon(true)
                .name("jfio-ship-metrics").unstarted(r)));
        server.start();
    }

    private static final String PROMETHEUS = "text/plain; version=0.0.4; charset=utf-8";
    private static final String TEXT = "text/plain; charset=utf-8";

    /** Answers GET and HEAD with {@code body}, anything else with 405. */
    private static void respond(HttpExchange exchange, int status, String type, String body) throws IOException {
        try (exchange) {
            String method = exchange.getRequestMethod();
            if (!method.equals("GET") && !method.equals("HEAD")) {
                exchange.getResponseHeaders().set("Allow", "GET, HEAD");
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", type);
            boolean head = method.equals("HEAD");
            exchange.sendResponseHeaders(status, head ? -1 : bytes.length);
            if (!head) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(bytes);
                }
            }
        }
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
