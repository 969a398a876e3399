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
 */
public record Contest(Workload workload, String detail, String unit, boolean higherIsBetter,
                      List<Contender> contenders) {
    public Contest {
        if (workload == null) throw new IllegalArgumentException("a contest needs a workload");
        contenders = List.copyOf(contenders);
        if (contenders.isEmpty()) throw new IllegalArgumentException("no contenders: workload=" + workload.key());
    }
}
