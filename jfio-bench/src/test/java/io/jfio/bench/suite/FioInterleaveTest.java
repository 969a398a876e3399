package io.jfio.bench.suite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jfio.bench.fio.Fio;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fio cross-checks: real fio runs, interleaved with ours, compared as medians (load-types; readahead's checks
 * are built the same way and left out here to keep the test short).
 */
class FioInterleaveTest {
    @Test
    void fioChecksCompareMediansOfRunsInterleavedWithOurs(@TempDir Path tmp) throws Exception {
        // As the benchmark does: install fio from the distribution's packages when it is missing (root and apt-get
        // needed; only without them is the check skipped), so that a fresh CI machine runs it too.
        StringWriter install = new StringWriter();
        assumeTrue(Fio.findOrInstall(true, new PrintWriter(install, true)).isPresent(),
                "fio is not installed and could not be: " + install);
        SuiteOptions o = SuiteOptions.defaults(CacheStateTest.diskDir(), 42).withScale(SuiteOptions.Scale.TINY)
                .withFio(true, false).withOnly(List.of("load-types")).withPlots(false);
        SuiteResult r = SuiteRunner.run(o, tmp.resolve("report"), new PrintWriter(new StringWriter()), false);
        ExperimentResult e = r.results().get(0);
        assertEquals(ExperimentResult.Status.OK, e.status(), e.reason());
        // cold sequential and random reads, FileChannel and jfio io_uring
        assertEquals(4, e.fioChecks().size(), e.fioChecks().toString());
        {
            for (FioCheck c : e.fioChecks()) {
                assertTrue(c.fio().endsWith("(median of " + SuiteOptions.REPS + " runs in the same rounds as ours)"),
                        c.fio());
                assertTrue(c.fioValue() > 0 && c.javaValue() > 0, c.toString());
                assertFalse(Double.isNaN(c.ratio()), c.toString());
            }
        }
    }
}
