package io.jfio.cli;

import io.jfio.core.units.Units;
import java.time.Duration;

/**
 * Thread-safe; stateless. Reads the size and duration options of every command through {@link Units}, so that a
 * bad value is a usage error ({@link ExitCodes#USAGE}) naming the option, the text and the accepted forms:
 * {@code --block-size: '1MX' is not a size: use a number with B, kB, MB, ...}.
 */
final class UnitOptions {
    private UnitOptions() {
    }

    /** {@code text} as bytes, 0 or more. */
    static long size(String option, String text) {
        try {
            return Units.parseSize(text);
        } catch (IllegalArgumentException e) {
            throw new CliException(ExitCodes.USAGE, option + ": " + e.getMessage());
        }
    }

    /** {@code text} as bytes, from 1 to {@link Integer#MAX_VALUE}: a buffer's size. */
    static int positiveIntSize(String option, String text) {
        long n = size(option, text);
        if (n < 1 || n > Integer.MAX_VALUE) {
            throw new CliException(ExitCodes.USAGE, option + ": '" + text + "' is out of range: 1 to "
                    + Integer.MAX_VALUE + " bytes");
        }
        return (int) n;
    }

    /** {@code text} as a duration, zero or more. */
    static Duration duration(String option, String text) {
        try {
            return Units.parseDuration(text);
        } catch (IllegalArgumentException e) {
            throw new CliException(ExitCodes.USAGE, option + ": " + e.getMessage());
        }
    }
}
