package io.jfio.bench.ship;

import io.jfio.bench.CpuUsage;
import io.jfio.bench.Processes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A measured child process (the shipper, rsyslogd): started with its output in a log file, its CPU time and peak
 * resident size sampled from {@code /proc/PID/stat} and {@code /proc/PID/status} every 10 ms while it runs.
 *
 * <p>CPU seconds of a child that has exited come from this JVM's own {@code cutime + cstime}
 * ({@code /proc/self/stat}), which the kernel raises by the child's whole user and system time when the JDK's
 * reaper waits for it: exact, and nothing is missed between the last sample and the exit. That holds while one
 * child at a time exits, which the benchmark keeps to. The launcher's helper processes (bin/jfio runs find and
 * cksum before it becomes java with exec) are subtracted: the child's own cutime holds them. Every child started is
 * registered in {@link #LIVE} so that a shutdown hook can kill what is left (also rsyslogd) on errors and Ctrl-C.
 *
 * <p>Not thread-safe except {@link #cpuSeconds}, {@link #peakRssBytes} and {@link #LIVE}.
 */
public final class Child implements AutoCloseable {
    /** Children not yet reaped, for the cleanup hook. */
    public static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();
    /** Seconds per clock tick, the unit of the times in /proc/PID/stat. */
    private static final double TICK = 1 / CpuUsage.TICKS_PER_SECOND;
    /** Set by the shutdown hook: the run is being torn down, no child may start any more. */
    private static volatile boolean closed;

    private final Process process;
    private final Path log;
    private final long startNanos;
    private final long childTicksBefore;
    private final Thread sampler;
    private volatile long ticks;
    private volatile long grandchildTicks;
    private volatile long hwmKb;
    private volatile long endNanos = -1;

    private Child(Process process, Path log, long startNanos, long childTicksBefore) {
        this.process = process;
        this.log = log;
        this.startNanos = startNanos;
        this.childTicksBefore = childTicksBefore;
        this.sampler = Thread.ofPlatform().daemon().name("jfio-bench-ship-sampler").start(this::sample);
    }

    /** Starts {@code command} with standard output and error going to {@code log}. */
    public static Child start(List<String> command, Path log) throws IOException {
        long before = ownChildTicks();
        long t0 = System.nanoTime();
        Process p;
        synchronized (LIVE) {
            if (closed) throw new IOException("shutting down: not starting " + command.get(0));
            p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile())).start();
            LIVE.add(p);
        }
        return new Child(p, log, t0, before);
    }

    private void sample() {
        Path stat = Path.of("/proc", Long.toString(process.pid()), "stat");
        Path status = Path.of("/proc", Long.toString(process.pid()), "status");
        while (process.isAlive()) {
            try {
                CpuUsage.ProcessTimes t = CpuUsage.ProcessTimes.parse(Files.readString(stat));
                if (t != null) {
                    ticks = t.user() + t.system();
                    long g = t.childUser() + t.childSystem();
                    if (g > grandchildTicks) grandchildTicks = g;
                }
                long h = statusKb(Files.readString(status), "VmHWM:");
                if (h > hwmKb) hwmKb = h;
            } catch (IOException | RuntimeException ignored) {
                // the process exited between isAlive and the read
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** The process. */
    public Process process() {
        return process;
    }

    /** Its pid. */
    public long pid() {
        return process.pid();
    }

    /** The log file of its standard output and error. */
    public Path log() {
        return log;
    }

    /** Seconds since it was started (until it exited, once it has). */
    double elapsedSeconds() {
        long end = endNanos >= 0 ? endNanos : System.nanoTime();
        return (end - startNanos) / 1e9;
    }

    /** CPU seconds (user + system, all threads) so far, as last sampled; exact once {@link #waitFor} returned. */
    double cpuSeconds() {
        return ticks * TICK;
    }

    /** The peak resident set size (VmHWM) in bytes, as last sampled. */
    long peakRssBytes() {
        return hwmKb * 1024;
    }

    /**
     * Reads the CPU time now (for a running child), in seconds; NaN when it cannot be read (it has exited), so that a
     * share or a difference taken from it is NaN too: not measured.
     */
    double cpuNow() {
        try {
            long t = statTicks(Files.readString(Path.of("/proc", Long.toString(process.pid()), "stat")));
            if (t < 0) return Double.NaN;
            ticks = t;
            return t * TICK;
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    /**
     * Bytes the process has read so far through read-like system calls ({@code rchar} of {@code /proc/PID/io}: files,
     * sockets and pipes alike), as the kernel counts them, so that looking costs the process nothing; -1 when it
     * cannot be read.
     */
    long bytesRead() {
        try {
            return statusKb(Files.readString(Path.of("/proc", Long.toString(process.pid()), "io")), "rchar:");
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * What the process has done so far that costs it a trip through the kernel, summed over its threads: its
     * wake-ups (voluntary context switches: each one a sleep that something ended) and its read- and write-like system
     * calls ({@code syscr + syscw} of {@code /proc/PID/io}: read, pread, readv, write, pwrite, writev, sendfile and
     * the like; socket sends through send/sendto/sendmsg and waits such as epoll_wait are not in it). Null when it
     * cannot be read (the process exited, or /proc/PID/io is not readable). Two reads' difference is the activity
     * of a window; threads that ended in between take their switches with them.
     */
    Activity activity() {
        Path proc = Path.of("/proc", Long.toString(process.pid()));
        try {
            Activity a = Activity.parseIo(Files.readString(proc.resolve("io")));
            if (a == null) return null;
            long switches = 0;
            try (var tasks = Files.list(proc.resolve("task"))) {
                for (Path t : (Iterable<Path>) tasks::iterator) {
                    try {
                        long v = statusKb(Files.readString(t.resolve("status")), "voluntary_ctxt_switches:");
                        if (v > 0) switches += v;
                    } catch (IOException gone) {
                        // the thread ended between the listing and the read
                    }
                }
            }
            return new Activity(switches, a.reads(), a.writes());
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * Counters of a process's kernel activity ({@link #activity}).
     *
     * @param wakeUps voluntary context switches of all its threads
     * @param reads   read-like system calls (syscr)
     * @param writes  write-like system calls (syscw)
     */
    record Activity(long wakeUps, long reads, long writes) {
        /** syscr and syscw from the text of /proc/PID/io (wake-ups 0); null when either is missing. */
        static Activity parseIo(String io) {
            long r = statusKb(io, "syscr:");
            long w = statusKb(io, "syscw:");
            return r < 0 || w < 0 ? null : new Activity(0, r, w);
        }

        /** This minus an earlier reading: the activity in between. */
        Activity since(Activity before) {
            return new Activity(wakeUps - before.wakeUps, reads - before.reads, writes - before.writes);
        }
    }

    /** Waits for the exit, at most {@code seconds}; returns the exit code or throws when it did not exit. */
    public int waitFor(long seconds) throws IOException {
        try {
            if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
                throw new IOException("child did not exit within " + seconds + " s: pid=" + process.pid()
                        + " log=" + log);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for pid=" + process.pid(), e);
        }
        finish();
        return process.exitValue();
    }

    /** Sends SIGTERM and waits up to 30 s for the exit (then SIGKILL); returns the exit code. */
    public int stop() throws IOException {
        if (process.isAlive()) process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                Processes.kill(process);
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Processes.kill(process);
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while stopping pid=" + process.pid(), e);
        }
        finish();
        return process.exitValue();
    }

    private void finish() {
        if (endNanos < 0) endNanos = System.nanoTime();
        try {
            sampler.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        // onExit completes after the JDK's reaper thread waited for the child, which is when the kernel adds the
        // child's times to ours.
        process.onExit().join();
        // Less what the child had already reaped of its own children: bin/jfio's helpers (find, cksum) before it
        // became java with exec, which the kernel also adds to ours.
        long d = ownChildTicks() - childTicksBefore - grandchildTicks;
        if (d >= ticks) ticks = d;
        LIVE.remove(process);
    }

    /**
     * Kills the process if it still runs, and what it started: while bin/jfio builds its jar the process is bash with
     * Maven below it, and killing bash alone would leave Maven running.
     */
    @Override
    public void close() {
        if (process.isAlive()) {
            Processes.kill(process);
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        LIVE.remove(process);
    }

    /**
     * Kills every child still running (SIGKILL); with {@code forever} (the shutdown hook) no child starts after
     * this, so a run still going on in another thread cannot leave one behind.
     */
    public static void killAll(boolean forever) {
        synchronized (LIVE) {
            if (forever) closed = true;
        }
        for (Process p : LIVE) Processes.kill(p);
        for (Process p : LIVE) {
            try {
                p.waitFor(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        LIVE.clear();
    }

    /** utime + stime in ticks from a /proc/PID/stat line; -1 if it cannot be parsed. */
    static long statTicks(String stat) {
        CpuUsage.ProcessTimes t = CpuUsage.ProcessTimes.parse(stat);
        return t == null ? -1 : t.user() + t.system();
    }

    /** cutime + cstime of this JVM: the CPU ticks of its children that have been waited for; -1 if unreadable. */
    static long ownChildTicks() {
        CpuUsage.ProcessTimes t = CpuUsage.ProcessTimes.self();
        return t == null ? -1 : t.childUser() + t.childSystem();
    }

    /** A "Key:   123 kB" value from /proc/PID/status, in kB (or a count, as in /proc/PID/io); -1 when absent. */
    static long statusKb(String status, String key) {
        for (String line : status.split("\n")) {
            if (line.startsWith(key)) {
                String v = line.substring(key.length()).trim();
                int sp = v.indexOf(' ');
                return Long.parseLong(sp < 0 ? v : v.substring(0, sp));
            }
        }
        return -1;
    }
}
