package io.jfio.core.copy;

import io.jfio.core.sys.LibC;
import io.jfio.core.sys.Rlimit;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Facts about this process and its storage that shape a copy: whether a device is rotational (sysfs), the umask,
 * the descriptor limit. Read once and cached.
 *
 * <p>Thread-safe.
 */
final class Storage {
    private static final Path SYS = Path.of("/sys");
    private static final ConcurrentHashMap<Long, Optional<Boolean>> ROTATIONAL = new ConcurrentHashMap<>();

    private Storage() {
    }

    /**
     * Whether the block device {@code dev} (dev_t encoding) reports {@code queue/rotational = 1}: the device's own
     * queue, or for a partition its disk's. Empty for devices without a queue (tmpfs, overlayfs, NFS: nothing spins
     * that we could know of) or where sysfs is not readable.
     */
    static Optional<Boolean> rotational(long dev) {
        return ROTATIONAL.computeIfAbsent(dev, Storage::readRotational);
    }

    private static Optional<Boolean> readRotational(long dev) {
        long major = ((dev >>> 8) & 0xfffL) | ((dev >>> 32) & 0xfffff000L);
        long minor = (dev & 0xffL) | ((dev >>> 12) & 0xffffff00L);
        Path link = SYS.resolve("dev/block/" + major + ":" + minor);
        try {
            if (!Files.exists(link)) return Optional.empty();
            Path d = link.toRealPath();
            Path q = d.resolve("queue/rotational");
            if (!Files.exists(q) && Files.exists(d.resolve("partition"))) q = d.getParent().resolve("queue/rotational");
            if (!Files.exists(q)) return Optional.empty();
            return Optional.of(Files.readString(q, StandardCharsets.US_ASCII).strip().equals("1"));
        } catch (IOException | SecurityException e) {
            return Optional.empty();
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
