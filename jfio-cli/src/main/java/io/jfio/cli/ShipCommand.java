package io.jfio.cli;

import io.jfio.ship.Shipper;
import io.jfio.ship.StartException;
import io.jfio.ship.config.ConfigException;
import io.jfio.ship.config.ConfigLoader;
import io.jfio.ship.config.RawConfig;
import io.jfio.ship.config.ShipConfig;
import io.jfio.ship.log.ShipLog;
import io.jfio.ship.pipeline.Pipeline;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code jfio ship --from GLOB... --to SINK --state DIR}: ships appended data from local files to a sink, at least
 * once, through rotation, crashes and sink outages ({@link Shipper}).
 *
 * <p>Not thread-safe; one instance per command line. Logs go to stderr as key=value lines; {@code --dry-run} prints
 * its report to the out writer. Runs until SIGTERM or SIGINT, then flushes, checkpoints and exits
 * {@link ExitCodes#OK}; with {@code --once} it exits when everything present was shipped ({@link ExitCodes#FAILED}
 * when some file could not be read, the sink kept failing or the last checkpoint could not be saved;
 * {@link ExitCodes#NOTHING_MATCHED} when a pattern matched no file). A bad configuration exits
 * {@link ExitCodes#USAGE}; one the machine refuses (state or sink directory unusable or locked, a host that does not
 * resolve) {@link ExitCodes#ENVIRONMENT}.
 */
@Command(name = "ship", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, sortOptions = false,
        subcommands = ShipStateCommand.class,
        description = {
            "Ship appended data from local files to a sink, at least once: through rotation, crashes and outages.",
            "",
            "Sinks: dir:PATH (segment files, fsync on commit), stdout:, tcp:HOST:PORT, kafka:BOOTSTRAP/TOPIC, "
                    + "s3://BUCKET/PREFIX (objects, exactly once; credentials as the AWS tools find them). "
                    + "Checkpoints under --state advance only after the sink acknowledged the bytes; a restart "
                    + "resumes there (some bytes may be sent again, none are lost). Runs until SIGTERM/SIGINT; "
                    + "SIGHUP reads the configuration again.",
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:stopped by a signal, or --once shipped everything",
            "1:--once could not read a file or the sink failed 5 times in a row; or the checkpoints could not be "
                    + "saved at the end (the error names the file; the next start ships again what came after the "
                    + "last checkpoint saved)",
            "2:invalid options or configuration, or a file they name (--config, TLS, token) cannot be read",
            "3:the machine refuses the configuration: state or sink directory cannot be created or used, lock "
                    + "held by another shipper, sink host does not resolve, metrics port cannot be bound",
            "4:--once, and a --from pattern (or an input's path) matched no file; the rest was shipped. Without "
                    + "--once such a pattern is only warned about: files that appear later are shipped",
        },
        footer = {"", "Errors are one line: what could not be used, its path or value, the reason the system gave, "
                + "and the option and config key that named it."})
public final class ShipCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--from", paramLabel = "GLOB", description = "A path or glob to ship (*, ?, [..], {a,b}, "
            + "recursive **); repeatable.")
    private List<String> from;

    @Option(names = "--exclude", paramLabel = "GLOB", description = "Leave out matching files (a pattern without / "
            + "matches the file name); repeatable.")
    private List<String> exclude;

    @Option(names = "--follow-symlinks", description = "Follow symlinks the globs find (files, and directories a glob "
            + "walks into). A link is followed only when root, this user or the target's owner owns it. Default: "
            + "symlinks are skipped.")
    private Boolean followSymlinks;

    @Option(names = "--owner", paramLabel = "USER", description = "Ship only files owned by USER (a name or a "
            + "numeric ID); repeatable. Default: any owner.")
    private List<String> owners;

    @Option(names = "--output-mode", paramLabel = "MODE", description = "Permission bits of the files the sinks "
            + "create, octal (default 0600; directories they create get x where r is set), less the umask.")
    private String outputMode;

    @Option(names = "--to", paramLabel = "SINK", description = "dir:PATH, tcp:HOST:PORT, kafka:BOOTSTRAP/TOPIC or "
            + "stdout:.")
    private String to;

    @Option(names = "--state", paramLabel = "DIR", description = "Checkpoints and the lock.")
    private String state;

    @Option(names = "--config", paramLabel = "FILE", description = "A YAML or TOML file; options given here win.")
    private Path config;

    @Option(names = "--start", paramLabel = "WHERE", description = "Where files never seen before start: beginning "
            + "(default) or end (files found at start only; later files start at their beginning).")
    private String start;

    @Option(names = "--log-level", paramLabel = "LEVEL", description = "The least severe log lines written: debug, "
            + "info (default), warn or error.")
    private String logLevel = "info";

    @Option(names = "--log-format", paramLabel = "FORMAT", description = "Log lines as logfmt (default: "
            + "ts=... level=info event=... key=value) or json (one JSON object per line).")
    private String logFormat = "logfmt";

    @Option(names = "--metrics", paramLabel = "[HOST:]PORT", arity = "0..1", fallbackValue = "true",
            description = "Serve Prometheus metrics at /metrics, and /health and /ready (default host 127.0.0.1: "
                    + "this machine only; 0.0.0.0:PORT for every interface; alone: port 9764).")
    private String metrics;

    @Option(names = "--poll", paramLabel = "DURATION", description = "Poll for changes at this interval (e.g. 250ms) "
            + "instead of watching with inotify: for NFS and FUSE.")
    private String poll;

    @Option(names = "--framing", paramLabel = "lines|raw", description = "Newline-delimited records (default) or "
            + "raw bytes.")
    private String framing;

    @Option(names = "--ignore-older", paramLabel = "DURATION", description = "Start a file never shipped at its "
            + "end when its last change is older than this (e.g. 24h): its old content is left out, what is appended "
            + "to it later is shipped.")
    private String ignoreOlder;

    @Option(names = "--partial-timeout", paramLabel = "DURATION", description = "Ship an unterminated last line "
            + "after the file has not grown for this long (default: wait for the newline).")
    private String partialTimeout;

    @Option(names = "--multiline", paramLabel = "java|iso8601", description = "Join lines into multiline records: "
            + "java (lines that begin with a space or tab, 'Caused by:' or an exception's class name continue the "
            + "record before them) or iso8601 (a line that begins with a date and time starts a record).")
    private String multilinePreset;

    @Option(names = "--multiline-start", paramLabel = "REGEX", description = "Join lines into multiline records: a "
            + "line matching REGEX starts a record, the others continue it.")
    private String multilineStart;

    @Option(names = "--multiline-continue", paramLabel = "REGEX", description = "Join lines into multiline records: "
            + "a line matching REGEX continues the record before it, the others start one.")
    private String multilineContinue;

    @Option(names = "--multiline-max-lines", paramLabel = "N", description = "A multiline record ends after this "
            + "many lines (default 500).")
    private Integer multilineMaxLines;

    @Option(names = "--multiline-max-bytes", paramLabel = "SIZE", description = "A multiline record ends before a "
            + "line that would take it past this size (default 1MiB).")
    private String multilineMaxBytes;

    @Option(names = "--multiline-timeout", paramLabel = "DURATION", description = "A file's last multiline record "
            + "ships after the file has not grown for this long (default 1s).")
    private String multilineTimeout;

    @Option(names = "--encoding", paramLabel = "raw|ndjson|headers", description = "How the sinks deliver records: "
            + "raw (the bytes as read, default), ndjson (one JSON object per record: message, path, host, offset, "
            + "device, inode, read_time, input, fields) or headers (kafka: the record as the value, the metadata as "
            + "headers). Per sink: 'encodings' in the config file.")
    private String encoding;

    @Option(names = "--field", paramLabel = "NAME=VALUE", description = "A static field added to every record's "
            + "metadata (ndjson, headers); repeatable.")
    private java.util.Map<String, String> fields;

    @Option(names = "--include-lines", paramLabel = "REGEX", description = "Ship only records that REGEX matches "
            + "(searched in the record's bytes); repeatable: any of them.")
    private List<String> includeLines;

    @Option(names = "--exclude-lines", paramLabel = "REGEX", description = "Leave out records that REGEX matches "
            + "(after --include-lines); repeatable.")
    private List<String> excludeLines;

    @Option(names = "--read-gz", description = "Decompress files whose name ends in .gz (rotated logs) and ship "
            + "them once, from their start; a damaged one is reported and skipped. Default: shipped as they are.")
    private Boolean readGz;

    @Option(names = "--max-record", paramLabel = "SIZE", description = "The longest line (default 1MiB).")
    private String maxRecord;

    @Option(names = "--on-overlong", paramLabel = "split|drop", description = "Longer lines are split into pieces "
            + "(default) or dropped; both are counted.")
    private String onOverlong;

    @Option(names = "--checkpoint-interval", paramLabel = "DURATION", description = "Write checkpoints at most this "
            + "often (default 200ms; 0: after every acknowledgement).")
    private String checkpointInterval;

    @Option(names = "--max-open-files", paramLabel = "N", description = "Cap on open source files (default 1024); "
            + "idle ones are closed first. Lowered to leave room under the descriptor limit (ulimit -n).")
    private Integer maxOpenFiles;

    @Option(names = "--rotate-wait", paramLabel = "DURATION", description = "Keep a renamed-away file open this "
            + "long after it last grew (default 5s).")
    private String rotateWait;

    @Option(names = "--buffer-size", paramLabel = "SIZE", description = "How much one read takes (default 1MiB);"
            + " the buffer, allocated at the start, is the larger of this and max-record + 1, so that a line"
            + " longer than one read is still framed whole.")
    private String bufferSize;

    @Option(names = "--segment-size", paramLabel = "SIZE", description = "dir sink segment size (default 128MiB).")
    private String segmentSize;

    @Option(names = "--max-in-flight", paramLabel = "SIZE", description = "Unacknowledged bytes per sink before "
            + "reading pauses (default by each sink's kind: 64MiB; 8MiB for kafka; 32MiB for s3).")
    private String maxInFlight;

    @Option(names = "--tcp-no-ack", description = "tcp sinks: do not wait for the receiver's acknowledgements; "
            + "send a plain newline stream (works with nc -l; what is in flight when the receiver dies is lost).")
    private boolean tcpNoAck;

    @Option(names = "--tcp-tls", description = "tcp sinks: speak TLS 1.3; the receiver's certificate must name the "
            + "host of tcp:HOST:PORT and chain to --tcp-tls-ca (default: the JDK's trusted CAs).")
    private Boolean tcpTls;

    @Option(names = "--tcp-tls-ca", paramLabel = "PEM", description = "tcp sinks: CA certificates the receiver's "
            + "certificate must chain to.")
    private String tcpTlsCa;

    @Option(names = "--tcp-tls-cert", paramLabel = "PEM", description = "tcp sinks: client certificate (chain) for a "
            + "receiver that checks clients; with --tcp-tls-key.")
    private String tcpTlsCert;

    @Option(names = "--tcp-tls-key", paramLabel = "PEM", description = "tcp sinks: the client certificate's private "
            + "key (unencrypted PKCS#8, BEGIN PRIVATE KEY).")
    private String tcpTlsKey;

    @Option(names = "--tcp-token-file", paramLabel = "FILE", description = "tcp sinks: send the token in this file "
            + "(mode 600) to a receiver that requires one.")
    private String tcpTokenFile;

    @Option(names = "--kafka-compression", paramLabel = "CODEC", description = "kafka sinks: none, gzip, snappy, "
            + "lz4 (default) or zstd.")
    private String kafkaCompression;

    @Option(names = "--s3-endpoint", paramLabel = "URL", description = "s3 sinks: the server's URL (default "
            + "AWS_ENDPOINT_URL, else AWS); path-style addressing with it.")
    private String s3Endpoint;

    @Option(names = "--s3-region", paramLabel = "REGION", description = "s3 sinks: the region (default AWS_REGION, "
            + "the profile's, or us-east-1 with --s3-endpoint).")
    private String s3Region;

    @Option(names = "--s3-compression", paramLabel = "CODEC", description = "s3 sinks: none, gzip (default) or "
            + "zstd.")
    private String s3Compression;

    @Option(names = "--s3-object-size", paramLabel = "SIZE", description = "s3 sinks: cut an object at this many "
            + "source bytes (default 8MiB; 1MiB to 5GiB, at most half of max-in-flight).")
    private String s3ObjectSize;

    @Option(names = "--s3-part-size", paramLabel = "SIZE", description = "s3 sinks: an object whose stored bytes "
            + "pass this is uploaded in parts of this size while it fills (default 16MiB; 5MiB to 5GiB).")
    private String s3PartSize;

    @Option(names = "--s3-object-age", paramLabel = "DURATION", description = "s3 sinks: cut an object this long "
            + "after its first byte (default 60s).")
    private String s3ObjectAge;

    @Option(names = "--s3-shutdown-grace", paramLabel = "DURATION", description = "s3 sinks: how long a stop waits "
            + "for the last uploads (default 20s).")
    private String s3ShutdownGrace;

    @Option(names = "--once", description = "Ship everything present, then exit.")
    private boolean once;

    @Option(names = "--dry-run", description = "Print which files would be shipped from which offsets; change "
            + "nothing.")
    private boolean dryRun;

    @Override
    public Integer call() {
        CliException.requireSupportedPlatform();
        ShipConfig cfg = config();
        PrintWriter out = spec.commandLine().getOut();
        ShipLog log;
        try {
            log = ShipLog.stderr(ShipLog.Level.of(logLevel), ShipLog.Format.of(logFormat));
        } catch (IllegalArgumentException e) {
            throw new CliException(ExitCodes.USAGE, e.getMessage() + " (--log-level, --log-format)");
        }
        if (dryRun) {
            try {
                for (String line : Shipper.dryRun(cfg, log)) out.println(line);
            } catch (IOException e) {
                throw new CliException(ExitCodes.FAILED, "dry run failed: " + e.getMessage());
            }
            out.flush();
            return ExitCodes.OK;
        }
        Pipeline.Mode mode = once ? Pipeline.Mode.ONCE : Pipeline.Mode.RUN;
        Shipper shipper;
        try {
            shipper = Shipper.open(cfg, mode, log);
        } catch (StartException e) {
            throw new CliException(e.kind() == StartException.Kind.USAGE ? ExitCodes.USAGE : ExitCodes.ENVIRONMENT,
                    e.getMessage());
        }
        Reload reload = new Reload(log);
        AtomicReference<String> signal = new AtomicReference<>();
        AtomicReference<Shipper> running = new AtomicReference<>(shipper);
        Runnable undo = Signals.onTermination(name -> {
            if (signal.compareAndSet(null, name)) {
                log.info("signal", "signal", name, "action", "flush, checkpoint, exit 0");
                running.get().stop();
            }
        });
        Runnable undoHup = Signals.onHangup(() -> {
            if (once) {
                log.info("signal", "signal", "HUP", "action", "none: --once runs to its end");
            } else if (signal.get() == null && reload.request(this::config)) {
                running.get().stop();
            }
        });
        // A JVM shutdown that does not come through our handlers (System.exit elsewhere) still checkpoints.
        Thread hook = new Thread(() -> running.get().stop(), "jfio-ship-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        boolean ok;
        try {
            while (true) {
                ok = shipper.run();
                ShipConfig next = reload.take();
                if (next == null || !ok || signal.get() != null) break;
                shipper = reopen(next, cfg, mode, log);
                cfg = shipper.config();
                running.set(shipper);
                // A TERM, or another HUP, that came while the new shipper was opening stops it now.
                if (signal.get() != null || reload.pending()) shipper.stop();
            }
        } finally {
            undo.run();
            undoHup.run();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // Already shutting down: the hook has run or is running.
            }
        }
        if (!ok) throw new CliException(ExitCodes.FAILED, shipper.failure());
        List<String> unmatched = shipper.unmatched();
        if (once && !unmatched.isEmpty()) {
            throw new CliException(ExitCodes.NOTHING_MATCHED, "no file matched: " + String.join(" ", unmatched)
                    + " (--from, config keys from and inputs.paths)");
        }
        return ExitCodes.OK;
    }

    /**
     * Opens the shipper of a reloaded configuration; where that fails (a sink directory that cannot be used, a host
     * that does not resolve), logs why and goes on with the configuration that ran before.
     */
    private static Shipper reopen(ShipConfig next, ShipConfig previous, Pipeline.Mode mode, ShipLog log) {
        try {
            Shipper s = Shipper.open(next, mode, log);
            log.info("reloaded", "inputs", next.inputs().stream().map(i -> i.name()).toList(), "sinks",
                    next.sinks().keySet());
            return s;
        } catch (StartException e) {
            log.error("reload-failed", "error", e.getMessage(), "action", "running on with the previous configuration");
        }
        try {
            return Shipper.open(previous, mode, log);
        } catch (StartException e) {
            throw new CliException(e.kind() == StartException.Kind.USAGE ? ExitCodes.USAGE : ExitCodes.ENVIRONMENT,
                    "cannot start again after a reload: " + e.getMessage());
        }
    }

    /**
     * A SIGHUP's reload: the configuration is read again on the signal's thread; a valid one is kept for the command's
     * loop (which stops the running shipper gracefully and opens the new one), an invalid one is logged and changes
     * nothing.
     *
     * <p>Thread-safe: the signal thread requests, the command's thread takes.
     */
    static final class Reload {
        private final ShipLog log;
        private final AtomicReference<ShipConfig> pending = new AtomicReference<>();

        Reload(ShipLog log) {
            this.log = log;
        }

        /** Reads the configuration; true when it is valid and the running shipper should stop for it. */
        boolean request(java.util.function.Supplier<ShipConfig> read) {
            ShipConfig next;
            try {
                next = read.get();
            } catch (RuntimeException e) { // CliException: the configuration is invalid
                log.error("reload-refused", "signal", "HUP", "error", e.getMessage(), "action",
                        "running on with the configuration it has");
                return false;
            }
            log.info("signal", "signal", "HUP", "action", "drain, checkpoint, start again with the configuration"
                    + " read now");
            pending.set(next);
            return true;
        }

        /** Whether a reload is waiting to be taken. */
        boolean pending() {
            return pending.get() != null;
        }

        /** The configuration a reload asked for, once; null when none did. */
        ShipConfig take() {
            return pending.getAndSet(null);
        }
    }

    /** The command line's s3 settings, or null when it gives none. */
    private RawConfig.RawS3 s3() {
        if (s3Endpoint == null && s3Region == null && s3Compression == null && s3ObjectSize == null
                && s3PartSize == null && s3ObjectAge == null && s3ShutdownGrace == null) {
            return null;
        }
        return new RawConfig.RawS3(s3Endpoint, s3Region, null, null, null, null, null, null, null, null,
                s3ObjectSize, s3ObjectAge, s3Compression, null, s3ShutdownGrace, s3PartSize);
    }

    /** The command line's multiline settings, or null when it gives none. */
    private RawConfig.RawMultiline multiline() {
        if (multilinePreset == null && multilineStart == null && multilineContinue == null && multilineMaxLines == null
                && multilineMaxBytes == null && multilineTimeout == null) {
            return null;
        }
        return new RawConfig.RawMultiline(multilinePreset, multilineStart, multilineContinue, multilineMaxLines,
                multilineMaxBytes, multilineTimeout);
    }

    /** The command line's tcp settings, or null when it gives none. */
    private RawConfig.RawTcp tcp() {
        if (tcpTls == null && tcpTlsCa == null && tcpTlsCert == null && tcpTlsKey == null && tcpTokenFile == null) {
            return null;
        }
        return new RawConfig.RawTcp(tcpTls, tcpTlsCa, tcpTlsCert, tcpTlsKey, tcpTokenFile);
    }

    /** The configuration: the file's, with the command line's options over it. */
    ShipConfig config() {
        RawConfig file = RawConfig.empty();
        Path base = Path.of("").toAbsolutePath();
        try {
            if (config != null) file = ConfigLoader.load(config);
            RawConfig cli = new RawConfig(from, exclude, to, state, start, metrics, poll, framing, partialTimeout,
                    maxRecord, onOverlong, checkpointInterval, maxOpenFiles, rotateWait, bufferSize, segmentSize,
                    maxInFlight, tcpNoAck ? Boolean.FALSE : null, tcp(), kafkaCompression, null, null, null,
                    followSymlinks, owners, outputMode, s3(), ignoreOlder, multiline(), encoding, null,
                    fields == null ? null : new java.util.LinkedHashMap<>(fields), includeLines, excludeLines,
                    readGz);
            return ShipConfig.resolve(file.overriddenBy(cli), base);
        } catch (ConfigException e) {
            throw new CliException(ExitCodes.USAGE, e.getMessage());
        }
    }
}
