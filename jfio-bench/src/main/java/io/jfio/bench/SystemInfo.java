package io.jfio.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a benchmark result depends on and a reader needs to judge it: kernel, file system, the block device under
 * the benchmark file (rotational, scheduler, read-ahead), memory, CPU and JDK.
 *
 * <p>Immutable. Values that cannot be found read {@code "unknown"}.
 *
 * @param kernel       kernel release
 * @param fileSystem   file system type of the benchmark directory, with its device name
 * @param device       block device name (e.g. vda, nvme0n1)
 * @param rotational   /sys/block/DEV/queue/rotational
 * @param scheduler    the selected I/O scheduler
 * @param readAheadKb  /sys/block/DEV/queue/read_ahead_kb
 * @param memTotal     MemTotal from /proc/meminfo
 * @param cpuModel     the first CPU's model name
 * @param cpus         processors available to the JVM
 * @param jdk          JDK version and VM
 * @param loadAverage  /proc/loadavg's 1, 5 and 15 minute load averages when collected
 */
public record SystemInfo(String kernel, String fileSystem, String device, String rotational, String scheduler,
                         String readAheadKb, String memTotal, String cpuModel, int cpus, String jdk,
                         String loadAverage) {
    private static final String UNKNOWN = "unknown";

    /** Collects the facts for a benchmark file or directory at {@code path}. */
    public static SystemInfo collect(Path path) {
        String kernel = read(Path.of("/proc/sys/kernel/osrelease"));
        String fs = UNKNOWN;
        try {
            var store = Files.getFileStore(path);
            fs = store.type() + " (" + store.name() + ")";
        } catch (IOException | RuntimeException e) {
            // unknown
        }
        Path queue = null;
        String device = UNKNOWN;
        try {
            Object dev = Files.getAttribute(path, "unix:dev");
            long d = ((Number) dev).longValue();
            long major = ((d >>> 8) & 0xfff) | ((d >>> 32) & ~0xfffL);
            long minor = (d & 0xff) | ((d >>> 12) & ~0xffL);
            Path sys = Path.of("/sys/dev/block/" + major + ":" + minor);
            if (Files.exists(sys)) {
                Path real = sys.toRealPath();
                // A partition has no queue of its own: the whole disk is its parent directory.
                Path disk = Files.exists(real.resolve("partition")) ? real.getParent() : real;
                device = disk.getFileName().toString();
                if (!real.equals(disk)) device = real.getFileName() + " on " + device;
                queue = disk.resolve("queue");
            } else {
                device = UNKNOWN + " (st_dev " + major + ":" + minor + ", no block device: overlay, btrfs or nfs?)";
            }
        } catch (IOException | RuntimeException e) {
            // unknown
        }
        String rot = queue == null ? UNKNOWN : read(queue.resolve("rotational"));
        String sched = queue == null ? UNKNOWN : selected(read(queue.resolve("scheduler")));
        String ra = queue == null ? UNKNOWN : read(queue.resolve("read_ahead_kb"));
        String mem = UNKNOWN;
        String cpu = UNKNOWN;
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:")) {
                    long kb = Long.parseLong(line.replaceAll("[^0-9]", ""));
                    mem = Units.formatSize(kb * 1024);
                    break;
                }
            }
        } catch (IOException | RuntimeException e) {
            // unknown
        }
        try {
            List<String> lines = Files.readAllLines(Path.of("/proc/cpuinfo"));
            for (String line : lines) {
                if (line.startsWith("model name")) {
                    cpu = line.substring(line.indexOf(':') + 1).trim();
                    break;
                }
            }
        } catch (IOException | RuntimeException e) {
            // unknown
        }
        String jdk = Runtime.version() + " (" + System.getProperty("java.vm.name") + ", "
                + System.getProperty("java.vendor") + ")";
        return new SystemInfo(kernel, fs, device, rot, sched, ra, mem, cpu, Runtime.getRuntime().availableProcessors(),
                jdk, loadAverageNow());
    }

    /** The 1, 5 and 15 minute load averages from /proc/loadavg, e.g. {@code "0.12 0.30 0.25"}. */
    public static String loadAverageNow() {
        String l = read(Path.of("/proc/loadavg"));
        String[] p = l.split("\\s+");
        return p.length >= 3 ? p[0] + " " + p[1] + " " + p[2] : l;
    }

    /** The 1 minute load average, NaN if unknown. */
    public static double load1() {
        try {
            return Double.parseDouble(loadAverageNow().split(" ")[0]);
        } catch (RuntimeException e) {
            return Double.NaN;
        }
    }

    private static String read(Path p) {
        try {
            return Files.readString(p).trim();
        } catch (IOException | RuntimeException e) {
            return UNKNOWN;
        }
    }

    /** {@code "none [mq-deadline] kyber"} to {@code "mq-deadline"}. */
    static String selected(String schedulers) {
        int a = schedulers.indexOf('[');
        int b = schedulers.indexOf(']');
        return a >= 0 && b > a ? schedulers.substring(a + 1, b) : schedulers;
    }

    /** Header lines for a report. */
    public List<String> lines() {
        return List.of(
                "kernel: " + kernel,
                "file system: " + fileSystem,
                "device: " + device + ", rotational=" + rotational + ", scheduler=" + scheduler + ", read_ahead_kb="
                        + readAheadKb,
                "memory: " + memTotal,
                "cpu: " + cpuModel + " x " + cpus,
                "jdk: " + jdk,
                "load average at start: " + loadAverage);
    }

    /** The facts as a JSON-ready map. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("kernel", kernel);
        m.put("file_system", fileSystem);
        m.put("device", device);
        m.put("rotational", rotational);
        m.put("scheduler", scheduler);
        m.put("read_ahead_kb", readAheadKb);
        m.put("memory", memTotal);
        m.put("cpu_model", cpuModel);
        m.put("cpus", cpus);
        m.put("jdk", jdk);
        m.put("load_average_at_start", loadAverage);
        return m;
    }

    @Override
    public String toString() {
        return String.join("; ", lines());
    }
}
