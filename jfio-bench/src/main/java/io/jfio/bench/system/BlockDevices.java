package io.jfio.bench.system;

import io.jfio.core.sys.ErrnoException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Block device facts from sysfs: the device's name and its request queue settings ({@code queue/rotational},
 * {@code logical_block_size}, {@code scheduler}, {@code read_ahead_kb}).
 *
 * <p>Thread-safe; immutable. The sysfs root is a parameter so that tests can lay out a fake tree.
 */
final class BlockDevices {
    private final Path sysfs;

    /** Block devices under {@code sysfs}, normally {@code /sys}. */
    BlockDevices(Path sysfs) {
        this.sysfs = sysfs;
    }

    /**
     * The queue settings of the device that serves {@code major:minor}.
     *
     * @param name             the device whose queue this is (the whole disk, for a partition)
     * @param rotational       true for a spinning disk, null if not reported
     * @param logicalBlockSize the smallest unit the device addresses, in bytes, or null
     * @param scheduler        the active I/O scheduler (the bracketed one), or null
     * @param readAheadKb      read-ahead in KiB, or null
     */
    record Queue(String name, Boolean rotational, Long logicalBlockSize, String scheduler, Long readAheadKb) {
    }

    /** The device's kernel name ({@code DEVNAME} in its uevent, e.g. {@code sda1}), if it is a block device. */
    Optional<String> name(int major, int minor) {
        return deviceDir(major, minor).flatMap(BlockDevices::devName);
    }

    /**
     * The request queue serving {@code major:minor}: the device's own, or for a partition its disk's, which is where
     * the kernel keeps it. Empty for devices with no queue, such as the anonymous devices of tmpfs or overlayfs.
     */
    Optional<Queue> queue(int major, int minor) {
        Optional<Path> dir = deviceDir(major, minor);
        if (dir.isEmpty()) return Optional.empty();
        Path dev = dir.get();
        Path owner = dev;
        if (!Files.isDirectory(dev.resolve("queue")) && Files.exists(dev.resolve("partition"))) owner = dev.getParent();
        Path q = owner.resolve("queue");
        if (!Files.isDirectory(q)) return Optional.empty();
        String name = devName(owner).orElse(owner.getFileName().toString());
        Boolean rotational = SysFiles.readLong(q.resolve("rotational")).map(v -> v != 0).orElse(null);
        Long lbs = SysFiles.readLong(q.resolve("logical_block_size")).orElse(null);
        String scheduler = SysFiles.read(q.resolve("scheduler")).map(BlockDevices::activeScheduler).orElse(null);
        Long readAhead = SysFiles.readLong(q.resolve("read_ahead_kb")).orElse(null);
        return Optional.of(new Queue(name, rotational, lbs, scheduler, readAhead));
    }

    /**
     * The request queue behind a file: that of its device, or, for file systems (btrfs) that give their files an
     * anonymous device number without a queue, that of the block device the mount names as its source, which is
     * the one that matters.
     */
    Optional<Queue> queueOf(PathStat st, Optional<MountInfo> mount) {
        Optional<Queue> own = queue(st.devMajor(), st.devMinor());
        if (own.isPresent() || mount.isEmpty() || !mount.get().source().startsWith("/dev/")) return own;
        try {
            PathStat src = PathStat.of(mount.get().source());
            return src.isBlockDevice() ? queue(src.rdevMajor(), src.rdevMinor()) : Optional.empty();
        } catch (ErrnoException e) {
            return Optional.empty();
        }
    }

    /** {@code /sys/dev/block/MAJ:MIN} resolved to the device's directory, if there is one. */
    private Optional<Path> deviceDir(int major, int minor) {
        Path link = sysfs.resolve("dev").resolve("block").resolve(major + ":" + minor);
        try {
            return Files.exists(link) ? Optional.of(link.toRealPath()) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static Optional<String> devName(Path deviceDir) {
        for (String line : SysFiles.lines(deviceDir.resolve("uevent"))) {
            if (line.startsWith("DEVNAME=")) return Optional.of(line.substring("DEVNAME=".length()).strip());
        }
        return Optional.empty();
    }

    /** {@code "none [mq-deadline] kyber bfq"} gives {@code mq-deadline}; a queue with one choice lists it bare. */
    static String activeScheduler(String line) {
        int open = line.indexOf('[');
        int close = line.indexOf(']', open + 1);
        if (open >= 0 && close > open) return line.substring(open + 1, close);
        String s = line.strip();
        return s.isEmpty() || s.contains(" ") ? null : s;
    }
}
