package io.jfio.cli;

import io.jfio.core.engine.UringEngine;
import io.jfio.core.sys.ErrnoException;
import io.jfio.core.uring.UringConstants;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;

/**
 * What io_uring offers here, found the way the engine would find it: by creating a {@link UringEngine} and closing
 * it again.
 *
 * <p>Immutable.
 *
 * @param works            true when the engine could be created
 * @param setupFlags       the setup flags the kernel accepted
 * @param features         the IORING_FEAT_* bits the kernel reported
 * @param sqEntries        SQ size
 * @param cqEntries        CQ size
 * @param registeredRingFd true when io_uring_enter uses a registered ring descriptor
 * @param ops              the opcodes the kernel's probe reported
 * @param failure          why the engine could not be created, or null
 */
record UringProbe(boolean works, int setupFlags, int features, int sqEntries, int cqEntries,
                  boolean registeredRingFd, BitSet ops, Exception failure) {

    /** The sysctl that disables io_uring (Linux 6.6): 0 all may use it, 1 only a group and admins, 2 none. */
    static final Path IO_URING_DISABLED = Path.of("/proc/sys/kernel/io_uring_disabled");

    /** Creates and closes a default {@link UringEngine}, recording what it got or why it failed. */
    static UringProbe run() {
        try (UringEngine engine = new UringEngine()) {
            return new UringProbe(true, engine.setupFlags(), engine.features(), engine.sqEntries(),
                    engine.cqEntries(), engine.registeredRingFd(), engine.supportedOps(), null);
        } catch (ErrnoException | RuntimeException e) {
            return failed(e);
        }
    }

    /** A probe that found io_uring unusable because of {@code failure}. */
    static UringProbe failed(Exception failure) {
        return new UringProbe(false, 0, 0, 0, 0, false, new BitSet(), failure);
    }

    /** The failure as one line for people: the exception's message, or its type when it has none. */
    String reason() {
        if (failure == null) return null;
        String m = failure.getMessage();
        return m != null ? m : failure.getClass().getName();
    }

    /** Adds the {@code io_uring} section. */
    void describe(Report report) {
        Report.Section s = report.section("io_uring", "io_uring");
        s.put("available", "works", works);
        List<String> flags = works ? names(UringConstants.setupFlagNames(setupFlags)) : null;
        List<String> feats = works ? names(UringConstants.featureNames(features)) : null;
        List<String> opNames = new ArrayList<>();
        for (int op = ops.nextSetBit(0); op >= 0; op = ops.nextSetBit(op + 1)) opNames.add(UringConstants.opName(op));
        s.put("setup_flags", "setup flags", flags, works ? Report.defaultText(flags) : null);
        s.put("features", "features", feats, works ? Report.defaultText(feats) : null);
        s.put("sq_entries", "sq entries", works ? sqEntries : null, works ? String.valueOf(sqEntries) : null);
        s.put("cq_entries", "cq entries", works ? cqEntries : null, works ? String.valueOf(cqEntries) : null);
        s.put("registered_ring_fd", "registered ring fd", works ? registeredRingFd : null,
                works ? Report.defaultText(registeredRingFd) : null);
        s.put("supported_ops", "supported ops (" + opNames.size() + ")", works ? opNames : null,
                works ? Report.defaultText(opNames) : null);
        s.put("unavailable_reason", "reason", reason(), works ? null : reason());
        Long disabled = SysFiles.readLong(IO_URING_DISABLED).orElse(null);
        s.put("kernel_io_uring_disabled", "kernel.io_uring_disabled", disabled, disabledText(disabled));
    }

    private static List<String> names(String joined) {
        return joined.isEmpty() ? List.of() : Arrays.asList(joined.split("\\|"));
    }

    static String disabledText(Long value) {
        if (value == null) return "n/a (no such sysctl: kernel before 6.6)";
        return value + switch (value.intValue()) {
            case 0 -> " (io_uring allowed for every process)";
            case 1 -> " (io_uring only for CAP_SYS_ADMIN and members of kernel.io_uring_group)";
            case 2 -> " (io_uring disabled for every process)";
            default -> "";
        };
    }
}
