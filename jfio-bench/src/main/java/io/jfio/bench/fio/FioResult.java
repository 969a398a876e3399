package io.jfio.bench.fio;

import io.jfio.bench.JsonText;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The read side of one fio job, from {@code --output-format=json}.
 *
 * <p>Immutable.
 *
 * @param version    fio's version string, e.g. {@code fio-3.33}
 * @param iops       read IOPS
 * @param bandwidth  read bytes per second
 * @param ios        reads completed
 * @param runtimeMs  the job's runtime in milliseconds
 * @param p50Ns      median latency in nanoseconds
 * @param p99Ns      99th percentile latency in nanoseconds
 * @param p999Ns     99.9th percentile latency in nanoseconds
 * @param latencyKind {@code "lat"} (submission to completion, with {@code --lat_percentiles=1}) or {@code "clat"}
 *                   (fio's default: completion latency, from the kernel taking the request)
 * @param error      the job's error number, 0 when it succeeded
 */
public record FioResult(String version, double iops, double bandwidth, long ios, long runtimeMs, double p50Ns,
                        double p99Ns, double p999Ns, String latencyKind, int error) {

    /**
     * Parses fio's JSON output (warnings printed before it are skipped) and takes the first job's read statistics.
     * Percentiles come from {@code lat_ns} when fio reported them there, else from {@code clat_ns}.
     *
     * @throws IllegalArgumentException when the text is not fio JSON or has no job
     */
    public static FioResult parse(String json) {
        return parse(json, "read");
    }

    /** As {@link #parse(String)}, for the {@code "read"} or {@code "write"} statistics. */
    public static FioResult parse(String json, String section) {
        Object root = JsonText.parse(json);
        Object job = JsonText.at(root, "jobs", 0);
        if (!(job instanceof Map)) throw new IllegalArgumentException("fio output has no jobs");
        Object read = JsonText.at(job, section);
        if (!(read instanceof Map)) throw new IllegalArgumentException("fio job has no " + section + " statistics");
        String kind = "lat";
        Object pct = JsonText.at(read, "lat_ns", "percentile");
        if (!(pct instanceof Map)) {
            kind = "clat";
            pct = JsonText.at(read, "clat_ns", "percentile");
        }
        double p50 = percentile(pct, 50);
        double p99 = percentile(pct, 99);
        double p999 = percentile(pct, 99.9);
        Object v = JsonText.at(root, "fio version");
        double err = JsonText.number(job, "error");
        return new FioResult(v == null ? "unknown" : v.toString(), JsonText.number(read, "iops"),
                JsonText.number(read, "bw_bytes"), (long) JsonText.number(read, "total_ios"),
                (long) JsonText.number(read, "runtime"), p50, p99, p999, kind, Double.isNaN(err) ? 0 : (int) err);
    }

    /** fio keys percentiles as {@code "99.900000"}; NaN when that percentile was not reported. */
    private static double percentile(Object pct, double p) {
        if (!(pct instanceof Map<?, ?> m)) return Double.NaN;
        Object n = m.get(String.format(java.util.Locale.ROOT, "%.6f", p));
        return n instanceof Number num ? num.doubleValue() : Double.NaN;
    }

    /** The result as a JSON-ready map. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("version", version);
        m.put("iops", iops);
        m.put("bandwidth_bytes_per_s", bandwidth);
        m.put("ios", ios);
        m.put("runtime_ms", runtimeMs);
        m.put("latency_kind", latencyKind);
        m.put("p50_ns", p50Ns);
        m.put("p99_ns", p99Ns);
        m.put("p99_9_ns", p999Ns);
        m.put("error", error);
        return m;
    }
}
