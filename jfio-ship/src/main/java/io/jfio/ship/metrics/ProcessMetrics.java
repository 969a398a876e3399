package io.jfio.ship.metrics;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;

/**
 * The process's own metrics under the names every Prometheus client library uses ({@code process_cpu_seconds_total},
 * {@code process_resident_memory_bytes}, ...), read from {@code /proc/self} at each scrape, and
 * {@code jfio_build_info}.
 *
 * <p>Thread-safe. The descriptor counts are kept for a second: counting them lists {@code /proc/self/fd}, whose cost
 * grows with the files a shipper holds open, and a scraper polling many times a second would pay it each time.
 */
final class ProcessMetrics {
    private static final String VERSION = version();
    /** How long the descriptor counts are reused. */
    private static final long FDS_TTL_NANOS = 1_000_000_000L;
    /** The last descriptor counts and when they were taken; null before the first scrape. */
    private static volatile Fds fds;

    /** Open descriptors and their soft limit, as of {@code at} ({@link System#nanoTime()}). */
    private record Fds(long open, long max, long at) {
    }

    private ProcessMetrics() {
    }

    /** Appends the process metrics and the build info to {@code b}. */
    static void render(StringBuilder b) {
        ProcessHandle.Info info = ProcessHandle.current().info();
        info.totalCpuDuration().ifPresent(d -> gauge(b, "process_cpu_seconds_total", "counter",
                "Total user and system CPU time spent in seconds.", d.toNanos() / 1e9));
        info.startInstant().ifPresent(t -> gauge(b, "process_start_time_seconds", "gauge",
                "Start time of the process since the Unix epoch in seconds.", t.toEpochMilli() / 1e3));
        long[] vm = status();
        if (vm[0] >= 0) gauge(b, "process_resident_memory_bytes", "gauge", "Resident memory size in bytes.", vm[0]);
        if (vm[1] >= 0) gauge(b, "process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.", vm[1]);
        Fds f = fds();
        if (f.open() >= 0) gauge(b, "process_open_fds", "gauge", "Number of open file descriptors.", f.open());
        if (f.max() >= 0) gauge(b, "process_max_fds", "gauge", "Maximum number of open file descriptors.", f.max());
        b.append("# HELP jfio_build_info The jfio version and the JDK running it.\n# TYPE jfio_build_info gauge\n")
                .append("jfio_build_info{version=\"").append(VERSION).append("\",java_version=\"")
                .append(Runtime.version()).append("\"} 1\n");
    }

    private static void gauge(StringBuilder b, String name, String type, String help, double value) {
        b.append("# HELP ").append(name).append(' ').append(help).append('\n');
        b.append("# TYPE ").append(name).append(' ').append(type).append('\n');
        b.append(name).append(' ');
        if (value == Math.rint(value) && Math.abs(value) < 1e15) {
            b.append((long) value);
        } else {
            b.append(value);
        }
        b.append('\n');
    }

    /** VmRSS and VmSize in bytes from /proc/self/status; -1 where unreadable. */
    private static long[] status() {
        long[] r = {-1, -1};
        try {
            List<String> lines = Files.readAllLines(Path.of("/proc/self/status"));
            for (String l : lines) {
                if (l.startsWith("VmRSS:")) r[0] = kib(l);
                if (l.startsWith("VmSize:")) r[1] = kib(l);
            }
        } catch (IOException | RuntimeException e) {
            // Not Linux's /proc: the metrics are left out.
        }
        return r;
    }

    private static long kib(String line) {
        String[] f = line.trim().split("\\s+");
        return Long.parseLong(f[1]) * 1024;
    }

    private static Fds fds() {
        long now = System.nanoTime();
        Fds f = fds;
        if (f == null || now - f.at() >= FDS_TTL_NANOS) {
            f = new Fds(openFds(), maxFds(), now);
            fds = f;
        }
        return f;
    }

    private static long openFds() {
        long n = 0;
        try (DirectoryStream<Path> d = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
            for (Path ignored : d) n++;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return n - 1; // the directory stream's own descriptor
    }

    /** The soft limit of open files from /proc/self/limits; -1 where unreadable or unlimited. */
    private static long maxFds() {
        try {
            for (String l : Files.readAllLines(Path.of("/proc/self/limits"))) {
                if (!l.startsWith("Max open files")) continue;
                String soft = l.substring("Max open files".length()).trim().split("\\s+")[0];
                return soft.equals("unlimited") ? -1 : Long.parseLong(soft);
            }
        } catch (IOException | RuntimeException e) {
            // Left out.
        }
        return -1;
    }

    private static String version() {
        try (InputStream in = ProcessMetrics.class.getResourceAsStream("build.properties")) {
            if (in == null) return "unknown";
            Properties p = new Properties();
            p.load(in);
            String v = p.getProperty("version", "unknown");
            return v.startsWith("${") ? "unknown" : v;
        } catch (IOException e) {
            return "unknown";
        }
    }
}
