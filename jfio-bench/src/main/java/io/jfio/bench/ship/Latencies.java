package io.jfio.bench.ship;

import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * What arrives at a receiver: lines and bytes counted, and for each line whose append time is at or after
 * {@link #recordFrom} the append-to-arrival latency in an HdrHistogram (1 µs to 60 s, 3 significant digits).
 *
 * <p>Thread-safe: several streams (connections, segment files) may feed one instance, each through its own
 * {@link Parser}.
 */
final class Latencies {
    private final Histogram histogram = new Histogram(1_000L, 60_000_000_000L, 3);
    private final AtomicLong lines = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong malformed = new AtomicLong();
    private volatile long recordFrom = Long.MAX_VALUE;

    /** Lines with an append time (ns since the run's origin) at or after {@code t} are recorded from now on. */
    void recordFrom(long t) {
        recordFrom = t;
    }

    long lines() {
        return lines.get();
    }

    long bytes() {
        return bytes.get();
    }

    /** Lines that were not 92 bytes with a numeric append time. */
    long malformed() {
        return malformed.get();
    }

    /** A copy of the histogram so far (values in ns). */
    Histogram snapshot() {
        synchronized (histogram) {
            return histogram.copy();
        }
    }

    /** Splits one stream into lines; keeps the part of a line that has not fully arrived. Not thread-safe. */
    final class Parser {
        private final byte[] carry = new byte[LogLines.LINE];
        private int carried;
        private boolean overlong;

        /**
         * Takes {@code len} bytes of {@code b} from {@code off}, which arrived at {@code now} (ns since the run's
         * origin).
         */
        void feed(byte[] b, int off, int len, long now) {
            bytes.addAndGet(len);
            int end = off + len;
            int start = off;
            for (int i = off; i < end; i++) {
                if (b[i] != '\n') continue;
                int n = i + 1 - start;
                if (carried > 0 || overlong) {
                    if (!overlong && carried + n <= carry.length) {
                        System.arraycopy(b, start, carry, carried, n);
                        line(carry, 0, carried + n, now);
                    } else {
                        line(null, 0, 0, now);
                    }
                    carried = 0;
                    overlong = false;
                } else {
                    line(b, start, n, now);
                }
                start = i + 1;
            }
            int rest = end - start;
            if (rest > 0) {
                if (overlong || carried + rest > carry.length) {
                    overlong = true;
                } else {
                    System.arraycopy(b, start, carry, carried, rest);
                    carried += rest;
                }
            }
        }

        private void line(byte[] b, int start, int n, long now) {
            lines.incrementAndGet();
            long t = b == null || n != LogLines.LINE ? -1 : LogLines.number(b, start, LogLines.T_OFF, LogLines.T_LEN);
            if (t < 0) {
                malformed.incrementAndGet();
                return;
            }
            if (t >= recordFrom) {
                long d = Math.max(1_000L, Math.min(now - t, 60_000_000_000L));
                synchronized (histogram) {
                    histogram.recordValue(d);
                }
            }
        }
    }
}
