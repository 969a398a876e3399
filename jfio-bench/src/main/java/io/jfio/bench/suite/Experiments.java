package io.jfio.bench.suite;

import io.jfio.bench.suite.experiments.AlignmentExperiment;
import io.jfio.bench.suite.experiments.BuffersExperiment;
import io.jfio.bench.suite.experiments.CopyTuningExperiment;
import io.jfio.bench.suite.experiments.LoadTypesExperiment;
import io.jfio.bench.suite.experiments.MemcpyExperiment;
import io.jfio.bench.suite.experiments.MetadataExperiment;
import io.jfio.bench.suite.experiments.MmapExperiment;
import io.jfio.bench.suite.experiments.ReadaheadExperiment;
import io.jfio.bench.suite.experiments.TransferExperiment;
import io.jfio.bench.suite.experiments.UringExperiment;
import io.jfio.bench.suite.experiments.WatchExperiment;
import java.util.List;
import java.util.Optional;

/**
 * The registry of experiments, in their numbering order.
 *
 * <p>Thread-safe; immutable.
 */
public final class Experiments {
    private static final List<Experiment> ALL = List.of(new LoadTypesExperiment(), new AlignmentExperiment(),
            new ReadaheadExperiment(), new BuffersExperiment(), new TransferExperiment(),
            new MmapExperiment(),
            new MetadataExperiment(), new MemcpyExperiment(), new UringExperiment(), new WatchExperiment(),
            new CopyTuningExperiment());

    private Experiments() {
    }

    public static List<Experiment> all() {
        return ALL;
    }

    public static Optional<Experiment> byName(String name) {
        return ALL.stream().filter(e -> e.name().equals(name.trim().toLowerCase(java.util.Locale.ROOT))).findFirst();
    }

    /** The names, comma-separated. */
    public static String names() {
        return String.join(", ", ALL.stream().map(Experiment::name).toList());
    }
}
