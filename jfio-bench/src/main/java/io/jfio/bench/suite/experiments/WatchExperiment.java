package io.jfio.bench.suite.experiments;

import io.jfio.bench.suite.Experiment;
import io.jfio.bench.suite.ExperimentResult;
import io.jfio.bench.suite.SuiteContext;
import io.jfio.bench.suite.SuiteOptions;
import java.time.Duration;

/**
 * Experiment 10: CPU time and detection latency of polling, WatchService and inotify+epoll. It needs jfio's inotify
 * watcher (the ship issue), which does not exist yet, so it reports itself as skipped and measures nothing: a
 * polling-only table would invite comparisons with a column that is missing.
 *
 * <p>Thread-safe; stateless.
 */
public final class WatchExperiment implements Experiment {
    /** Why it is skipped. */
    public static final String REASON = "needs the inotify watcher from the ship issue, which jfio does not have yet";

    @Override
    public String name() {
        return "watch";
    }

    @Override
    public String description() {
        return "CPU per second and detection latency of polling (1 s, 100 ms), WatchService and inotify+epoll";
    }

    @Override
    public boolean fioExpressible() {
        return false;
    }

    @Override
    public Duration quickBudget() {
        return Duration.ZERO;
    }

    @Override
    public long bytesNeeded(SuiteOptions.Scale scale) {
        return 0;
    }

    @Override
    public ExperimentResult run(SuiteContext ctx) {
        return ExperimentResult.skipped(this, REASON);
    }
}
