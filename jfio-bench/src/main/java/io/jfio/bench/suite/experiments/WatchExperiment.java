package io.jfio.bench.suite.experiments;

import io.jfio.bench.Stats;
import io.jfio.bench.suite.Experiment;
import io.jfio.bench.suite.ExperimentResult;
import io.jfio.bench.suite.Interleave;
import io.jfio.bench.suite.Plot;
import io.jfio.bench.suite.SuiteContext;
import io.jfio.bench.suite.SuiteOptions;
import io.jfio.bench.suite.Table;
import io.jfio.bench.verdict.Call;
import io.jfio.bench.verdict.Contender;
import io.jfio.bench.verdict.Contest;
import io.jfio.core.watch.FileEvent;
import io.jfio.core.watch.FileWatcher;
import io.jfio.core.watch.InotifyWatcher;
import io.jfio.core.watch.PollingWatcher;
import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * Experiment 10: what watching files costs and how late it sees a change, for four watchers: jfio's polling watcher
 * every 1 s and every 100 ms, the JDK's WatchService, and jfio's inotify+epoll watcher. Workloads: one file
 * appended to every 1 s, 100 ms and 1 ms; 1,000 files each appended to once a second (a write every 1 ms, in
 * turn); and 10,000 files sitting idle (the shipper's target: at most 0.5% of a core).
 *
 * <p>The writer is another JVM ({@link WatchWriter}), started once, so its CPU time is not ours. CPU is measured two
 * ways over the writer's active window: the CPU time of the watcher's threads (ThreadMXBean: the thread that polls,
 * plus the JDK's internal "FileSystemWatchService" thread for WatchService), and the whole process's CPU time
 * (clock_gettime(CLOCK_PROCESS_CPUTIME_ID)) minus what the process used in an idle window of the same length before
 * the cells (GC and the JVM's own housekeeping). Every watcher is warmed up first (classes loaded, downcalls linked,
 * hot paths compiled), and a polling watcher's window spans at least two of its intervals. Latency: for every
 * write, the time from just before the write to the first event the watcher returned for that file afterwards, on
 * CLOCK_MONOTONIC (System.nanoTime in both processes), in an HdrHistogram. Before the cells, the change-detection
 * verdict's rounds: inotify+epoll and WatchService in turn on one file written every 1 ms, a short window each.
 *
 * <p>Thread-safe; stateless.
 */
public final class WatchExperiment implements Experiment {
    static final String[] COLUMNS = {"workload", "watcher", "writes", "detected", "thread_cpu_ms_per_s",
        "process_cpu_ms_per_s", "p50_ms", "p90_ms", "p99_ms", "max_ms"};

    /** One workload: how many files, how often one of them is written (0: never), for how long. */
    record Workload(String label, int files, long intervalNanos, long durationNanos) {
        boolean idle() {
            return intervalNanos == 0;
        }

        /** The label without "file(s), every": short enough for the plot's axis. */
        String shortLabel() {
            return label.replace(" files, each every ", " files / ").replace(" file, every ", " file / ")
                    .replace(" files, idle", " files idle");
        }
    }

    /** One watcher under test. */
    record WatcherKind(String label, long pollIntervalNanos, boolean jdk) {
        /**
         * How long to write (or sit idle) for: the workload's duration, and for a polling watcher at least two of its
         * intervals (except at the tiny scale of the tests), so that its CPU time includes whole scans.
         */
        long windowNanos(Workload w, SuiteOptions.Scale scale) {
            if (scale == SuiteOptions.Scale.TINY) return w.durationNanos();
            return Math.max(w.durationNanos(), 2 * pollIntervalNanos + TimeUnit.MILLISECONDS.toNanos(50));
        }

        /** How long after the last write its event may still come. */
        long drainNanos() {
            return pollIntervalNanos + TimeUnit.MILLISECONDS.toNanos(300);
        }
    }

    /** In the order they run: should the quick budget run out, the slow polling cells are the ones skipped. */
    static final List<WatcherKind> WATCHERS = List.of(
            new WatcherKind("inotify+epoll", 0, false),
            new WatcherKind("JDK WatchService", 0, true),
            new WatcherKind("polling 100 ms", TimeUnit.MILLISECONDS.toNanos(100), false),
            new WatcherKind("polling 1 s", TimeUnit.SECONDS.toNanos(1), false));

    @Override
    public String name() {
        return "watch";
    }

    @Override
    public String description() {
        return "CPU per second and detection latency of polling (1 s, 100 ms), WatchService and inotify+epoll";
    }

    @Override
    public boolean fioExpressible() {
        return false;
    }

    @Override
    public Duration quickBudget() {
        return Duration.ofSeconds(27); // the whole quick suite must stay within 3 minutes on 2 cores
    }

    @Override
    public long bytesNeeded(SuiteOptions.Scale scale) {
        return 64L << 20; // 10,000 small files and the bytes appended to them
    }

    static List<Workload> workloads(SuiteOptions.Scale scale) {
        long s = TimeUnit.SECONDS.toNanos(1);
        long ms = TimeUnit.MILLISECONDS.toNanos(1);
        return switch (scale) {
            case TINY -> List.of(
                    new Workload("1 file, every 1 s", 1, s, 1_050 * ms),
                    new Workload("1 file, every 100 ms", 1, 100 * ms, 300 * ms),
                    new Workload("1 file, every 1 ms", 1, ms, 300 * ms),
                    new Workload("50 files, each every 50 ms", 50, ms, 300 * ms),
                    new Workload("100 files, idle", 100, 0, 300 * ms));
            case QUICK -> List.of(
                    new Workload("1 file, every 1 s", 1, s, 1_050 * ms),
                    new Workload("1 file, every 100 ms", 1, 100 * ms, 600 * ms),
                    new Workload("1 file, every 1 ms", 1, ms, 600 * ms),
                    new Workload("1,000 files, each every 1 s", 1000, ms, 600 * ms),
                    new Workload("10,000 files, idle", 10_000, 0, 600 * ms));
            case FULL -> List.of(
                    new Workload("1 file, every 1 s", 1, s, 20_050 * ms),
                    new Workload("1 file, every 100 ms", 1, 100 * ms, 10 * s),
                    new Workload("1 file, every 1 ms", 1, ms, 10 * s),
                    new Workload("1,000 files, each every 1 s", 1000, ms, 10 * s),
                    new Workload("10,000 files, idle", 10_000, 0, 10 * s));
        };
    }

    @Override
    public ExperimentResult run(SuiteContext ctx) throws Exception {
        ExperimentResult r = new ExperimentResult(name(), description());
        List<Workload> workloads = workloads(ctx.scale());
        Table t = r.table(new Table("CPU per second of wall time and detection latency (write -> event seen)",
                COLUMNS));
        double[][] cpu = new double[WATCHERS.size()][workloads.size()];
        for (double[] row : cpu) Arrays.fill(row, Double.NaN);
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        if (!threads.isThreadCpuTimeEnabled()) threads.setThreadCpuTimeEnabled(true);
        long window = workloads.stream().mapToLong(Workload::durationNanos).min().orElseThrow();
        ctx.status("warming up");
        warmUp(ctx.scratch().resolve("watch-warm-up"));
        awaitCompilerIdle();
        double baseline = idleProcessCpu(Math.max(window, TimeUnit.SECONDS.toNanos(1)));
        try (Writer writer = Writer.start()) {
            // first: it decides the change-detection line, and the quick budget may not reach every cell
            ctx.status("change detection, inotify+epoll and WatchService in turn");
            r.contest(detectionRounds(ctx, writer, threads, baseline));
            for (int w = 0; w < workloads.size(); w++) {
                Workload load = workloads.get(w);
                Path dir = Files.createDirectory(ctx.scratch().resolve("watch-" + w));
                ctx.status("creating " + load.files() + " files");
                for (int i = 0; i < load.files(); i++) Files.createFile(dir.resolve("f" + i));
                for (int k = 0; k < WATCHERS.size(); k++) {
                    WatcherKind kind = WATCHERS.get(k);
                    if (!ctx.withinBudget()) {
                        r.note("skipped for the time budget: " + load.label() + ", " + kind.label());
                        continue;
                    }
                    ctx.status(load.label() + ", " + kind.label());
                    Cell c = measure(ctx, writer, dir, load, kind, threads, baseline);
                    long win = kind.windowNanos(load, ctx.scale());
                    long expected = load.idle() ? 0 : (win + load.intervalNanos() - 1) / load.intervalNanos();
                    if (c.writes < expected * 0.9) {
                        r.note("the writer process made fewer writes than scheduled (the machine was busy; its"
                                + " writes are late, not lost): " + load.label() + ", " + kind.label() + ": "
                                + c.writes + " of " + expected);
                    }
                    cpu[k][w] = c.threadCpuMsPerS;
                    t.add(load.label(), kind.label(), c.writes, c.detected, c.threadCpuMsPerS, c.processCpuMsPerS,
                            c.percentile(50), c.percentile(90), c.percentile(99),
                            c.latency.getTotalCount() == 0 ? Double.NaN : c.latency.getMaxValue() / 1e6);
                }
            }
        }
        r.note(String.format(Locale.ROOT, "change detection in \"What wins here\": inotify+epoll and WatchService "
                + "watch one file appended to every 1 ms in turn, a %d ms window each, round by round after a warm-up "
                + "round (never both at once: they would compete for the CPU); a round's value is the median latency "
                + "of its window's writes. Polling (half its interval on average) is in the table, not in the verdict",
                TimeUnit.NANOSECONDS.toMillis(roundWindowNanos(ctx.scale()))));
        List<String> categories = workloads.stream().map(Workload::shortLabel).toList();
        Plot p = Plot.bars("watch: CPU of the watcher's threads", "CPU ms per second", false, categories);
        for (int k = 0; k < WATCHERS.size(); k++) p.bars(WATCHERS.get(k).label(), cpu[k]);
        r.plot(p);
        r.note(String.format(Locale.ROOT, "process_cpu_ms_per_s is the whole process's CPU time per second"
                + " (clock_gettime(CLOCK_PROCESS_CPUTIME_ID)) minus %.3f ms/s, what it used idle before the cells; it"
                + " catches work in threads we do not know of, and JIT compilation. thread_cpu_ms_per_s counts the"
                + " polling thread (and, for WatchService, the JDK's FileSystemWatchService thread) only. Every"
                + " watcher first handled about 4,000 changes unmeasured (class loading, downcall linking, JIT)",
                baseline));
        r.note("a polling watcher's cell lasts at least two of its intervals (CPU then covers two scans, +- one);"
                + " one file written every 1 s is read by a polling watcher only when a scan falls after the write");
        r.note("latency: from just before each write (in a separate writer process) to the first event the watcher"
                + " returned for that file afterwards, on CLOCK_MONOTONIC; polling sees a change up to one interval"
                + " late, so its latency is about half the interval on average");
        r.note("WatchService coalesces repeated modifications of a file until its key is reset, and reports no"
                + " rename pairs; inotify+epoll is jfio's FileWatcher (io.jfio.core.watch), blocked in epoll_wait"
                + " when idle; polling is jfio's PollingWatcher (a statx per file per interval)");
        return r;
    }

    /** The window of one watcher in one round of the change-detection verdict. */
    static long roundWindowNanos(SuiteOptions.Scale scale) {
        return TimeUnit.MILLISECONDS.toNanos(scale == SuiteOptions.Scale.FULL ? 1000 : 100);
    }

    /**
     * The change-detection verdict's contest: the event-driven watchers (inotify+epoll, WatchService) in interleaved
     * rounds, each watching a writer append to one file every 1 ms for {@link #roundWindowNanos}; a round's value is
     * its window's median write-to-event latency, so that what the machine did meanwhile weighs on both alike.
     */
    private static Contest detectionRounds(SuiteContext ctx, Writer writer, ThreadMXBean threads, double baseline)
            throws Exception {
        Path dir = Files.createDirectory(ctx.scratch().resolve("watch-rounds"));
        Files.createFile(dir.resolve("f0"));
        Workload load = new Workload("1 file, every 1 ms", 1, TimeUnit.MILLISECONDS.toNanos(1),
                roundWindowNanos(ctx.scale()));
        List<WatcherKind> kinds = WATCHERS.stream().filter(k -> k.pollIntervalNanos() == 0).toList();
        Interleave g = ctx.interleave(SuiteOptions.REPS);
        for (WatcherKind kind : kinds) {
            g.arm(kind.label(), () -> { }, () -> {
                Cell c = measure(ctx, writer, dir, load, kind, threads, baseline);
                return c.latenciesMs.length == 0 ? Double.NaN : Stats.median(c.latenciesMs);
            });
        }
        g.decides(io.jfio.bench.verdict.Workload.CHANGE_DETECTION, false).run();
        List<Contender> cs = new ArrayList<>();
        for (int i = 0; i < kinds.size(); i++) {
            WatcherKind kind = kinds.get(i);
            cs.add((kind.jdk() ? Call.WATCH_SERVICE : Call.JFIO_WATCHER).contender(kind.label(), kind.jdk(),
                    g.samples(i)));
        }
        return new Contest(io.jfio.bench.verdict.Workload.CHANGE_DETECTION, String.format(Locale.ROOT, "one file "
                + "appended to every 1 ms by another process; per round, the median write -> event latency of a %d "
                + "ms window, ms", TimeUnit.NANOSECONDS.toMillis(load.durationNanos())), "ms", false, cs);
    }

    /**
     * Runs every kind of watcher once through its paths (a change, its event) before anything is measured: the first
     * use loads classes and links downcalls (milliseconds each), which is not what a long-running watcher costs.
     */
    private static void warmUp(Path dir) throws Exception {
        Files.createDirectory(dir);
        int files = 16;
        FileChannel[] ch = new FileChannel[files];
        List<WatcherKind> kinds = List.of(new WatcherKind("warm-up polling", TimeUnit.MILLISECONDS.toNanos(5),
                false), new WatcherKind("warm-up WatchService", 0, true), new WatcherKind("warm-up inotify", 0, false));
        try {
            for (int i = 0; i < files; i++) {
                ch[i] = FileChannel.open(dir.resolve("f" + i), StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                        StandardOpenOption.APPEND);
            }
            ByteBuffer one = ByteBuffer.allocate(1);
            for (WatcherKind kind : kinds) {
                try (Subject s = kind.jdk() ? new JdkSubject(dir) : new JfioSubject(dir, kind.pollIntervalNanos())) {
                    // Enough events, a few at a time, for the event path to be compiled as it runs for hours.
                    for (int i = 0; i < 4000; i++) {
                        ch[i % files].write(one.clear());
                        if (i % 8 == 7) LockSupport.parkNanos(50_000);
                    }
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
                    while (System.nanoTime() < deadline && s.events().count(0) == 0) Thread.sleep(5);
                }
            }
        } finally {
            for (FileChannel c : ch) {
                if (c != null) c.close();
            }
        }
    }

    /**
     * Waits (at most 5 s) until the JIT compiler has had nothing to do for 300 ms: what the warm-up made hot is then
     * compiled, and neither the idle baseline nor the first cells pay for it.
     */
    private static void awaitCompilerIdle() throws InterruptedException {
        java.lang.management.CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        if (jit == null || !jit.isCompilationTimeMonitoringSupported()) return;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        long last = jit.getTotalCompilationTime();
        while (System.nanoTime() < deadline) {
            Thread.sleep(300);
            long now = jit.getTotalCompilationTime();
            if (now == last) return;
            last = now;
        }
    }

    private static double idleProcessCpu(long window) throws InterruptedException {
        long c0 = processCpuNanos();
        long t0 = System.nanoTime();
        Thread.sleep(TimeUnit.NANOSECONDS.toMillis(window));
        return (processCpuNanos() - c0) / 1e6 / ((System.nanoTime() - t0) / 1e9);
    }

    private static long processCpuNanos() {
        return Native.processCpuNanos();
    }

    /** What one cell measured. */
    static final class Cell {
        int writes;
        int detected;
        double threadCpuMsPerS;
        double processCpuMsPerS;
        final Histogram latency = Stats.newLatencyHistogram();
        /** Every detected write's latency in ms, in write order (their median is a round's value in the verdict). */
        double[] latenciesMs = new double[0];

        double percentile(double p) {
            return latency.getTotalCount() == 0 ? Double.NaN : latency.getValueAtPercentile(p) / 1e6;
        }
    }

    private static Cell measure(SuiteContext ctx, Writer writer, Path dir, Workload load, WatcherKind kind,
            ThreadMXBean threads, double baseline) throws Exception {
        Cell c = new Cell();
        try (Subject s = kind.jdk() ? new JdkSubject(dir) : new JfioSubject(dir, kind.pollIntervalNanos())) {
            Thread.sleep(50); // the polling thread reaches its wait
            long[] ids = s.threadIds();
            long thread0 = cpuOf(threads, ids);
            long proc0 = processCpuNanos();
            long wall0 = System.nanoTime();
            Path records = dir.resolveSibling(dir.getFileName() + ".writes");
            long window = kind.windowNanos(load, ctx.scale());
            if (load.idle()) {
                Thread.sleep(TimeUnit.NANOSECONDS.toMillis(window));
            } else {
                writer.run(dir, load.files(), load.intervalNanos(), window, records);
            }
            long wall = System.nanoTime() - wall0;
            long thread1 = cpuOf(threads, ids);
            long proc1 = processCpuNanos();
            c.threadCpuMsPerS = (thread1 - thread0) / 1e6 / (wall / 1e9);
            c.processCpuMsPerS = (proc1 - proc0) / 1e6 / (wall / 1e9) - baseline;
            if (!load.idle()) {
                Writes writes = Writes.read(records);
                Files.delete(records);
                c.writes = writes.count;
                // Let the last writes be seen: at most one poll interval and some slack.
                long deadline = System.nanoTime() + kind.drainNanos();
                while (System.nanoTime() < deadline && !s.events().sawAll(writes)) Thread.sleep(10);
                s.stop();
                double[] ms = new double[writes.count];
                int[] k = {0};
                c.detected = s.events().latencies(writes, c.latency, ns -> ms[k[0]++] = ns / 1e6);
                c.latenciesMs = Arrays.copyOf(ms, k[0]);
            }
        }
        ctx.checkStopping();
        return c;
    }

    private static long cpuOf(ThreadMXBean threads, long[] ids) {
        long sum = 0;
        for (long id : ids) {
            long t = threads.getThreadCpuTime(id);
            if (t > 0) sum += t;
        }
        return sum;
    }

    /** The writes a writer made: file index and time, in order. */
    record Writes(int count, int[] index, long[] time) {
        static Writes read(Path file) throws IOException {
            try (InputStream is = Files.newInputStream(file);
                    DataInputStream in = new DataInputStream(new java.io.BufferedInputStream(is))) {
                int n = in.readInt();
                int[] index = new int[n];
                long[] time = new long[n];
                for (int k = 0; k < n; k++) {
                    index[k] = in.readInt();
                    time[k] = in.readLong();
                }
                return new Writes(n, index, time);
            }
        }
    }

    /** Times the watcher saw events, per file; appended by the polling thread, read after it stopped. */
    static final class EventLog {
        private long[][] times = new long[16][];
        private int[] counts = new int[16];

        synchronized void add(int file, long time) {
            if (file < 0) return;
            if (file >= times.length) {
                int n = Math.max(file + 1, times.length * 2);
                times = Arrays.copyOf(times, n);
                counts = Arrays.copyOf(counts, n);
            }
            long[] t = times[file];
            if (t == null) t = times[file] = new long[8];
            if (counts[file] == t.length) t = times[file] = Arrays.copyOf(t, t.length * 2);
            t[counts[file]++] = time;
        }

        synchronized int count(int file) {
            return file < counts.length ? counts[file] : 0;
        }

        /** True when every file's last write has an event after it. */
        synchronized boolean sawAll(Writes w) {
            long[] last = new long[times.length];
            Arrays.fill(last, Long.MIN_VALUE);
            int max = 0;
            for (int k = 0; k < w.count; k++) {
                int i = w.index[k];
                if (i >= last.length) return false;
                last[i] = w.time[k];
                max = Math.max(max, i + 1);
            }
            for (int i = 0; i < max; i++) {
                if (last[i] == Long.MIN_VALUE) continue;
                if (counts[i] == 0 || times[i][counts[i] - 1] - last[i] < 0) return false;
            }
            return true;
        }

        /** Records each write's latency (to the first event of its file at or after it); returns how many had one. */
        synchronized int latencies(Writes w, Histogram h, java.util.function.LongConsumer each) {
            int detected = 0;
            for (int k = 0; k < w.count; k++) {
                int i = w.index[k];
                if (i >= times.length || counts[i] == 0) continue;
                long[] t = times[i];
                int lo = 0;
                int hi = counts[i];
                while (lo < hi) { // first event time >= write time (times are in order)
                    int mid = (lo + hi) >>> 1;
                    if (t[mid] - w.time[k] < 0) lo = mid + 1; else hi = mid;
                }
                if (lo == counts[i]) continue;
                h.recordValue(Math.max(1, t[lo] - w.time[k]));
                each.accept(Math.max(1, t[lo] - w.time[k]));
                detected++;
            }
            return detected;
        }
    }

    /** A watcher and the thread that polls it, recording when it saw each file change. */
    private interface Subject extends AutoCloseable {
        long[] threadIds();

        EventLog events();

        void stop() throws Exception;

        @Override
        void close() throws Exception;
    }

    private static int fileIndex(String name) {
        if (name.length() < 2 || name.charAt(0) != 'f') return -1;
        try {
            return Integer.parseInt(name, 1, name.length(), 10);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static final class JfioSubject implements Subject {
        private final FileWatcher watcher;
        private final EventLog log = new EventLog();
        private final Thread thread;
        private volatile boolean stop;

        JfioSubject(Path dir, long pollNanos) throws IOException {
            watcher = pollNanos > 0 ? new PollingWatcher(Duration.ofNanos(pollNanos), "bench")
                    : new InotifyWatcher();
            watcher.watch(dir);
            thread = new Thread(() -> {
                try {
                    while (!stop) {
                        List<FileEvent> events = watcher.poll(Duration.ofSeconds(1));
                        long now = System.nanoTime();
                        for (FileEvent e : events) {
                            if (e.kind() == FileEvent.Kind.MODIFY) log.add(fileIndex(e.name()), now);
                        }
                    }
                } catch (IOException e) {
                    if (!stop) throw new IllegalStateException(e);
                }
            }, "jfio-bench-watch");
            thread.start();
        }

        @Override
        public long[] threadIds() {
            return new long[] {thread.threadId()};
        }

        @Override
        public EventLog events() {
            return log;
        }

        @Override
        public void stop() throws InterruptedException {
            stop = true;
            watcher.wakeup();
            thread.join();
        }

        @Override
        public void close() throws InterruptedException {
            stop();
            watcher.close();
        }
    }

    private static final class JdkSubject implements Subject {
        private final WatchService ws;
        private final EventLog log = new EventLog();
        private final Thread thread;
        private final long[] ids;
        private volatile boolean stop;

        JdkSubject(Path dir) throws IOException {
            Set<Thread> before = new HashSet<>(Thread.getAllStackTraces().keySet());
            ws = FileSystems.getDefault().newWatchService();
            dir.register(ws, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY,
                    StandardWatchEventKinds.ENTRY_DELETE);
            List<Long> internal = new ArrayList<>();
            for (Thread th : Thread.getAllStackTraces().keySet()) {
                if (!before.contains(th) && th.getName().contains("WatchService")) internal.add(th.threadId());
            }
            thread = new Thread(() -> {
                try {
                    while (!stop) {
                        WatchKey key = ws.poll(1, TimeUnit.SECONDS);
                        if (key == null) continue;
                        long now = System.nanoTime();
                        for (WatchEvent<?> e : key.pollEvents()) {
                            if (e.kind() == StandardWatchEventKinds.ENTRY_MODIFY) {
                                log.add(fileIndex(e.context().toString()), now);
                            }
                        }
                        key.reset();
                    }
                } catch (ClosedWatchServiceException | InterruptedException e) {
                    // stopped
                }
            }, "jfio-bench-watchservice");
            thread.start();
            internal.add(thread.threadId());
            ids = internal.stream().mapToLong(Long::longValue).toArray();
        }

        @Override
        public long[] threadIds() {
            return ids;
        }

        @Override
        public EventLog events() {
            return log;
        }

        @Override
        public void stop() throws Exception {
            stop = true;
            ws.close();
            thread.join();
        }

        @Override
        public void close() throws Exception {
            stop();
        }
    }

    /** The writer process ({@link WatchWriter}): this JVM's java and class path. */
    static final class Writer implements AutoCloseable {
        private final Process process;
        private final PrintWriter in;
        private final BufferedReader out;

        private Writer(Process process) {
            this.process = process;
            this.in = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
            this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        }

        static Writer start() throws IOException {
            String java = ProcessHandle.current().info().command()
                    .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            Process p = new ProcessBuilder(java, "-Xmx64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp",
                    System.getProperty("java.class.path"), WatchWriter.class.getName())
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            Writer w = new Writer(p);
            try {
                w.expect("ready");
            } catch (IOException e) {
                w.close();
                throw e;
            }
            return w;
        }

        /** Runs one writing session and waits for it to end; the records are then in {@code records}. */
        void run(Path dir, int files, long intervalNanos, long durationNanos, Path records) throws IOException {
            in.println("run " + dir + " " + files + " " + intervalNanos + " " + durationNanos + " " + records);
            expect("done ");
        }

        private void expect(String prefix) throws IOException {
            String line = out.readLine();
            if (line == null || !line.startsWith(prefix)) {
                throw new IOException("watch writer process: expected '" + prefix + "', got " + line);
            }
        }

        @Override
        public void close() {
            in.println("quit");
            try {
                if (!process.waitFor(10, TimeUnit.SECONDS)) process.destroyForcibly().waitFor();
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }
}
