package io.jfio.bench.verdict;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * What else the machine did while an experiment ran: the share of CPU time the hypervisor gave to other guests
 * (steal, from {@code /proc/stat}) and the 1-minute load average at the start and the end (from
 * {@code /proc/loadavg}). NaN where the kernel did not say.
 *
 * <p>Immutable.
 *
 * @param stealPct   steal time as a percentage of all CPU time over the experiment
 * @param busyPct    CPU time not idle (user, system, interrupts, steal) as a percentage of all CPU time
 * @param loadStart  1-minute load average at the start
 * @param loadEnd    1-minute load average at the end
 * @param cpus       CPUs the JVM sees
 */
public record Noise(double stealPct, double busyPct, double loadStart, double loadEnd, int cpus) {
    /** Nothing known. */
    public static final Noise UNKNOWN = new Noise(Double.NaN, Double.NaN, Double.NaN, Double.NaN, 0);

    /** Steal above this share of CPU time is named as a reason a difference could not be measured. */
    public static final double STEAL_PCT = 2.0;

    /**
     * The noise between two snapshots of {@code /proc/stat} ({@link io.jfio.bench.CpuUsage}) and the load averages
     * read with them.
     */
    public static Noise between(io.jfio.bench.CpuUsage start, io.jfio.bench.CpuUsage end, double loadStart,
                                double loadEnd, int cpus) {
        io.jfio.bench.CpuUsage.Delta d = end.since(start);
        if (d.seconds() <= 0 || cpus <= 0 || end.busy() == 0) {
            return new Noise(Double.NaN, Double.NaN, loadStart, loadEnd, cpus);
        }
        return new Noise(d.steal() / cpus * 100, (d.ours() + d.others() + d.steal()) / cpus * 100, loadStart,
                loadEnd, cpus);
    }

    /** True when the hypervisor took a share of the CPUs worth naming. */
    public boolean stealing() {
        return stealPct > STEAL_PCT;
    }

    /** True when the load average exceeded the CPU count at either end: other processes wanted the CPUs. */
    public boolean overloaded() {
        return cpus > 0 && Math.max(loadStart, loadEnd) > cpus;
    }

    /** {@code steal 0.4%, load 1.20 -> 2.35 on 2 CPUs}. */
    public String text() {
        if (Double.isNaN(stealPct) && Double.isNaN(loadStart)) return "steal and load unknown";
        return String.format(Locale.ROOT, "steal %s, load %s -> %s on %d CPUs",
                Double.isNaN(stealPct) ? "unknown" : String.format(Locale.ROOT, "%.1f%%", stealPct),
                RatioInterval.fmt(loadStart), RatioInterval.fmt(loadEnd), cpus);
    }

    /** The noise as a JSON-ready map. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("steal_pct", stealPct);
        m.put("busy_pct", busyPct);
        m.put("load1_start", loadStart);
        m.put("load1_end", loadEnd);
        m.put("cpus", cpus);
        return m;
    }
}
