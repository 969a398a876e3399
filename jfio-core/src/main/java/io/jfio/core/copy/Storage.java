package io.jfio.core.copy;

import io.jfio.core.sys.LibC;
import io.jfio.core.sys.Rlimit;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Facts about this process and its storage that shape a copy: whether a device is rotational (sysfs), the umask,
 * the descriptor limit. Read once and cached.
 *
 * <p>Thread-safe.
 */
final class Storage {
    private static final Path SYS = Path.of("/sys");
    private static final ConcurrentHashMap<Long, Rotation> ROTATIONAL = new ConcurrentHashMap<>();

    private Storage() {
    }

    /**
     * What sysfs says about a device's rotation.
     *
     * @param rotational true when seeks are expensive and the copy should be sequential
     * @param detail     what was read, for messages: {@code "vda: queue/rotational=1 (virtio_blk: not trusted)"}
     */
    record Rotation(boolean rotational, String detail) {
    }

    /**
     * Whether the block device {@code dev} (dev_t encoding) is rotational: its {@code queue/rotational}, or for a
     * partition its disk's. Not rotational for devices without a queue (tmpfs, overlayfs, NFS) or where sysfs
     * cannot be read. Virtual disks (virtio_blk, Xen's vbd) report 1 because their driver cannot know and 1 is the
     * kernel's default, not because anything spins (docs/measurements/copy.md has such a disk's random-read
     * latency); their flag is not trusted, and {@code --sequential} is there for the spinning disk behind one.
     */
    static Rotation rotation(long dev) {
        return ROTATIONAL.computeIfAbsent(dev, d -> readRotation(SYS, d));
    }

    /** {@link #rotation} read from a sysfs tree at {@code sysfs} (a parameter so tests can lay one out). */
    static Rotation readRotation(Path sysfs, long dev) {
        return readRotation(sysfs, dev, 0);
    }

    /** A stacked device is rotational when any device under it is. */
    private static Rotation under(Path sysfs, String what, List<Long> devs, int depth) {
        if (depth >= 8) return new Rotation(true, what);
        List<String> details = new ArrayList<>();
        boolean rotational = false;
        for (long d : devs) {
            Rotation r = readRotation(sysfs, d, depth + 1);
            rotational |= r.rotational();
            details.add(r.detail());
        }
        return new Rotation(rotational, what + " (stacked on " + String.join(", ", details) + ")");
    }

    /** The device of the file system holding {@code p}, or -1. */
    private static long deviceOf(Path p) {
        try {
            return ((Number) Files.getAttribute(p, "unix:dev")).longValue();
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** A sysfs {@code dev} file ("major:minor") as a dev_t, or -1. */
    private static long devNumber(Path devFile) {
        try {
            String[] mm = Files.readString(devFile, StandardCharsets.US_ASCII).strip().split(":");
            return io.jfio.core.sys.Statx.makedev(Integer.parseInt(mm[0]), Integer.parseInt(mm[1]));
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    private static Rotation readRotation(Path sysfs, long dev, int depth) {
        String name = showDevice(dev);
        Path link = sysfs.resolve("dev/block/" + name);
        try {
            if (!Files.exists(link)) return new Rotation(false, name + ": no block device queue");
            Path d = link.toRealPath();
            Path disk = d;
            if (!Files.exists(d.resolve("queue/rotational")) && Files.exists(d.resolve("partition"))) {
                disk = d.getParent();
            }
            Path q = disk.resolve("queue/rotational");
            if (!Files.exists(q)) return new Rotation(false, name + ": no queue/rotational");
            boolean flag = Files.readString(q, StandardCharsets.US_ASCII).strip().equals("1");
            String what = disk.getFileName() + ": queue/rotational=" + (flag ? 1 : 0);
            if (!flag) return new Rotation(false, what);
            Path driver = disk.resolve("device/driver");
            String drv = Files.exists(driver) ? driver.toRealPath().getFileName().toString() : "";
            if (drv.equals("virtio_blk") || drv.equals("vbd")) {
                return new Rotation(false, what + " (" + drv + ": a virtual disk's default, not trusted)");
            }
            // A loop device inherits the flag of the device its file is on; a device-mapper device (LVM, crypt)
            // stacks on its slaves: ask them.
            List<Path> under = new ArrayList<>();
            Path backing = disk.resolve("loop/backing_file");
            if (Files.exists(backing)) {
                long bdev = deviceOf(Path.of(Files.readString(backing, StandardCharsets.UTF_8).strip()));
                if (bdev >= 0) return under(sysfs, what, List.of(bdev), depth);
            }
            Path slaves = disk.resolve("slaves");
            if (Files.isDirectory(slaves)) {
                try (var l = Files.list(slaves)) {
                    for (Path sl : l.toList()) under.add(sl);
                }
                List<Long> devs = new ArrayList<>();
                for (Path sl : under) {
                    long slave = devNumber(sl.resolve("dev"));
                    if (slave >= 0) devs.add(slave);
                }
                if (!devs.isEmpty()) return under(sysfs, what, devs, depth);
            }
            return new Rotation(true, what);
        } catch (IOException | SecurityException e) {
            return new Rotation(false, name + ": sysfs unreadable");
        }
    }

    /** A device as {@code major:minor} for messages. */
    static String showDevice(long dev) {
        long major = ((dev >>> 8) & 0xfffL) | ((dev >>> 32) & 0xfffff000L);
        long minor = (dev & 0xffL) | ((dev >>> 12) & 0xffffff00L);
        return major + ":" + minor;
    }

    /**
     * The process umask, from the {@code Umask:} line of /proc/self/status (Linux 4.7+); 022 where that cannot be
     * read. Reading it with umask(2) would mean setting it, racing every other thread that creates files.
     */
    static int umask() {
        try {
            List<String> lines = Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.US_ASCII);
            for (String l : lines) {
                if (l.startsWith("Umask:")) return Integer.parseInt(l.substring(6).strip(), 8);
            }
        } catch (IOException | RuntimeException e) {
            // fall through to the usual default
        }
        return 022;
    }

    /** The soft RLIMIT_NOFILE: how many descriptors this process may have open. */
    static long openFileLimit() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment r = a.allocate(Rlimit.LAYOUT);
            if (LibC.getrlimit(Rlimit.RLIMIT_NOFILE, r) != 0) return 1024;
            long cur = Rlimit.cur(r);
            return cur == Rlimit.RLIM_INFINITY || cur < 0 ? Integer.MAX_VALUE : cur;
        }
    }

    /** Descriptors open now, from /proc/self/fd; 64 if that cannot be read. */
    static int openFiles() {
        try (var s = Files.list(Path.of("/proc/self/fd"))) {
            return (int) s.count();
        } catch (IOException | RuntimeException e) {
            return 64;
        }
    }

    /** True when {@code pid} is a running process (its /proc entry exists). */
    static boolean processAlive(long pid) {
        return Files.exists(Path.of("/proc/" + pid));
    }
}
