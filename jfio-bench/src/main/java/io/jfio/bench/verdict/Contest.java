package io.jfio.bench.verdict;

import java.util.List;

/**
 * The contenders of one workload, measured interleaved in one experiment, ready to be judged.
 *
 * <p>Immutable.
 *
 * @param workload       which line of "What wins here"
 * @param detail         the cell measured, e.g. {@code "256 MiB file, GB/s"}
 * @param unit           unit of the samples, e.g. {@code "GB/s"}
 * @param higherIsBetter true for throughput, false for latency
 * @param contenders     at least one
 * @param paired         true when sample {@code i} of every contender comes from the same round of an interleaved
 *                       run (the bootstrap then resamples rounds, keeping each round's pair together)
 */
public record Contest(Workload workload, String detail, String unit, boolean higherIsBetter,
                      List<Contender> contenders, boolean paired) {
    public Contest {
        if (workload == null) throw new IllegalArgumentException("a contest needs a workload");
        contenders = List.copyOf(contenders);
        if (contenders.isEmpty()) throw new IllegalArgumentException("no contenders: workload=" + workload.key());
    }

    /** A contest of contenders measured in interleaved rounds: paired samples. */
    public Contest(Workload workload, String detail, String unit, boolean higherIsBetter, List<Contender> contenders) {
        this(workload, detail, unit, higherIsBetter, contenders, true);
    }
}
