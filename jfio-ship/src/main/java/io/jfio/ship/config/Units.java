package io.jfio.ship.config;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses the durations ({@code 250ms}, {@code 5s}, {@code 2m}) and sizes ({@code 1MiB}, {@code 64KiB},
 * {@code 10MB}, {@code 4096}) of the configuration and the command line.
 *
 * <p>Thread-safe; stateless.
 */
public final class Units {
    private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ns|us|ms|s|m|h)");
    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*(b|k|kb|kib|m|mb|mib|g|gb|gib|t|tb|tib)?");

    private Units() {
    }

    /**
     * A duration with a unit: {@code ns}, {@code us}, {@code ms}, {@code s}, {@code m} or {@code h}; {@code 0} alone
     * is zero.
     *
     * @throws IllegalArgumentException with a message naming the value when it is not one
     */
    public static Duration parseDuration(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (t.equals("0")) return Duration.ZERO;
        Matcher m = DURATION.matcher(t);
        if (!m.matches()) {
            throw new IllegalArgumentException("not a duration: value='" + text + "' (examples: 250ms, 5s, 2m, 1h)");
        }
        long n;
        try {
            n = Long.parseLong(m.group(1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("duration too large: value='" + text + "'");
        }
        return switch (m.group(2)) {
            case "ns" -> Duration.ofNanos(n);
            case "us" -> Duration.ofNanos(Math.multiplyExact(n, 1000L));
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> throw new IllegalArgumentException("not a duration: value='" + text + "'");
        };
    }

    /**
     * A size in bytes: a number, optionally followed by a binary ({@code KiB}, {@code MiB}, {@code GiB},
     * {@code TiB}, also written {@code k}, {@code m}, {@code g}, {@code t}) or decimal ({@code KB}, {@code MB},
     * {@code GB}, {@code TB}) unit; case does not matter.
     *
     * @throws IllegalArgumentException with a message naming the value when it is not one
     */
    public static long parseSize(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        Matcher m = SIZE.matcher(t);
        if (!m.matches()) {
            throw new IllegalArgumentException("not a size: value='" + text + "' (examples: 4096, 64KiB, 1MiB, 1GB)");
        }
        long n;
        try {
            n = Long.parseLong(m.group(1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("size too large: value='" + text + "'");
        }
        String unit = m.group(2) == null ? "b" : m.group(2);
        long factor = switch (unit) {
            case "b" -> 1L;
            case "k", "kib" -> 1L << 10;
            case "m", "mib" -> 1L << 20;
            case "g", "gib" -> 1L << 30;
            case "t", "tib" -> 1L << 40;
            case "kb" -> 1_000L;
            case "mb" -> 1_000_000L;
            case "gb" -> 1_000_000_000L;
            case "tb" -> 1_000_000_000_000L;
            default -> throw new IllegalArgumentException("not a size: value='" + text + "'");
        };
        try {
            return Math.multiplyExact(n, factor);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("size too large: value='" + text + "'");
        }
    }

    /** A size for messages: {@code 1048576} is {@code 1MiB}, {@code 1000} is {@code 1000B}. */
    public static String formatSize(long bytes) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
        int u = 0;
        long v = bytes;
        while (u < units.length - 1 && v != 0 && v % 1024 == 0) {
            v /= 1024;
            u++;
        }
        return v + units[u];
    }

    /** A duration for messages: {@code 250ms}, {@code 5s}. */
    public static String formatDuration(Duration d) {
        long ms = d.toMillis();
        if (ms % 1000 == 0 && ms != 0) return (ms / 1000) + "s";
        return ms + "ms";
    }
}
