package io.jfio.ship.sink;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * Thread-safe; stateless.
 *
 * <p>Checks at start that the hosts a network sink names resolve, so that a misspelt host is one clear error instead
 * of a sink that retries forever. A tcp sink's host must resolve; a kafka sink needs one bootstrap server that does
 * (the producer asks it for the rest of the cluster). The sinks resolve again at every connect: an address that
 * changes later is followed.
 */
public final class SinkHosts {
    private SinkHosts() {
    }

    /**
     * Resolves the hosts {@code spec} names, if any.
     *
     * @throws UnknownHostException for the first host that does not resolve (for kafka: when none does); its message
     *                              is {@code HOST: REASON}
     */
    public static void requireResolvable(SinkSpec spec) throws UnknownHostException {
        if (spec.scheme().equals(SinkSpec.TCP)) {
            InetAddress.getAllByName(spec.host());
        } else if (spec.scheme().equals(SinkSpec.KAFKA)) {
            UnknownHostException first = null;
            for (String host : bootstrapHosts(spec.bootstrap())) {
                try {
                    InetAddress.getAllByName(host);
                    return;
                } catch (UnknownHostException e) {
                    if (first == null) first = e;
                }
            }
            if (first != null) throw first;
        }
    }

    /** The hosts of a bootstrap list {@code HOST:PORT,HOST:PORT} (brackets of IPv6 literals removed). */
    static List<String> bootstrapHosts(String bootstrap) {
        List<String> hosts = new ArrayList<>();
        for (String server : bootstrap.split(",")) {
            String h = server.trim().substring(0, server.trim().lastIndexOf(':'));
            hosts.add(h.startsWith("[") && h.endsWith("]") ? h.substring(1, h.length() - 1) : h);
        }
        return hosts;
    }
}
