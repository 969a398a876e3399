package io.jfio.bench.system;

import io.jfio.core.sys.LibC;
import io.jfio.core.sys.Platform;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The machine and JVM facts of {@code jfio info}: kernel, CPU, memory, page size, and the JDK running jfio.
 *
 * <p>Thread-safe; stateless.
 */
public final class SystemProbe {
    private static final Path OSRELEASE = Path.of("/proc/sys/kernel/osrelease");
    private static final Path CPUINFO = Path.of("/proc/cpuinfo");
    private static final Path MEMINFO = Path.of("/proc/meminfo");

    private SystemProbe() {
    }

    /** Adds the {@code system} and {@code jdk} sections. */
    public static void describe(Report report) {
        Report.Section s = report.section("system", "System");
        s.put("kernel_release", "kernel", SysFiles.read(OSRELEASE).orElse(System.getProperty("os.version")));
        s.put("arch", "architecture", Platform.arch().name().toLowerCase(Locale.ROOT));
        s.put("cpu_model", "cpu model", cpuModel(SysFiles.lines(CPUINFO)).orElse(null));
        int cpus = Runtime.getRuntime().availableProcessors();
        s.put("cpu_count", "cpus", cpus, cpus + " (available to the JVM)");
        List<String> meminfo = SysFiles.lines(MEMINFO);
        Long total = meminfoBytes(meminfo, "MemTotal").orElse(null);
        Long available = meminfoBytes(meminfo, "MemAvailable").orElse(null);
        s.put("memory_total_bytes", "memory total", total, total == null ? "n/a" : SysFiles.bytes(total));
        s.put("memory_available_bytes", "memory available", available,
                available == null ? "n/a" : SysFiles.bytes(available));
        int page = LibC.pageSize();
        s.put("page_size", "page size", page, page + " bytes");

        Report.Section j = report.section("jdk", "JDK");
        j.put("version", "version", Runtime.version().toString());
        j.put("vendor", "vendor", System.getProperty("java.vendor"));
        j.put("vm", "vm", System.getProperty("java.vm.name"));
        j.put("java_home", "java.home", System.getProperty("java.home"));
    }

    /**
     * The CPU model from {@code /proc/cpuinfo}: "model name" on x86; arm64 kernels have no such line, so fall back
     * to "Hardware" or the implementer/part codes.
     */
    static Optional<String> cpuModel(List<String> cpuinfo) {
        for (String key : new String[] {"model name", "Hardware", "Processor"}) {
            Optional<String> v = cpuinfoValue(cpuinfo, key);
            if (v.isPresent()) return v;
        }
        Optional<String> implementer = cpuinfoValue(cpuinfo, "CPU implementer");
        Optional<String> part = cpuinfoValue(cpuinfo, "CPU part");
        if (implementer.isPresent() && part.isPresent()) {
            return Optional.of("implementer " + implementer.get() + " part " + part.get());
        }
        return Optional.empty();
    }

    private static Optional<String> cpuinfoValue(List<String> cpuinfo, String key) {
        for (String line : cpuinfo) {
            int colon = line.indexOf(':');
            if (colon < 0 || !line.substring(0, colon).strip().equals(key)) continue;
            String v = line.substring(colon + 1).strip();
            if (!v.isEmpty()) return Optional.of(v);
        }
        return Optional.empty();
    }

    /** A {@code /proc/meminfo} value ("MemTotal:  24684096 kB") in bytes. */
    static Optional<Long> meminfoBytes(List<String> meminfo, String key) {
        for (String line : meminfo) {
            if (!line.startsWith(key + ":")) continue;
            String[] parts = line.substring(key.length() + 1).strip().split("\\s+");
            Optional<Long> v = SysFiles.parseLong(parts[0]);
            if (v.isEmpty()) return v;
            boolean kib = parts.length > 1 && parts[1].equalsIgnoreCase("kB");
            return Optional.of(kib ? v.get() * 1024 : v.get());
        }
        return Optional.empty();
    }
}
