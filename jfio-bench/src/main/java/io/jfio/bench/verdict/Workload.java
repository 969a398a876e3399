package io.jfio.bench.verdict;

/**
 * The workloads a service has, one line each in "What wins here", in the order they are printed, with the
 * experiment that measures each.
 *
 * <p>Immutable.
 */
public enum Workload {
    SEQUENTIAL_READ_COLD("sequential read, cold", "load-types"),
    SEQUENTIAL_READ_HOT("sequential read, hot", "load-types"),
    APPEND_FDATASYNC("append with fdatasync", "load-types"),
    RANDOM_READ_COLD_DEPTH_1("random 4 KiB read, cold, depth 1", "uring"),
    RANDOM_READ_COLD_DEPTH_32("random 4 KiB read, cold, depth 32", "uring"),
    RANDOM_READ_HOT_DEPTH_1("random 4 KiB read, hot, depth 1", "uring"),
    RANDOM_READ_HOT_DEPTH_32("random 4 KiB read, hot, depth 32", "uring"),
    RANDOM_WRITE("random 4 KiB write with fdatasync", "load-types"),
    LARGE_COPY("large-file copy, source cold", "transfer"),
    SMALL_FILE_COPY("small-file copy, source cold", "copy-tuning"),
    CHANGE_DETECTION("change detection latency", "watch");

    private final String title;
    private final String experiment;

    Workload(String title, String experiment) {
        this.title = title;
        this.experiment = experiment;
    }

    /** The line's name. */
    public String title() {
        return title;
    }

    /** The experiment whose measurements decide the line. */
    public String experiment() {
        return experiment;
    }

    /** The name in results.json: lower case, dashes. */
    public String key() {
        return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }

    /** The workload named {@code key} (as {@link #key()} writes it), or null. */
    public static Workload byKey(String key) {
        for (Workload w : values()) {
            if (w.key().equals(key)) return w;
        }
        return null;
    }
}
