package io.jfio.core.watch;

import java.time.Duration;

/** Deadlines on {@link System#nanoTime()}, saturating so that a very long timeout does not wrap around. */
final class Deadlines {
    /** About 146 years: far enough to mean "never" and still safe to subtract from. */
    private static final long FAR = Long.MAX_VALUE / 2;

    private Deadlines() {
    }

    static long after(Duration timeout) {
        if (timeout.isNegative()) throw new IllegalArgumentException("negative timeout: " + timeout);
        long nanos;
        try {
            nanos = timeout.toNanos();
        } catch (ArithmeticException tooLong) {
            nanos = FAR;
        }
        return System.nanoTime() + Math.min(nanos, FAR);
    }

    /** Milliseconds from now to {@code deadline}, rounded up (epoll_wait must not wake before it), at most 1 day. */
    static int millisUntil(long deadline) {
        long nanos = deadline - System.nanoTime();
        if (nanos <= 0) return 0;
        return (int) Math.min((nanos + 999_999) / 1_000_000, 86_400_000L);
    }
}
