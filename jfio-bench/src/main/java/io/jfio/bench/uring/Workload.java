package io.jfio.bench.uring;

import io.jfio.bench.Offsets;
import java.io.IOException;
import org.HdrHistogram.Histogram;

/**
 * One method ready to run repetitions: files open, buffers allocated, threads or engines set up.
 *
 * <p>Not thread-safe; driven by the benchmark's thread, one repetition at a time.
 */
interface Workload extends AutoCloseable {

    /**
     * Reads blocks at the cursor's offsets until {@code nanos} have passed or the cursor runs dry, and returns what
     * happened. Every read is checked: its byte count and the block's stamp.
     */
    Rep run(Offsets.Cursor cursor, long nanos) throws IOException, InterruptedException;

    @Override
    void close() throws IOException;

    /**
     * One repetition.
     *
     * @param ops        reads completed
     * @param nanos      from the first submission to the last completion
     * @param histogram  per-read latency in nanoseconds
     * @param errors     failed or wrong reads
     * @param firstError the first failure, or null
     */
    record Rep(long ops, long nanos, Histogram histogram, long errors, String firstError) {
        double iops() {
            return nanos <= 0 ? 0 : ops * 1e9 / nanos;
        }
    }
}
