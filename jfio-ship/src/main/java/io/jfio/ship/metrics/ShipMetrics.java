package io.jfio.ship.metrics;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * The shipper's counters and gauges, rendered in the Prometheus text format (version 0.0.4). Counters are
 * {@link LongAdder}s that the pipeline threads add to; per-file gauges come from snapshots the pipelines publish.
 *
 * <p>Thread-safe.
 */
public final class ShipMetrics {
    /** Counter names, with their help text. */
    public enum Counter {
        BYTES_READ("jfio_ship_bytes_read_total", "Bytes read from source files and handed to a sink."),
        RECORDS_READ("jfio_ship_records_read_total", "Records (lines) read from source files."),
        BYTES_SHIPPED("jfio_ship_bytes_shipped_total", "Bytes the sink acknowledged as durable."),
        RECORDS_SHIPPED("jfio_ship_records_shipped_total", "Records the sink acknowledged as durable."),
        RECORDS_DROPPED("jfio_ship_records_dropped_total", "Lines longer than max-record that were dropped."),
        RECORDS_SPLIT("jfio_ship_records_split_total", "Lines longer than max-record that were split."),
        RECORDS_FILTERED("jfio_ship_records_filtered_total", "Records left out by include-lines or exclude-lines."),
        SINK_RETRIES("jfio_ship_sink_retries_total", "Times the pipeline resent after a sink failure."),
        CHECKPOINTS("jfio_ship_checkpoints_written_total", "Checkpoint files written.");

        final String metric;
        final String help;

        Counter(String metric, String help) {
            this.metric = metric;
            this.help = help;
        }
    }

    /**
     * One file's state for the gauges.
     *
     * @param sink  the sink's name
     * @param path  the file
     * @param lag   bytes in the file not yet acknowledged
     * @param open  whether its descriptor is open
     */
    public record FileGauge(String sink, String path, long lag, boolean open) {
    }

    /**
     * The counters of one sink, one {@link LongAdder} per {@link Counter}: a pipeline takes its sink's once
     * ({@link #of}) and adds without building a key or looking anything up per batch.
     *
     * <p>Thread-safe.
     */
    public static final class SinkCounters {
        private final LongAdder[] adders = new LongAdder[Counter.values().length];

        private SinkCounters() {
            for (int i = 0; i < adders.length; i++) adders[i] = new LongAdder();
        }

        /** Adds {@code n} to counter {@code c}. */
        public void add(Counter c, long n) {
            adders[c.ordinal()].add(n);
        }

        long sum(Counter c) {
            return adders[c.ordinal()].sum();
        }
    }

    /** Counters by sink name (sorted, so that the rendering is). */
    private final Map<String, SinkCounters> counters = new java.util.concurrent.ConcurrentSkipListMap<>();
    private final Map<String, LongAdder> rotations = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> errors = new ConcurrentHashMap<>();
    private final List<Supplier<List<FileGauge>>> gauges = new CopyOnWriteArrayList<>();
    private final List<Supplier<String>> families = new CopyOnWriteArrayList<>();

    /** The counters of sink {@code sink}, made on first use. */
    public SinkCounters of(String sink) {
        SinkCounters c = counters.get(sink);
        return c != null ? c : counters.computeIfAbsent(sink, k -> new SinkCounters());
    }

    /** Counts a rotation of kind {@code kind} (rename, truncate, delete). */
    public void rotation(String sink, String kind) {
        rotations.computeIfAbsent("{sink=\"" + esc(sink) + "\",kind=\"" + kind + "\"}", k -> new LongAdder())
                .increment();
    }

    /** Counts an error of kind {@code kind} (open, read, sink, checkpoint, not-regular). */
    public void error(String sink, String kind) {
        errors.computeIfAbsent("{sink=\"" + esc(sink) + "\",kind=\"" + kind + "\"}", k -> new LongAdder())
                .increment();
    }

    /** Registers a source of per-file gauges (a pipeline's latest snapshot). */
    public void register(Supplier<List<FileGauge>> source) {
        gauges.add(source);
    }

    /**
     * Registers metric families of a sink's own (the s3 sink's objects, retries, latencies), rendered after the
     * shipper's: {@code source} returns complete families in the Prometheus text format.
     */
    public void registerFamilies(Supplier<String> source) {
        families.add(source);
    }

    /** The sum of counter {@code c} over all sinks (for tests and the summary line). */
    public long total(Counter c) {
        long sum = 0;
        for (SinkCounters s : counters.values()) sum += s.sum(c);
        return sum;
    }

    /** Everything in the Prometheus text format. */
    public String render() {
        StringBuilder b = new StringBuilder(4096);
        for (Counter c : Counter.values()) {
            b.append("# HELP ").append(c.metric).append(' ').append(c.help).append('\n');
            b.append("# TYPE ").append(c.metric).append(" counter\n");
            for (Map.Entry<String, SinkCounters> e : counters.entrySet()) {
                b.append(c.metric).append("{sink=\"").append(esc(e.getKey())).append("\"} ")
                        .append(e.getValue().sum(c)).append('\n');
            }
        }
        family(b, "jfio_ship_rotations_total", "Rotations seen (rename, truncate, delete).", rotations);
        family(b, "jfio_ship_errors_total", "Errors by kind (open, read, sink, checkpoint, not-regular).", errors);
        List<FileGauge> files = gauges.stream().flatMap(src -> src.get().stream()).toList();
        java.util.TreeMap<String, Long> lagBySink = new java.util.TreeMap<>();
        for (String sink : counters.keySet()) lagBySink.put(sink, 0L);
        for (FileGauge f : files) lagBySink.merge(f.sink(), f.lag(), Long::sum);
        b.append("# HELP jfio_ship_lag_bytes Bytes in the tracked files not yet acknowledged by the sink.\n");
        b.append("# TYPE jfio_ship_lag_bytes gauge\n");
        for (Map.Entry<String, Long> e : lagBySink.entrySet()) {
            b.append("jfio_ship_lag_bytes{sink=\"").append(esc(e.getKey())).append("\"} ").append(e.getValue())
                    .append('\n');
        }
        b.append("# HELP jfio_ship_files Files tracked.\n# TYPE jfio_ship_files gauge\n");
        b.append("jfio_ship_files ").append(files.size()).append('\n');
        b.append("# HELP jfio_ship_open_files Source files open.\n# TYPE jfio_ship_open_files gauge\n");
        b.append("jfio_ship_open_files ").append(files.stream().filter(FileGauge::open).count()).append('\n');
        for (Supplier<String> f : families) b.append(f.get());
        ProcessMetrics.render(b);
        return b.toString();
    }

    /**
     * The per-file series, apart from {@link #render} so that a shipper of many files does not make a series per
     * file for every scrape of {@code /metrics}: {@code jfio_ship_file_lag_bytes{sink,path}}.
     */
    public String renderFiles() {
        StringBuilder b = new StringBuilder(4096);
        b.append("# HELP jfio_ship_file_lag_bytes Bytes in a file not yet acknowledged by the sink.\n");
        b.append("# TYPE jfio_ship_file_lag_bytes gauge\n");
        for (Supplier<List<FileGauge>> src : gauges) {
            for (FileGauge f : src.get()) {
                b.append("jfio_ship_file_lag_bytes{sink=\"").append(esc(f.sink())).append("\",path=\"")
                        .append(esc(f.path())).append("\"} ").append(f.lag()).append('\n');
            }
        }
        return b.toString();
    }

    private static void family(StringBuilder b, String name, String help, Map<String, LongAdder> m) {
        b.append("# HELP ").append(name).append(' ').append(help).append('\n');
        b.append("# TYPE ").append(name).append(" counter\n");
        m.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> b.append(name).append(e.getKey())
                .append(' ').append(e.getValue().sum()).append('\n'));
    }

    private static String esc(String v) {
        return v.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }
}
