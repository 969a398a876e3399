package io.jfio.core.watch;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The kernel's inotify limits for this user. Since Linux 5.11 they are counted per user namespace as well: the
 * limit that bites is the smaller of {@code fs.inotify.*} (the initial namespace's) and {@code user.max_inotify_*}
 * (this namespace's).
 *
 * <p>Thread-safe; immutable.
 */
enum Limits {
    WATCHES("fs.inotify.max_user_watches", "user.max_inotify_watches"),
    INSTANCES("fs.inotify.max_user_instances", "user.max_inotify_instances");

    private final String global;
    private final String namespaced;

    Limits(String global, String namespaced) {
        this.global = global;
        this.namespaced = namespaced;
    }

    /** The limit that bites: the sysctl that sets it (the smaller one) and its value (-1 when unreadable). */
    record Effective(String sysctl, long value) {
    }

    /** The effective limit, each sysctl file read once. */
    Effective effective() {
        long g = read(global);
        long n = read(namespaced);
        if (n >= 0 && (g < 0 || n < g)) return new Effective(namespaced, n);
        return new Effective(global, g);
    }

    /** The effective limit's value, or -1 when neither value can be read. */
    long value() {
        return effective().value();
    }

    /** The exception for reaching this limit: {@code errno} from {@code call} on {@code path} (or null). */
    InotifyLimitException exception(String call, int errno, String path) {
        Effective e = effective();
        return new InotifyLimitException(call, errno, path, e.sysctl(), e.value());
    }

    /**
     * A numeric sysctl, or -1 when unreadable. Read with one read(2) into a buffer large enough for any number:
     * sysctl files answer a read at a non-zero offset with end of file, and {@code Files.readString} (JDK 25) reads
     * one byte first, which gives "1" for 16384.
     */
    static long read(String sysctl) {
        Path p = Path.of("/proc/sys", sysctl.replace('.', '/'));
        try (InputStream in = Files.newInputStream(p)) {
            byte[] buf = new byte[64];
            int n = in.read(buf);
            return n <= 0 ? -1 : Long.parseLong(new String(buf, 0, n, StandardCharsets.US_ASCII).trim());
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
    }
}
