package io.jfio.bench.system;

import io.jfio.core.sys.ErrnoException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The storage facts of {@code jfio info} for one path: file system, mount, device, the device's queue settings,
 * and what O_DIRECT needs and does there.
 *
 * <p>Thread-safe; stateless.
 */
public final class PathProbe {
    private static final Path SYSFS = Path.of("/sys");

    private PathProbe() {
    }

    /**
     * Adds the {@code path} section for {@code real}, the real path of what the user gave as {@code given}.
     *
     * @throws ErrnoException if the path cannot be stat'ed
     */
    public static void describe(Report report, String given, Path real) throws ErrnoException {
        PathStat st = PathStat.of(real.toString());
        Report.Section s = report.section("path", "Path");
        s.put("path", "path", given);
        s.put("real_path", "real path", real.toString());
        s.put("type", "type", st.typeName());

        List<MountInfo> mounts = MountInfo.parse(SysFiles.lines(MountInfo.SELF));
        Optional<MountInfo> mount = MountInfo.find(mounts, real, st.mntId());
        s.put("file_system", "file system", mount.map(MountInfo::fsType).orElse(null));
        s.put("mount_point", "mount point", mount.map(MountInfo::mountPoint).orElse(null));
        s.put("mount_source", "mount source", mount.map(MountInfo::source).orElse(null));
        s.put("mount_options", "mount options", mount.map(MountInfo::options).orElse(null));

        BlockDevices devices = new BlockDevices(SYSFS);
        String devName = devices.name(st.devMajor(), st.devMinor()).orElse(null);
        s.put("device", "device", st.device(), st.device() + " (" + (devName != null ? devName
                : "no block device") + ")");
        s.put("device_name", "device name", devName, null);

        BlockDevices.Queue q = devices.queueOf(st, mount).orElse(null);
        s.put("queue_device", "queue device", q == null ? null : q.name(),
                q == null ? "n/a (no block device queue)" : q.name());
        s.put("rotational", "rotational", q == null ? null : q.rotational());
        s.put("logical_block_size", "logical block size", q == null ? null : q.logicalBlockSize(),
                q == null || q.logicalBlockSize() == null ? "n/a" : q.logicalBlockSize() + " bytes");
        s.put("scheduler", "scheduler", q == null ? null : q.scheduler());
        s.put("read_ahead_kb", "read_ahead_kb", q == null ? null : q.readAheadKb());

        DirectIoProbe dio = DirectIoProbe.run(real, st);
        Integer mem = dio.dioMemAlign() > 0 ? dio.dioMemAlign() : null;
        Integer off = dio.dioOffsetAlign() > 0 ? dio.dioOffsetAlign() : null;
        String alignText = mem == null && off == null ? "not supported or not reported"
                : "memory " + Report.defaultText(mem) + " bytes, offset " + Report.defaultText(off) + " bytes";
        s.put("dio_mem_align", "O_DIRECT alignment", mem, alignText);
        s.put("dio_offset_align", "O_DIRECT offset alignment", off, null);
        String worksText = switch (dio.works()) {
            case null -> dio.detail();
            case Boolean b when b -> "yes: " + dio.detail();
            default -> "no: " + dio.detail();
        };
        s.put("o_direct_works", "O_DIRECT works", dio.works(), worksText);
        s.put("o_direct_errno", "O_DIRECT errno", dio.errno(), null);
        s.put("o_direct_detail", "O_DIRECT detail", dio.detail(), null);
    }
}
