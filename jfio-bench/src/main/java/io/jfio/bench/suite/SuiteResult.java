package io.jfio.bench.suite;

import io.jfio.bench.system.SystemInfo;
import java.util.List;

/**
 * A finished {@code jfio bench} run.
 *
 * <p>Immutable.
 *
 * @param options  what ran
 * @param system   the header: kernel, file system, device, memory, CPU, JDK, load
 * @param setup    run-wide lines: seed, fio version, O_DIRECT support, scale
 * @param results  one per experiment, in run order
 * @param warnings run-wide warnings (load, fio missing)
 * @param started  ISO-8601 start time
 * @param seconds  wall time of the whole run
 * @param verdicts "What wins here": one entry per workload, judged from the experiments' contests
 */
public record SuiteResult(SuiteOptions options, SystemInfo system, List<String> setup, List<ExperimentResult> results,
                          List<String> warnings, String started, double seconds, List<WhatWins.Entry> verdicts) {
    public SuiteResult {
        setup = List.copyOf(setup);
        results = List.copyOf(results);
        warnings = List.copyOf(warnings);
        verdicts = List.copyOf(verdicts);
    }

    /** A result whose verdicts are judged now from the experiments' contests, with the run's seed. */
    public SuiteResult(SuiteOptions options, SystemInfo system, List<String> setup, List<ExperimentResult> results,
                       List<String> warnings, String started, double seconds) {
        this(options, system, setup, results, warnings, started, seconds, WhatWins.judge(results, options.seed()));
    }

    /** Experiments that failed. */
    public long failed() {
        return results.stream().filter(r -> r.status() == ExperimentResult.Status.FAILED).count();
    }
}
