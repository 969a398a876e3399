package io.jfio.bench.ship;

import io.jfio.bench.CpuUsage;
import io.jfio.bench.Processes;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Not thread-safe; one run at a time. {@code jfio bench ship --sink s3}: jfio ship into a local MinIO beside a bulk
 * upload of the same files by the MinIO client {@code mc cp --recursive}, in the same run, from one file and from 100
 * files: throughput, CPU seconds, peak resident size, and for jfio the exactly-once check of what it stored (every
 * source byte in exactly one object, each object's bytes equal to its key's range). jfio is measured twice: as the
 * daemon it is (started, ready and warmed up with 64 MB in as many files first; the files appear in its directory at
 * once, as hard links, and the time runs until every byte is in the bucket and the process has exited after a
 * SIGTERM) and as {@code jfio ship --once} from a cold start (JVM start-up included, like mc's). The files are
 * written first, so every run reads from the page cache.
 * MinIO and mc are found on PATH, in {@code $GOBIN}, {@code $GOPATH/bin} or {@code ~/go/bin} ({@code go install
 * github.com/minio/minio@latest} and {@code github.com/minio/mc@latest} put them there).
 */
public final class S3Bench {
    /** jfio's throughput must be at least this share of mc's. */
    public static final double TARGET_RATIO = 0.8;
    /** jfio's peak resident size must be at most this. */
    public static final long TARGET_RSS = 160_000_000L;
    private static final Pattern KEY = Pattern.compile(
            ".*/(?<file>[^/]+)\\.(?<start>\\d{16})-(?<end>\\d{16})\\.(?<seq>\\d{16})\\.log");
    private static final String USER = "minioadmin";
    /** The name prefix of the files a running shipper is warmed up with before it is measured. */
    private static final String WARMUP = "warmup-";
    /** Warm-up rounds stop once the JIT compiler threads took less than this share of a round's CPU... */
    private static final double SETTLED_COMPILER_SHARE = 0.10;
    /** ...or after this many rounds of 64 MB. */
    private static final int MAX_WARMUP_ROUNDS = 12;

    /**
     * What to run.
     *
     * @param dir         where the work directory goes (files, MinIO's data)
     * @param jfio        how to run jfio
     * @param singleBytes the size of the one-file workload
     * @param files       the number of files of the many-files workload
     * @param fileBytes   the size of each of them
     */
    public record Options(Path dir, List<String> jfio, long singleBytes, int files, long fileBytes) {
    }

    /**
     * One tool on one workload.
     *
     * @param tool     jfio or mc
     * @param workload 1 file or 100 files
     * @param bytes    bytes uploaded
     * @param seconds  wall time, start to exit
     * @param cpu      CPU seconds
     * @param rss      peak resident size in bytes
     * @param verified for jfio the exactly-once check's result, for mc its exit
     */
    public record Row(String tool, String workload, long bytes, double seconds, double cpu, long rss,
                      String verified) {
        double mbps() {
            return bytes / 1e6 / seconds;
        }
    }

    /**
     * The result.
     *
     * @param rows   the rows
     * @param report the table, as text
     * @param ok     whether every jfio run stored every byte exactly once (the targets are reported, not judged)
     */
    public record Result(List<Row> rows, String report, boolean ok) {
    }

    /** How a running shipper was warmed up: rounds of 64 MB, and its JIT compiler's share of the last round's CPU. */
    private record Warmup(int rounds, double compilerShare) {
    }

    private final Options o;
    private final PrintWriter err;
    private final String password = "bench-" + Long.toHexString(System.nanoTime());
    private final List<Warmup> warmups = new ArrayList<>();
    private Path work;
    private Path mcConfig;
    private String endpoint;

    private S3Bench(Options o, PrintWriter err) {
        this.o = o;
        this.err = err;
    }

    /**
     * Runs the benchmark.
     *
     * @throws IllegalStateException when MinIO or mc cannot be found
     * @throws IOException           when a run cannot be made (a tool fails, the disk is full)
     */
    public static Result run(Options o, PrintWriter err) throws IOException {
        return new S3Bench(o, err).run();
    }

    private Result run() throws IOException {
        Path minio = tool("minio", "github.com/minio/minio@latest");
        Path mc = tool("mc", "github.com/minio/mc@latest");
        work = Files.createTempDirectory(o.dir().toAbsolutePath(), "jfio-bench-s3-");
        Child server = null;
        try {
            int port = freePort();
            endpoint = "http://127.0.0.1:" + port;
            Path data = Files.createDirectories(work.resolve("minio-data"));
            // MinIO takes its root credentials from the environment only; the child inherits this one's, so the
            // command runs through env(1).
            server = Child.start(List.of("env", "MINIO_ROOT_USER=" + USER, "MINIO_ROOT_PASSWORD=" + password,
                    "MINIO_BROWSER=off", minio.toString(), "server", "--quiet", "--address", "127.0.0.1:" + port,
                    "--console-address", "127.0.0.1:" + freePort(), data.toString()), work.resolve("minio.log"));
            waitLive();
            mcConfig = work.resolve("mc");
            run(List.of(mc.toString(), "--config-dir", mcConfig.toString(), "alias", "set", "bench", endpoint, USER,
                    password), "mc-alias");
            run(List.of(mc.toString(), "--config-dir", mcConfig.toString(), "mb", "bench/bench"), "mc-mb");
            List<Row> rows = new ArrayList<>();
            boolean ok = true;
            for (int w = 0; w < 2; w++) {
                String name = w == 0 ? "1 file" : o.files() + " files";
                Path src = Files.createDirectories(work.resolve(w == 0 ? "one" : "many"));
                int n = w == 0 ? 1 : o.files();
                long size = w == 0 ? o.singleBytes() : o.fileBytes();
                err.println("s3 bench: writing " + name + " of " + size / 1_000_000 + " MB");
                err.flush();
                for (int i = 0; i < n; i++) write(src.resolve("f" + i + ".log"), size, i);
                long total = n * size;
                Row r = running(name, src, total, w);
                ok &= r.verified().startsWith("PASS");
                rows.add(r);
                Row j = jfio(name, src, total, w);
                ok &= j.verified().startsWith("PASS");
                rows.add(j);
                rows.add(mc(mc, name, src, total, w));
            }
            return new Result(rows, report(rows), ok);
        } finally {
            if (server != null) server.close();
            delete(work);
        }
    }

    private Row jfio(String name, Path src, long total, int w) throws IOException {
        String prefix = "jfio-" + w;
        Path cfg = work.resolve("ship-" + w + ".yaml");
        Files.writeString(cfg, "s3:\n  endpoint: " + endpoint + "\n  access-key: " + USER + "\n  secret-key: "
                + password + "\n  compression: none\n");
        List<String> cmd = new ArrayList<>(o.jfio());
        cmd.addAll(List.of("ship", "--config", cfg.toString(), "--from", src.resolve("*.log").toString(), "--to",
                "s3://bench/" + prefix, "--state", work.resolve("state-" + w).toString(), "--once"));
        err.println("s3 bench: jfio ship --once, " + name);
        err.flush();
        Processes.sync();
        Path log = work.resolve("jfio-" + w + ".log");
        try (Child c = Child.start(cmd, log)) {
            int exit = c.waitFor(1800);
            if (exit != 0) throw new IOException("jfio ship failed: exit=" + exit + " " + tail(log));
            String verified = verify(prefix, src);
            return new Row("jfio ship --once (cold)", name, total, c.elapsedSeconds(), c.cpuSeconds(), c.peakRssBytes(),
                    verified);
        }
    }

    /**
     * jfio ship as a daemon: started on an empty directory, then the files appear in it at once (hard links to the
     * written files); from then until every byte is in the bucket: it reads everything, a SIGTERM cuts the objects
     * still filling, and it exits once they are uploaded. CPU is counted from the moment the files appear.
     */
    private Row running(String name, Path src, long total, int w) throws IOException {
        String prefix = "jfio-run-" + w;
        Path in = Files.createDirectories(work.resolve("in-" + w));
        Path cfg = work.resolve("ship-run-" + w + ".yaml");
        Files.writeString(cfg, "s3:\n  endpoint: " + endpoint + "\n  access-key: " + USER + "\n  secret-key: "
                + password + "\n  compression: none\n");
        int port = freePort();
        List<String> cmd = new ArrayList<>(o.jfio());
        cmd.addAll(List.of("ship", "--config", cfg.toString(), "--from", in.resolve("*.log").toString(), "--to",
                "s3://bench/" + prefix, "--state", work.resolve("state-run-" + w).toString(), "--metrics",
                "127.0.0.1:" + port));
        err.println("s3 bench: jfio ship (running), " + name);
        err.flush();
        Path log = work.resolve("jfio-run-" + w + ".log");
        try (Child c = Child.start(cmd, log)) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(300);
            while (get(port, "/ready") != 200) {
                if (!c.process().isAlive() || System.nanoTime() > deadline) {
                    throw new IOException("jfio ship did not become ready: " + tail(log));
                }
                sleep(20);
            }
            // Warmed up first, as a shipper that runs all the time is: rounds of 64 MB through the same path, in as
            // many files as the measured workload (so the per-file and per-object code has run too), acknowledged,
            // until the JIT compiler is done with that code: a round in which the compiler threads took under a
            // tenth of the process's CPU (compilation is a cost of the first minutes, not of a shipper that runs).
            Path warm = work.resolve("warmup-" + w);
            Files.createDirectories(warm);
            int n = w == 0 ? 1 : o.files();
            List<String> warmNames = new ArrayList<>();
            long warmBytes = 0;
            int rounds = 0;
            double compiling = 1;
            while (rounds < MAX_WARMUP_ROUNDS && compiling >= SETTLED_COMPILER_SHARE) {
                double jit0 = compilerSeconds(c.process().pid());
                double all0 = c.cpuNow();
                for (int i = 0; i < n; i++) {
                    String wn = WARMUP + rounds + "-" + i + ".log";
                    write(warm.resolve(wn), 64_000_000L / n, 999 - i - rounds * n);
                    Files.createLink(in.resolve(wn), warm.resolve(wn));
                    warmBytes += Files.size(warm.resolve(wn));
                    warmNames.add(wn);
                }
                while (metric(port, "jfio_ship_bytes_read_total") < warmBytes) {
                    if (!c.process().isAlive() || System.nanoTime() > deadline) {
                        throw new IOException("jfio ship did not read the warm-up files: " + tail(log));
                    }
                    sleep(5);
                }
                // The round's files go once read, as rotation removes old logs: the shipper's state then holds the
                // workload's files, not every warm-up round's (it keeps tracking a file until it is gone).
                for (int i = 0; i < n; i++) {
                    String wn = WARMUP + rounds + "-" + i + ".log";
                    Files.delete(in.resolve(wn));
                    Files.delete(warm.resolve(wn));
                }
                sleep(500);
                rounds++;
                compiling = (compilerSeconds(c.process().pid()) - jit0) / (c.cpuNow() - all0);
                if (Double.isNaN(compiling)) throw new IOException("jfio ship stopped while warming up: " + tail(log));
            }
            warmups.add(new Warmup(rounds, compiling));
            // Dirty pages of the warm-up's objects (MinIO's writes) and of the files are written back now, not
            // during the measurement; mc's run starts the same way.
            Processes.sync();
            sleep(1000);
            long rchar0 = c.bytesRead();
            double cpu0 = c.cpuNow();
            long t0 = System.nanoTime();
            long bytes = 0;
            try (Stream<Path> files = Files.list(src)) {
                for (Path f : files.toList()) {
                    Files.createLink(in.resolve(f.getFileName()), f);
                    bytes += Files.size(f);
                }
            }
            // A look at /metrics costs the shipper about a millisecond of CPU (it reads /proc for its process
            // gauges), taken from a run that shares two CPUs with MinIO; the kernel's count of the bytes it has read
            // costs it nothing. So the wait watches that count (files, sockets and pipes together: it reaches the
            // files' size a little early, never late) and only then asks /metrics, for the exact count (at once
            // when /proc/PID/io cannot be read).
            long r;
            while (rchar0 >= 0 && (r = c.bytesRead()) >= 0 && r - rchar0 < bytes) {
                if (!c.process().isAlive() || System.nanoTime() > deadline) {
                    throw new IOException("jfio ship did not read the files: " + tail(log));
                }
                sleep(2);
            }
            while (metric(port, "jfio_ship_bytes_read_total") < warmBytes + bytes) {
                if (!c.process().isAlive() || System.nanoTime() > deadline) {
                    throw new IOException("jfio ship did not read the files: " + tail(log));
                }
                sleep(5);
            }
            int exit = c.stop();
            double seconds = (System.nanoTime() - t0) / 1e9;
            if (exit != 0) throw new IOException("jfio ship failed: exit=" + exit + " " + tail(log));
            String verified = verify(prefix, src, warmNames);
            return new Row("jfio ship (running)", name, total, seconds, c.cpuSeconds() - cpu0, c.peakRssBytes(),
                    verified);
        }
    }

    /**
     * CPU seconds of a JVM's JIT compiler threads so far (the threads HotSpot names "C1 CompilerThread" and "C2
     * CompilerThread", as {@code /proc/PID/task/TID/comm} shows them cut to 15 characters); 0 when none is found, NaN
     * when the process is gone.
     */
    static double compilerSeconds(long pid) {
        long ticks = 0;
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path t : tasks.toList()) {
                try {
                    String comm = Files.readString(t.resolve("comm"));
                    if (!comm.startsWith("C1 Compiler") && !comm.startsWith("C2 Compiler")) continue;
                    long k = Child.statTicks(Files.readString(t.resolve("stat")));
                    if (k > 0) ticks += k;
                } catch (IOException e) {
                    // the thread ended between the listing and the read: its time is no longer counted anywhere
                }
            }
        } catch (IOException e) {
            return Double.NaN;
        }
        return ticks / CpuUsage.TICKS_PER_SECOND;
    }

    /** The HTTP status of {@code path} on the metrics port, or -1 while it does not answer. */
    private static int get(int port, String path) {
        try {
            HttpURLConnection h = (HttpURLConnection) URI.create("http://127.0.0.1:" + port + path).toURL()
                    .openConnection();
            h.setConnectTimeout(500);
            h.setReadTimeout(2000);
            int code = h.getResponseCode();
            h.getInputStream().close();
            return code;
        } catch (IOException notYet) {
            return -1;
        }
    }

    /** The sum of a metric's series on the metrics port, or -1 while it cannot be read. */
    private static long metric(int port, String name) {
        try {
            HttpURLConnection h = (HttpURLConnection) URI.create("http://127.0.0.1:" + port + "/metrics").toURL()
                    .openConnection();
            h.setConnectTimeout(500);
            h.setReadTimeout(2000);
            long sum = 0;
            for (String l : new String(h.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8)
                    .split("\n")) {
                if (l.startsWith(name + "{") || l.startsWith(name + " ")) {
                    sum += (long) Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1));
                }
            }
            return sum;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    private static void sleep(long millis) throws IOException {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted");
        }
    }

    private Row mc(Path mc, String name, Path src, long total, int w) throws IOException {
        err.println("s3 bench: mc cp --recursive, " + name);
        err.flush();
        Processes.sync();
        Path log = work.resolve("mc-" + w + ".log");
        try (Child c = Child.start(List.of(mc.toString(), "--config-dir", mcConfig.toString(), "cp", "--recursive",
                "--quiet", src + "/", "bench/bench/mc-" + w + "/"), log)) {
            int exit = c.waitFor(1800);
            return new Row("mc cp", name, total, c.elapsedSeconds(), c.cpuSeconds(), c.peakRssBytes(),
                    exit == 0 ? "exit 0" : "FAIL exit " + exit + " " + tail(log));
        }
    }

    /**
     * Downloads what jfio stored under {@code prefix} and checks it against the sources: each object's bytes equal
     * its key's range of its source, and every source byte is in exactly one object.
     */
    private String verify(String prefix, Path src) throws IOException {
        return verify(prefix, src, List.of());
    }

    /** As above, skipping the objects of the sources named in {@code skip}. */
    private String verify(String prefix, Path src, List<String> skip) throws IOException {
        Path dl = Files.createDirectories(work.resolve("dl-" + prefix));
        run(List.of(tool("mc", "").toString(), "--config-dir", mcConfig.toString(), "cp", "--recursive", "--quiet",
                "bench/bench/" + prefix + "/", dl + "/"), "mc-download");
        Map<String, List<long[]>> ranges = new HashMap<>();
        List<Path> objects;
        try (Stream<Path> s = Files.walk(dl)) {
            objects = s.filter(Files::isRegularFile).toList();
        }
        for (Path obj : objects) {
            Matcher m = KEY.matcher(obj.toString());
            if (!m.matches()) return "FAIL: key not of the template: " + obj;
            if (skip.contains(m.group("file"))) continue;
            long start = Long.parseLong(m.group("start"));
            long end = Long.parseLong(m.group("end"));
            Path source = src.resolve(m.group("file"));
            if (Files.size(obj) != end - start) return "FAIL: " + obj.getFileName() + " holds " + Files.size(obj);
            if (!sameBytes(obj, source, start)) return "FAIL: " + obj.getFileName() + " differs from its source";
            ranges.computeIfAbsent(m.group("file"), k -> new ArrayList<>()).add(new long[] {start, end});
        }
        long lost = 0;
        long dup = 0;
        try (Stream<Path> s = Files.list(src)) {
            for (Path f : s.toList()) {
                List<long[]> r = ranges.getOrDefault(f.getFileName().toString(), new ArrayList<>());
                r.sort(Comparator.comparingLong(a -> a[0]));
                long at = 0;
                for (long[] x : r) {
                    if (x[0] > at) lost += x[0] - at;
                    if (x[0] < at) dup += Math.min(at, x[1]) - x[0];
                    at = Math.max(at, x[1]);
                }
                lost += Files.size(f) - at;
            }
        }
        delete(dl);
        String tally = ranges.values().stream().mapToInt(List::size).sum() + " objects, lost " + lost
                + " B, duplicated " + dup + " B";
        return (lost == 0 && dup == 0 ? "PASS " : "FAIL ") + tally;
    }

    private static boolean sameBytes(Path obj, Path source, long start) throws IOException {
        try (FileChannel a = FileChannel.open(obj); FileChannel b = FileChannel.open(source)) {
            ByteBuffer x = ByteBuffer.allocate(1 << 20);
            ByteBuffer y = ByteBuffer.allocate(1 << 20);
            long pos = 0;
            while (true) {
                x.clear();
                y.clear();
                int n = a.read(x, pos);
                if (n < 0) return true;
                y.limit(n);
                while (y.hasRemaining() && b.read(y, start + pos + y.position()) >= 0) {
                    // fills y to n bytes
                }
                if (y.position() != n || !Arrays.equals(x.array(), 0, n, y.array(), 0, n)) return false;
                pos += n;
            }
        }
    }

    private static void write(Path file, long size, int src) throws IOException {
        byte[] line = LogLines.template();
        byte[] ts = LogLines.timestamp(Instant.now());
        int perBlock = (1 << 20) / LogLines.LINE;
        byte[] block = new byte[perBlock * LogLines.LINE];
        long seq = 0;
        try (OutputStream out = Files.newOutputStream(file, StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE)) {
            long left = size / LogLines.LINE * LogLines.LINE;
            while (left > 0) {
                int lines = (int) Math.min(perBlock, left / LogLines.LINE);
                for (int i = 0; i < lines; i++) {
                    System.arraycopy(line, 0, block, i * LogLines.LINE, LogLines.LINE);
                    LogLines.fill(block, i * LogLines.LINE, seq++, 0, src % 1000, ts);
                }
                out.write(block, 0, lines * LogLines.LINE);
                left -= (long) lines * LogLines.LINE;
            }
        }
    }

    private String report(List<Row> rows) {
        StringBuilder b = new StringBuilder();
        b.append("| tool | workload | MB | seconds | MB/s | CPU s | peak RSS MB | verified |\n");
        b.append("| --- | --- | --- | --- | --- | --- | --- | --- |\n");
        for (Row r : rows) {
            b.append(String.format(Locale.ROOT, "| %s | %s | %.0f | %.2f | %.1f | %.2f | %.1f | %s |%n", r.tool(),
                    r.workload(), r.bytes() / 1e6, r.seconds(), r.mbps(), r.cpu(), r.rss() / 1e6, r.verified()));
        }
        b.append('\n');
        for (int i = 0; i + 2 < rows.size(); i += 3) {
            Row r = rows.get(i);
            Row j = rows.get(i + 1);
            Row m = rows.get(i + 2);
            double ratio = r.mbps() / m.mbps();
            b.append(String.format(Locale.ROOT, "%s: jfio ship (running)/mc throughput %.2fx (target %.1fx: %s); "
                    + "its peak RSS %.0f MB (target %d MB: %s); --once from a cold start %.2fx of mc%n", r.workload(),
                    ratio, TARGET_RATIO, ratio >= TARGET_RATIO ? "met" : "NOT met", r.rss() / 1e6,
                    TARGET_RSS / 1_000_000, r.rss() <= TARGET_RSS ? "met" : "NOT met", j.mbps() / m.mbps()));
        }
        b.append("All read the same page-cached files and send them uncompressed to the same MinIO on 127.0.0.1. "
                + "Running: warmed up with rounds of 64 MB in as many files until its JIT compiler took under "
                + Math.round(SETTLED_COMPILER_SHARE * 100) + "% of a round's CPU (at most " + MAX_WARMUP_ROUNDS
                + " rounds), then from the files' appearance to the last byte in the bucket (a SIGTERM uploads the "
                + "objects still filling), as for a shipper that runs all the time. --once and mc: start to exit, "
                + "start-up included.\n");
        for (int i = 0; i < warmups.size() && 3 * i < rows.size(); i++) {
            Warmup u = warmups.get(i);
            b.append(String.format(Locale.ROOT,
                    "Warm-up, %s: %d round%s, the compiler %.0f%% of the last one's CPU%s%n",
                    rows.get(3 * i).workload(), u.rounds(), u.rounds() == 1 ? "" : "s", u.compilerShare() * 100,
                    u.compilerShare() < SETTLED_COMPILER_SHARE ? "" : " (not settled: measured all the same)"));
        }
        return b.toString();
    }

    private void run(List<String> cmd, String what) throws IOException {
        Path log = work.resolve(what + ".log");
        try (Child c = Child.start(cmd, log)) {
            int exit = c.waitFor(600);
            if (exit != 0) throw new IOException(what + " failed: exit=" + exit + " " + tail(log));
        }
    }

    private void waitLive() throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            try {
                HttpURLConnection h = (HttpURLConnection) URI.create(endpoint + "/minio/health/live").toURL()
                        .openConnection();
                h.setConnectTimeout(500);
                h.setReadTimeout(1000);
                if (h.getResponseCode() == 200) return;
            } catch (IOException notYet) {
                // starting
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while MinIO started", e);
            }
        }
        throw new IOException("MinIO did not answer within 60 s: " + tail(work.resolve("minio.log")));
    }

    /** A Go tool by name: PATH, $GOBIN, $GOPATH/bin, ~/go/bin. */
    static Path tool(String name, String module) {
        List<Path> c = new ArrayList<>();
        String path = System.getenv("PATH");
        if (path != null) {
            for (String d : path.split(":")) {
                if (!d.isEmpty()) c.add(Path.of(d, name));
            }
        }
        String gobin = System.getenv("GOBIN");
        if (gobin != null && !gobin.isEmpty()) c.add(Path.of(gobin, name));
        String gopath = System.getenv("GOPATH");
        if (gopath != null) {
            for (String d : gopath.split(":")) {
                if (!d.isEmpty()) c.add(Path.of(d, "bin", name));
            }
        }
        c.add(Path.of(System.getProperty("user.home"), "go", "bin", name));
        for (Path p : c) {
            if (Files.isRegularFile(p) && Files.isExecutable(p)) return p;
        }
        throw new IllegalStateException("no " + name + " on PATH, in $GOBIN, $GOPATH/bin or ~/go/bin (install it with "
                + "'go install " + module + "')");
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static String tail(Path log) {
        try {
            List<String> l = Files.readAllLines(log);
            return String.join(" | ", l.subList(Math.max(0, l.size() - 5), l.size()));
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    private static void delete(Path dir) throws IOException {
        if (dir == null || !Files.exists(dir)) return;
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        }
    }
}
