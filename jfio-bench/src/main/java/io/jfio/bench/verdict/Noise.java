package io.jfio.bench.verdict;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * What else the machine did while an experiment ran: the share of CPU time the hypervisor gave to other guests
 * (steal, from {@code /proc/stat}), the share other processes used (all busy time in {@code /proc/stat} less this
 * process's own), and the 1-minute load average at the start and the end (from {@code /proc/loadavg}; it counts this
 * process's threads too, those waiting for the disk included, so an I/O benchmark raises it by itself). NaN where
 * the kernel did not say.
 *
 * <p>Immutable.
 *
 * @param stealPct   steal time as a percentage of all CPU time over the experiment
 * @param busyPct    CPU time not idle (user, system, interrupts, steal) as a percentage of all CPU time
 * @param loadStart  1-minute load average at the start
 * @param loadEnd    1-minute load average at the end
 * @param cpus       CPUs the JVM sees
 * @param othersPct  CPU time of other processes (and of kernel threads) as a percentage of all CPU time; NaN when
 *                   unknown
 */
public record Noise(double stealPct, double busyPct, double loadStart, double loadEnd, int cpus, double othersPct) {
    /** Nothing known. */
    public static final Noise UNKNOWN = new Noise(Double.NaN, Double.NaN, Double.NaN, Double.NaN, 0, Double.NaN);

    /** Steal above this share of CPU time is named as a reason a difference could not be measured. */
    public static final double STEAL_PCT = 2.0;
    /**
     * Other processes' CPU time above this share of all CPU time (half a CPU of two) is named as a reason: they took
     * CPU time the contenders wanted, unevenly from round to round.
     */
    public static final double OTHERS_PCT = 25.0;

    /** Noise without the other processes' share (results.json of schema 4 did not have it). */
    public Noise(double stealPct, double busyPct, double loadStart, double loadEnd, int cpus) {
        this(stealPct, busyPct, loadStart, loadEnd, cpus, Double.NaN);
    }

    /**
     * The noise between two snapshots of {@code /proc/stat} ({@link io.jfio.bench.CpuUsage}) and the load averages
     * read with them.
     */
    public static Noise between(io.jfio.bench.CpuUsage start, io.jfio.bench.CpuUsage end, double loadStart,
                                double loadEnd, int cpus) {
        io.jfio.bench.CpuUsage.Delta d = end.since(start);
        if (d.seconds() <= 0 || cpus <= 0 || end.busy() == 0) {
            return new Noise(Double.NaN, Double.NaN, loadStart, loadEnd, cpus, Double.NaN);
        }
        return new Noise(d.steal() / cpus * 100, (d.ours() + d.others() + d.steal()) / cpus * 100, loadStart,
                loadEnd, cpus, d.others() / cpus * 100);
    }

    /** True when the hypervisor took a share of the CPUs worth naming. */
    public boolean stealing() {
        return stealPct > STEAL_PCT;
    }

    /**
     * True when other processes wanted the CPUs: they used more than {@link #OTHERS_PCT} of the CPU time, or, where
     * that is unknown, the load average exceeded the CPU count at either end.
     */
    public boolean overloaded() {
        if (!Double.isNaN(othersPct)) return othersPct > OTHERS_PCT;
        return cpus > 0 && Math.max(loadStart, loadEnd) > cpus;
    }

    /** What {@link #overloaded()} saw: {@code other processes used 0.62 of 2 CPUs} or the load average. */
    public String overloadText() {
        if (!Double.isNaN(othersPct)) {
            return String.format(Locale.ROOT, "other processes used %.2f of %d CPUs (load average %s)",
                    othersPct * cpus / 100, cpus, RatioInterval.fmt(Math.max(loadStart, loadEnd)));
        }
        return String.format(Locale.ROOT, "load average %s on %d CPUs",
                RatioInterval.fmt(Math.max(loadStart, loadEnd)), cpus);
    }

    /** {@code steal 0.4%, other processes 0.31 CPUs, load 1.20 -> 2.35 on 2 CPUs}. */
    public String text() {
        if (Double.isNaN(stealPct) && Double.isNaN(loadStart)) return "steal and load unknown";
        return String.format(Locale.ROOT, "steal %s, %sload %s -> %s on %d CPUs",
                Double.isNaN(stealPct) ? "unknown" : String.format(Locale.ROOT, "%.1f%%", stealPct),
                Double.isNaN(othersPct) ? "" : String.format(Locale.ROOT, "other processes %.2f CPUs, ",
                        othersPct * cpus / 100),
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
        m.put("others_pct", othersPct);
        return m;
    }
}
