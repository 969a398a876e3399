package io.jfio.bench.suite;

import java.time.Duration;

/**
 * One experiment of {@code jfio bench}: a named measurement that produces tables, one plot, fio cross-checks and
 * notes. Implementations are stateless; {@link #run} gets everything it needs from the {@link SuiteContext}.
 *
 * <p>Thread-safe; stateless.
 */
public interface Experiment {
    /** The name to run it alone: {@code jfio bench NAME}. Lower case, no spaces. */
    String name();

    /** One line: what it measures. */
    String description();

    /** True when fio can express (part of) this workload, so the report carries jfio/fio ratios. */
    boolean fioExpressible();

    /** The share of the {@code --quick} time budget this experiment gets (it skips cells beyond it, and says so). */
    Duration quickBudget();

    /** Bytes of test files it needs on {@code --dir} at once at this scale (0 for none). */
    long bytesNeeded(SuiteOptions.Scale scale);

    /**
     * Runs the experiment. Test files go under {@link SuiteContext#scratch()}; they are removed by the runner after
     * the experiment, on an exception, and on Ctrl-C or SIGTERM.
     */
    ExperimentResult run(SuiteContext ctx) throws Exception;
}
