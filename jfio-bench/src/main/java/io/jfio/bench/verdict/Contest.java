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
 * @param events         true when each sample is one event (a write's detection latency), many per contender, rather
 *                       than one repetition: their spread is then quoted as the interquartile range, since the
 *                       range of hundreds of events is set by their rarest outlier
 */
public record Contest(Workload workload, String detail, String unit, boolean higherIsBetter,
                      List<Contender> contenders, boolean paired, boolean events) {
    public Contest {
        if (workload == null) throw new IllegalArgumentException("a contest needs a workload");
        contenders = List.copyOf(contenders);
        if (contenders.isEmpty()) throw new IllegalArgumentException("no contenders: workload=" + workload.key());
    }

    /** A contest of repetitions, paired when they ran in interleaved rounds. */
    public Contest(Workload workload, String detail, String unit, boolean higherIsBetter, List<Contender> contenders,
                   boolean paired) {
        this(workload, detail, unit, higherIsBetter, contenders, paired, false);
    }

    /** A contest of contenders measured in interleaved rounds: paired samples. */
    public Contest(Workload workload, String detail, String unit, boolean higherIsBetter, List<Contender> contenders) {
        this(workload, detail, unit, higherIsBetter, contenders, true);
    }
}
