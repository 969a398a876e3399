package io.jfio.ship.config;

import io.jfio.core.units.Units;
import io.jfio.ship.sink.RecordView;
import io.jfio.ship.sink.SinkSpec;
import io.jfio.ship.tcp.TcpSecurity;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The shipper's checked configuration: inputs, sinks, state directory and tuning, with defaults filled in.
 *
 * <p>Immutable. Made by {@link #resolve} from a {@link RawConfig} (a file, the command line, or both merged).
 *
 * @param inputs             the inputs, each naming one of {@code sinks}
 * @param sinks              the sinks by name, in the order given
 * @param state              the state directory (checkpoints, lock)
 * @param metrics            where to serve Prometheus metrics, or null
 * @param poll               poll interval when polling is forced, or null to watch with inotify
 * @param maxRecord          the longest line in bytes (without its newline)
 * @param onOverlong         what happens to longer lines
 * @param checkpointInterval at most this often a checkpoint is written (zero: after every acknowledgement)
 * @param maxOpenFiles       at most this many source files are open at once (idle ones are closed first)
 * @param rotateWait         a file renamed out of the inputs is kept open this long after it last grew
 * @param bufferSize         how much one read asks for; the buffer itself is {@link #bufferCapacity()}
 * @param segmentSize        the dir sink's segment size
 * @param maxInFlight        unacknowledged bytes per sink before reading pauses, as set; 0 when not set: each sink
 *                           then has its kind's default ({@link #maxInFlight(String)})
 * @param tcpAck             whether tcp sinks wait for the receiver's acknowledgement of durable bytes
 * @param tcpSecurity        TLS and token of tcp sinks
 * @param kafkaCompression   the kafka sinks' compression codec
 * @param kafkaProperties    further producer properties of kafka sinks, applied over the sink's own
 * @param outputMode         permission bits of the files the sinks create (segments); their directories get the
 *                           same bits plus x wherever r is set
 * @param s3                 how s3 sinks reach their server and cut their objects
 * @param encodings          how each sink delivers records (every sink has one; raw by default)
 */
public record ShipConfig(List<InputConfig> inputs, Map<String, SinkSpec> sinks, Path state,
                         InetSocketAddress metrics, Duration poll, long maxRecord, Overlong onOverlong,
                         Duration checkpointInterval, int maxOpenFiles, Duration rotateWait, long bufferSize,
                         long segmentSize, long maxInFlight, boolean tcpAck, TcpSecurity tcpSecurity,
                         String kafkaCompression, Map<String, String> kafkaProperties, int outputMode,
                         io.jfio.ship.s3.S3Settings s3, Map<String, RecordView.Encoding> encodings) {
    /** The default mode of files the sinks create: the shipper's user only. */
    public static final int OUTPUT_MODE_DEFAULT = 0600;
    /** The default longest line. */
    public static final long MAX_RECORD_DEFAULT = 1L << 20;
    /**
     * The default read size: 1 MiB. A read's bytes are copied in by pread, scanned for newlines and copied out by the
     * sink (pwrite, or the Kafka producer), so they pass the CPU three times; 1 MiB stays in a core's L2 cache
     * between the three, larger reads do not and are slower (docs/measurements/ship-throughput.md).
     */
    public static final long BUFFER_SIZE_DEFAULT = 1L << 20;
    /** The default segment size of the dir sink. */
    public static final long SEGMENT_SIZE_DEFAULT = 128L << 20;
    /** The default bound on unacknowledged bytes of a dir, tcp or stdout sink. */
    public static final long MAX_IN_FLIGHT_DEFAULT = 64L << 20;
    /** The default bytes in flight of an s3 sink. */
    public static final long MAX_IN_FLIGHT_S3_DEFAULT = 32L << 20;
    /** The default bytes in flight of a kafka sink. */
    public static final long MAX_IN_FLIGHT_KAFKA_DEFAULT = 8L << 20;
    /** The default checkpoint interval. */
    public static final Duration CHECKPOINT_INTERVAL_DEFAULT = Duration.ofMillis(200);
    /** The default cap on open source files. */
    public static final int MAX_OPEN_FILES_DEFAULT = 1024;
    /** The default time a renamed-away file stays open after it last grew. */
    public static final Duration ROTATE_WAIT_DEFAULT = Duration.ofSeconds(5);
    /** The default compression of kafka sinks. */
    public static final String KAFKA_COMPRESSION_DEFAULT = "lz4";
    /** The name of the input and sink that {@code --from}/{@code --to} (and {@code from}/{@code to}) make. */
    public static final String MAIN = "main";

    /**
     * The read buffer's size: {@link #bufferSize()}, or more where a line of {@code max-record} bytes and its newline
     * would not fit in it (a read that finds no newline reads on into the rest of the buffer, so such a line can
     * still be framed).
     */
    public long bufferCapacity() {
        long record = maxRecord;
        for (InputConfig in : inputs) {
            // A multiline record that ends only at its limit must fit too.
            if (in.multiline() != null) record = Math.max(record, in.multiline().maxBytes());
        }
        return Math.max(bufferSize, record + 1);
    }

    public ShipConfig {
        inputs = List.copyOf(inputs);
        sinks = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(sinks));
        kafkaProperties = Map.copyOf(kafkaProperties);
        encodings = Map.copyOf(encodings);
    }

    /** How sink {@code name} delivers records. */
    public RecordView.Encoding encodingOf(String name) {
        return encodings.getOrDefault(name, RecordView.Encoding.RAW);
    }

    /**
     * Checks a raw configuration and fills in defaults.
     *
     * @param raw  the configuration (a file's, a command line's, or one merged over the other)
     * @param base relative paths and globs are resolved against this directory
     * @throws ConfigException naming the first problem found
     */
    public static ShipConfig resolve(RawConfig raw, Path base) throws ConfigException {
        Map<String, SinkSpec> sinks = new LinkedHashMap<>();
        if (raw.to() != null) sinks.put(MAIN, sink(MAIN, raw.to()));
        if (raw.sinks() != null) {
            for (Map.Entry<String, String> e : raw.sinks().entrySet()) {
                if (e.getValue() == null) throw new ConfigException("sink without a spec: sink=" + e.getKey());
                if (sinks.containsKey(e.getKey())) {
                    throw new ConfigException("sink defined twice: sink=" + e.getKey());
                }
                sinks.put(e.getKey(), sink(e.getKey(), e.getValue()));
            }
        }
        if (sinks.isEmpty()) {
            throw new ConfigException("no sink: give --to SINK (dir:PATH, tcp:HOST:PORT, kafka:BOOTSTRAP/TOPIC, "
                    + "s3://BUCKET/PREFIX, stdout:) or 'to'/'sinks' in the config file");
        }
        if (raw.state() == null || raw.state().isBlank()) {
            throw new ConfigException("no state directory: give --state DIR or 'state' in the config file");
        }
        Framing framing = raw.framing() == null ? Framing.LINES : enumValue(Framing.class, "framing", raw.framing());
        Start start = raw.start() == null ? Start.BEGINNING : enumValue(Start.class, "start", raw.start());
        Duration partial = raw.partialTimeout() == null ? null : duration("partial-timeout", raw.partialTimeout());
        boolean follow = raw.followSymlinks() != null && raw.followSymlinks();
        Set<Integer> owners = owners(raw.owners());
        Duration older = raw.ignoreOlder() == null ? null : positive("ignore-older", raw.ignoreOlder());
        Multiline multiline = multiline(raw.multiline());
        Map<String, String> fields = fields(raw.fields(), Map.of());
        List<String> include = patterns("include-lines", raw.includeLines(), List.of());
        List<String> excludeLines = patterns("exclude-lines", raw.excludeLines(), List.of());
        boolean readGz = raw.readGz() != null && raw.readGz();

        List<InputConfig> inputs = new ArrayList<>();
        Set<String> names = new LinkedHashSet<>();
        if (raw.from() != null && !raw.from().isEmpty()) {
            inputs.add(input(MAIN, true, raw.from(), raw.exclude(), framing, start, partial, null, sinks, base,
                    follow, owners, older, new Records(multiline, fields, include, excludeLines, readGz)));
            names.add(MAIN);
        } else if (raw.exclude() != null && !raw.exclude().isEmpty()) {
            throw new ConfigException("exclude without from: excludes of a config input go inside 'inputs'");
        }
        if (raw.inputs() != null) {
            int i = 0;
            for (RawConfig.RawInput in : raw.inputs()) {
                i++;
                if (in == null) throw new ConfigException("empty input: input=" + i);
                String name = in.name() != null ? in.name() : "input-" + i;
                if (!names.add(name)) throw new ConfigException("input defined twice: input=" + name);
                Framing f = in.framing() == null ? framing : enumValue(Framing.class, "framing", in.framing());
                Start s = in.start() == null ? start : enumValue(Start.class, "start", in.start());
                Duration p = in.partialTimeout() == null ? partial : duration("partial-timeout", in.partialTimeout());
                boolean fl = in.followSymlinks() == null ? follow : in.followSymlinks();
                Set<Integer> ow = in.owners() == null ? owners : owners(in.owners());
                Duration io = in.ignoreOlder() == null ? older : positive("ignore-older", in.ignoreOlder());
                Multiline ml = in.multiline() == null ? multiline
                        : multiline(RawConfig.RawMultiline.pick(in.multiline(), raw.multiline()));
                Records rec = new Records(ml, fields(in.fields(), fields),
                        patterns("include-lines", in.includeLines(), include),
                        patterns("exclude-lines", in.excludeLines(), excludeLines),
                        in.readGz() == null ? readGz : in.readGz());
                inputs.add(input(name, false, in.paths(), in.exclude(), f, s, p, in.sink(), sinks, base, fl, ow, io,
                        rec));
            }
        }
        if (inputs.isEmpty()) {
            throw new ConfigException("no input: give --from GLOB or 'from'/'inputs' in the config file");
        }
        Path state = base.resolve(raw.state()).normalize();
        // What the shipper writes is never shipped, even where a glob reaches it (a sink below the logs it ships).
        List<Path> own = new ArrayList<>(List.of(state));
        for (SinkSpec s : sinks.values()) {
            if (s.scheme().equals(SinkSpec.DIR)) own.add(s.dir());
        }
        inputs.replaceAll(in -> in.withOwnDirs(own));

        InetSocketAddress metrics = raw.metrics() == null || raw.metrics().trim().equals("false") ? null
                : metrics(raw.metrics());
        Duration poll = raw.poll() == null ? null : duration("poll", raw.poll());
        if (poll != null && (poll.isZero() || poll.compareTo(Duration.ofHours(1)) > 0)) {
            throw new ConfigException("poll interval out of range: poll=" + raw.poll() + " (1ms to 1h)");
        }
        long maxRecord = raw.maxRecord() == null ? MAX_RECORD_DEFAULT : size("max-record", raw.maxRecord());
        if (maxRecord < 64 || maxRecord > (1L << 30)) {
            throw new ConfigException("max-record out of range: max-record=" + raw.maxRecord() + " (64B to 1GiB)");
        }
        Overlong overlong = raw.onOverlong() == null ? Overlong.SPLIT
                : enumValue(Overlong.class, "on-overlong", raw.onOverlong());
        Duration checkpoint = raw.checkpointInterval() == null ? CHECKPOINT_INTERVAL_DEFAULT
                : duration("checkpoint-interval", raw.checkpointInterval());
        int maxOpen = raw.maxOpenFiles() == null ? MAX_OPEN_FILES_DEFAULT : raw.maxOpenFiles();
        if (maxOpen < 1) throw new ConfigException("max-open-files must be at least 1: max-open-files=" + maxOpen);
        Duration rotateWait = raw.rotateWait() == null ? ROTATE_WAIT_DEFAULT : duration("rotate-wait",
                raw.rotateWait());
        long buffer = raw.bufferSize() == null ? BUFFER_SIZE_DEFAULT : size("buffer-size", raw.bufferSize());
        if (buffer < 4096 || buffer > (1L << 31)) {
            throw new ConfigException("buffer-size out of range: buffer-size=" + raw.bufferSize() + " (4KiB to 2GiB)");
        }
        long segment = raw.segmentSize() == null ? SEGMENT_SIZE_DEFAULT : size("segment-size", raw.segmentSize());
        if (segment < 4096) throw new ConfigException("segment-size too small: segment-size=" + raw.segmentSize());
        // Not set: each sink gets its kind's default (maxInFlight(String)).
        long inFlight = raw.maxInFlight() != null ? size("max-in-flight", raw.maxInFlight()) : 0;
        if (raw.maxInFlight() != null && inFlight < 1) {
            throw new ConfigException("max-in-flight must be positive: max-in-flight=" + inFlight);
        }
        boolean tcpAck = raw.tcpAck() == null || raw.tcpAck();
        TcpSecurity tcpSecurity = tcpSecurity(raw.tcp(), tcpAck, base);
        String compression = raw.kafkaCompression() == null ? KAFKA_COMPRESSION_DEFAULT
                : raw.kafkaCompression().trim().toLowerCase(Locale.ROOT);
        if (!List.of("none", "gzip", "snappy", "lz4", "zstd").contains(compression)) {
            throw new ConfigException("invalid kafka-compression: value='" + raw.kafkaCompression()
                    + "' (one of [none, gzip, snappy, lz4, zstd])");
        }
        int outputMode = raw.outputMode() == null ? OUTPUT_MODE_DEFAULT : mode(raw.outputMode());
        return new ShipConfig(inputs, sinks, state, metrics, poll, maxRecord,
                overlong, checkpoint, maxOpen, rotateWait, buffer, segment, inFlight, tcpAck, tcpSecurity,
                compression, raw.kafkaProperties() == null ? Map.of() : raw.kafkaProperties(), outputMode,
                s3(raw.s3()), encodings(raw.encoding(), raw.encodings(), sinks, inputs));
    }

    /**
     * The unacknowledged bytes of sink {@code sink} before its reading pauses: {@code max-in-flight} when it is set,
     * else the default of the sink's kind. An s3 sink holds those bytes in memory (its objects being filled and
     * uploaded), and its four uploads at once keep the link busy with 32 MiB; a kafka sink's producer holds its
     * records in the heap with objects of their own (counted as the sink's overhead), and 8 MiB, its
     * buffer.memory, keeps them within bin/jfio's heap and ships as fast as more against a broker; the other sinks
     * hold nothing of what is in flight (the files are the buffer) and get 64 MiB, as does a name that is no sink's.
     */
    public long maxInFlight(String sink) {
        if (maxInFlight > 0) return maxInFlight;
        SinkSpec spec = sinks.get(sink);
        if (spec == null) return MAX_IN_FLIGHT_DEFAULT;
        return switch (spec.scheme()) {
            case "kafka" -> MAX_IN_FLIGHT_KAFKA_DEFAULT;
            case "s3" -> MAX_IN_FLIGHT_S3_DEFAULT;
            default -> MAX_IN_FLIGHT_DEFAULT;
        };
    }

    /** The {@code s3:} section checked, with defaults. */
    private static io.jfio.ship.s3.S3Settings s3(RawConfig.RawS3 s) throws ConfigException {
        if (s == null) return io.jfio.ship.s3.S3Settings.defaults();
        try {
            return new io.jfio.ship.s3.S3Settings(blank(s.endpoint()), blank(s.region()), s.pathStyle(),
                    blank(s.accessKey()), blank(s.secretKey()), blank(s.sessionToken()), blank(s.profile()),
                    blank(s.storageClass()), blank(s.sse()), blank(s.sseKmsKeyId()),
                    s.objectSize() == null ? io.jfio.ship.s3.S3Settings.OBJECT_SIZE_DEFAULT
                            : size("s3.object-size", s.objectSize()),
                    s.objectAge() == null ? io.jfio.ship.s3.S3Settings.OBJECT_AGE_DEFAULT
                            : duration("s3.object-age", s.objectAge()),
                    s.compression() == null ? null : s.compression().trim(), s.keyTemplate(),
                    s.shutdownGrace() == null ? io.jfio.ship.s3.S3Settings.SHUTDOWN_GRACE_DEFAULT
                            : duration("s3.shutdown-grace", s.shutdownGrace()),
                    s.partSize() == null ? io.jfio.ship.s3.S3Settings.PART_SIZE_DEFAULT
                            : size("s3.part-size", s.partSize()));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(e.getMessage());
        }
    }

    private static String blank(String v) {
        return v == null || v.isBlank() ? null : v.trim();
    }

    private static int mode(String text) throws ConfigException {
        String t = text.trim();
        if (!t.matches("0?[0-7]{3}")) {
            throw new ConfigException("invalid output-mode: value='" + text + "' (octal permission bits, e.g. 0600 "
                    + "or 0640)");
        }
        int m = Integer.parseInt(t, 8);
        if ((m & 0600) != 0600) {
            throw new ConfigException("invalid output-mode: value='" + text + "' (the shipper must be able to read "
                    + "and write what it creates: 0600 at least)");
        }
        return m;
    }

    /** User names or numeric IDs to user IDs; a name no user has is an error. */
    private static Set<Integer> owners(List<String> names) throws ConfigException {
        if (names == null) return Set.of();
        Set<Integer> out = new LinkedHashSet<>();
        for (String n : names) {
            String t = n == null ? "" : n.trim();
            if (t.matches("[0-9]{1,10}")) {
                long uid = Long.parseLong(t);
                if (uid > 0xFFFF_FFFEL) throw new ConfigException("invalid owners: user id out of range: " + t);
                out.add((int) uid);
                continue;
            }
            java.util.OptionalInt uid = io.jfio.core.sys.Users.uid(t);
            if (uid.isEmpty()) throw new ConfigException("invalid owners: no such user: '" + t + "'");
            out.add(uid.getAsInt());
        }
        return out;
    }

    /**
     * One input checked; {@code top}: the one that {@code from} and {@code exclude} (top level, or the options) make,
     * else one of {@code inputs}.
     */
    private static InputConfig input(String name, boolean top, List<String> paths, List<String> exclude,
                                     Framing framing, Start start, Duration partial, String sink,
                                     Map<String, SinkSpec> sinks, Path base, boolean follow, Set<Integer> owners,
                                     Duration ignoreOlder, Records records) throws ConfigException {
        Multiline multiline = records.multiline();
        if (paths == null || paths.isEmpty()) throw new ConfigException("input without paths: input=" + name);
        List<String> abs = new ArrayList<>();
        for (String p : paths) {
            if (p == null || p.isBlank()) throw new ConfigException("empty path: input=" + name);
            String a = p.startsWith("/") ? p : base.resolve(p).toString();
            globProblem(io.jfio.ship.pipeline.Glob.problem(a), top ? "from" : "inputs.paths", name, p);
            abs.add(a);
        }
        if (exclude != null) {
            for (String e : exclude) {
                if (e == null) {
                    throw new ConfigException("empty exclude pattern: input=" + name
                            + (top ? " (--exclude, config key exclude)" : " (config key inputs.exclude)"));
                }
                globProblem(io.jfio.ship.pipeline.Glob.excludeProblem(e), top ? "exclude" : "inputs.exclude", name, e);
            }
        }
        String target = sink;
        if (target == null) {
            if (sinks.size() != 1) {
                throw new ConfigException("input names no sink and there are several: input=" + name + " sinks="
                        + sinks.keySet());
            }
            target = sinks.keySet().iterator().next();
        } else if (!sinks.containsKey(target)) {
            throw new ConfigException("input names an unknown sink: input=" + name + " sink=" + target
                    + " sinks=" + sinks.keySet());
        }
        if (multiline != null && framing != Framing.LINES) {
            throw new ConfigException("multiline needs framing lines: input=" + name + " framing="
                    + framing.name().toLowerCase(Locale.ROOT));
        }
        if ((!records.include().isEmpty() || !records.exclude().isEmpty()) && framing != Framing.LINES) {
            throw new ConfigException("include-lines and exclude-lines need framing lines: input=" + name);
        }
        if (records.readGz() && framing != Framing.LINES) {
            throw new ConfigException("read-gz needs framing lines: input=" + name);
        }
        return new InputConfig(name, abs, exclude == null ? List.of() : exclude, framing, start, partial, target,
                follow, owners, ignoreOlder, multiline, records.fields(), records.include(), records.exclude(),
                records.readGz());
    }

    /** Fails naming the key, the input and the glob when {@code problem} says what is wrong with it. */
    private static void globProblem(String problem, String key, String input, String glob) throws ConfigException {
        if (problem == null) return;
        String option = key.equals("from") ? "--from, config key from"
                : key.equals("exclude") ? "--exclude, config key exclude" : "config key " + key;
        throw new ConfigException("invalid glob: input=" + input + " " + key + "='" + glob + "': " + problem + " ("
                + option + ")");
    }

    /** An input's record settings, resolved. */
    private record Records(Multiline multiline, Map<String, String> fields, List<String> include,
                           List<String> exclude, boolean readGz) {
    }

    /** Static fields: {@code base} with {@code own} over it, in order; names must be non-empty. */
    private static Map<String, String> fields(Map<String, String> own, Map<String, String> base)
            throws ConfigException {
        if (own == null) return base;
        Map<String, String> out = new LinkedHashMap<>(base);
        for (Map.Entry<String, String> e : own.entrySet()) {
            if (e.getKey() == null || e.getKey().isBlank()) throw new ConfigException("invalid fields: empty name");
            if (e.getValue() == null) {
                throw new ConfigException("invalid fields: no value: field=" + e.getKey());
            }
            out.put(e.getKey(), e.getValue());
        }
        return out;
    }

    /** Line filter expressions, each checked; {@code base} when none are given. */
    private static List<String> patterns(String key, List<String> own, List<String> base) throws ConfigException {
        if (own == null) return base;
        for (String p : own) {
            if (p == null || p.isEmpty()) throw new ConfigException("invalid " + key + ": empty pattern");
            try {
                Multiline.compile(key, p);
            } catch (IllegalArgumentException e) {
                throw new ConfigException(e.getMessage());
            }
        }
        return List.copyOf(own);
    }

    /** Every sink's encoding: {@code encodings}' entry, else {@code encoding}, else raw; checked against the kind. */
    private static Map<String, RecordView.Encoding> encodings(String encoding, Map<String, String> encodings,
                                                              Map<String, SinkSpec> sinks, List<InputConfig> inputs)
            throws ConfigException {
        RecordView.Encoding all = encoding == null ? RecordView.Encoding.RAW
                : enumValue(RecordView.Encoding.class, "encoding", encoding);
        Map<String, RecordView.Encoding> out = new LinkedHashMap<>();
        if (encodings != null) {
            for (Map.Entry<String, String> e : encodings.entrySet()) {
                if (!sinks.containsKey(e.getKey())) {
                    throw new ConfigException("encodings names an unknown sink: sink=" + e.getKey() + " sinks="
                            + sinks.keySet());
                }
                if (e.getValue() == null) throw new ConfigException("encodings: no encoding: sink=" + e.getKey());
            }
        }
        for (Map.Entry<String, SinkSpec> s : sinks.entrySet()) {
            String own = encodings == null ? null : encodings.get(s.getKey());
            RecordView.Encoding enc = own == null ? all : enumValue(RecordView.Encoding.class, "encoding", own);
            String kind = s.getValue().scheme();
            if (enc == RecordView.Encoding.HEADERS && !kind.equals("kafka")) {
                if (own == null && encoding != null) {
                    throw new ConfigException("encoding headers is for kafka sinks only: sink=" + s.getKey()
                            + " (give kafka sinks theirs in 'encodings')");
                }
                throw new ConfigException("encoding headers is for kafka sinks only: sink=" + s.getKey());
            }
            for (InputConfig in : inputs) {
                if (in.sink().equals(s.getKey()) && in.framing() == Framing.RAW && enc != RecordView.Encoding.RAW) {
                    throw new ConfigException("encoding " + enc.name().toLowerCase(Locale.ROOT) + " needs records: "
                            + "input=" + in.name() + " has framing raw, sink=" + s.getKey());
                }
            }
            out.put(s.getKey(), enc);
        }
        return out;
    }

    /** The {@code multiline:} section checked, with defaults; null when there is none. */
    private static Multiline multiline(RawConfig.RawMultiline m) throws ConfigException {
        if (m == null) return null;
        int given = (m.preset() == null ? 0 : 1) + (m.startPattern() == null ? 0 : 1)
                + (m.continuePattern() == null ? 0 : 1);
        if (given != 1) {
            throw new ConfigException("multiline needs exactly one of preset, start-pattern and continue-pattern "
                    + "(--multiline, --multiline-start, --multiline-continue): given=" + given);
        }
        Multiline.Mode mode;
        String preset = null;
        String pattern = null;
        if (m.preset() != null) {
            preset = m.preset().trim().toLowerCase(Locale.ROOT);
            if (preset.equals(Multiline.JAVA)) {
                mode = Multiline.Mode.CONTINUE;
            } else if (preset.equals(Multiline.ISO8601)) {
                mode = Multiline.Mode.START;
            } else {
                throw new ConfigException("invalid multiline preset: value='" + m.preset() + "' (one of [java, "
                        + "iso8601])");
            }
        } else {
            mode = m.startPattern() != null ? Multiline.Mode.START : Multiline.Mode.CONTINUE;
            pattern = m.startPattern() != null ? m.startPattern() : m.continuePattern();
            String key = m.startPattern() != null ? "multiline start-pattern" : "multiline continue-pattern";
            if (pattern.isEmpty()) throw new ConfigException("invalid " + key + ": empty");
            try {
                Multiline.compile(key, pattern);
            } catch (IllegalArgumentException e) {
                throw new ConfigException(e.getMessage());
            }
        }
        int maxLines = m.maxLines() == null ? Multiline.MAX_LINES_DEFAULT : m.maxLines();
        if (maxLines < 1 || maxLines > 1_000_000) {
            throw new ConfigException("multiline max-lines out of range: max-lines=" + maxLines + " (1 to 1000000)");
        }
        long maxBytes = m.maxBytes() == null ? Multiline.MAX_BYTES_DEFAULT : size("multiline max-bytes",
                m.maxBytes());
        if (maxBytes < 64 || maxBytes > (1L << 30)) {
            throw new ConfigException("multiline max-bytes out of range: max-bytes=" + m.maxBytes()
                    + " (64B to 1GiB)");
        }
        Duration timeout = m.timeout() == null ? Multiline.TIMEOUT_DEFAULT : duration("multiline timeout",
                m.timeout());
        return new Multiline(mode, preset, pattern, maxLines, maxBytes, timeout);
    }

    private static SinkSpec sink(String name, String spec) throws ConfigException {
        try {
            return SinkSpec.parse(spec);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(e.getMessage() + " sink=" + name);
        }
    }

    private static TcpSecurity tcpSecurity(RawConfig.RawTcp tcp, boolean ack, Path base) throws ConfigException {
        if (tcp == null) return TcpSecurity.none();
        boolean tls = tcp.tls() != null && tcp.tls();
        if (!ack && (tls || tcp.tokenFile() != null)) {
            throw new ConfigException("tcp TLS and token need acknowledgements: drop tcp-ack: false (--tcp-no-ack)");
        }
        readable(path(tcp.tlsCa(), base), "CA file", "--tcp-tls-ca, config key tcp.tls-ca");
        readable(path(tcp.tlsCert(), base), "certificate file", "--tcp-tls-cert, config key tcp.tls-cert");
        readable(path(tcp.tlsKey(), base), "key file", "--tcp-tls-key, config key tcp.tls-key");
        readable(path(tcp.tokenFile(), base), "token file", "--tcp-token-file, config key tcp.token-file");
        try {
            return TcpSecurity.sender(tls, path(tcp.tlsCa(), base), path(tcp.tlsCert(), base),
                    path(tcp.tlsKey(), base), path(tcp.tokenFile(), base));
        } catch (IllegalArgumentException e) {
            throw new ConfigException("invalid tcp settings: " + e.getMessage());
        }
    }

    /** Fails naming {@code key} and the operating system's reason when {@code file} (if given) cannot be read. */
    private static void readable(Path file, String what, String key) throws ConfigException {
        if (file == null) return;
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file)) {
            if (Files.isDirectory(file)) {
                throw new ConfigException("cannot read " + what + " " + file + ": Is a directory (" + key + ")");
            }
        } catch (IOException e) {
            throw new ConfigException("cannot read " + what + " " + file + ": " + io.jfio.ship.log.OsReason.of(e)
                    + " (" + key + ")", e);
        }
    }

    private static Path path(String text, Path base) {
        return text == null ? null : base.resolve(text);
    }

    /**
     * The metrics port when none is given ({@code --metrics} alone, {@code metrics: true}): in the range Prometheus
     * exporters use, and not node_exporter's 9100 that a host running a shipper usually also runs.
     */
    public static final int DEFAULT_METRICS_PORT = 9764;

    private static InetSocketAddress metrics(String text) throws ConfigException {
        String t = text.trim();
        if (t.equals("true") || t.isEmpty()) t = Integer.toString(DEFAULT_METRICS_PORT);
        int colon = t.lastIndexOf(':');
        // Only this machine by default: the metrics name files and hosts; 0.0.0.0:PORT opens them to the network.
        String host = colon < 0 ? "127.0.0.1" : t.substring(0, colon);
        String port = colon < 0 ? t : t.substring(colon + 1);
        try {
            int p = Integer.parseInt(port);
            if (p < 0 || p > 65535) throw new NumberFormatException();
            if (host.startsWith("[") && host.endsWith("]")) host = host.substring(1, host.length() - 1);
            return InetSocketAddress.createUnresolved(host, p);
        } catch (NumberFormatException e) {
            throw new ConfigException("invalid metrics address: metrics=" + text
                    + " (PORT or HOST:PORT, port 0-65535)");
        }
    }

    /** A duration above zero ({@code ignore-older}): zero or less is refused rather than meaning "everything". */
    private static Duration positive(String key, String value) throws ConfigException {
        Duration d = duration(key, value);
        if (d.isZero()) throw new ConfigException("invalid " + key + ": " + key + "=" + value + " (above zero)");
        return d;
    }

    private static Duration duration(String key, String value) throws ConfigException {
        try {
            Duration d = Units.parseDuration(value);
            if (d.isNegative()) throw new IllegalArgumentException("negative");
            return d;
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw new ConfigException("invalid " + key + ": " + e.getMessage());
        }
    }

    private static long size(String key, String value) throws ConfigException {
        try {
            return Units.parseSize(value);
        } catch (IllegalArgumentException e) {
            throw new ConfigException("invalid " + key + ": " + e.getMessage());
        }
    }

    private static <E extends Enum<E>> E enumValue(Class<E> type, String key, String value) throws ConfigException {
        try {
            return Enum.valueOf(type, value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            List<String> allowed = new ArrayList<>();
            for (E c : type.getEnumConstants()) allowed.add(c.name().toLowerCase(Locale.ROOT));
            throw new ConfigException("invalid " + key + ": value='" + value + "' (one of " + allowed + ")");
        }
    }

    /** The inputs that ship to {@code sink}. */
    public List<InputConfig> inputsOf(String sink) {
        return inputs.stream().filter(i -> i.sink().equals(sink)).toList();
    }
}
