package io.jfio.bench.system;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Reading the small text files of procfs and sysfs, and formatting what they hold.
 *
 * <p>Thread-safe; stateless. A file that is absent or unreadable reads as empty: what the kernel does not expose
 * is reported as unknown rather than failing the whole report.
 */
public final class SysFiles {
    private SysFiles() {
    }

    /** The file's content with surrounding whitespace removed, or empty if it cannot be read. */
    public static Optional<String> read(Path file) {
        try {
            return Optional.of(Files.readString(file, StandardCharsets.UTF_8).strip());
        } catch (IOException | SecurityException e) {
            return Optional.empty();
        }
    }

    /** The file's lines, or an empty list if it cannot be read. */
    static List<String> lines(Path file) {
        try {
            return Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException | SecurityException e) {
            return List.of();
        }
    }

    /** The file's content as a long, or empty if it cannot be read or is not a number. */
    static Optional<Long> readLong(Path file) {
        return read(file).flatMap(SysFiles::parseLong);
    }

    static Optional<Long> parseLong(String s) {
        try {
            return Optional.of(Long.parseLong(s.strip()));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** A byte count for people: {@code 512 bytes}, {@code 4.0 KiB}, {@code 23.5 GiB}. */
    public static String bytes(long n) {
        if (n < 1024) return n + " bytes";
        String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
        double v = n;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, "%.1f %s", v, units[u]);
    }
}
