package io.jfio.ship.tcp;

import java.io.PrintStream;
import java.util.function.LongSupplier;

/**
 * One kind of log line printed at most once per interval: the first occurrence prints at once, later ones within the
 * interval are counted, and the next line printed says how many were left out. A flood (a port scan, a descriptor
 * limit hit in a loop) so costs a line per interval instead of a line per event.
 *
 * <p>Thread-safe: {@link #report} may be called from any thread.
 */
final class RateLimitedLog {
    private final PrintStream out;
    private final long intervalNanos;
    private final LongSupplier clock;
    private long lastPrinted;
    private boolean printedOnce;
    private long suppressed;

    RateLimitedLog(PrintStream out, long intervalNanos) {
        this(out, intervalNanos, System::nanoTime);
    }

    RateLimitedLog(PrintStream out, long intervalNanos, LongSupplier clock) {
        this.out = out;
        this.intervalNanos = intervalNanos;
        this.clock = clock;
    }

    /** Prints {@code line}, or counts it when a line of this kind was printed less than an interval ago. */
    void report(String line) {
        String text;
        synchronized (this) {
            long now = clock.getAsLong();
            if (printedOnce && now - lastPrinted < intervalNanos) {
                suppressed++;
                return;
            }
            text = suppressed == 0 ? line : line + " (and " + suppressed + " more like it not shown)";
            suppressed = 0;
            lastPrinted = now;
            printedOnce = true;
        }
        out.println(text);
    }
}
