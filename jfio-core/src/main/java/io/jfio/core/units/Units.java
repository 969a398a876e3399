package io.jfio.core.units;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Thread-safe; stateless. Reads and prints the sizes and durations of every jfio option and configuration key, so
 * that the same text means the same amount everywhere.
 *
 * <p>Sizes: a number, optionally followed by a unit; case does not matter, spaces around the number and between the
 * number and the unit are ignored.
 * <ul>
 *   <li>no unit or {@code B}: bytes;</li>
 *   <li>SI units are powers of 1000: {@code kB} (also {@code KB}) = 1000, {@code MB} = 10^6, {@code GB} = 10^9,
 *       {@code TB} = 10^12;</li>
 *   <li>IEC units are powers of 1024: {@code KiB} = 1024, {@code MiB} = 2^20, {@code GiB} = 2^30,
 *       {@code TiB} = 2^40;</li>
 *   <li>a single letter {@code k}, {@code m}, {@code g}, {@code t} is short for {@code KiB}, {@code MiB},
 *       {@code GiB}, {@code TiB}, as in {@code dd}, {@code fio} and {@code java -Xmx}.</li>
 * </ul>
 * A fraction or an exponent is allowed when the result is a whole number of bytes: {@code 1.5MiB} is 1572864,
 * {@code 1.5} is refused. Negative sizes and sizes beyond {@link Long#MAX_VALUE} are refused.
 *
 * <p>Durations: a number with a unit, {@code ns}, {@code us}, {@code ms}, {@code s}, {@code m} (minutes), {@code h},
 * {@code d}; a number alone is seconds; a fraction is allowed when the result is a whole number of nanoseconds
 * ({@code 1.5s}). ISO-8601 ({@code PT2S}, {@code P1D}) is accepted too. Case does not matter ({@code 5S},
 * {@code 250MS}); negative durations are refused.
 */
public final class Units {
    /** What a size may look like, for messages. */
    public static final String SIZE_FORMS = "use a number with B, kB, MB, GB, TB, KiB, MiB, GiB, TiB "
            + "(k, m, g, t are KiB, MiB, GiB, TiB), e.g. 4096, 64KiB, 1.5MiB, 10MB";
    /** What a duration may look like, for messages. */
    public static final String DURATION_FORMS = "use a number with ns, us, ms, s, m, h or d (a number alone is "
            + "seconds), e.g. 250ms, 1.5s, 2m, or ISO-8601 such as PT2S";

    private static final Pattern QUANTITY =
            Pattern.compile("([+-]?(?:\\d+\\.?\\d*|\\.\\d+)(?:e[+-]?\\d{1,3})?)\\s*([a-z]*)");
    private static final BigDecimal LONG_MAX = BigDecimal.valueOf(Long.MAX_VALUE);

    private Units() {
    }

    /**
     * Parses a size in bytes.
     *
     * @param text the size as typed
     * @return the bytes, 0 or more
     * @throws IllegalArgumentException naming the text, why it is not a size and what is accepted
     */
    public static long parseSize(String text) {
        Matcher m = text == null ? null : QUANTITY.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (m == null || !m.matches()) throw notA(text, "size", SIZE_FORMS);
        long factor = switch (m.group(2)) {
            case "", "b" -> 1L;
            case "kb" -> 1_000L;
            case "mb" -> 1_000_000L;
            case "gb" -> 1_000_000_000L;
            case "tb" -> 1_000_000_000_000L;
            case "k", "kib" -> 1L << 10;
            case "m", "mib" -> 1L << 20;
            case "g", "gib" -> 1L << 30;
            case "t", "tib" -> 1L << 40;
            default -> throw notA(text, "size", SIZE_FORMS);
        };
        return whole(text, "size", "bytes", new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(factor)));
    }

    /**
     * Parses a duration.
     *
     * @param text the duration as typed
     * @return the duration, zero or more
     * @throws IllegalArgumentException naming the text, why it is not a duration and what is accepted
     */
    public static Duration parseDuration(String text) {
        String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
        if (t.startsWith("p") || t.startsWith("-p") || t.startsWith("+p")) return iso(text, t);
        Matcher m = QUANTITY.matcher(t);
        if (t.isEmpty() || !m.matches()) throw notA(text, "duration", DURATION_FORMS);
        long nanosPer = switch (m.group(2)) {
            case "ns" -> 1L;
            case "us" -> 1_000L;
            case "ms" -> 1_000_000L;
            case "", "s" -> 1_000_000_000L;
            case "m" -> 60_000_000_000L;
            case "h" -> 3_600_000_000_000L;
            case "d" -> 86_400_000_000_000L;
            default -> throw notA(text, "duration", DURATION_FORMS);
        };
        BigDecimal nanos = new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(nanosPer));
        BigDecimal[] secondsAndNanos = nanos.divideAndRemainder(BigDecimal.valueOf(1_000_000_000L));
        long seconds = whole(text, "duration", "seconds", secondsAndNanos[0]);
        long rest = whole(text, "duration", "nanoseconds", secondsAndNanos[1]);
        return Duration.ofSeconds(seconds, rest);
    }

    /**
     * A size for messages in the largest IEC unit that divides it: {@code 1048576} is {@code 1MiB}.
     *
     * @param bytes a size in bytes
     * @return the size with its unit, e.g. {@code 64KiB}
     */
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

    /**
     * A duration for messages that {@link #parseDuration} reads back as the same milliseconds: {@code 5s}.
     *
     * @param d a duration, not negative
     * @return the duration with its unit, e.g. {@code 250ms}
     */
    public static String formatDuration(Duration d) {
        long ms = d.toMillis();
        if (ms % 1000 == 0 && ms != 0) return (ms / 1000) + "s";
        return ms + "ms";
    }

    private static Duration iso(String text, String t) {
        Duration d;
        try {
            d = Duration.parse(t.toUpperCase(Locale.ROOT));
        } catch (DateTimeParseException e) {
            throw notA(text, "duration", DURATION_FORMS);
        }
        if (d.isNegative()) throw new IllegalArgumentException("'" + text + "' is negative: a duration is 0 or more");
        return d;
    }

    /** {@code value} as a long, refused when negative, fractional or too large. */
    private static long whole(String text, String what, String unit, BigDecimal value) {
        if (value.signum() < 0) {
            throw new IllegalArgumentException("'" + text + "' is negative: a " + what + " is 0 or more");
        }
        if (value.compareTo(LONG_MAX) > 0) {
            throw new IllegalArgumentException("'" + text + "' is too large: a " + what + " is at most "
                    + (what.equals("size") ? Long.MAX_VALUE + " bytes" : Long.MAX_VALUE + " seconds"));
        }
        if (value.setScale(0, RoundingMode.DOWN).compareTo(value) != 0) {
            throw new IllegalArgumentException("'" + text + "' is not a whole number of " + unit
                    + ": use a smaller unit or fewer decimals");
        }
        return value.longValueExact();
    }

    private static IllegalArgumentException notA(String text, String what, String forms) {
        return new IllegalArgumentException("'" + text + "' is not a " + what + ": " + forms);
    }
}
