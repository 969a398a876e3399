package io.jfio.core.testing;

import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import org.opentest4j.TestAbortedException;

/**
 * The seed of a randomized test: {@code -Djfio.test.seed=N} when set (to replay a failure), else a fresh random one.
 * Every failure of a body run through {@link #run} names the seed and the property that replays it.
 *
 * <p>Thread-safe; immutable.
 */
public final class TestSeed {
    /** System property that fixes the seed of every randomized test. */
    public static final String SEED_PROP = "jfio.test.seed";

    private final long seed;

    private TestSeed(long seed) {
        this.seed = seed;
    }

    /** The seed from {@link #SEED_PROP}, or a random one. */
    public static TestSeed pick() {
        String s = System.getProperty(SEED_PROP);
        if (s != null && !s.isBlank()) return new TestSeed(Long.decode(s.trim()));
        return new TestSeed(ThreadLocalRandom.current().nextLong());
    }

    public long value() {
        return seed;
    }

    /** A generator for this seed; {@link SplittableRandom#split()} gives independent streams per thread. */
    public SplittableRandom random() {
        return new SplittableRandom(seed);
    }

    @Override
    public String toString() {
        return "seed=" + seed + " (replay with -D" + SEED_PROP + "=" + seed + ")";
    }

    /** A test body that may throw anything. */
    @FunctionalInterface
    public interface Body {
        void run(TestSeed seed) throws Throwable;
    }

    /**
     * Runs {@code body}; any failure is rethrown as an {@link AssertionError} whose message starts with the seed.
     * Skips (assumption failures) pass through unchanged.
     */
    public void run(Body body) {
        try {
            body.run(this);
        } catch (TestAbortedException e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(this + ": " + t, t);
        }
    }
}
