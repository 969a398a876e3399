package io.jfio.jmh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/** Runs every benchmark once, in this JVM, for a few milliseconds: each must produce a finite positive score. */
class BenchmarksRunTest {
    @Test
    void everyBenchmarkRunsAndLeavesNoFiles(@TempDir Path dir) throws Exception {
        System.setProperty("jfio.jmh.dir", dir.toString());
        Options o = new OptionsBuilder().include("io\\.jfio\\.jmh\\..*Bench\\..*").forks(0).warmupIterations(0)
                .measurementIterations(1).measurementTime(TimeValue.milliseconds(30)).param("size", "8192")
                .shouldFailOnError(true).build();
        Collection<RunResult> results = new Runner(o).run();
        // MetadataBench 5 + MemcpyBench 4 + UringRoundTripBench 4 + BounceBench 4 (size fixed above)
        assertEquals(17, results.size(), results.toString());
        for (RunResult r : results) {
            double s = r.getPrimaryResult().getScore();
            assertTrue(Double.isFinite(s) && s > 0, r.getParams().getBenchmark() + ": " + s);
        }
        try (Stream<Path> s = Files.list(dir)) {
            assertEquals(0, s.count(), "files left in " + dir);
        }
    }
}
