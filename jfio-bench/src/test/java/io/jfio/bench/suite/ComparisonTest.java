package io.jfio.bench.suite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.bench.verdict.Call;
import io.jfio.bench.verdict.Contest;
import io.jfio.bench.verdict.Noise;
import io.jfio.bench.verdict.Workload;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --compare}: two results.json files side by side with the verdicts' confidence rule, and clear refusals of
 * files it cannot compare (missing, not JSON, not jfio bench's, schema before 4).
 */
class ComparisonTest {
    /** A results.json with a sequential-read contest and, when {@code withWatch}, a change-detection one. */
    static Path write(Path dir, String name, double[] fileChannel, double[] uring, boolean withWatch)
            throws Exception {
        ExperimentResult e = new ExperimentResult("load-types", "load types");
        e.noise(new Noise(0.1, 30, 0.2, 0.3, 2));
        e.contest(new Contest(Workload.SEQUENTIAL_READ_COLD, "256 MiB file, GB/s", "GB/s", true, List.of(
                Call.FILECHANNEL_READ.contender("FileChannel", true, fileChannel),
                Call.JFIO_READ_ASYNC.contender("jfio io_uring", false, uring))));
        if (withWatch) {
            e.contest(new Contest(Workload.CHANGE_DETECTION, "latency", "ms", false, List.of(
                    Call.WATCH_SERVICE.contender("JDK WatchService", true, new double[] {2, 2.1, 1.9, 2, 2}),
                    Call.JFIO_WATCHER.contender("inotify+epoll", false, new double[] {.1, .11, .09, .1, .1}))));
        }
        SuiteResult r = new SuiteResult(SuiteOptions.defaults(dir, 1), ResultsJsonTest.fixedResult().system(),
                List.of(), List.of(e), List.of(), "2026-11-27T01:00", 10);
        Path f = dir.resolve(name);
        Files.writeString(f, Report.json(r, Map.of()));
        return f;
    }

    private static double[] around(double v) {
        return new double[] {v, v * 1.02, v * 0.98, v * 1.01, v * 0.99};
    }

    @Test
    void aContenderThatGotFasterIsNamedAndOneThatDidNotIsNot(@TempDir Path tmp) throws Exception {
        Path old = write(tmp, "old.json", around(0.5), around(1.0), true);
        Path neu = write(tmp, "new.json", around(0.5), around(2.0), false);
        Comparison c = Comparison.of(old, neu);
        Comparison.Row seq = c.rows().get(0);
        assertEquals("sequential read, cold", seq.title());
        assertEquals("same answer: jfio io_uring wins in both", seq.answer());
        Comparison.ContenderRow fc = seq.contenders().stream().filter(k -> k.name().equals("FileChannel"))
                .findFirst().orElseThrow();
        Comparison.ContenderRow ju = seq.contenders().stream().filter(k -> k.name().equals("jfio io_uring"))
                .findFirst().orElseThrow();
        assertTrue(fc.text().startsWith("no change: equal within 10% (1.000x"), fc.text());
        assertEquals("same", fc.outcome());
        assertEquals("better", ju.outcome());
        assertTrue(ju.text().startsWith("2.00x (95% CI ") && ju.text().endsWith("better in the new run"), ju.text());
        Comparison.Row watch = c.rows().stream().filter(r -> r.title().equals("change detection latency"))
                .findFirst().orElseThrow();
        assertEquals("not measured (the watch experiment did not run)", watch.newLine());
        assertEquals("not measured in both runs", watch.answer());
        assertTrue(watch.oldLine().startsWith("inotify+epoll wins by"), watch.oldLine());
        String md = c.markdown();
        assertTrue(md.contains("| jfio io_uring | 1.00 GB/s | 2.00 GB/s | 2.00x (95% CI "), md);
        assertTrue(String.join("\n", c.console()).contains("sequential read, cold: same answer"), c.console()
                .toString());
    }

    @Test
    void aChangedWinnerAndASlowdownAreSaid(@TempDir Path tmp) throws Exception {
        Path old = write(tmp, "old.json", around(0.5), around(1.0), false);
        Path neu = write(tmp, "new.json", around(1.0), around(0.5), false);
        Comparison.Row seq = Comparison.of(old, neu).rows().get(0);
        assertEquals("the answer changed: jfio io_uring won the old run, FileChannel wins the new one",
                seq.answer());
        Comparison.ContenderRow ju = seq.contenders().stream().filter(k -> k.name().equals("jfio io_uring"))
                .findFirst().orElseThrow();
        assertTrue(ju.text().startsWith("2.00x worse in the new run"), ju.text());
    }

    @Test
    void aTieInBothRunsIsTheSameAnswerAndUnchangedContendersAreNoChange(@TempDir Path tmp) throws Exception {
        Path old = write(tmp, "old.json", around(1.0), around(1.02), false);
        Path neu = write(tmp, "new.json", around(1.0), around(1.02), false);
        Comparison.Row seq = Comparison.of(old, neu).rows().get(0);
        assertEquals("same answer: the best are equal within 10% in both, use FileChannel", seq.answer());
        assertTrue(seq.newLine().startsWith("jfio io_uring and FileChannel (the JDK's way) are equal within 10% here"),
                seq.newLine());
        for (Comparison.ContenderRow c : seq.contenders()) {
            assertEquals("same", c.outcome(), c.text());
            assertTrue(c.text().startsWith("no change: equal within 10% (1.000x (95% CI "), c.text());
        }
    }

    @Test
    void aWinThatBecomesATieChangesTheAnswerAndAWideChangeCannotBeTold(@TempDir Path tmp) throws Exception {
        Path old = write(tmp, "old.json", new double[] {0.5, 0.9, 0.3, 0.7, 0.45}, around(1.0), false);
        Path neu = write(tmp, "new.json", new double[] {1.0, 0.4, 1.3, 0.6, 0.8}, around(1.0), false);
        Comparison.Row seq = Comparison.of(old, neu).rows().get(0);
        assertTrue(seq.oldLine().startsWith("jfio io_uring wins by"), seq.oldLine());
        assertTrue(seq.newLine().startsWith("no difference measurable here"), seq.newLine());
        assertEquals("decided in the old run only (jfio io_uring wins); the new run could not tell", seq.answer());
        Comparison.ContenderRow fc = seq.contenders().stream().filter(k -> k.name().equals("FileChannel"))
                .findFirst().orElseThrow();
        assertEquals("undecided", fc.outcome(), fc.text());
        assertTrue(fc.text().startsWith("cannot tell: 1.60x (95% CI ") && fc.text().endsWith(", wider than 10% "
                + "either way"), fc.text());

        Path tie = write(tmp, "tie.json", around(0.99), around(1.0), false);
        Comparison.Row changed = Comparison.of(old, tie).rows().get(0);
        assertEquals("the answer changed: jfio io_uring won the old run; in the new one jfio io_uring and FileChannel "
                + "are equal within 10%", changed.answer());
    }

    @Test
    void aSchema4FileIsJudgedAgainWithTheBand(@TempDir Path tmp) throws Exception {
        // schema 4 wrote "decided": false for a tie and no "outcome": the samples decide it now
        Path neu = write(tmp, "new.json", around(1.0), around(1.01), false);
        String v4 = Files.readString(neu).replace("\"schema_version\": 5", "\"schema_version\": 4")
                .replace("\"outcome\": \"tie\",", "").replace("\"decided\": true", "\"decided\": false");
        Path old = Files.writeString(tmp.resolve("v4.json"), v4);
        Comparison.Row seq = Comparison.of(old, neu).rows().get(0);
        assertEquals("same answer: the best are equal within 10% in both, use FileChannel", seq.answer());
    }

    @Test
    void anOldSchemaIsRefusedWithWhatToDo(@TempDir Path tmp) throws Exception {
        Path neu = write(tmp, "new.json", around(0.5), around(1.0), false);
        Path old = tmp.resolve("v3.json");
        Files.writeString(old, Files.readString(neu).replace("\"schema_version\": 5", "\"schema_version\": 3"));
        SuiteRunner.BadInputException e = assertThrows(SuiteRunner.BadInputException.class,
                () -> Comparison.of(old, neu));
        assertTrue(e.getMessage().contains("has schema_version 3; comparing needs 4 or newer"), e.getMessage());
    }

    @Test
    void filesThatAreNotResultsAreRefused(@TempDir Path tmp) throws Exception {
        Path neu = write(tmp, "new.json", around(0.5), around(1.0), false);
        SuiteRunner.BadInputException missing = assertThrows(SuiteRunner.BadInputException.class,
                () -> Comparison.of(tmp.resolve("nope.json"), neu));
        assertTrue(missing.getMessage().contains("no such file: " + tmp.resolve("nope.json")), missing.getMessage());
        Path text = Files.writeString(tmp.resolve("notes.txt"), "hello");
        assertTrue(assertThrows(SuiteRunner.BadInputException.class, () -> Comparison.of(text, neu)).getMessage()
                .contains("is not JSON"));
        Path other = Files.writeString(tmp.resolve("other.json"), "{\"schema_version\": 4}");
        assertTrue(assertThrows(SuiteRunner.BadInputException.class, () -> Comparison.of(other, neu)).getMessage()
                .contains("is not the results.json of jfio bench"));
        Path binary = Files.write(tmp.resolve("bin.json"), new byte[] {(byte) 0xff, (byte) 0xfe, '{'});
        assertTrue(assertThrows(SuiteRunner.BadInputException.class, () -> Comparison.of(binary, neu)).getMessage()
                .contains("not UTF-8"));
    }
}
