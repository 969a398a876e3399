package io.jfio.bench.uring;

import io.jfio.bench.Stats;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The outcome of one benchmark cell: a method at a queue depth under a cache mode, over all its repetitions.
 *
 * <p>Immutable.
 *
 * @param mode             the cache mode
 * @param method           the method
 * @param depth            requests in flight (threads for the threaded methods)
 * @param iops             per-repetition IOPS
 * @param summary          median and spread of {@code iops}
 * @param latency          latency percentiles over all repetitions (for fio: the median repetition's)
 * @param residencyBefore  smallest page-cache residency seen before a repetition (NaN when not checked)
 * @param residencyAfter   largest residency seen after a repetition (NaN when not checked)
 * @param ops              reads completed over all repetitions
 * @param errors           failed or wrong reads (a short read, an errno, or a block whose stamp did not match)
 * @param notes            remarks for the reader (exhausted passes, residency warnings, fio's command)
 */
public record CellResult(CacheMode mode, Method method, int depth, double[] iops, Stats.Summary summary,
                         Stats.Latency latency, double residencyBefore, double residencyAfter, long ops, long errors,
                         List<String> notes) {

    public CellResult {
        iops = iops.clone();
        notes = List.copyOf(notes);
    }

    @Override
    public double[] iops() {
        return iops.clone();
    }

    /** Median IOPS. */
    public double medianIops() {
        return summary.median();
    }

    /** The cell as a JSON-ready map. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("mode", mode.label());
        m.put("method", method.label());
        m.put("method_id", method.name());
        m.put("depth", depth);
        List<Object> reps = new ArrayList<>();
        for (double v : iops) reps.add(v);
        m.put("iops_per_rep", reps);
        m.put("iops", summary.toMap());
        m.put("latency", latency.toMap());
        m.put("residency_before", residencyBefore);
        m.put("residency_after", residencyAfter);
        m.put("ops", ops);
        m.put("errors", errors);
        m.put("notes", notes);
        return m;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CellResult c && c.mode == mode && c.method == method && c.depth == depth
                && java.util.Arrays.equals(c.iops, iops) && c.summary.equals(summary) && c.latency.equals(latency)
                && Double.compare(c.residencyBefore, residencyBefore) == 0
                && Double.compare(c.residencyAfter, residencyAfter) == 0 && c.ops == ops && c.errors == errors
                && c.notes.equals(notes);
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(mode, method, depth, java.util.Arrays.hashCode(iops), summary, ops, errors);
    }

    @Override
    public String toString() {
        return "CellResult[mode=" + mode + " method=" + method + " depth=" + depth + " median_iops="
                + Math.round(summary.median()) + " errors=" + errors + "]";
    }
}
