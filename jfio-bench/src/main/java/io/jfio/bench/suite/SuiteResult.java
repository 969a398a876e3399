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
 */
public record SuiteResult(SuiteOptions options, SystemInfo system, List<String> setup, List<ExperimentResult> results,
                          List<String> warnings, String started, double seconds) {
    public SuiteResult {
        setup = List.copyOf(setup);
        results = List.copyOf(results);
        warnings = List.copyOf(warnings);
    }

    /** Experiments that failed. */
    public long failed() {
        return results.stream().filter(r -> r.status() == ExperimentResult.Status.FAILED).count();
    }
}
