package io.jfio.bench.ship;

import io.jfio.bench.BenchFile;
import io.jfio.bench.CpuUsage;
import io.jfio.bench.JsonText;
import io.jfio.bench.Processes;
import io.jfio.bench.Stats;
import io.jfio.bench.system.SystemInfo;
import io.jfio.bench.suite.Charts;
import io.jfio.bench.suite.Plot;
import io.jfio.core.file.PageCache;
import io.jfio.ship.sink.DirSink;
import io.jfio.ship.tcp.TcpReceiver;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * {@code jfio bench ship}: the shipper against its targets and against rsyslog (imfile) in the same run.
 *
 * <p>Not thread-safe; one run at a time. The shipper runs as a child process the way a user runs it
 * ({@code bin/jfio ship}, which adds its JVM flags), so its CPU seconds and peak resident size are its own
 * ({@link Child}); receivers, writers and the rsyslog peer's listener live in this JVM. The workloads:
 * <ol>
 *   <li><b>single</b>: one file of 92-byte lines (5 million, 460 MB), written before the shipper starts and so
 *       hot in the page cache, shipped with {@code --once} to the dir sink and to jfio's {@link TcpReceiver} on
 *       loopback (acknowledged), each delivery compared byte for byte with the input; rsyslog reads the same file
 *       with imfile and writes it with omfile, done when the output has the input's size.</li>
 *   <li><b>latency</b>: files being appended to, a line at a time, at a fixed total rate; each line carries its
 *       append time, and the receiver ({@link LatencyReceiver} for TCP, {@link SegmentTail} for the dir sink)
 *       records append-to-arrival in an HdrHistogram. rsyslog: imfile on the same glob, omfwd to the listener.
 *       Each process's wake-ups and read/write system calls over the window come from /proc
 *       ({@code Child.activity}), per 1,000 lines and against rsyslog's.</li>
 *   <li><b>throughput</b>: the same files appended to as fast as one writer thread can, shipped to TCP.</li>
 *   <li><b>idle</b>: a tree of small files, all shipped, then nothing changes: the shipper's CPU share.</li>
 * </ol>
 * Everything made (files, children, rsyslogd) is removed on the way out, also on errors and Ctrl-C.
 */
public final class ShipBench {
    /** MB/s (10^6 bytes) into the dir sink for the single file, from the shipper's start to its end. */
    public static final double TARGET_MBPS = 1000;
    /** Append-to-delivered p99 at {@code rate} lines/s, milliseconds. */
    public static final double TARGET_P99_MS = 5;
    /** The shipper's CPU share in a latency run divided by rsyslog's in the same run, at most. */
    public static final double TARGET_CPU_VS_RSYSLOG = 0.5;
    /** CPU share of one core while the idle tree is watched, percent. */
    public static final double TARGET_IDLE_PERCENT = 0.5;
    /** Peak resident set size of the shipper, bytes: the target's 128 MB, decimal (122.07 MiB). */
    public static final long TARGET_RSS = 128_000_000L;
    /** Bytes per MiB, the unit of the reported resident sizes (VmHWM is in KiB). */
    private static final double MIB = 1 << 20;

    private static final long SHIP_TIMEOUT_S = 600;
    /** The throughput run stops writing after this many bytes even when its time is not up. */
    private static final long THROUGHPUT_CAP = 2_000_000_000L;
    /** Past the shipper's "recently grew" window (2 s), where it still looks at files every 2 ms. */
    private static final long IDLE_SETTLE_MS = 2500;
    /** What a verdict says instead of a value when no run of its workload succeeded. */
    static final String RUN_FAILED = "n/a (run failed)";
    /**
     * The problem of a latency run whose histogram is empty: it reads 0 ms at every percentile, which would pass any
     * latency target.
     */
    static final String NO_LINE_MEASURED = "no line was measured";
    /** The problem of an idle run whose shipper's CPU time could not be read: no share to judge. */
    static final String CPU_UNREADABLE = "the shipper's CPU time could not be read";

    private final ShipBenchOptions o;
    private final PrintWriter err;
    private final long origin = System.nanoTime();
    // The rows of each workload, one per run: package-private so that tests can judge rows made by hand. Every row
    // has "problem": null when the run succeeded, else what went wrong.
    final List<Map<String, Object>> single = new ArrayList<>();
    final List<Map<String, Object>> latency = new ArrayList<>();
    final List<Map<String, Object>> throughput = new ArrayList<>();
    final List<Map<String, Object>> idle = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    /** Latency by percentile of each latency run, for latency.png: name, x (nines), y (ms). */
    private final Map<String, double[][]> curves = new LinkedHashMap<>();
    private final List<String> problems = new ArrayList<>();
    private Path work;
    /** The record workloads (ndjson, multiline), or null when they did not run. */
    RecordBench records;
    private Path rsyslogd;
    private String rsyslogVersion;
    private SyslogNg.Found syslogNg;
    /** The built min-shipper with {@code --floor}, else null. */
    private Path minShipper;
    /** The single file's size. */
    long inputBytes;
    /** The disk's durable write speed (MB/s) next to each dir-sink run, as {@link #durableWriteMBps} measures it. */
    final List<Double> diskMBps = new ArrayList<>();

    ShipBench(ShipBenchOptions o, PrintWriter err) {
        this.o = o;
        this.err = err;
    }

    /**
     * What a run produced.
     *
     * @param report   report.md
     * @param json     results.json
     * @param verdicts the targets' PASS/FAIL lines
     * @param problems deliveries that were wrong or incomplete, runs that failed (empty when all was right)
     */
    public record Result(Path report, Path json, List<String> verdicts, List<String> problems) {
    }

    /**
     * Runs the benchmark; progress on {@code err}.
     *
     * @throws IllegalArgumentException for an unusable directory
     */
    public static Result run(ShipBenchOptions options, PrintWriter err) throws IOException {
        return new ShipBench(options, err).run();
    }

    private Result run() throws IOException {
        Path dir = o.dir().toAbsolutePath();
        checkFileSystem(dir, o.allowTmpfs());
        long need = o.workloads().contains("single") ? 3 * o.lines() * LogLines.LINE + (1L << 30) : 1L << 30;
        // The record workloads: two inputs and NDJSON output about three times the input.
        if (o.workloads().contains("records")) need += 5 * o.lines() * LogLines.LINE;
        if (Files.getFileStore(dir).getUsableSpace() < need) {
            throw new IllegalArgumentException("not enough free space: dir=" + dir + " free="
                    + Files.getFileStore(dir).getUsableSpace() / 1_000_000 + " MB needed=" + need / 1_000_000
                    + " MB");
        }
        SystemInfo sys = SystemInfo.collect(dir);
        String loadBefore = SystemInfo.loadAverageNow();
        work = Files.createTempDirectory(dir, "jfio-bench-ship-");
        Thread hook = new Thread(() -> cleanup(true), "jfio-bench-ship-cleanup");
        Runtime.getRuntime().addShutdownHook(hook);
        long t0 = System.nanoTime();
        CpuUsage cpu0 = CpuUsage.now();
        try {
            if (o.rsyslog()) {
                rsyslogd = Rsyslog.find(o.install(), err);
                if (rsyslogd != null) rsyslogVersion = Rsyslog.version(rsyslogd);
                else notes.add("rsyslog: not run (see the log above: not installed and could not be installed)");
            } else {
                notes.add("rsyslog: not run (--no-rsyslog)");
            }
            boolean latencies = o.workloads().contains("latency") || o.workloads().contains("wide");
            boolean syslogNgRows = latencies || o.workloads().contains("records");
            if (o.syslogNg() && syslogNgRows) {
                syslogNg = SyslogNg.find(o.install(), err);
                if (syslogNg == null) notes.add("syslog-ng: not run (see the log above: not found and not fetched)");
            } else if (syslogNgRows) {
                notes.add("syslog-ng: not run (--no-syslog-ng)");
            }
            if (o.floor() && latencies) {
                minShipper = MinShipper.build(work, err);
                if (minShipper == null) {
                    notes.add("min-shipper: not run (see the log above: no C compiler, or it failed)");
                }
            }
            warmLauncher();
            if (o.workloads().contains("single")) single();
            if (o.workloads().contains("records")) {
                records = new RecordBench(o, err, work, rsyslogd, syslogNg, this::jfio);
                try {
                    records.run();
                } finally {
                    problems.addAll(records.problems);
                }
            }
            if (o.workloads().contains("latency")) latency(o.files(), o.rate(), o.warmup(), o.latency(), false);
            if (o.workloads().contains("wide")) {
                latency(o.wideFiles(), o.wideRate(), o.warmup(), o.wideLatency(), true);
            }
            if (o.workloads().contains("throughput")) throughput();
            if (o.workloads().contains("idle")) idle();
        } finally {
            cleanup(false);
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // shutting down already: the hook cleans up again, harmlessly
            }
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        return write(sys, loadBefore, SystemInfo.loadAverageNow(), seconds, CpuUsage.now().since(cpu0));
    }

    // ================================================================== single file

    private void single() throws IOException {
        Path input = work.resolve("single.log");
        progress("writing %,d lines (%s) to %s", o.lines(), mb(o.lines() * LogLines.LINE), input);
        inputBytes = LogLines.writeFile(input, o.lines());
        // Written back now, not during the runs: otherwise the disk writes the input while the dir sink's fsyncs
        // wait behind it and the dir sink measures the disk's backlog. It stays in the cache.
        try (FileChannel ch = FileChannel.open(input, StandardOpenOption.WRITE)) {
            ch.force(false);
        }
        PageCache.warm(input);
        for (String sink : List.of("dir", "tcp")) {
            for (int rep = 1; rep <= o.reps(); rep++) {
                progress("single file -> %s sink, run %d of %d", sink, rep, o.reps());
                if (sink.equals("dir")) diskMBps.add(durableWriteMBps(work, inputBytes));
                // The disk test's file and the last run's output were just deleted. Freeing their blocks issues
                // discards where the file system is mounted -o discard (as here), which the disk may still be
                // working through, and leaves block bitmaps and inode tables dirty: both would land in whatever
                // syncs next, the shipper's writes and fdatasyncs. sync(1) writes that back and flushes the disk
                // now, outside the measured run.
                Processes.sync();
                single.add(singleJfio(input, sink, rep));
            }
        }
        if (rsyslogd != null) {
            int reps = Math.max(1, o.reps() / 3);
            for (int rep = 1; rep <= reps; rep++) {
                progress("single file -> rsyslog (imfile -> omfile), run %d of %d", rep, reps);
                Processes.sync();
                single.add(singleRsyslog(input, rep));
            }
        }
        Files.deleteIfExists(input);
    }

    /**
     * What the disk under {@code dir} takes durably: {@code bytes} of zeros in 4 MiB writes and one fdatasync, like
     * {@code dd if=/dev/zero bs=4M conv=fdatasync}, timed from the first write to the end of the sync. Measured
     * right before each dir-sink run, so that the two numbers share the machine's state (load, other I/O).
     */
    static double durableWriteMBps(Path dir, long bytes) throws IOException {
        Path f = dir.resolve("disk-speed.tmp");
        ByteBuffer zeros = ByteBuffer.allocateDirect(4 << 20);
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            long start = System.nanoTime();
            long done = 0;
            while (done < bytes) {
                zeros.clear().limit((int) Math.min(zeros.capacity(), bytes - done));
                while (zeros.hasRemaining()) done += ch.write(zeros);
            }
            ch.force(false);
            return bytes / 1e6 / ((System.nanoTime() - start) / 1e9);
        } finally {
            Files.deleteIfExists(f);
        }
    }

    private Map<String, Object> singleJfio(Path input, String sink, int rep) throws IOException {
        Path runDir = Files.createDirectories(work.resolve("single-" + sink + "-" + rep));
        Path state = runDir.resolve("state");
        Path out = runDir.resolve("out");
        TcpReceiver receiver = null;
        Map<String, Object> r = row("jfio", sink, rep);
        try {
            String to;
            if (sink.equals("dir")) {
                to = "dir:" + out;
            } else {
                Files.createDirectories(out);
                receiver = TcpReceiver.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), out,
                        TcpReceiver.Options.defaults(), new PrintStream(PrintStream.nullOutputStream()));
                to = "tcp:127.0.0.1:" + receiver.port();
            }
            List<String> cmd = jfio("ship", "--from", input.toString(), "--to", to, "--state", state.toString(),
                    "--once");
            // Measured as the shipper starts: the disk test (460 MB written) and sync before it may have pushed
            // part of the input out of the cache.
            double resident = PageCache.residency(input).fraction();
            Child c = Child.start(placed(cmd), runDir.resolve("ship.log"));
            r.put("page_cache_resident", resident);
            int exit = c.waitFor(SHIP_TIMEOUT_S);
            List<Path> parts = sink.equals("dir") ? DirSink.segments(out) : receiver.files();
            String problem = exit != 0 ? "exit " + exit + ": " + lastLine(c.log()) : Verify.compare(input, parts);
            double ship = shipSeconds(c.log());
            // The target is judged on this time: a run without it measured nothing.
            if (problem == null && Double.isNaN(ship)) problem = "no event=start and event=stop in the shipper's log";
            measured(r, input, c, problem);
            r.put("ship_seconds", ship);
            if (problem != null) problems.add("single file -> " + sink + " run " + rep + ": " + problem);
            progress("single file -> %s sink, run %d: %s s shipping, input %.0f%% in the page cache at the start%s",
                    sink, rep, fmt(ship, "%.2f"), resident * 100, problem == null ? "" : ": " + problem);
            return r;
        } finally {
            if (receiver != null) receiver.close();
            deleteTree(runDir);
        }
    }

    private Map<String, Object> singleRsyslog(Path input, int rep) throws IOException {
        Path runDir = Files.createDirectories(work.resolve("single-rsyslog-" + rep));
        Path out = runDir.resolve("out.log");
        Map<String, Object> r = row("rsyslog", "omfile", rep);
        try {
            Path conf = Rsyslog.configure(runDir, input.toString(), out, 0);
            try (Child c = Child.start(placed(Rsyslog.command(rsyslogd, conf, runDir)),
                    runDir.resolve("rsyslogd.log"))) {
                long size = Files.size(input);
                long deadline = System.nanoTime() + SHIP_TIMEOUT_S * 1_000_000_000L;
                long last = -1;
                long lastChange = System.nanoTime();
                String problem = null;
                while (true) {
                    long s = Files.exists(out) ? Files.size(out) : 0;
                    if (s >= size) break;
                    if (!c.process().isAlive()) {
                        problem = "rsyslogd exited: " + lastLine(c.log());
                        break;
                    }
                    if (s != last) {
                        last = s;
                        lastChange = System.nanoTime();
                    }
                    if (System.nanoTime() > deadline || System.nanoTime() - lastChange > 30_000_000_000L) {
                        problem = "output stopped growing at " + s + " of " + size + " bytes";
                        break;
                    }
                    sleepMillis(10);
                }
                double wall = c.elapsedSeconds();
                double cpu = c.cpuNow();
                long rss = c.peakRssBytes();
                c.stop();
                if (problem == null) problem = Verify.compare(input, List.of(out));
                measured(r, input, c, problem);
                // Done is when the output is complete, not when rsyslogd has been stopped afterwards.
                r.put("wall_seconds", wall);
                r.put("cpu_seconds", Double.isNaN(cpu) ? c.cpuSeconds() : cpu);
                r.put("peak_rss_bytes", rss);
                if (problem != null) problems.add("single file -> rsyslog run " + rep + ": " + problem);
            }
            return r;
        } finally {
            deleteTree(runDir);
        }
    }

    private void measured(Map<String, Object> r, Path input, Child c, String problem) throws IOException {
        r.put("bytes", Files.size(input));
        r.put("lines", Files.size(input) / LogLines.LINE);
        r.put("wall_seconds", c.elapsedSeconds());
        r.put("cpu_seconds", c.cpuSeconds());
        r.put("peak_rss_bytes", c.peakRssBytes());
        r.put("verified", problem == null ? "equal to the input" : problem);
        r.put("problem", problem);
    }

    // ================================================================== latency

    /**
     * The latency runs of one configuration: jfio to each sink, then each peer that is there. {@code wide} rows are
     * marked so, and only the other configuration's curves go into latency.png.
     */
    private void latency(int files, int rate, Duration warm, Duration measure, boolean wide) throws IOException {
        Config cfg = new Config(files, rate, warm, measure, wide);
        for (String sink : List.of("tcp", "dir")) {
            progress("latency: %d files, %,d lines/s -> jfio %s sink, %s warm-up + %s measured", files, rate,
                    sink, warm.toSeconds() + " s", measure.toSeconds() + " s");
            latency.add(latencyRun("jfio", sink, cfg));
        }
        if (minShipper != null) {
            progress("latency: %d files, %,d lines/s -> min-shipper (the floor: wake-up, read, send)", files, rate);
            latency.add(latencyRun("min-shipper", "tcp", cfg));
        }
        if (rsyslogd != null) {
            progress("latency: %d files, %,d lines/s -> rsyslog (imfile -> omfwd tcp)", files, rate);
            latency.add(latencyRun("rsyslog", "omfwd tcp", cfg));
        }
        if (syslogNg != null) {
            progress("latency: %d files, %,d lines/s -> syslog-ng (wildcard-file -> network tcp)", files, rate);
            latency.add(latencyRun("syslog-ng", "network tcp", cfg));
        }
    }

    /** One latency configuration: files appended to, lines per second over all of them, and its windows. */
    private record Config(int files, int rate, Duration warmup, Duration measure, boolean wide) {
    }

    private Map<String, Object> latencyRun(String tool, String sink, Config cfg) throws IOException {
        Path runDir = Files.createDirectories(work.resolve("latency-" + tool + "-" + sink.replace(' ', '-')
                + (cfg.wide() ? "-wide" : "")));
        Path files = Files.createDirectories(runDir.resolve("files"));
        Path out = runDir.resolve("out");
        Latencies lat = new Latencies();
        Map<String, Object> r = row(tool, sink, 1);
        List<FileChannel> chans = new ArrayList<>();
        LatencyReceiver receiver = null;
        SegmentTail tail = null;
        Child c = null;
        try {
            for (int i = 0; i < cfg.files(); i++) {
                chans.add(FileChannel.open(files.resolve(String.format(Locale.ROOT, "f-%04d.log", i)),
                        StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, StandardOpenOption.APPEND));
            }
            String glob = files + "/*.log";
            if (tool.equals("jfio")) {
                String to;
                if (sink.equals("tcp")) {
                    receiver = new LatencyReceiver(lat, origin);
                    to = "tcp:127.0.0.1:" + receiver.port();
                } else {
                    to = "dir:" + out;
                    tail = new SegmentTail(out, lat, origin);
                }
                c = Child.start(placed(jfio("ship", "--from", glob, "--to", to, "--state", runDir.resolve("state")
                        .toString())), runDir.resolve("ship.log"));
            } else if (tool.equals("min-shipper")) {
                receiver = new LatencyReceiver(lat, origin);
                c = Child.start(placed(MinShipper.command(minShipper, files, receiver.port())),
                        runDir.resolve("min.log"));
            } else if (tool.equals("rsyslog")) {
                receiver = new LatencyReceiver(lat, origin);
                Path conf = Rsyslog.configure(runDir, glob, null, receiver.port());
                c = Child.start(placed(Rsyslog.command(rsyslogd, conf, runDir)),
                        runDir.resolve("rsyslogd.log"));
            } else {
                receiver = new LatencyReceiver(lat, origin);
                Path conf = SyslogNg.configure(syslogNg, runDir, files, "*.log", receiver.port());
                c = Child.start(placed(SyslogNg.command(syslogNg, conf, runDir)),
                        runDir.resolve("syslog-ng.log"));
            }
            Writer w = new Writer(chans, cfg.rate());
            long warmEnd = System.nanoTime() + cfg.warmup().toNanos();
            w.runUntil(warmEnd);
            lat.recordFrom(System.nanoTime() - origin);
            double cpu0 = c.cpuNow();
            Child.Activity act0 = c.activity();
            CpuUsage machine0 = CpuUsage.now();
            long m0 = System.nanoTime();
            w.runUntil(m0 + cfg.measure().toNanos());
            double cpu1 = c.cpuNow();
            Child.Activity act1 = c.activity();
            CpuUsage.Delta machine = CpuUsage.now().since(machine0);
            double measured = (System.nanoTime() - m0) / 1e9;
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (lat.lines() < w.written && System.nanoTime() < deadline && c.process().isAlive()) sleepMillis(5);
            Histogram h = lat.snapshot();
            String problem = null;
            if (lat.lines() != w.written) {
                problem = "delivered " + lat.lines() + " of " + w.written + " lines"
                        + (c.process().isAlive() ? "" : " (exited: " + lastLine(c.log()) + ")");
            } else if (lat.malformed() > 0) {
                problem = lat.malformed() + " malformed lines";
            } else if (h.getTotalCount() == 0) {
                problem = NO_LINE_MEASURED;
            }
            long rss = c.peakRssBytes();
            c.stop();
            r.put("rate", cfg.rate());
            r.put("files", cfg.files());
            if (cfg.wide()) r.put("config", "wide");
            r.put("lines", w.written);
            r.put("measured_lines", h.getTotalCount());
            r.put("measured_seconds", measured);
            r.put("achieved_rate", w.measuredRate());
            boolean none = h.getTotalCount() == 0;
            for (double p : new double[] {50, 90, 99, 99.9}) {
                r.put("p" + (p == 99.9 ? "99_9" : Integer.toString((int) p)) + "_ms",
                        none ? Double.NaN : h.getValueAtPercentile(p) / 1e6);
            }
            r.put("max_ms", none ? Double.NaN : h.getMaxValue() / 1e6);
            if (!none && !cfg.wide()) curves.put(tool + " " + sink, curve(h));
            double share = (cpu1 - cpu0) / measured; // NaN when a CPU time could not be read
            r.put("cpu_percent", share * 100);
            // The kernel's side of that CPU: how often the process was woken and how many read/write system calls
            // it made, per 1,000 lines appended while measuring (NaN when /proc could not be read).
            Child.Activity act = act0 == null || act1 == null ? null : act1.since(act0);
            double per = w.measuredLines() / 1000.0;
            r.put("wake_ups_per_1000_lines", act == null || per == 0 ? Double.NaN : act.wakeUps() / per);
            r.put("reads_per_1000_lines", act == null || per == 0 ? Double.NaN : act.reads() / per);
            r.put("writes_per_1000_lines", act == null || per == 0 ? Double.NaN : act.writes() / per);
            // What else ran meanwhile: a latency tail on a shared machine is mostly waiting for a CPU.
            r.put("bench_jvm_cpus", machine.ours());
            r.put("other_processes_cpus", Math.max(0, machine.others() - (Double.isNaN(share) ? 0 : share)));
            r.put("peak_rss_bytes", rss);
            r.put("verified", problem == null ? "every line arrived" : problem);
            r.put("problem", problem);
            if (problem != null) {
                problems.add(String.format(Locale.ROOT, "latency %d files, %,d lines/s, %s %s: %s", cfg.files(),
                        cfg.rate(), tool, sink, problem));
            }
            return r;
        } finally {
            if (c != null) c.close();
            if (receiver != null) receiver.close();
            if (tail != null) tail.close();
            for (FileChannel ch : chans) ch.close();
            deleteTree(runDir);
        }
    }

    /** Appends lines round-robin to the files at a fixed rate, one write per line; each line carries its time. */
    private final class Writer {
        private final List<FileChannel> chans;
        private final long intervalNanos;
        private final byte[] line = LogLines.template();
        private final ByteBuffer bb = ByteBuffer.wrap(line);
        private long written;
        private long next = -1;
        private long measuredStart = -1;
        private long measuredLines;
        private long measuredEnd;
        private byte[] ts = LogLines.timestamp(Instant.now());
        private long tsAt;

        Writer(List<FileChannel> chans, int rate) {
            this.chans = chans;
            this.intervalNanos = 1_000_000_000L / rate;
        }

        void runUntil(long end) throws IOException {
            if (next < 0) next = System.nanoTime();
            long startLines = written;
            long start = System.nanoTime();
            while (true) {
                long now = System.nanoTime();
                if (now >= end) break;
                if (now < next) {
                    LockSupport.parkNanos(Math.min(next - now, end - now));
                    continue;
                }
                if (now - tsAt > 1_000_000) {
                    ts = LogLines.timestamp(Instant.now());
                    tsAt = now;
                }
                int src = (int) (written % chans.size());
                long t = System.nanoTime() - origin;
                LogLines.fill(line, 0, written, t, src, ts);
                bb.clear();
                FileChannel ch = chans.get(src);
                while (bb.hasRemaining()) ch.write(bb);
                written++;
                next += intervalNanos;
            }
            measuredStart = start;
            measuredEnd = System.nanoTime();
            measuredLines = written - startLines;
        }

        double measuredRate() {
            return measuredLines / ((measuredEnd - measuredStart) / 1e9);
        }

        /** Lines appended during the last {@link #runUntil}. */
        long measuredLines() {
            return measuredLines;
        }
    }

    /** Latency at percentiles 50 to 99.99 and the maximum, x in "nines" (1 = p90, 2 = p99, 3 = p99.9). */
    private static double[][] curve(Histogram h) {
        double[] p = {50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99};
        double[] x = new double[p.length];
        double[] y = new double[p.length];
        for (int i = 0; i < p.length; i++) {
            x[i] = -Math.log10(1 - p[i] / 100);
            y[i] = Math.max(0.001, h.getValueAtPercentile(p[i]) / 1e6);
        }
        return new double[][] {x, y};
    }

    // ================================================================== throughput

    private void throughput() throws IOException {
        progress("throughput: %d files appended to as fast as one thread can for %d s (at most %d MB) -> jfio tcp "
                + "sink", o.files(), o.throughput().toSeconds(), THROUGHPUT_CAP / 1_000_000);
        Path runDir = Files.createDirectories(work.resolve("throughput"));
        Path files = Files.createDirectories(runDir.resolve("files"));
        Map<String, Object> r = row("jfio", "tcp", 1);
        List<FileChannel> chans = new ArrayList<>();
        try (TcpReceiver receiver = TcpReceiver.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                null, TcpReceiver.Options.defaults(), new PrintStream(PrintStream.nullOutputStream()))) {
            for (int i = 0; i < o.files(); i++) {
                chans.add(FileChannel.open(files.resolve(String.format(Locale.ROOT, "f-%03d.log", i)),
                        StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, StandardOpenOption.APPEND));
            }
            Child c = Child.start(placed(jfio("ship", "--from", files + "/*.log", "--to", "tcp:127.0.0.1:"
                    + receiver.port(), "--state", runDir.resolve("state").toString())), runDir.resolve("ship.log"));
            try (c) {
                waitForLog(c, "event=start", 30);
                int per = (64 << 10) / LogLines.LINE;
                byte[] template = LogLines.template();
                byte[] ts = LogLines.timestamp(Instant.now());
                // One chunk per file: each file's lines name their file, as the lines of different sources differ.
                List<ByteBuffer> chunks = new ArrayList<>(chans.size());
                for (int f = 0; f < chans.size(); f++) {
                    byte[] chunk = new byte[per * LogLines.LINE];
                    for (int i = 0; i < per; i++) {
                        System.arraycopy(template, 0, chunk, i * LogLines.LINE, LogLines.LINE);
                        LogLines.fill(chunk, i * LogLines.LINE, i, 0, f, ts);
                    }
                    chunks.add(ByteBuffer.wrap(chunk));
                }
                // A cap keeps a fast writer from filling the disk and the page cache with dirty data.
                long cap = THROUGHPUT_CAP;
                double cpu0 = c.cpuNow();
                long start = System.nanoTime();
                long end = start + o.throughput().toNanos();
                long written = 0;
                int f = 0;
                while (System.nanoTime() < end && written < cap) {
                    ByteBuffer bb = chunks.get(f).clear();
                    FileChannel ch = chans.get(f);
                    while (bb.hasRemaining()) written += ch.write(bb);
                    f = (f + 1) % chans.size();
                }
                double writeSeconds = (System.nanoTime() - start) / 1e9;
                long deadline = System.nanoTime() + 120_000_000_000L;
                while (receiver.received() < written && System.nanoTime() < deadline && c.process().isAlive()) {
                    sleepMillis(2);
                }
                double seconds = (System.nanoTime() - start) / 1e9;
                double cpu1 = c.cpuNow();
                long rss = c.peakRssBytes();
                String problem = receiver.received() == written ? null
                        : "delivered " + receiver.received() + " of " + written + " bytes";
                c.stop();
                r.put("files", o.files());
                r.put("bytes", written);
                r.put("lines", written / LogLines.LINE);
                r.put("write_seconds", writeSeconds);
                r.put("seconds", seconds);
                r.put("mb_per_s", written / 1e6 / seconds);
                r.put("lines_per_s", written / LogLines.LINE / seconds);
                // NaN when the shipper had exited before a CPU time was read.
                r.put("cpu_seconds", cpu1 - cpu0);
                r.put("peak_rss_bytes", rss);
                r.put("verified", problem == null ? "every byte arrived (count)" : problem);
                r.put("problem", problem);
                if (problem != null) problems.add("throughput: " + problem);
            }
            throughput.add(r);
        } finally {
            for (FileChannel ch : chans) ch.close();
            deleteTree(runDir);
        }
    }

    // ================================================================== idle

    private void idle() throws IOException {
        int n = o.idleDirs() * o.idleFiles();
        progress("idle: %,d files in %d directories, shipped, then %d s without a change", n, o.idleDirs(),
                o.idle().toSeconds());
        Path runDir = Files.createDirectories(work.resolve("idle"));
        Path tree = Files.createDirectories(runDir.resolve("tree"));
        Path out = runDir.resolve("out");
        Map<String, Object> r = row("jfio", "dir", 1);
        try {
            byte[] line = LogLines.template();
            byte[] ts = LogLines.timestamp(Instant.now());
            for (int d = 0; d < o.idleDirs(); d++) {
                Path sub = Files.createDirectories(tree.resolve(String.format(Locale.ROOT, "d-%03d", d)));
                for (int i = 0; i < o.idleFiles(); i++) {
                    LogLines.fill(line, 0, (long) d * o.idleFiles() + i, 0, i % 1000, ts);
                    Files.write(sub.resolve(String.format(Locale.ROOT, "f-%03d.log", i)), line);
                }
            }
            long total = (long) n * LogLines.LINE;
            try (Child c = Child.start(placed(jfio("ship", "--from", tree + "/*/*.log", "--to", "dir:" + out,
                    "--state", runDir.resolve("state").toString())), runDir.resolve("ship.log"))) {
                long deadline = System.nanoTime() + 180_000_000_000L;
                long shipped = 0;
                while (System.nanoTime() < deadline && c.process().isAlive()) {
                    shipped = 0;
                    for (Path p : DirSink.segments(out)) shipped += Files.size(p);
                    if (shipped >= total) break;
                    sleepMillis(50);
                }
                double ready = c.elapsedSeconds();
                String problem = shipped == total ? null : "shipped " + shipped + " of " + total + " bytes";
                sleepMillis(IDLE_SETTLE_MS);
                double cpu0 = c.cpuNow();
                long m0 = System.nanoTime();
                sleepMillis(o.idle().toMillis());
                double cpu1 = c.cpuNow();
                double seconds = (System.nanoTime() - m0) / 1e9;
                long rss = c.peakRssBytes();
                // NaN when the shipper had exited before a CPU time was read.
                double cpu = cpu1 - cpu0;
                if (!c.process().isAlive()) {
                    problem = "shipper exited: " + lastLine(c.log());
                } else if (problem == null && Double.isNaN(cpu)) {
                    problem = CPU_UNREADABLE;
                }
                c.stop();
                r.put("files", n);
                r.put("all_shipped_after_seconds", ready);
                r.put("measured_seconds", seconds);
                r.put("cpu_seconds", cpu);
                r.put("cpu_percent", cpu / seconds * 100);
                r.put("peak_rss_bytes", rss);
                r.put("verified", problem == null ? "every file shipped" : problem);
                r.put("problem", problem);
                if (problem != null) problems.add("idle: " + problem);
            }
            idle.add(r);
        } finally {
            deleteTree(runDir);
        }
    }

    // ================================================================== report

    /** {@code command} started on {@link ShipBenchOptions#shipperCpus} by taskset(1), or as it is. */
    private List<String> placed(List<String> command) {
        if (o.shipperCpus() == null) return command;
        List<String> c = new ArrayList<>(List.of("taskset", "-c", o.shipperCpus()));
        c.addAll(command);
        return c;
    }

    /** Where the shippers and this benchmark's writers and receivers ran, for the report. */
    private String placement() {
        String here = SystemInfo.allowedCpus();
        return o.shipperCpus() == null
                ? "shippers, writers and receivers on the CPUs the scheduler chose (this benchmark's: " + here + ")"
                : "shippers on CPUs " + o.shipperCpus() + " (taskset), this benchmark's writers and receivers on "
                        + here;
    }

    private Result write(SystemInfo sys, String loadBefore, String loadAfter, double seconds, CpuUsage.Delta busy)
            throws IOException {
        Files.createDirectories(o.out());
        List<String> verdicts = verdicts();
        StringBuilder md = new StringBuilder();
        md.append("# jfio bench ship\n\n");
        md.append("Run ").append(LocalDateTime.now().format(DateTimeFormatter.ISO_LOCAL_DATE_TIME).substring(0, 19))
                .append(", ").append(Math.round(seconds)).append(" s. Load average before ").append(loadBefore)
                .append(", after ").append(loadAfter).append(String.format(Locale.ROOT, ". Other processes kept "
                        + "%.2f of %d CPUs busy on average (the benchmark, its shippers and rsyslogd: %.2f; hypervisor "
                        + "steal %.2f).%n%n", busy.others(), Runtime.getRuntime().availableProcessors(), busy.ours(),
                        busy.steal()));
        for (String l : sys.lines()) md.append("- ").append(l).append('\n');
        md.append("- rsyslog: ").append(rsyslogVersion != null ? rsyslogVersion : "not run").append('\n');
        md.append("- syslog-ng: ").append(syslogNg == null ? "not run" : syslogNg.installer() + " ("
                + (syslogNg.root() == null ? syslogNg.binary() : "unpacked from Debian's packages in "
                + syslogNg.root()) + ")").append('\n');
        md.append("- jfio: `").append(String.join(" ", o.jfio())).append(" ship ...`\n");
        md.append("- Placement: ").append(placement()).append("\n\n");
        if (!o.standardSizes()) {
            md.append("**Sizes differ from the standard ones** (5,000,000 lines, 100 files at 10,000 lines/s, "
                    + "10,000 idle files): these numbers are not the targets' measurements.\n\n");
        }
        if (!single.isEmpty()) {
            md.append("## One file: ").append(String.format(Locale.ROOT, "%,d", o.lines())).append(" lines of 92 "
                    + "bytes (").append(mb(inputBytes)).append("), hot in the page cache, `--once`\n\n");
            md.append("Median of the runs that succeeded (*runs* counts the failed ones too; *output* names the "
                    + "first failure). *wall*: process start to exit (rsyslog: to the output being complete). "
                    + "*ship*: the shipper's own start-to-stop log events, without JVM start. CPU: user + system of "
                    + "the process. MB = 10^6 bytes, MiB = 2^20 bytes.\n\n");
            md.append("| tool | sink | runs | wall s | ship s | MB/s wall | MB/s ship | lines/s (ship) | CPU s "
                    + "| peak RSS MiB | output | MB/s vs rsyslog |\n");
            md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|\n");
            List<Map<String, Object>> ok = succeeded(single);
            double rsWall = median(ok, "rsyslog", "omfile", "wall_seconds");
            for (String[] k : List.of(new String[] {"jfio", "dir"}, new String[] {"jfio", "tcp"},
                    new String[] {"rsyslog", "omfile"})) {
                List<Map<String, Object>> rows = rows(single, k[0], k[1]);
                if (rows.isEmpty()) continue;
                int failed = rows.size() - rows(ok, k[0], k[1]).size();
                double wall = median(ok, k[0], k[1], "wall_seconds");
                double ship = median(ok, k[0], k[1], "ship_seconds");
                double cpu = median(ok, k[0], k[1], "cpu_seconds");
                long rss = rows(ok, k[0], k[1]).stream().mapToLong(m -> (Long) m.get("peak_rss_bytes")).max()
                        .orElse(0);
                String verified = rows.stream().map(m -> (String) m.get("problem")).filter(v -> v != null)
                        .findFirst().orElse("equal to the input");
                md.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s "
                                + "| %s |%n", k[0], k[1], failed == 0 ? rows.size() : rows.size() + " (" + failed
                                + " failed)", fmt(wall, "%.2f"), fmt(ship, "%.2f"),
                        fmt(inputBytes / 1e6 / wall, "%.0f"), fmt(inputBytes / 1e6 / ship, "%.0f"),
                        fmt(o.lines() / ship, "%,.0f"), fmt(cpu, "%.2f"),
                        rss > 0 ? String.format(Locale.ROOT, "%.0f", rss / MIB) : "-", verified,
                        fmt(rsWall / wall, "%.1fx")));
            }
            md.append("\n");
            if (!diskMBps.isEmpty()) {
                md.append(String.format(Locale.ROOT, "The disk itself, measured before each dir-sink run (%s of "
                                + "zeros in 4 MiB writes, then fdatasync, like `dd conv=fdatasync`): median %.0f MB/s "
                                + "(runs: %s).%n%n", mb(inputBytes), diskMedian(),
                        diskMBps.stream().map(d -> String.format(Locale.ROOT, "%.0f", d))
                                .collect(java.util.stream.Collectors.joining(", "))));
            }
        }
        if (records != null) records.report(md);
        boolean png = false;
        for (List<Map<String, Object>> cfg : configurations(latency)) {
            boolean wide = "wide".equals(cfg.get(0).get("config"));
            latencySection(md, cfg, wide);
            if (!wide && !png && latencyPng()) {
                png = true;
                md.append("![latency by percentile](latency.png)\n\n");
            }
        }
        if (!throughput.isEmpty()) {
            Map<String, Object> m = throughput.get(0);
            md.append("## Throughput: ").append(o.files()).append(" files appended to as fast as one thread can, "
                    + "to the TCP receiver\n\n");
            md.append("One thread appends 64 KiB of whole lines to each file in turn for ").append(o.throughput()
                    .toSeconds()).append(" s (or ").append(THROUGHPUT_CAP / 1_000_000).append(" MB); MB/s is what "
                    + "was written divided by the time until the receiver (jfio's TcpReceiver, acknowledging, "
                    + "discarding) had all of it. CPU: the shipper's, over that time.\n\n");
            md.append("| tool | sink | written MB | write s | delivered after s | MB/s | lines/s | CPU s "
                    + "| peak RSS MiB | delivery |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
            md.append(String.format(Locale.ROOT, "| jfio | tcp | %.0f | %.1f | %.1f | %.0f | %,.0f | %s | %.0f "
                            + "| %s |%n%n", (Long) m.get("bytes") / 1e6, m.get("write_seconds"), m.get("seconds"),
                    m.get("mb_per_s"), m.get("lines_per_s"), fmt(m, "cpu_seconds", "%.2f"),
                    (Long) m.get("peak_rss_bytes") / MIB, m.get("verified")));
        }
        if (!idle.isEmpty()) {
            Map<String, Object> m = idle.get(0);
            md.append("## Idle: ").append(String.format(Locale.ROOT, "%,d", m.get("files"))).append(" watched "
                    + "files, nothing changes\n\n");
            md.append("| tool | files | all shipped after s | measured s | CPU s | CPU % of a core | peak RSS MiB "
                    + "| delivery |\n|---|---:|---:|---:|---:|---:|---:|---|\n");
            md.append(String.format(Locale.ROOT, "| jfio | %,d | %.1f | %.1f | %s | %s | %.0f | %s |%n%n",
                    m.get("files"), m.get("all_shipped_after_seconds"), m.get("measured_seconds"),
                    fmt(m, "cpu_seconds", "%.2f"), fmt(m, "cpu_percent", "%.3f"),
                    (Long) m.get("peak_rss_bytes") / MIB, m.get("verified")));
            md.append("CPU time comes in 10 ms ticks: over ").append(o.idle().toSeconds()).append(" s one tick is ")
                    .append(String.format(Locale.ROOT, "%.3f", 1.0 / o.idle().toSeconds())).append("% of a core."
                    + "\n\n");
        }
        md.append("## Targets\n\n");
        for (String v : verdicts) md.append("- ").append(v).append('\n');
        if (!problems.isEmpty()) {
            md.append("\n## Problems\n\n");
            for (String p : problems) md.append("- ").append(p).append('\n');
        }
        if (!notes.isEmpty()) {
            md.append("\n## Notes\n\n");
            for (String n : notes) md.append("- ").append(n).append('\n');
        }
        Path report = o.out().resolve("report.md");
        Files.writeString(report, md);
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("benchmark", "ship");
        json.put("schema_version", 1);
        json.put("system", sys.toMap());
        json.put("load_before", loadBefore);
        json.put("load_after", loadAfter);
        json.put("other_processes_cpus", busy.others());
        json.put("benchmark_cpus", busy.ours());
        json.put("steal_cpus", busy.steal());
        json.put("seconds", seconds);
        json.put("scale", o.scale());
        json.put("shipper_cpus", o.shipperCpus());
        json.put("standard_sizes", o.standardSizes());
        json.put("rsyslog", rsyslogVersion);
        json.put("syslog_ng", syslogNg == null ? null : syslogNg.installer());
        json.put("single", single);
        json.put("disk_durable_write_mbps", diskMBps);
        json.put("records", records == null ? List.of() : records.rows);
        json.put("latency", latency);
        json.put("throughput", throughput);
        json.put("idle", idle);
        json.put("verdicts", verdicts);
        json.put("problems", problems);
        json.put("notes", notes);
        Path jsonFile = o.out().resolve("results.json");
        Files.writeString(jsonFile, JsonText.write(json) + "\n");
        return new Result(report, jsonFile, verdicts, List.copyOf(problems));
    }

    /**
     * The latency rows grouped by configuration (files and rate), in the order they ran: each is compared only with
     * the peers of its own configuration.
     */
    static List<List<Map<String, Object>>> configurations(List<Map<String, Object>> rows) {
        Map<List<Object>, List<Map<String, Object>>> g = new LinkedHashMap<>();
        for (Map<String, Object> m : rows) {
            g.computeIfAbsent(Arrays.asList(m.get("files"), m.get("rate"), m.get("config")), k -> new ArrayList<>())
                    .add(m);
        }
        return List.copyOf(g.values());
    }

    /** The succeeded row of {@code peer} in the configuration of {@code m}, or an empty map. */
    static Map<String, Object> peer(List<Map<String, Object>> rows, Map<String, Object> m, String peer) {
        return succeeded(rows).stream().filter(x -> x.get("tool").equals(peer)
                && java.util.Objects.equals(x.get("files"), m.get("files"))
                && java.util.Objects.equals(x.get("rate"), m.get("rate"))
                && java.util.Objects.equals(x.get("config"), m.get("config"))).findFirst().orElse(Map.of());
    }

    /** A row's p99 ratio {@code peer p99 / row p99} as "1.23x", "-" when either is missing or failed. */
    private static String p99Ratio(Map<String, Object> m, Map<String, Object> peer) {
        if (m.get("problem") != null || !(peer.get("p99_ms") instanceof Double pp)
                || !(m.get("p99_ms") instanceof Double mp)) {
            return "-";
        }
        return fmt(pp / mp, "%.2fx");
    }

    private void latencySection(StringBuilder md, List<Map<String, Object>> rows, boolean wide) {
        Map<String, Object> first = rows.get(0);
        int files = first.get("files") instanceof Integer f ? f : o.files();
        int rate = first.get("rate") instanceof Integer r ? r : o.rate();
        md.append("## Latency").append(wide ? " (wide)" : "").append(": ").append(String.format(Locale.ROOT,
                "%,d", files)).append(" files appended to at ").append(String.format(Locale.ROOT, "%,d", rate))
                .append(" lines/s in all\n\n");
        md.append("Append (a `write` of one line) to arrival at the receiver, ").append((wide ? o.wideLatency()
                        : o.latency()).toSeconds())
                .append(" s measured after ").append(o.warmup().toSeconds()).append(" s of warm-up").append(wide
                        ? " (a shorter window than the other latency runs', to keep the benchmark's time in bounds)"
                        : "").append(". TCP: a "
                + "listener in the benchmark's JVM stamps each read (it acknowledges on receipt, no fsync). "
                + "dir: the segment files are read when inotify reports a write to them. CPU: share of one core "
                + "of the shipper process while measuring. *lines/s*: the rate the writer achieved. *elsewhere*: "
                + "CPUs (of ").append(Runtime.getRuntime().availableProcessors()).append(") busy with other "
                + "processes meanwhile, the benchmark's own writer and receiver not counted: when that is high the "
                + "tail measures waiting for a CPU.\n\n");
        md.append("| tool | sink | lines/s | p50 ms | p90 ms | p99 ms | p99.9 ms | max ms | CPU % of a core "
                + "| elsewhere (CPUs) | peak RSS MiB | delivery | p99 vs rsyslog | p99 vs syslog-ng |\n");
        md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|\n");
        for (Map<String, Object> m : rows) {
            md.append(String.format(Locale.ROOT, "| %s | %s | %,.0f | %s | %s | %s | %s | %s | %s "
                            + "| %.2f | %.0f | %s | %s | %s |%n", m.get("tool"), m.get("sink"), m.get("achieved_rate"),
                    fmt(m, "p50_ms", "%.2f"), fmt(m, "p90_ms", "%.2f"), fmt(m, "p99_ms", "%.2f"),
                    fmt(m, "p99_9_ms", "%.2f"), fmt(m, "max_ms", "%.2f"), fmt(m, "cpu_percent", "%.2f"),
                    m.get("other_processes_cpus"), (Long) m.get("peak_rss_bytes") / MIB, m.get("verified"),
                    p99Ratio(m, peer(rows, m, "rsyslog")), p99Ratio(m, peer(rows, m, "syslog-ng"))));
        }
        md.append("\n*p99 vs rsyslog*, *p99 vs syslog-ng*: that peer's p99 divided by this row's; above 1 is faster. "
                + "syslog-ng looks at each file once a second (follow-freq, default 1 s).");
        if (rows.stream().anyMatch(m -> "min-shipper".equals(m.get("tool")))) {
            md.append(" *min-shipper*: a C program that does only what any shipper must for each append (wake up on "
                    + "inotify, read the new bytes, send them) and none of what a shipper that keeps its promises "
                    + "also does (checkpoints, acknowledgements, rotation, framing): the floor of this machine's "
                    + "CPU per line and latency, not a peer.");
        }
        md.append("\n\n");
        md.append("Per 1,000 lines appended while measuring, from `/proc` of each process: *wake-ups* are its "
                + "threads' voluntary context switches (each a sleep that something ended), *read calls* and "
                + "*write calls* its `syscr` and `syscw` (read, pread, readv, write, pwrite, writev, sendfile; "
                + "not socket sends through send/sendmsg, nor epoll_wait). Ratios: this row's value divided by "
                + "the peer's; below 1 is less work.\n\n");
        md.append("| tool | sink | CPU % of a core | wake-ups | read calls | write calls | CPU vs rsyslog "
                + "| CPU vs syslog-ng | wake-ups vs rsyslog | read+write calls vs rsyslog |\n");
        md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Map<String, Object> m : rows) {
            Map<String, Object> rs = peer(rows, m, "rsyslog");
            md.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%n",
                    m.get("tool"), m.get("sink"), fmt(m, "cpu_percent", "%.1f"),
                    fmt(m, "wake_ups_per_1000_lines", "%.0f"), fmt(m, "reads_per_1000_lines", "%.0f"),
                    fmt(m, "writes_per_1000_lines", "%.0f"), ratio(m, rs, "cpu_percent"),
                    ratio(m, peer(rows, m, "syslog-ng"), "cpu_percent"),
                    ratio(m, rs, "wake_ups_per_1000_lines"), ratio(m, rs, "reads_per_1000_lines",
                            "writes_per_1000_lines")));
        }
        md.append("\n");
    }

    /** Draws latency.png into the report directory; false (and a note) when it cannot be drawn. */
    private boolean latencyPng() {
        if (curves.isEmpty()) return false;
        Plot plot = Plot.lines(String.format(Locale.ROOT, "Append-to-delivered latency, %d files, %,d lines/s",
                o.files(), o.rate()),
                "percentile in nines (1 = p90, 2 = p99, 3 = p99.9, 4 = p99.99)", "ms", false, true);
        for (Map.Entry<String, double[][]> e : curves.entrySet()) {
            plot = plot.line(e.getKey(), e.getValue()[0], e.getValue()[1]);
        }
        try {
            Files.write(o.out().resolve("latency.png"), Charts.png(plot));
            return true;
        } catch (IOException | RuntimeException | LinkageError e) {
            // A JDK without AWT (headless builds without libawt) cannot draw; the table holds the same numbers.
            notes.add("latency.png not drawn: " + e);
            return false;
        }
    }

    /**
     * PASS/FAIL per target with the measured value; a target whose workload did not run is not listed. Only runs
     * that succeeded (no problem: delivery complete and equal, every measurement taken) are judged; a target none of
     * whose runs succeeded reads FAIL with {@link #RUN_FAILED}: a failed run is never a PASS.
     */
    List<String> verdicts() {
        List<String> v = new ArrayList<>();
        if (!rows(single, "jfio", "dir").isEmpty()) {
            List<Map<String, Object>> ok = succeeded(single);
            double ship = median(ok, "jfio", "dir", "ship_seconds");
            String target = String.format(Locale.ROOT, "(target >= %.0f MB/s)", TARGET_MBPS);
            if (Double.isNaN(ship)) {
                v.add("FAIL: single file into the dir sink: " + RUN_FAILED + " " + target);
            } else {
                double mbps = inputBytes / 1e6 / ship;
                double rs = median(ok, "rsyslog", "omfile", "wall_seconds");
                v.add(String.format(Locale.ROOT, "%s: single file into the dir sink: %.0f MB/s %s%s%s%s",
                        mbps >= TARGET_MBPS ? "PASS" : "FAIL", mbps, target, notCounted(single, "jfio", "dir"),
                        Double.isNaN(rs) ? "" : String.format(Locale.ROOT, "; rsyslog %.0f MB/s, jfio %.1fx (wall to "
                                + "wall)", inputBytes / 1e6 / rs, rs / median(ok, "jfio", "dir", "wall_seconds")),
                        diskMBps.isEmpty() ? "" : String.format(Locale.ROOT, "; the disk's own durable write: %.0f "
                                + "MB/s", diskMedian())));
            }
        }
        if (records != null) v.addAll(records.verdicts());
        for (Map<String, Object> m : latency) {
            if (!m.get("tool").equals("jfio")) continue;
            boolean wide = "wide".equals(m.get("config"));
            int rate = m.get("rate") instanceof Integer r ? r : o.rate();
            // The wide configuration names its files too: its rate alone may equal a custom everyday one.
            String at = wide ? String.format(Locale.ROOT, "%,d lines/s over %,d files", rate, m.get("files"))
                    : String.format(Locale.ROOT, "%,d lines/s", rate);
            double p99 = m.get("p99_ms") instanceof Double d ? d : Double.NaN;
            double cpu = m.get("cpu_percent") instanceof Double d ? d : Double.NaN;
            boolean ok = m.get("problem") == null;
            if (!wide) {
                String what = "latency p99 at " + at + ", " + m.get("sink") + " sink";
                String target = String.format(Locale.ROOT, "(target <= %.0f ms)", TARGET_P99_MS);
                // A run without a problem measured lines (else NO_LINE_MEASURED), so it has a p99.
                v.add(ok ? String.format(Locale.ROOT, "%s: %s: %.2f ms %s", p99 <= TARGET_P99_MS ? "PASS" : "FAIL",
                        what, p99, target) : "FAIL: " + what + ": " + RUN_FAILED + " " + target);
            }
            // Against the peers of the same configuration in the same run, when they ran: the shipper's CPU, and
            // at the everyday rate its tail against rsyslog's too. rsyslog has a ratio as target; syslog-ng, and
            // both in the wide configuration, have "lower".
            for (String name : List.of("rsyslog", "syslog-ng")) {
                Map<String, Object> peer = peer(latency, m, name);
                if (peer.isEmpty()) continue;
                double limit = !wide && name.equals("rsyslog") ? TARGET_CPU_VS_RSYSLOG : 1;
                String cpuWhat = "CPU at " + at + ", " + m.get("sink") + " sink, against " + name + "'s";
                String cpuTarget = limit < 1 ? String.format(Locale.ROOT, "(target <= %.1fx)", limit)
                        : "(target: lower)";
                double peerCpu = peer.get("cpu_percent") instanceof Double d ? d : Double.NaN;
                boolean pass = limit < 1 ? cpu / peerCpu <= limit : cpu < peerCpu;
                v.add(ok && !Double.isNaN(cpu / peerCpu) ? String.format(Locale.ROOT,
                        "%s: %s: %.1f%% against %.1f%% of a core, %s %s", pass ? "PASS" : "FAIL", cpuWhat, cpu,
                        peerCpu, fmt(cpu / peerCpu, "%.2fx"), cpuTarget)
                        : "FAIL: " + cpuWhat + ": " + RUN_FAILED + " " + cpuTarget);
                // syslog-ng polls its files (follow-freq, 1 s by default): its tail is that interval, no target.
                if (wide || !name.equals("rsyslog")) continue;
                String tailWhat = "latency p99 at " + at + ", " + m.get("sink") + " sink, against " + name + "'s";
                double peerP99 = (Double) peer.get("p99_ms");
                v.add(ok ? String.format(Locale.ROOT, "%s: %s: %.2f ms against %.2f ms (target: no worse)",
                        p99 <= peerP99 ? "PASS" : "FAIL", tailWhat, p99, peerP99)
                        : "FAIL: " + tailWhat + ": " + RUN_FAILED + " (target: no worse)");
            }
        }
        for (Map<String, Object> m : idle) {
            String what = String.format(Locale.ROOT, "idle CPU with %,d watched files", m.get("files"));
            String target = String.format(Locale.ROOT, "(target <= %.1f%%)", TARGET_IDLE_PERCENT);
            // A run without a problem read the shipper's CPU time (else CPU_UNREADABLE), so it has a share.
            double pct = m.get("cpu_percent") instanceof Double d ? d : Double.NaN;
            v.add(m.get("problem") == null ? String.format(Locale.ROOT, "%s: %s: %.3f%% of one core %s",
                    pct <= TARGET_IDLE_PERCENT ? "PASS" : "FAIL", what, pct, target)
                    : "FAIL: " + what + ": " + RUN_FAILED + " " + target);
        }
        boolean any = false;
        boolean anyOk = false;
        long rss = 0;
        for (List<Map<String, Object>> l : List.of(single, latency, throughput, idle)) {
            for (Map<String, Object> m : l) {
                if (!m.get("tool").equals("jfio")) continue;
                any = true;
                if (m.get("problem") != null) continue;
                anyOk = true;
                rss = Math.max(rss, (Long) m.get("peak_rss_bytes"));
            }
        }
        if (any) {
            String what = "peak RSS of the shipper over all runs";
            String target = String.format(Locale.ROOT, "(target <= %.0f MB = %.1f MiB)", TARGET_RSS / 1e6,
                    TARGET_RSS / MIB);
            v.add(rss > 0 ? String.format(Locale.ROOT, "%s: %s: %.1f MiB = %.1f MB %s",
                    rss <= TARGET_RSS ? "PASS" : "FAIL", what, rss / MIB, rss / 1e6, target)
                    : "FAIL: " + what + ": " + (anyOk ? "n/a (not measured)" : RUN_FAILED) + " " + target);
        }
        return v;
    }

    /** "; 1 of 3 runs failed, not counted" when some runs of a tool and sink failed, else "". */
    private static String notCounted(List<Map<String, Object>> l, String tool, String sink) {
        List<Map<String, Object>> all = rows(l, tool, sink);
        long failed = all.stream().filter(m -> m.get("problem") != null).count();
        return failed == 0 ? "" : String.format(Locale.ROOT, "; %d of %d runs failed, not counted", failed,
                all.size());
    }

    // ================================================================== helpers

    private static Map<String, Object> row(String tool, String sink, int rep) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("tool", tool);
        m.put("sink", sink);
        m.put("run", rep);
        return m;
    }

    static List<Map<String, Object>> rows(List<Map<String, Object>> l, String tool, String sink) {
        return l.stream().filter(m -> m.get("tool").equals(tool) && m.get("sink").equals(sink)).toList();
    }

    /**
     * The median of a numeric column over the rows of one tool and sink, rows without a value (NaN: not measured)
     * left out; NaN when none is left.
     */
    static double median(List<Map<String, Object>> l, String tool, String sink, String key) {
        double[] v = rows(l, tool, sink).stream().map(m -> m.get(key)).filter(x -> x instanceof Number)
                .mapToDouble(x -> ((Number) x).doubleValue()).filter(d -> !Double.isNaN(d)).toArray();
        return v.length == 0 ? Double.NaN : Stats.median(v);
    }

    /** The median of the disk's durable write speeds measured so far (finite values); call when there are some. */
    private double diskMedian() {
        return Stats.median(diskMBps.stream().mapToDouble(Double::doubleValue).toArray());
    }

    static String fmt(double v, String f) {
        return Double.isNaN(v) || Double.isInfinite(v) ? "-" : String.format(Locale.ROOT, f, v);
    }

    /** A row's number formatted, "-" when it is missing or not measured (NaN). */
    private static String fmt(Map<String, Object> row, String key, String f) {
        return row.get(key) instanceof Number n ? fmt(n.doubleValue(), f) : "-";
    }

    /**
     * The sum of {@code keys} in {@code m} divided by the same sum in the peer's row {@code peer}, as "0.42x"; "-" when
     * either row failed or lacks a value.
     */
    static String ratio(Map<String, Object> m, Map<String, Object> peer, String... keys) {
        if (m.get("problem") != null || peer.isEmpty()) return "-";
        double a = 0;
        double b = 0;
        for (String k : keys) {
            if (!(m.get(k) instanceof Number x) || !(peer.get(k) instanceof Number y)) return "-";
            a += x.doubleValue();
            b += y.doubleValue();
        }
        return fmt(a / b, "%.2fx");
    }

    /** The rows of runs that succeeded: the only ones a verdict or a median may use. */
    static List<Map<String, Object>> succeeded(List<Map<String, Object>> l) {
        return l.stream().filter(m -> m.get("problem") == null).toList();
    }

    List<String> jfio(String... args) {
        List<String> c = new ArrayList<>(o.jfio());
        c.addAll(Arrays.asList(args));
        return c;
    }

    /** Runs jfio once before measuring: the launcher builds a stale jar then, and the JVM's files get cached. */
    private void warmLauncher() throws IOException {
        Path log = work.resolve("warm.log");
        try (Child c = Child.start(jfio("--version"), log)) {
            int exit = c.waitFor(900);
            if (exit != 0) throw new IOException("jfio --version failed: exit=" + exit + " " + lastLine(log));
        }
        Files.deleteIfExists(log);
    }

    /** Seconds between the shipper's {@code event=start} and {@code event=stop} log lines; NaN if absent. */
    static double shipSeconds(Path log) throws IOException {
        Instant start = null;
        Instant stop = null;
        for (String l : Files.readAllLines(log)) {
            if (!l.startsWith("ts=")) continue;
            int sp = l.indexOf(' ');
            if (sp < 0) continue;
            if (l.contains(" event=start ")) start = Instant.parse(l.substring(3, sp));
            if (l.contains(" event=stop ")) stop = Instant.parse(l.substring(3, sp));
        }
        if (start == null || stop == null) return Double.NaN;
        return (stop.toEpochMilli() - start.toEpochMilli()) / 1000.0;
    }

    private static void waitForLog(Child c, String what, int seconds) throws IOException {
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        while (System.nanoTime() < deadline) {
            if (Files.readString(c.log()).contains(what)) return;
            if (!c.process().isAlive()) throw new IOException("shipper exited: " + lastLine(c.log()));
            sleepMillis(20);
        }
        throw new IOException("shipper did not log " + what + " within " + seconds + " s: log=" + c.log());
    }

    static String lastLine(Path log) {
        try {
            List<String> l = Files.readAllLines(log);
            for (int i = l.size() - 1; i >= 0; i--) {
                if (!l.get(i).isBlank()) return l.get(i);
            }
            return "(no output)";
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    private void progress(String format, Object... args) {
        err.println("bench ship: " + String.format(Locale.ROOT, format, args));
        err.flush();
    }

    private static String mb(long bytes) {
        return String.format(Locale.ROOT, "%.0f MB", bytes / 1e6);
    }

    /** Sleeps; an interrupt ends the wait early and stays set. */
    static void sleepQuietly(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void sleepMillis(long ms) throws IOException {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    private synchronized void cleanup(boolean forever) {
        Child.killAll(forever);
        if (work != null) {
            try {
                deleteTree(work);
            } catch (IOException e) {
                err.println("bench ship: could not remove " + work + ": " + e.getMessage());
            }
            work = null;
        }
    }

    /** Removes a directory tree (nothing when it does not exist); symlinks are removed, not followed. */
    public static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) return;
        Files.walkFileTree(p, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path f, BasicFileAttributes a) throws IOException {
                Files.deleteIfExists(f);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                Files.deleteIfExists(d);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    private static void checkFileSystem(Path dir, boolean allowTmpfs) throws IOException {
        if (!Files.isDirectory(dir)) throw new IllegalArgumentException("not a directory: dir=" + dir);
        if (allowTmpfs) return;
        try {
            BenchFile.checkFileSystem(dir); // a memory file system measures memory, not the disk the dir sink fsyncs to
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage() + " (or --allow-tmpfs)", e);
        }
    }
}
