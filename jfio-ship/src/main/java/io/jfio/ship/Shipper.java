package io.jfio.ship;

import io.jfio.core.sys.ErrnoException;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import io.jfio.core.units.Units;
import io.jfio.ship.config.Framing;
import io.jfio.ship.config.InputConfig;
import io.jfio.ship.config.ShipConfig;
import io.jfio.ship.kafka.KafkaSinkFactory;
import io.jfio.ship.log.OsReason;
import io.jfio.ship.log.ShipLog;
import io.jfio.ship.metrics.MetricsServer;
import io.jfio.ship.metrics.ShipMetrics;
import io.jfio.ship.pipeline.DryRun;
import io.jfio.ship.pipeline.Pipeline;
import io.jfio.ship.s3.S3SinkFactory;
import io.jfio.ship.sink.Sink;
import io.jfio.ship.sink.SinkSpec;
import io.jfio.ship.sink.Sinks;
import io.jfio.ship.state.CheckpointStore;
import io.jfio.ship.state.StateDir;
import io.jfio.ship.state.StateLock;
import io.jfio.ship.tcp.TcpSinkFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The shipper: locks the state directory, opens every sink, runs one {@link Pipeline} per sink on its own platform
 * thread, serves metrics, and stops gracefully.
 *
 * <p>Thread-safe: {@link #run} blocks on one thread; {@link #stop} may be called from any thread (a signal
 * handler).
 */
public final class Shipper implements AutoCloseable {
    private final ShipConfig config;
    private final ShipLog log;
    private final ShipMetrics metrics = new ShipMetrics();
    private final StateDir stateDir;
    private final StateLock lock;
    private final List<Pipeline> pipelines = new ArrayList<>();
    private MetricsServer metricsServer;
    private final Pipeline.Mode mode;

    private Shipper(ShipConfig config, ShipLog log, Pipeline.Mode mode, StateDir stateDir, StateLock lock) {
        this.config = config;
        this.log = log;
        this.mode = mode;
        this.stateDir = stateDir;
        this.lock = lock;
    }

    /**
     * Prepares a run: locks the state directory, loads checkpoints, opens the sinks, starts the metrics server.
     * Nothing is read yet.
     *
     * @throws StartException when something the configuration names cannot be used: the message names it, its
     *                        option and key, and the reason; {@link StartException#kind()} says whose fault it is
     */
    public static Shipper open(ShipConfig config, Pipeline.Mode mode, ShipLog log) throws StartException {
        StateDir stateDir = openState(config.state());
        StateLock lock;
        try {
            lock = lockState(stateDir);
        } catch (StartException e) {
            stateDir.close();
            throw e;
        }
        Shipper s = new Shipper(config, log, mode, stateDir, lock);
        try {
            try {
                migrateCheckpointFiles(stateDir, config.sinks().keySet(), log);
            } catch (IOException e) {
                throw StartException.environment("cannot use state directory", config.state(),
                        StartException.STATE_KEY, e);
            }
            for (Map.Entry<String, SinkSpec> e : config.sinks().entrySet()) {
                List<InputConfig> inputs = config.inputsOf(e.getKey());
                if (inputs.isEmpty()) {
                    log.warn("sink-without-inputs", "sink", e.getKey(), "action", "not opened");
                    continue;
                }
                Sink sink = openSink(config, stateDir, e.getKey(), e.getValue(), inputs, log, s.metrics);
                try {
                    s.pipelines.add(new Pipeline(e.getKey(), inputs, config, sink,
                            new CheckpointStore(stateDir, checkpointFile(e.getKey())),
                            log, s.metrics, mode));
                } catch (IOException ex) {
                    closeQuietly(sink);
                    throw new StartException(StartException.Kind.ENVIRONMENT, "cannot start shipping to sink "
                            + e.getKey() + ": " + OsReason.withPath(ex), ex);
                } catch (RuntimeException ex) {
                    closeQuietly(sink);
                    throw ex;
                }
            }
            if (config.metrics() != null) {
                try {
                    s.metricsServer = new MetricsServer(config.metrics(), s.metrics, s::notReady);
                } catch (IOException e) {
                    throw StartException.environment("cannot serve metrics on", config.metrics().getHostString()
                            + ":" + config.metrics().getPort(), StartException.METRICS_KEY, e);
                }
                log.info("metrics", "address", config.metrics().getHostString() + ":" + s.metricsServer.port(),
                        "path", "/metrics", "also", "/metrics/files /health /ready");
            }
            return s;
        } catch (StartException | RuntimeException e) {
            for (Pipeline p : s.pipelines) {
                p.stop();
                p.run(); // stopping already: reads nothing, closes its sink
            }
            s.close();
            throw e;
        }
    }

    private static void closeQuietly(Sink sink) {
        try {
            sink.close();
        } catch (IOException | RuntimeException e) {
            // Failing to start already; the start's error is the one to report.
        }
    }

    /** Creates (mode 0700) and opens the state directory: its files are used relative to it from then on. */
    private static StateDir openState(Path state) throws StartException {
        try {
            io.jfio.ship.sink.PrivateDirs.create(state, 0700);
        } catch (IOException e) {
            throw StartException.environment("cannot create state directory", state, StartException.STATE_KEY, e);
        }
        try {
            return StateDir.open(state);
        } catch (IOException e) {
            throw StartException.environment("cannot use state directory", state, StartException.STATE_KEY, e);
        }
    }

    /** Locks the opened state directory. */
    private static StateLock lockState(StateDir stateDir) throws StartException {
        Path state = stateDir.path();
        try {
            return StateLock.acquire(stateDir, "lock", "state directory");
        } catch (StateLock.LockedException e) {
            throw new StartException(StartException.Kind.ENVIRONMENT, e.getMessage() + " ("
                    + StartException.STATE_KEY + ")", e);
        } catch (IOException e) {
            throw StartException.environment("cannot use state directory", state, StartException.STATE_KEY, e);
        }
    }

    /** Opens sink {@code name}: its hosts must resolve, its directory must be usable. */
    private static Sink openSink(ShipConfig config, StateDir stateDir, String name, SinkSpec spec,
                                 List<InputConfig> inputs, ShipLog log, ShipMetrics metrics) throws StartException {
        String key = StartException.sinkKey(name);
        try {
            Sinks.requireResolvable(spec);
        } catch (java.net.UnknownHostException e) {
            throw new StartException(StartException.Kind.ENVIRONMENT, "cannot resolve the host of sink " + name
                    + " " + spec + ": " + OsReason.of(e) + " (" + key + ")", e);
        }
        boolean raw = inputs.stream().allMatch(i -> i.framing() == Framing.RAW);
        try {
            return Sinks.open(spec, sinkOptions(config, stateDir, name, raw, log, metrics));
        } catch (StateLock.LockedException | Sinks.UnavailableException e) {
            throw new StartException(StartException.Kind.ENVIRONMENT, e.getMessage() + " (" + key + ")", e);
        } catch (IllegalArgumentException e) {
            throw new StartException(StartException.Kind.USAGE, e.getMessage() + " (" + key + ")", e);
        } catch (IOException e) {
            Object where = spec.scheme().equals(SinkSpec.DIR) ? spec.dir().toAbsolutePath().normalize() : spec;
            String what = spec.scheme().equals(SinkSpec.DIR) ? "cannot use sink directory" : "cannot open sink";
            throw StartException.environment(what, where, key, e);
        }
    }

    /** What the sinks take from {@code config}: the common options and each sink kind's settings. */
    private static Sinks.Options sinkOptions(ShipConfig config, StateDir stateDir, String name, boolean raw,
                                             ShipLog log, ShipMetrics metrics) {
        Map<Class<?>, Object> settings = Map.of(
                S3SinkFactory.Settings.class, new S3SinkFactory.Settings(config.s3(), stateDir, name, metrics),
                TcpSinkFactory.Settings.class, new TcpSinkFactory.Settings(config.tcpAck(), config.tcpSecurity()),
                KafkaSinkFactory.Settings.class, new KafkaSinkFactory.Settings(config.kafkaCompression(),
                        config.kafkaProperties()));
        return new Sinks.Options(config.segmentSize(), config.maxInFlight(name), config.bufferCapacity(), raw, log,
                config.outputMode(), settings);
    }

    /** The checkpoint store of sink {@code sink} in {@code state}. */
    public static CheckpointStore store(Path state, String sink) {
        return new CheckpointStore(state.resolve(checkpointFile(sink)));
    }

    /** The checkpoint file's name for sink {@code sink} ({@link CheckpointStore#fileName}). */
    public static String checkpointFile(String sink) {
        return CheckpointStore.fileName(sink);
    }

    /** The name earlier versions gave the file: not one-to-one (every other character became '_'). */
    static String legacyCheckpointFile(String sink) {
        return "checkpoints-" + sink.replaceAll("[^A-Za-z0-9_.-]", "_") + ".bin";
    }

    /**
     * Renames checkpoint files written under the earlier naming to the current one, where that is unambiguous: only
     * one configured sink maps to the old name and the new file does not exist yet. Where two do, neither gets it
     * (which sink wrote it cannot be told) and both start from their sinks' committed positions or as a new run.
     */
    static void migrateCheckpointFiles(StateDir dir, java.util.Collection<String> sinks, ShipLog log)
            throws IOException {
        Path state = dir.path();
        Map<String, List<String>> byLegacy = new java.util.HashMap<>();
        for (String sink : sinks) {
            byLegacy.computeIfAbsent(legacyCheckpointFile(sink), k -> new ArrayList<>()).add(sink);
        }
        for (Map.Entry<String, List<String>> e : byLegacy.entrySet()) {
            Path legacy = state.resolve(e.getKey());
            if (!Files.isRegularFile(legacy, java.nio.file.LinkOption.NOFOLLOW_LINKS)) continue;
            if (e.getValue().size() > 1) {
                log.warn("checkpoint-file-ambiguous", "file", legacy, "sinks", e.getValue(),
                        "consequence", "not used: it cannot be told which sink wrote it");
                continue;
            }
            String sink = e.getValue().get(0);
            Path now = state.resolve(checkpointFile(sink));
            if (now.equals(legacy) || Files.exists(now, java.nio.file.LinkOption.NOFOLLOW_LINKS)) continue;
            try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
                int r = LibC.renameat2(dir.fd(), arena.allocateFrom(e.getKey()), dir.fd(),
                        arena.allocateFrom(checkpointFile(sink)), Fcntl.RENAME_NOREPLACE);
                ErrnoException.check(r, "rename", -1, legacy.toString());
            }
            log.info("checkpoint-file-renamed", "sink", sink, "from", legacy, "to", now);
        }
    }

    /** Why the shipper is not ready: one line per pipeline that is not; empty when all are. Any thread. */
    public List<String> notReady() {
        List<String> problems = new ArrayList<>();
        for (Pipeline p : pipelines) {
            String why = p.notReady();
            if (why != null) problems.add(why);
        }
        return problems;
    }

    /** The configuration this shipper runs. */
    public ShipConfig config() {
        return config;
    }

    /** The metrics of this run. */
    public ShipMetrics metrics() {
        return metrics;
    }

    /** The port metrics are served on, or -1. */
    public int metricsPort() {
        return metricsServer == null ? -1 : metricsServer.port();
    }

    /**
     * Runs every pipeline until {@link #stop} (or, with {@code --once}, until everything present was shipped),
     * then releases everything.
     *
     * @return true when every file could be read and every pipeline ended cleanly
     */
    public boolean run() {
        log.info("start", "mode", mode, "state", config.state(), "sinks", config.sinks(), "inputs",
                config.inputs().stream().map(InputConfig::name).toList(), "change-detection",
                mode == Pipeline.Mode.ONCE ? "none (--once)" : config.poll() != null
                        ? "polling every " + Units.formatDuration(config.poll()) + " (--poll given)" : "inotify");
        List<Thread> threads = new ArrayList<>();
        for (Pipeline p : pipelines) {
            threads.add(Thread.ofPlatform().name("jfio-ship-" + p.name()).start(p::run));
        }
        for (Thread t : threads) {
            while (true) {
                try {
                    t.join();
                    break;
                } catch (InterruptedException e) {
                    stop();
                }
            }
        }
        boolean ok = true;
        for (Pipeline p : pipelines) {
            if (p.fatal() != null || p.checkpointFailure() != null) ok = false;
            if (mode == Pipeline.Mode.ONCE && p.fileErrors() > 0) ok = false;
        }
        ShipMetrics m = metrics();
        log.info("stop", "bytes-shipped", m.total(ShipMetrics.Counter.BYTES_SHIPPED), "records-shipped",
                m.total(ShipMetrics.Counter.RECORDS_SHIPPED), "ok", ok);
        close();
        return ok;
    }

    /** Why the run failed (a pipeline's fatal error, a checkpoint that could not be saved), or null. */
    public String failure() {
        for (Pipeline p : pipelines) {
            if (p.fatal() != null) return "sink=" + p.name() + " " + p.fatal();
        }
        for (Pipeline p : pipelines) {
            if (p.checkpointFailure() != null) return p.checkpointFailure();
        }
        for (Pipeline p : pipelines) {
            if (p.fileErrors() > 0) return "some files could not be read: sink=" + p.name() + " errors="
                    + p.fileErrors();
        }
        return null;
    }

    /** The input patterns that named no file when the run began, after {@link #run}. */
    public List<String> unmatched() {
        List<String> out = new ArrayList<>();
        for (Pipeline p : pipelines) out.addAll(p.unmatchedAtStart());
        return out;
    }

    /** Asks every pipeline to flush, checkpoint and end; returns at once. */
    public void stop() {
        for (Pipeline p : pipelines) p.stop();
    }

    @Override
    public void close() {
        if (metricsServer != null) metricsServer.close();
        lock.close();
        stateDir.close();
    }

    /** The dry-run report of {@code config}: one line per file, per sink. */
    public static List<String> dryRun(ShipConfig config, ShipLog log) throws IOException {
        List<String> out = new ArrayList<>();
        for (String sink : config.sinks().keySet()) {
            List<InputConfig> inputs = config.inputsOf(sink);
            if (inputs.isEmpty()) continue;
            SinkSpec spec = config.sinks().get(sink);
            // A directory sink's commit log and an s3 sink's journal say where files resume (exactly once); other
            // sinks have no positions.
            List<io.jfio.ship.state.Checkpoint> committed = spec.scheme().equals(SinkSpec.DIR)
                    ? io.jfio.ship.sink.DirSink.readCommitted(spec.dir())
                    : spec.scheme().equals(S3SinkFactory.SCHEME)
                    ? S3SinkFactory.readCommitted(spec, config.state(), sink, config.s3(), log) : null;
            out.addAll(DryRun.report(sink, inputs, config, store(config.state(), sink), committed, log));
        }
        return out;
    }
}
