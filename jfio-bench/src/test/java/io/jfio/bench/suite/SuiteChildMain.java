package io.jfio.bench.suite;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;

/** A child JVM for {@link InterruptCleanupTest}: runs load-types at the quick scale in {@code args[0]}. */
public final class SuiteChildMain {
    private SuiteChildMain() {
    }

    public static void main(String[] args) throws Exception {
        SuiteOptions o = SuiteOptions.defaults(Path.of(args[0]), 5).withFio(false, false)
                .withOnly(List.of("load-types")).withPlots(false);
        SuiteRunner.run(o, Path.of(args[1]), new PrintWriter(System.err, true), false);
    }
}
