package io.jfio.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * How busy the CPUs were during a run, and with whose work: this process (its children, fio, included), everyone
 * else, and the hypervisor (steal). A benchmark that shared its CPUs with a build, or whose virtual CPUs were
 * descheduled by the host, says so instead of passing noise off as a result.
 *
 * <p>Immutable. From /proc/stat and /proc/self/stat; clock ticks are taken as 100 per second (USER_HZ on every
 * Linux architecture jfio supports).
 *
 * @param nanos    wall time of the snapshot ({@link System#nanoTime()})
 * @param busy     ticks all CPUs spent in user, nice and system mode
 * @param steal    ticks the hypervisor ran something else on our virtual CPUs
 * @param own      ticks of this process and its waited-for children
 */
public record CpuUsage(long nanos, long busy, long steal, long own) {
    /** The unit of the CPU times in /proc (USER_HZ): 100 per second on every Linux architecture jfio supports. */
    public static final double TICKS_PER_SECOND = 100.0;

    /** A snapshot now; zeros where /proc cannot be read. */
    public static CpuUsage now() {
        long busy = 0;
        long steal = 0;
        long own = 0;
        try {
            for (String line : Files.readAllLines(Path.of("/proc/stat"))) {
                if (line.startsWith("cpu ")) {
                    String[] f = line.trim().split("\\s+");
                    // cpu user nice system idle iowait irq softirq steal guest guest_nice
                    busy = Long.parseLong(f[1]) + Long.parseLong(f[2]) + Long.parseLong(f[3]);
                    if (f.length > 8) steal = Long.parseLong(f[8]);
                    break;
                }
            }
            ProcessTimes t = ProcessTimes.self();
            if (t != null) own = t.user() + t.system() + t.childUser() + t.childSystem();
        } catch (IOException | RuntimeException e) {
            // unknown: zeros
        }
        return new CpuUsage(System.nanoTime(), busy, steal, own);
    }

    /**
     * CPU use between {@code start} and this snapshot, in average busy CPUs.
     *
     * @param seconds wall time
     * @param ours    CPUs busy with this process and its children
     * @param others  CPUs busy with other processes (and kernel threads working for anyone, ours included)
     * @param steal   CPUs taken by the hypervisor
     */
    public record Delta(double seconds, double ours, double others, double steal) {
        /** {@code "this process 1.21 CPUs, others 0.05 CPUs, steal 0.00 CPUs over 282 s"}. */
        public String describe() {
            return String.format(Locale.ROOT, "this process and fio %.2f CPUs, other processes %.2f CPUs, "
                    + "hypervisor steal %.2f CPUs (averages over %.0f s)", ours, others, steal, seconds);
        }
    }

    /**
     * A process's CPU times from its {@code /proc/PID/stat}, in clock ticks ({@link #TICKS_PER_SECOND}).
     *
     * <p>The kernel adds a child's whole user and system time (its own waited-for children included) to the parent's
     * {@code cutime} and {@code cstime} when the parent waits for it; for a child of this JVM that is when the JDK's
     * reaper thread has waited, before {@link Process#waitFor} returns. So the difference of {@link #self()} taken
     * before a child starts and after it has been waited for is that child's CPU time, provided no other child of
     * this JVM is reaped meanwhile.
     *
     * @param user        utime: the process's threads in user mode
     * @param system      stime: the process's threads in the kernel
     * @param childUser   cutime: its children that have been waited for, in user mode
     * @param childSystem cstime: the same in the kernel
     */
    public record ProcessTimes(long user, long system, long childUser, long childSystem) {
        /** Parses a {@code /proc/PID/stat} line; null when it is not one. */
        public static ProcessTimes parse(String stat) {
            // The command name is in parentheses and may hold spaces and parentheses: the fields after it start
            // after the last ") ". f[0] is field 3 (state); utime is field 14, stime 15, cutime 16, cstime 17
            // (1-based, proc(5)).
            int close = stat.lastIndexOf(')');
            if (close < 0 || close + 2 > stat.length()) return null;
            String[] f = stat.substring(close + 2).trim().split("\\s+");
            if (f.length < 15) return null;
            try {
                return new ProcessTimes(Long.parseLong(f[11]), Long.parseLong(f[12]), Long.parseLong(f[13]),
                        Long.parseLong(f[14]));
            } catch (NumberFormatException e) {
                return null;
            }
        }

        /** This process's times now; null when {@code /proc/self/stat} cannot be read. */
        public static ProcessTimes self() {
            try {
                return parse(Files.readString(Path.of("/proc/self/stat")));
            } catch (IOException e) {
                return null;
            }
        }
    }

    /** The use since {@code start}. */
    public Delta since(CpuUsage start) {
        double s = (nanos - start.nanos) / 1e9;
        if (s <= 0) return new Delta(0, 0, 0, 0);
        double ours = (own - start.own) / TICKS_PER_SECOND / s;
        double all = (busy - start.busy) / TICKS_PER_SECOND / s;
        double st = (steal - start.steal) / TICKS_PER_SECOND / s;
        return new Delta(s, ours, Math.max(0, all - ours), st);
    }
}
