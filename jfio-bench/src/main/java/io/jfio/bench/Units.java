package io.jfio.bench;

import java.time.Duration;
import java.util.Locale;

/**
 * Parsing and printing of sizes ({@code 1g}, {@code 512MiB}, {@code 4096}) and durations ({@code 2s},
 * {@code 500ms}, {@code 1.5s}) as people type them on a command line.
 *
 * <p>Thread-safe; stateless. Size suffixes are binary (k = KiB = 1024).
 */
public final class Units {
    private Units() {
    }

    /** Parses a byte count: a number with an optional k/m/g/t suffix (also KiB, MB, ...: all binary). */
    public static long parseSize(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (t.endsWith("ib")) t = t.substring(0, t.length() - 2);
        else if (t.endsWith("b") && t.length() > 1 && Character.isLetter(t.charAt(t.length() - 2))) {
            t = t.substring(0, t.length() - 1);
        }
        long mult = 1;
        if (!t.isEmpty()) {
            switch (t.charAt(t.length() - 1)) {
                case 'k' -> mult = 1L << 10;
                case 'm' -> mult = 1L << 20;
                case 'g' -> mult = 1L << 30;
                case 't' -> mult = 1L << 40;
                default -> mult = 1;
            }
        }
        if (mult != 1) t = t.substring(0, t.length() - 1).trim();
        try {
            double v = Double.parseDouble(t);
            if (v < 0 || Double.isNaN(v)) throw new NumberFormatException();
            return (long) (v * mult);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("invalid size '" + text + "': expected e.g. 1g, 512m, 16MiB or 4096");
        }
    }

    /** Parses a duration: {@code 500ms}, {@code 2s}, {@code 1.5s}, {@code 1m}, or ISO-8601 ({@code PT2S}). */
    public static Duration parseDuration(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        try {
            if (t.startsWith("pt")) return Duration.parse(t.toUpperCase(Locale.ROOT));
            double nanosPer;
            String num;
            if (t.endsWith("ms")) {
                nanosPer = 1e6;
                num = t.substring(0, t.length() - 2);
            } else if (t.endsWith("us")) {
                nanosPer = 1e3;
                num = t.substring(0, t.length() - 2);
            } else if (t.endsWith("s")) {
                nanosPer = 1e9;
                num = t.substring(0, t.length() - 1);
            } else if (t.endsWith("m")) {
                nanosPer = 60e9;
                num = t.substring(0, t.length() - 1);
            } else {
                nanosPer = 1e9;
                num = t;
            }
            double v = Double.parseDouble(num.trim());
            if (v < 0 || Double.isNaN(v)) throw new NumberFormatException();
            return Duration.ofNanos((long) (v * nanosPer));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("invalid duration '" + text + "': expected e.g. 2s, 500ms or 1.5s");
        }
    }

    /** {@code 1.0 GiB}, {@code 16 MiB}, {@code 4 KiB}, {@code 100 B}. */
    public static String formatSize(long bytes) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
        double v = bytes;
        int u = 0;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        if (u == 0) return bytes + " B";
        return (v == Math.rint(v) ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.1f", v))
                + " " + units[u];
    }

    /** {@code 2s}, {@code 500ms}, {@code 1.5s}: the shortest form that round-trips through parseDuration. */
    public static String formatDuration(Duration d) {
        long ms = d.toMillis();
        if (ms % 1000 == 0) return (ms / 1000) + "s";
        return ms + "ms";
    }

    /** Thousands-grouped integer: {@code 123,456}. */
    public static String formatCount(double v) {
        if (Double.isNaN(v)) return "-";
        return String.format(Locale.ROOT, "%,d", Math.round(v));
    }

    /** Nanoseconds as microseconds with one decimal ({@code 87.3}), "-" for NaN. */
    public static String formatMicros(double nanos) {
        if (Double.isNaN(nanos)) return "-";
        double us = nanos / 1000.0;
        return us >= 100 ? String.format(Locale.ROOT, "%.0f", us) : String.format(Locale.ROOT, "%.1f", us);
    }

    /** A fraction as a percentage with one decimal: {@code 45.2%}. */
    public static String formatPercent(double fraction) {
        if (Double.isNaN(fraction)) return "-";
        return String.format(Locale.ROOT, "%.1f%%", fraction * 100);
    }
}
