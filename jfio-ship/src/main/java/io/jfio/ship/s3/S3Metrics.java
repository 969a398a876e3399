package io.jfio.ship.s3;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * Thread-safe. The counters of one s3 sink, rendered into the shipper's metrics (Prometheus text format): objects
 * uploaded, their bytes (stored and source), retries, upload latency (sum, count and the largest) and the age of
 * the oldest byte not yet acknowledged.
 */
final class S3Metrics {
    private final String sink;
    private final LongAdder objects = new LongAdder();
    private final LongAdder stored = new LongAdder();
    private final LongAdder source = new LongAdder();
    private final LongAdder retries = new LongAdder();
    private final LongAdder latencyNanos = new LongAdder();
    private final AtomicLong maxLatencyNanos = new AtomicLong();
    private volatile LongSupplier oldestMillis = () -> 0;
    /** The shipper's metrics, where errors are counted ({@code jfio_ship_errors_total}), or null. */
    private final io.jfio.ship.metrics.ShipMetrics shared;
    private final String sinkName;

    S3Metrics(String sink) {
        this(sink, null);
    }

    /** With the shipper's metrics, which count this sink's errors. */
    S3Metrics(String sink, io.jfio.ship.metrics.ShipMetrics shared) {
        this.sink = sink.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
        this.sinkName = sink;
        this.shared = shared;
    }

    /** Counts an error of {@code kind} in {@code jfio_ship_errors_total}. */
    void error(String kind) {
        if (shared != null) shared.error(sinkName, kind);
    }

    void uploaded(long storedBytes, long sourceBytes, long nanos) {
        objects.increment();
        stored.add(storedBytes);
        source.add(sourceBytes);
        latencyNanos.add(nanos);
        maxLatencyNanos.accumulateAndGet(nanos, Math::max);
    }

    void retry() {
        retries.increment();
    }

    void oldest(LongSupplier millis) {
        oldestMillis = millis;
    }

    long objects() {
        return objects.sum();
    }

    long retries() {
        return retries.sum();
    }

    /** The families, in the Prometheus text format. */
    String render() {
        StringBuilder b = new StringBuilder(1024);
        family(b, "jfio_ship_s3_objects_total", "counter", "Objects uploaded and recorded done.", objects.sum());
        family(b, "jfio_ship_s3_bytes_total", "counter", "Bytes of the objects uploaded, as stored (compressed).",
                stored.sum());
        family(b, "jfio_ship_s3_source_bytes_total", "counter", "Source bytes in the objects uploaded.",
                source.sum());
        family(b, "jfio_ship_s3_retries_total", "counter", "Uploads retried after a failure.", retries.sum());
        b.append("# HELP jfio_ship_s3_upload_seconds Time of the successful uploads.\n");
        b.append("# TYPE jfio_ship_s3_upload_seconds summary\n");
        b.append("jfio_ship_s3_upload_seconds_sum{sink=\"").append(label()).append("\"} ")
                .append(latencyNanos.sum() / 1e9).append('\n');
        b.append("jfio_ship_s3_upload_seconds_count{sink=\"").append(label()).append("\"} ").append(objects.sum())
                .append('\n');
        family(b, "jfio_ship_s3_upload_seconds_max", "gauge", "The longest successful upload.",
                maxLatencyNanos.get() / 1e9);
        family(b, "jfio_ship_s3_oldest_unacknowledged_seconds", "gauge",
                "Age of the oldest byte the sink holds that is not yet in the bucket.",
                oldestMillis.getAsLong() / 1e3);
        return b.toString();
    }

    private void family(StringBuilder b, String name, String type, String help, Object value) {
        b.append("# HELP ").append(name).append(' ').append(help).append('\n');
        b.append("# TYPE ").append(name).append(' ').append(type).append('\n');
        b.append(name).append("{sink=\"").append(label()).append("\"} ").append(value).append('\n');
    }

    /** The sink's name as a label value: backslash, quote and newline escaped as the text format wants. */
    private String label() {
        return sink.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }
}
