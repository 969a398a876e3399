package io.jfio.bench.system;

import io.jfio.core.engine.UringEngine;
import io.jfio.core.engine.UringUnavailableException;
import io.jfio.core.sys.Errno;
import io.jfio.core.uring.UringConstants;
import java.io.IOException;
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
 * @param rings            the rings (each with its own thread) the default engine runs, 0 when it does not work
 */
public record UringProbe(boolean works, int setupFlags, int features, int sqEntries, int cqEntries,
                  boolean registeredRingFd, BitSet ops, Exception failure, int rings) {

    /** A probe without a ring count (tests). */
    public UringProbe(boolean works, int setupFlags, int features, int sqEntries, int cqEntries,
                      boolean registeredRingFd, BitSet ops, Exception failure) {
        this(works, setupFlags, features, sqEntries, cqEntries, registeredRingFd, ops, failure, works ? 1 : 0);
    }

    /** The sysctl that disables io_uring (Linux 6.6): 0 all may use it, 1 only a group and admins, 2 none. */
    static final Path IO_URING_DISABLED = Path.of("/proc/sys/kernel/io_uring_disabled");

    /** Creates and closes a default {@link UringEngine}, recording what it got or why it failed. */
    public static UringProbe run() {
        try (UringEngine engine = new UringEngine()) {
            return new UringProbe(true, engine.setupFlags(), engine.features(), engine.sqEntries(),
                    engine.cqEntries(), engine.registeredRingFd(), engine.supportedOps(), null, engine.rings());
        } catch (IOException | RuntimeException e) {
            return failed(e);
        }
    }

    /** A probe that found io_uring unusable because of {@code failure}. */
    public static UringProbe failed(Exception failure) {
        return new UringProbe(false, 0, 0, 0, 0, false, new BitSet(), failure);
    }

    /** The failure as one line for people: the exception's message, or its type when it has none. */
    public String reason() {
        if (failure == null) return null;
        String m = failure.getMessage();
        return m != null ? m : failure.getClass().getName();
    }

    /** Adds the {@code io_uring} section. */
    public void describe(Report report) {
        Report.Section s = report.section("io_uring", "io_uring");
        s.put("available", "works", works);
        List<String> flags = works ? names(UringConstants.setupFlagNames(setupFlags)) : null;
        List<String> feats = works ? names(UringConstants.featureNames(features)) : null;
        List<String> opNames = new ArrayList<>();
        for (int op = ops.nextSetBit(0); op >= 0; op = ops.nextSetBit(op + 1)) opNames.add(UringConstants.opName(op));
        s.put("setup_flags", "setup flags", flags, works ? Report.defaultText(flags) : null);
        s.put("features", "features", feats, works ? Report.defaultText(feats) : null);
        s.put("rings", "rings (one thread each)", works ? rings : null, works ? String.valueOf(rings) : null);
        s.put("sq_entries", "sq entries", works ? sqEntries : null, works ? String.valueOf(sqEntries) : null);
        s.put("cq_entries", "cq entries", works ? cqEntries : null, works ? String.valueOf(cqEntries) : null);
        s.put("registered_ring_fd", "registered ring fd", works ? registeredRingFd : null,
                works ? Report.defaultText(registeredRingFd) : null);
        s.put("supported_ops", "supported ops (" + opNames.size() + ")", works ? opNames : null,
                works ? Report.defaultText(opNames) : null);
        s.put("unavailable_reason", "reason", reason(), works ? null : reason());
        Long disabled = SysFiles.readLong(IO_URING_DISABLED).orElse(null);
        String hint = works ? null : likelyCause(failure, disabled, seccompMode());
        s.put("unavailable_hint", "likely cause", hint, hint);
        s.put("kernel_io_uring_disabled", "kernel.io_uring_disabled", disabled, disabledText(disabled));
    }

    /** The seccomp mode of this process from /proc/self/status: 0 none, 1 strict, 2 filter; null if unknown. */
    static Integer seccompMode() {
        for (String line : SysFiles.lines(Path.of("/proc/self/status"))) {
            if (line.startsWith("Seccomp:")) {
                return SysFiles.parseLong(line.substring("Seccomp:".length())).map(Long::intValue).orElse(null);
            }
        }
        return null;
    }

    /**
     * What most likely made io_uring_setup fail, for people who must fix it; null when the error says it all. The
     * same errno has different causes (EPERM: the sysctl, a seccomp filter, a security module), so the sysctl and
     * this process's seccomp mode narrow it down.
     */
    static String likelyCause(Exception failure, Long ioUringDisabled, Integer seccompMode) {
        if (!(failure instanceof UringUnavailableException e) || !e.call().equals("io_uring_setup")) return null;
        boolean filtered = seccompMode != null && seccompMode == 2;
        int disabled = ioUringDisabled == null ? 0 : ioUringDisabled.intValue();
        if (e.errno() == Errno.EPERM) {
            if (disabled == 2) return "the sysctl kernel.io_uring_disabled=2 disables io_uring for every process";
            if (disabled == 1) {
                return "the sysctl kernel.io_uring_disabled=1 allows io_uring only to CAP_SYS_ADMIN and members of "
                        + "kernel.io_uring_group";
            }
            if (filtered) {
                return "a seccomp filter denies it (Seccomp: 2 in /proc/self/status), e.g. a container runtime's "
                        + "default profile";
            }
            return "a security module (SELinux, AppArmor) or a seccomp filter denies it";
        }
        if (e.errno() == Errno.ENOSYS) {
            return filtered ? "a seccomp filter hides the system call, or the kernel lacks io_uring"
                    : "the kernel lacks io_uring (before 5.1, or built without CONFIG_IO_URING)";
        }
        if (e.errno() == Errno.ENOMEM) {
            return "the locked-memory limit (ulimit -l) is too low for the ring; kernels before 5.12 charge rings "
                    + "to it";
        }
        return null;
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
