package io.jfio.ship.tcp;

import io.jfio.ship.sink.Sink;
import io.jfio.ship.sink.SinkFactory;
import io.jfio.ship.sink.SinkSpec;
import io.jfio.ship.sink.Sinks;

/** Thread-safe; stateless. The {@code tcp:HOST:PORT} sink: {@link TcpSink}, set up by {@link Settings}. */
public final class TcpSinkFactory implements SinkFactory {
    /** The scheme. */
    public static final String SCHEME = "tcp";

    /**
     * What tcp sinks take from the shipper's configuration.
     *
     * @param ack      wait for the receiver's acknowledgement of durable bytes (at-least-once), or count bytes as
     *                 delivered once the kernel took them (a plain newline stream, e.g. for {@code nc -l})
     * @param security TLS and token
     */
    public record Settings(boolean ack, TcpSecurity security) {
    }

    @Override
    public String scheme() {
        return SCHEME;
    }

    @Override
    public String form() {
        return "tcp:HOST:PORT";
    }

    @Override
    public void check(String target) {
        int c = target.lastIndexOf(':');
        if (c <= 0 || c == target.length() - 1) throw new IllegalArgumentException("tcp: needs HOST:PORT");
        String h = target.substring(0, c);
        // An IPv6 address goes in brackets ([::1]:5140), whole: a host with a bracket or a colon otherwise is a typo.
        boolean bracketed = h.startsWith("[") && h.endsWith("]") && h.length() > 2;
        String inner = bracketed ? h.substring(1, h.length() - 1) : h;
        if (inner.indexOf('[') >= 0 || inner.indexOf(']') >= 0 || (!bracketed && h.indexOf(':') >= 0)) {
            throw new IllegalArgumentException("tcp: HOST must be a name, an IPv4 address or an IPv6 address in "
                    + "brackets ([::1]:PORT): host=" + h);
        }
        port(target.substring(c + 1));
    }

    @Override
    public Sink open(SinkSpec spec, Sinks.Options options) {
        Settings s = options.setting(Settings.class);
        // The window is above the pipeline's own bound by one batch, so that the pipeline's bound is the one that
        // acts: a send that blocks in the sink would also hold off stop requests.
        return new TcpSink(host(spec), port(spec), TcpSink.Options.defaults().withAck(s.ack())
                .withWindow(options.maxInFlight() + options.bufferSize()).withSecurity(s.security()));
    }

    /** A tcp sink's host must resolve. */
    @Override
    public void requireResolvable(SinkSpec spec) throws java.net.UnknownHostException {
        java.net.InetAddress.getAllByName(host(spec));
    }

    /** The host of a {@code tcp:} spec (brackets of an IPv6 literal removed). */
    public static String host(SinkSpec spec) {
        String t = spec.target();
        String h = t.substring(0, t.lastIndexOf(':'));
        return h.startsWith("[") && h.endsWith("]") ? h.substring(1, h.length() - 1) : h;
    }

    /** The port of a {@code tcp:} spec. */
    public static int port(SinkSpec spec) {
        return Integer.parseInt(spec.target().substring(spec.target().lastIndexOf(':') + 1));
    }

    /** {@code p} as a port, 1-65535. */
    static int port(String p) {
        try {
            int port = Integer.parseInt(p);
            if (port >= 1 && port <= 65535) return port;
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("port must be 1-65535");
    }
}
