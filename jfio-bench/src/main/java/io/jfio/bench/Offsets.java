package io.jfio.bench;

import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A seeded random order of a file's blocks: a uniformly random permutation (Fisher-Yates), so a pass reads every
 * block exactly once, the way fio's {@code randread} does with its default random map. Every method of a benchmark
 * reads the same sequence from its start, so they all see the same offsets in the same order.
 *
 * <p>Immutable and thread-safe; a {@link Cursor} hands out positions to any number of threads.
 */
public final class Offsets {
    private final int[] blocks;
    private final int blockSize;
    private final long seed;

    /**
     * @param blockCount blocks in the file (at most {@code Integer.MAX_VALUE})
     * @param blockSize  bytes per block; offsets are multiples of it
     * @param seed       the generator's seed; the same seed gives the same sequence
     */
    public Offsets(long blockCount, int blockSize, long seed) {
        if (blockCount < 1 || blockCount > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("block count out of range: blocks=" + blockCount);
        }
        int n = (int) blockCount;
        int[] a = new int[n];
        for (int i = 0; i < n; i++) a[i] = i;
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int i = n - 1; i > 0; i--) {
            int j = rnd.nextInt(i + 1);
            int t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
        this.blocks = a;
        this.blockSize = blockSize;
        this.seed = seed;
    }

    /** Offsets in one pass (the number of blocks). */
    public int length() {
        return blocks.length;
    }

    public long seed() {
        return seed;
    }

    /** The {@code i}-th offset of the sequence; past one pass it starts over. */
    public long offset(long i) {
        return (long) blocks[(int) (i % blocks.length)] * blockSize;
    }

    /**
     * The first {@code count} offsets of the sequence: every block at most once while {@code count <= length()},
     * starting over after that (for hot-cache loops that read more than one pass).
     */
    public long[] first(int count) {
        long[] o = new long[count];
        for (int i = 0; i < count; i++) o[i] = offset(i);
        return o;
    }

    /** A new cursor at the start of the sequence. */
    public Cursor cursor(boolean onePass) {
        return new Cursor(onePass);
    }

    /**
     * Hands out sequence positions in order, to any number of threads. A one-pass cursor runs dry after every block
     * was handed out once (so a cold-cache run never re-reads a block it already brought into the cache); otherwise
     * it wraps around.
     */
    public final class Cursor {
        private final AtomicInteger next = new AtomicInteger();
        private final boolean onePass;

        private Cursor(boolean onePass) {
            this.onePass = onePass;
        }

        /** The next offset, or -1 when a one-pass cursor is exhausted. */
        public long next() {
            int i = next.getAndIncrement();
            if (i < 0 || i >= blocks.length) {
                if (onePass) return -1;
                // Wrap; the counter itself may pass Integer.MAX_VALUE, so fold it back first.
                int w = Math.floorMod(i, blocks.length);
                if (i < 0 || i >= blocks.length * 2) next.compareAndSet(i + 1, w + 1);
                return (long) blocks[w] * blockSize;
            }
            return (long) blocks[i] * blockSize;
        }

        /** Positions handed out so far (capped at one pass for a one-pass cursor). */
        public long handedOut() {
            int i = next.get();
            return onePass ? Math.min(Math.max(i, 0), blocks.length) : i;
        }
    }
}
