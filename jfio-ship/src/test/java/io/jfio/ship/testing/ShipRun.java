package io.jfio.ship.testing;

import io.jfio.ship.Shipper;
import io.jfio.ship.config.ConfigException;
import io.jfio.ship.config.RawConfig;
import io.jfio.ship.config.ShipConfig;
import io.jfio.ship.log.ShipLog;
import io.jfio.ship.pipeline.Pipeline;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Test helpers: a configuration from a few settings, a shipper running in this JVM on its own thread, a child JVM.
 *
 * <p>Not thread-safe.
 */
public final class ShipRun implements AutoCloseable {
    /** What the shipper logged. */
    public final ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
    private final Shipper shipper;
    private final Thread thread;
    private volatile boolean ok;

    private ShipRun(ShipConfig cfg) throws IOException {
        ShipLog log = new ShipLog(new PrintStream(logBytes, true, StandardCharsets.UTF_8), true);
        shipper = Shipper.open(cfg, Pipeline.Mode.RUN, log);
        thread = Thread.ofPlatform().name("test-shipper").start(() -> ok = shipper.run());
    }

    /** Starts a shipper in this JVM. */
    public static ShipRun start(ShipConfig cfg) throws IOException {
        return new ShipRun(cfg);
    }

    /** Runs a shipper with --once in this JVM; returns whether it succeeded, log in {@code log}. */
    public static boolean once(ShipConfig cfg, ByteArrayOutputStream log) throws IOException {
        Shipper s = Shipper.open(cfg, Pipeline.Mode.ONCE, new ShipLog(new PrintStream(log, true,
                StandardCharsets.UTF_8), true));
        return s.run();
    }

    /** The running shipper. */
    public Shipper shipper() {
        return shipper;
    }

    /** The log so far. */
    public String log() {
        return logBytes.toString(StandardCharsets.UTF_8);
    }

    /** Stops gracefully and waits. */
    @Override
    public void close() throws InterruptedException {
        shipper.stop();
        thread.join(60_000);
        if (thread.isAlive()) throw new AssertionError("shipper did not stop");
    }

    /** Whether the run ended cleanly (after {@link #close}). */
    public boolean ok() {
        return ok;
    }

    /**
     * A configuration: {@code from} globs to {@code dir:out} (or {@code extra}'s {@code to}), state in {@code state},
     * inotify (unless {@code extra} sets {@code poll}), rotate-wait 300ms, checkpoint after every acknowledgement,
     * and {@code extra} settings (kebab-case keys of {@link RawConfig}).
     */
    public static ShipConfig config(List<String> from, Path out, Path state, Map<String, String> extra)
            throws ConfigException {
        Map<String, String> e = new java.util.HashMap<>(Map.of("rotate-wait", "300ms", "checkpoint-interval", "0"));
        e.putAll(extra);
        RawConfig raw = new RawConfig(from, null, e.getOrDefault("to", "dir:" + out), state.toString(), e.get("start"),
                e.get("metrics"),
                e.get("poll"), e.get("framing"), e.get("partial-timeout"), e.get("max-record"), e.get("on-overlong"),
                e.get("checkpoint-interval"), e.containsKey("max-open-files")
                        ? Integer.parseInt(e.get("max-open-files")) : null, e.get("rotate-wait"),
                e.get("buffer-size"), e.get("segment-size"), e.get("max-in-flight"),
                e.containsKey("tcp-ack") ? Boolean.valueOf(e.get("tcp-ack")) : null, tcp(e), e.get("kafka-compression"),
                kafkaProperties(e), null, null,
                e.containsKey("follow-symlinks") ? Boolean.valueOf(e.get("follow-symlinks")) : null,
                e.containsKey("owners") ? List.of(e.get("owners").split(",")) : null, e.get("output-mode"), s3(e),
                e.get("ignore-older"), multiline(e), e.get("encoding"), prefixed(e, "encodings."),
                prefixed(e, "fields."), e.containsKey("include-lines") ? List.of(e.get("include-lines")) : null,
                e.containsKey("exclude-lines") ? List.of(e.get("exclude-lines")) : null,
                e.containsKey("read-gz") ? Boolean.valueOf(e.get("read-gz")) : null);
        return ShipConfig.resolve(raw, Path.of("/"));
    }

    /** The settings of {@code extra} whose keys start with {@code prefix}, without it (in key order), or null. */
    private static Map<String, String> prefixed(Map<String, String> e, String prefix) {
        Map<String, String> m = new java.util.TreeMap<>();
        e.forEach((k, v) -> {
            if (k.startsWith(prefix)) m.put(k.substring(prefix.length()), v);
        });
        return m.isEmpty() ? null : m;
    }

    /** The {@code multiline.*} settings of {@code extra} (multiline.preset, multiline.start-pattern, ...), or null. */
    private static RawConfig.RawMultiline multiline(Map<String, String> e) {
        if (e.keySet().stream().noneMatch(k -> k.startsWith("multiline."))) return null;
        return new RawConfig.RawMultiline(e.get("multiline.preset"), e.get("multiline.start-pattern"),
                e.get("multiline.continue-pattern"), e.containsKey("multiline.max-lines")
                        ? Integer.valueOf(e.get("multiline.max-lines")) : null, e.get("multiline.max-bytes"),
                e.get("multiline.timeout"));
    }

    /** The {@code tcp.*} settings of {@code extra} (tcp.tls, tcp.tls-ca, ...), or null. */
    private static RawConfig.RawTcp tcp(Map<String, String> e) {
        if (e.keySet().stream().noneMatch(k -> k.startsWith("tcp."))) return null;
        return new RawConfig.RawTcp(e.containsKey("tcp.tls") ? Boolean.valueOf(e.get("tcp.tls")) : null,
                e.get("tcp.tls-ca"), e.get("tcp.tls-cert"), e.get("tcp.tls-key"), e.get("tcp.token-file"));
    }

    /** The {@code s3.*} settings of {@code extra} (s3.endpoint, s3.compression, ...), or null. */
    private static RawConfig.RawS3 s3(Map<String, String> e) {
        if (e.keySet().stream().noneMatch(k -> k.startsWith("s3."))) return null;
        return new RawConfig.RawS3(e.get("s3.endpoint"), e.get("s3.region"),
                e.containsKey("s3.path-style") ? Boolean.valueOf(e.get("s3.path-style")) : null, e.get("s3.access-key"),
                e.get("s3.secret-key"), e.get("s3.session-token"), e.get("s3.profile"), e.get("s3.storage-class"),
                e.get("s3.sse"), e.get("s3.sse-kms-key-id"), e.get("s3.object-size"), e.get("s3.object-age"),
                e.get("s3.compression"), e.get("s3.key-template"), e.get("s3.shutdown-grace"),
                e.get("s3.part-size"));
    }

    /** The {@code kafka.*} settings of {@code extra}, without the prefix, or null. */
    private static Map<String, String> kafkaProperties(Map<String, String> extra) {
        Map<String, String> m = new java.util.HashMap<>();
        extra.forEach((k, v) -> {
            if (k.startsWith("kafka.")) m.put(k.substring("kafka.".length()), v);
        });
        return m.isEmpty() ? null : m;
    }

    /** A child JVM running {@code main} with this test's class path. */
    public static ProcessBuilder java(Class<?> main, List<String> jvmArgs, String... args) {
        String java = ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"),
                "bin", "java").toString());
        List<String> cmd = new ArrayList<>();
        cmd.add(java);
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.addAll(jvmArgs);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(main.getName());
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd);
    }

    /**
     * Starts a {@link ShipMain} process from {@code pb} (its stderr redirected by the caller to {@code err}) and
     * returns it once it has said it started; fails with the tail of {@code err} (and kills it) when it does not.
     */
    public static Process started(ProcessBuilder pb, Path err) throws IOException {
        Process p = pb.start();
        String said = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream(),
                StandardCharsets.US_ASCII)).readLine();
        if (!"started".equals(said)) {
            p.destroyForcibly();
            throw new AssertionError("the shipper did not start (it said " + said + "): " + tail(err, 20));
        }
        return p;
    }

    /** The last {@code lines} lines of a text file (a process's output), for a failure message; empty if none. */
    public static String tail(Path file, int lines) throws IOException {
        if (!Files.exists(file)) return "";
        List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
        return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    }

    /**
     * What TCP receivers wrote into {@code dirs} (one file per connection; a directory that does not exist is
     * skipped), each file cut after its last newline: a connection cut mid-record leaves an unacknowledged tail.
     */
    public static String received(Path... dirs) throws IOException {
        StringBuilder sb = new StringBuilder();
        for (Path d : dirs) {
            if (!Files.isDirectory(d)) continue;
            try (java.util.stream.Stream<Path> s = Files.list(d)) {
                for (Path f : s.sorted().toList()) {
                    String text = Files.readString(f, StandardCharsets.US_ASCII);
                    sb.append(text, 0, text.lastIndexOf('\n') + 1);
                }
            }
        }
        return sb.toString();
    }

    /** Runs a {@link Writer} to the end; fails when it fails. */
    public static void write(Path file, String mode, int total, int every, Path sink, long pauseMicros)
            throws IOException, InterruptedException {
        Process p = java(Writer.class, List.of(), file.toString(), mode, Integer.toString(total),
                Integer.toString(every), sink == null ? "-" : sink.toString(), Long.toString(pauseMicros))
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) throw new AssertionError("writer failed: " + out);
    }
}
