package io.jfio.cli;

import io.jfio.core.units.Units;
import io.jfio.ship.log.ShipLog;
import io.jfio.ship.tcp.TcpReceiver;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code jfio receive --listen [HOST:]PORT --to DIR}: the receiving end of {@code jfio ship --to tcp:HOST:PORT}
 * ({@link TcpReceiver}). Each connection is written to its own file in DIR; with the acknowledgement protocol, bytes
 * are acknowledged only after they were fdatasync'ed, so the shipper's checkpoints never run ahead of the disk here.
 *
 * <p>Not thread-safe; one instance per command line. Runs until SIGTERM or SIGINT, then stops listening and
 * writing: it syncs and acknowledges what it wrote, and reads and drops what an acknowledging sender still sends
 * until that sender closes (a plain connection's input is shut down at once). What is not done within 5 s is dropped
 * as a crash would, and the shipper sends the unacknowledged rest again. Then it exits {@link ExitCodes#OK}. A
 * malformed address or a host that does not resolve exits {@link ExitCodes#USAGE}; an address that cannot be
 * listened on (in use, not local) or a directory that cannot be made or written, {@link ExitCodes#ENVIRONMENT}. The
 * directory is made only after the address was listened on, so a bad address leaves nothing behind.
 *
 * <p>Listens on 127.0.0.1 unless a host is given: receiving from other machines is a choice the user makes. Serves
 * at most {@code --max-connections} at once; optionally speaks TLS ({@code --tls-cert}, {@code --tls-key}, and
 * {@code --tls-client-ca} to require client certificates) and requires a token ({@code --token-file}). Unusable TLS or
 * token files exit {@link ExitCodes#USAGE}.
 */
@Command(name = "receive", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        sortOptions = false, description = {
            "Receive what 'jfio ship --to tcp:HOST:PORT' sends: one file per connection in DIR "
                    + "(receive-<epoch-ms>-<n>.log), acknowledged after fdatasync. Runs until SIGTERM/SIGINT.",
            "Listens on 127.0.0.1 unless --listen names a host. Optional TLS 1.3 (--tls-cert/--tls-key, "
                    + "--tls-client-ca) and a shared token (--token-file), matched by ship's --tcp-tls* and "
                    + "--tcp-token-file.",
        })
public final class ReceiveCommand implements Callable<Integer> {
    /** How long a stop waits for the connections' last sync and acknowledgement. */
    private static final Duration SHUTDOWN_GRACE = Duration.ofSeconds(5);

    /** The host listened on when --listen names only a port. */
    static final String DEFAULT_HOST = "127.0.0.1";

    @Option(names = "--listen", required = true, paramLabel = "[HOST:]PORT", description = "Address to listen on "
            + "(default host 127.0.0.1: this machine only; 0.0.0.0:PORT for every interface; [::1]:PORT for IPv6; "
            + "port 0 picks a free one, printed at start).")
    private String listen;

    @Option(names = "--to", required = true, paramLabel = "DIR", description = "Directory for the received files "
            + "(created if missing).")
    private Path to;

    @Option(names = "--sync-interval", paramLabel = "DURATION", description = "Sync and acknowledge at most this "
            + "often, e.g. 10ms, 1s (default 10ms); also after every 4MiB. Durations: see docs/units.md.")
    private String syncInterval;

    @Option(names = "--max-connections", paramLabel = "N", description = "Most connections served at once "
            + "(default ${DEFAULT-VALUE}); more are closed at once, logged at most once a second.")
    private int maxConnections = TcpReceiver.Options.MAX_CONNECTIONS_DEFAULT;

    @Option(names = "--tls-cert", paramLabel = "PEM", description = "Speak TLS 1.3 with this certificate (chain, "
            + "PEM); with --tls-key.")
    private Path tlsCert;

    @Option(names = "--tls-key", paramLabel = "PEM", description = "The certificate's private key (PEM, unencrypted "
            + "PKCS#8: BEGIN PRIVATE KEY).")
    private Path tlsKey;

    @Option(names = "--tls-client-ca", paramLabel = "PEM", description = "Require a client certificate that chains "
            + "to these CA certificates (PEM); needs --tls-cert.")
    private Path tlsClientCa;

    @Option(names = "--token-file", paramLabel = "FILE", description = "Require senders to present the token in "
            + "this file (16-200 visible ASCII characters, e.g. 'openssl rand -hex 32'; mode 600). Compared in "
            + "constant time; a mismatch is logged and the connection closed.")
    private Path tokenFile;

    @Override
    public Integer call() {
        CliException.requireSupportedPlatform();
        InetSocketAddress bind = resolve(address(listen));
        TcpReceiver.Options options = TcpReceiver.Options.defaults();
        if (syncInterval != null) {
            Duration d = UnitOptions.duration("--sync-interval", syncInterval);
            try {
                options = options.withSyncInterval(d);
            } catch (IllegalArgumentException e) {
                throw new CliException(ExitCodes.USAGE, "--sync-interval: " + e.getMessage());
            }
        }
        if (maxConnections < 1) {
            throw new CliException(ExitCodes.USAGE, "invalid --max-connections: value=" + maxConnections
                    + " (at least 1)");
        }
        options = options.withMaxConnections(maxConnections).withSecurity(security());
        ShipLog log = ShipLog.stderr();
        TcpReceiver receiver;
        try {
            receiver = TcpReceiver.start(bind, to.toAbsolutePath(), options,
                    new PrintStream(System.err, true, StandardCharsets.UTF_8));
        } catch (TcpReceiver.StartException e) {
            String option = e.part() == TcpReceiver.StartPart.LISTEN ? "--listen " + listen : "--to " + to;
            throw new CliException(ExitCodes.ENVIRONMENT, "cannot receive: " + option + ": " + e.getMessage());
        } catch (IOException e) {
            throw new CliException(ExitCodes.ENVIRONMENT, "cannot receive: " + e.getMessage());
        }
        CountDownLatch stop = new CountDownLatch(1);
        Runnable undo = Signals.onTermination(name -> {
            log.info("signal", "signal", name, "action", "stop writing, sync and acknowledge what was written, exit 0");
            stop.countDown();
        });
        log.info("listening", "address", bind.getHostString() + ":" + receiver.port(), "dir", to.toAbsolutePath(),
                "sync-interval", Units.formatDuration(options.syncInterval()), "max-connections", maxConnections,
                "tls", tlsCert == null ? "off" : tlsClientCa == null ? "on" : "on, client certificate required",
                "token", tokenFile == null ? "off" : "required");
        try {
            stop.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            undo.run();
            try {
                receiver.shutdown(SHUTDOWN_GRACE);
            } catch (IOException e) {
                log.warn("close-failed", "error", e.toString());
            }
        }
        log.info("stop", "received-bytes", receiver.received(), "durable-bytes", receiver.durable(), "files",
                receiver.files().size());
        return ExitCodes.OK;
    }

    /** TLS and token from the options; a file that cannot be used is a usage error naming its option. */
    private io.jfio.ship.tcp.TcpSecurity security() {
        try {
            return io.jfio.ship.tcp.TcpSecurity.receiver(tlsCert, tlsKey, tlsClientCa, tokenFile);
        } catch (IllegalArgumentException e) {
            String m = e.getMessage();
            String option = tokenFile != null && m.contains(tokenFile.toString()) ? "--token-file"
                    : tlsClientCa != null && m.contains(tlsClientCa.toString()) ? "--tls-client-ca"
                    : tlsKey != null && m.contains(tlsKey.toString()) ? "--tls-key"
                    : tlsCert != null && m.contains(tlsCert.toString()) ? "--tls-cert"
                    : "--tls-cert/--tls-key/--tls-client-ca";
            throw new CliException(ExitCodes.USAGE, "invalid " + option + ": " + m);
        }
    }

    /** {@code PORT}, {@code HOST:PORT} or {@code [V6]:PORT}. */
    static InetSocketAddress address(String text) {
        String t = text.trim();
        int colon = t.lastIndexOf(':');
        String host = colon < 0 ? DEFAULT_HOST : t.substring(0, colon);
        String port = colon < 0 ? t : t.substring(colon + 1);
        if (host.startsWith("[") && host.endsWith("]")) host = host.substring(1, host.length() - 1);
        int p;
        try {
            p = Integer.parseInt(port);
        } catch (NumberFormatException e) {
            p = -1;
        }
        if (p < 0 || p > 65535 || host.isEmpty() || (colon >= 0 && host.contains(":") && !t.startsWith("["))) {
            throw new CliException(ExitCodes.USAGE, "invalid --listen: value='" + text
                    + "' (PORT, HOST:PORT or [IPV6]:PORT; port 0-65535)");
        }
        return InetSocketAddress.createUnresolved(host, p);
    }

    /** Resolves the host of {@link #address}; a host that does not resolve is a usage error. */
    private InetSocketAddress resolve(InetSocketAddress unresolved) {
        InetSocketAddress a = new InetSocketAddress(unresolved.getHostString(), unresolved.getPort());
        if (a.isUnresolved()) {
            throw new CliException(ExitCodes.USAGE, "invalid --listen: value='" + listen + "': cannot resolve host "
                    + unresolved.getHostString());
        }
        return a;
    }
}
