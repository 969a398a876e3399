package io.jfio.bench;

import java.time.Duration;
import java.util.Locale;

/**
 * Thread-safe; stateless. Printing of sizes, durations, counts and percentages in reports; reading sizes and
 * durations is {@link io.jfio.core.units.Units}.
 */
public final class Units {
    private Units() {
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

    /** {@code 2s}, {@code 500ms}: the shortest form that {@link io.jfio.core.units.Units#parseDuration} reads back. */
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
