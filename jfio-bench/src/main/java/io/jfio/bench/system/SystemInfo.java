package io.jfio.bench.system;

import io.jfio.bench.Units;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What a benchmark result depends on and a reader needs to judge it: kernel, file system, the block device under
 * the benchmark file (rotational, scheduler, read-ahead), memory, CPU and JDK.
 *
 * <p>Immutable. Values that cannot be found read {@code "unknown"}. Collected by the same probes as {@code jfio
 * info}, so that both name the same device, queue and CPU.
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
    private static final Path OSRELEASE = Path.of("/proc/sys/kernel/osrelease");
    private static final Path MEMINFO = Path.of("/proc/meminfo");
    private static final Path CPUINFO = Path.of("/proc/cpuinfo");
    private static final Path LOADAVG = Path.of("/proc/loadavg");
    private static final Path SYSFS = Path.of("/sys");

    /**
     * Collects the facts for a benchmark file or directory at {@code path}, with the probes of {@code jfio info}
     * ({@link PathStat}, {@link MountInfo}, {@link BlockDevices}, {@link SystemProbe}).
     */
    public static SystemInfo collect(Path path) {
        String kernel = SysFiles.read(OSRELEASE).orElse(UNKNOWN);
        PathStat st = null;
        Path real = path;
        try {
            real = path.toRealPath();
            st = PathStat.of(real.toString());
        } catch (IOException | RuntimeException e) {
            // unknown
        }
        String fs = UNKNOWN;
        String device = UNKNOWN;
        String rot = UNKNOWN;
        String sched = UNKNOWN;
        String ra = UNKNOWN;
        if (st != null) {
            Optional<MountInfo> mount = MountInfo.find(MountInfo.parse(SysFiles.lines(MountInfo.SELF)), real,
                    st.mntId());
            fs = mount.map(m -> m.fsType() + " (" + m.source() + ")").orElse(UNKNOWN);
            BlockDevices devices = new BlockDevices(SYSFS);
            Optional<String> name = devices.name(st.devMajor(), st.devMinor());
            Optional<BlockDevices.Queue> queue = devices.queueOf(st, mount);
            if (queue.isPresent()) {
                BlockDevices.Queue q = queue.get();
                // A partition has no queue of its own: the whole disk's is the one that serves it.
                device = name.isEmpty() || name.get().equals(q.name()) ? q.name() : name.get() + " on " + q.name();
                rot = q.rotational() == null ? UNKNOWN : q.rotational() ? "1" : "0";
                sched = Objects.toString(q.scheduler(), UNKNOWN);
                ra = Objects.toString(q.readAheadKb(), UNKNOWN);
            } else {
                device = name.orElse(UNKNOWN) + " (st_dev " + st.device()
                        + ", no block device: overlay, btrfs or nfs?)";
            }
        }
        String mem = SystemProbe.meminfoBytes(SysFiles.lines(MEMINFO), "MemTotal").map(Units::formatSize)
                .orElse(UNKNOWN);
        String cpu = SystemProbe.cpuModel(SysFiles.lines(CPUINFO)).orElse(UNKNOWN);
        String jdk = Runtime.version() + " (" + System.getProperty("java.vm.name") + ", "
                + System.getProperty("java.vendor") + ")";
        return new SystemInfo(kernel, fs, device, rot, sched, ra, mem, cpu, Runtime.getRuntime().availableProcessors(),
                jdk, loadAverageNow());
    }

    /** The 1, 5 and 15 minute load averages from /proc/loadavg, e.g. {@code "0.12 0.30 0.25"}. */
    public static String loadAverageNow() {
        String l = SysFiles.read(LOADAVG).orElse(UNKNOWN);
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

    /** The CPUs this process may run on, as the kernel lists them ({@code 0-1}), or null if unknown. */
    public static String allowedCpus() {
        for (String l : SysFiles.lines(Path.of("/proc/self/status"))) {
            if (l.startsWith("Cpus_allowed_list:")) return l.substring(l.indexOf(':') + 1).trim();
        }
        return null;
    }
}
