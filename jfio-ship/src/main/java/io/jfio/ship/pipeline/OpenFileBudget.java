package io.jfio.ship.pipeline;

import io.jfio.core.sys.LibC;
import io.jfio.core.sys.Rlimit;
import io.jfio.ship.log.ShipLog;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Thread-safe; stateless but for a flag that says the lowering once per process.
 *
 * <p>How many source files one pipeline may keep open: the configured cap, lowered where the process's descriptor
 * limit ({@code RLIMIT_NOFILE}) would otherwise let the sources take the descriptors the sinks (segments, sockets,
 * connection pools), the state files, the watcher and the JVM itself need. The descriptors open when the pipeline
 * starts (the runtime's, its class path's, the sinks') and a margin of an eighth of the limit, at least
 * {@link #MARGIN_MIN}, for what opens later are kept for those; the rest is shared by the pipelines.
 */
final class OpenFileBudget {
    /** Descriptors kept, at the least, beyond those open at the start, for what opens later besides the sources. */
    static final int MARGIN_MIN = 64;
    /** A pipeline may keep this many sources open whatever the limit (below it, opens fail as they come). */
    static final int CAP_MIN = 8;

    private static final AtomicBoolean SAID = new AtomicBoolean();

    private OpenFileBudget() {
    }

    /** The cap for one of {@code pipelines} pipelines configured with {@code configured}; logs a lowering once. */
    static int cap(int configured, int pipelines, ShipLog log) {
        long limit = softLimit();
        int cap = cap(configured, pipelines, limit, limit < 0 ? 0 : inUse());
        if (cap < configured && SAID.compareAndSet(false, true)) {
            log.warn("max-open-files-lowered", "configured", configured, "cap", cap, "descriptor-limit", limit,
                    "pipelines", pipelines, "why", "the rest of the descriptor limit (ulimit -n) is kept for sinks, "
                            + "state files and the runtime", "action", "raise the limit to keep more files open");
        }
        return cap;
    }

    /** The cap for a descriptor limit of {@code limit} (-1: none) with {@code inUse} descriptors open already. */
    static int cap(int configured, int pipelines, long limit, int inUse) {
        if (limit < 0) return configured;
        long each = (limit - inUse - Math.max(MARGIN_MIN, limit / 8)) / Math.max(1, pipelines);
        return (int) Math.min(configured, Math.max(CAP_MIN, each));
    }

    /** How many descriptors the process has open (0 when /proc cannot say). */
    static int inUse() {
        try (java.util.stream.Stream<java.nio.file.Path> fds = java.nio.file.Files.list(
                java.nio.file.Path.of("/proc/self/fd"))) {
            return (int) fds.count();
        } catch (java.io.IOException | RuntimeException e) {
            return 0;
        }
    }

    /** The soft RLIMIT_NOFILE (what open(2) is held to), or -1 when unlimited or unknown. */
    static long softLimit() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment r = arena.allocate(Rlimit.LAYOUT);
            if (LibC.getrlimit(Rlimit.RLIMIT_NOFILE, r) != 0) return -1;
            long cur = Rlimit.cur(r);
            return cur == Rlimit.RLIM_INFINITY ? -1 : cur;
        }
    }
}
