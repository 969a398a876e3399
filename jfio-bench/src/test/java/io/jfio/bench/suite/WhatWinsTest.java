package io.jfio.bench.suite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.bench.verdict.Call;
import io.jfio.bench.verdict.Contest;
import io.jfio.bench.verdict.Noise;
import io.jfio.bench.verdict.Workload;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * "What wins here" at the top of report.md, report.html and the console: one line per workload, in order, a
 * decided line naming the winner with its margins and the code to use, an undecided one with its reasons and the
 * re-run hint, and workloads no experiment measured named as such.
 */
class WhatWinsTest {
    private static SuiteResult result() {
        ExperimentResult e = new ExperimentResult("load-types", "load types");
        e.noise(new Noise(0.2, 50, 0.5, 0.6, 2));
        e.contest(new Contest(Workload.SEQUENTIAL_READ_COLD, "256 MiB file, GB/s", "GB/s", true, List.of(
                Call.FILECHANNEL_READ.contender("FileChannel", true, new double[] {0.50, 0.52, 0.49, 0.51, 0.50}),
                Call.JFIO_READ_ASYNC.contender("jfio io_uring", false, new double[] {1.0, 1.02, 0.98, 1.01, 0.99}),
                Call.FILECHANNEL_MAP.contender("mmap", false, new double[] {0.70, 0.71, 0.69, 0.72, 0.70}))));
        e.contest(new Contest(Workload.RANDOM_WRITE, "random write", "GB/s", true, List.of(
                Call.FILECHANNEL_WRITE.contender("FileChannel", true, new double[] {1.0, 3.0, 0.5, 1.1, 2.0}),
                Call.JFIO_WRITE_ASYNC.contender("jfio io_uring", false, new double[] {1.15, 0.4, 2.9, 1.2, 1.0}))));
        SuiteOptions o = SuiteOptions.defaults(java.nio.file.Path.of("/tmp"), 1).withOnly(List.of("load-types"));
        return new SuiteResult(o, ResultsJsonTest.fixedResult().system(), List.of(), List.of(e), List.of(),
                "2026-01-01T00:00", 1.0);
    }

    @Test
    void oneVerdictPerWorkloadInOrder() {
        SuiteResult r = result();
        assertEquals(Workload.values().length, r.verdicts().size());
        for (int i = 0; i < Workload.values().length; i++) {
            assertEquals(Workload.values()[i], r.verdicts().get(i).workload());
        }
    }

    @Test
    void markdownStartsWithTheSectionAndNamesWinnerMarginsAndCode() {
        String md = Report.markdown(result(), Map.of());
        int section = md.indexOf("## What wins here");
        assertTrue(section > 0 && section < md.indexOf("## Machine"), md);
        assertTrue(md.contains("- **sequential read, cold** (load-types): jfio io_uring wins by 1.43x (95% CI "), md);
        assertTrue(md.contains("over mmap; jfio io_uring vs FileChannel (the JDK's way): 2.00x (95% CI "), md);
        assertTrue(md.contains("`IoFile.readAsync(MemorySegment, long), several in flight`"), md);
        assertTrue(md.contains("- **random 4 KiB write with fdatasync** (load-types): no difference measurable here "
                + "between jfio io_uring and FileChannel"), md);
        assertTrue(md.contains("re-run with --repeat-until-stable"), md);
        assertTrue(md.contains("- **change detection latency** (watch): not measured (the watch experiment did not "
                + "run)"), md);
    }

    @Test
    void htmlAndConsoleCarryTheSameLines() {
        SuiteResult r = result();
        String html = Report.html(r, Map.of());
        assertTrue(html.indexOf("<h2>What wins here</h2>") < html.indexOf("<h2>Machine</h2>"));
        List<String> console = WhatWins.console(r.verdicts());
        for (WhatWins.Entry e : r.verdicts()) {
            String rest = e.line().substring(e.workload().title().length() + 2);
            assertTrue(html.contains(rest.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
                    .replace("\"", "&quot;")), e.line());
            assertTrue(console.contains("  " + e.line()), e.line());
        }
        assertTrue(console.contains("      use jfio io_uring: IoFile.readAsync(MemorySegment, long), several in "
                + "flight"), console.toString());
    }

    @Test
    void aTieSaysWhichToUseAndTheTallyCountsItAsDecided() {
        ExperimentResult e = new ExperimentResult("load-types", "load types");
        e.noise(new Noise(0.2, 50, 0.5, 0.6, 2, 3.0));
        e.contest(new Contest(Workload.SEQUENTIAL_READ_COLD, "256 MiB file, GB/s", "GB/s", true, List.of(
                Call.FILECHANNEL_READ.contender("FileChannel", true, new double[] {1.00, 1.02, 0.99, 1.01, 1.00}),
                Call.JFIO_READ_ASYNC.contender("jfio io_uring", false, new double[] {1.01, 1.03, 0.99, 1.02, 1.01}))));
        e.contest(new Contest(Workload.RANDOM_WRITE, "random write", "GB/s", true, List.of(
                Call.FILECHANNEL_WRITE.contender("FileChannel", true, new double[] {1.0, 3.0, 0.5, 1.1, 2.0}),
                Call.JFIO_WRITE_ASYNC.contender("jfio io_uring", false, new double[] {1.15, 0.4, 2.9, 1.2, 1.0}))));
        SuiteOptions o = SuiteOptions.defaults(java.nio.file.Path.of("/tmp"), 1).withOnly(List.of("load-types"));
        SuiteResult r = new SuiteResult(o, ResultsJsonTest.fixedResult().system(), List.of(), List.of(e), List.of(),
                "2026-01-01T00:00", 1.0);
        List<String> console = WhatWins.console(r.verdicts());
        int seq = console.indexOf(console.stream().filter(l -> l.startsWith("  sequential read, cold: "))
                .findFirst().orElseThrow());
        assertTrue(console.get(seq).contains("jfio io_uring and FileChannel (the JDK's way) are equal within 10% "
                + "here"), console.get(seq));
        assertTrue(console.get(seq).endsWith("; use the simpler: FileChannel, the JDK's way"), console.get(seq));
        assertEquals("      use FileChannel: FileChannel.read(ByteBuffer, long)", console.get(seq + 1));
        assertTrue(console.get(seq + 2).startsWith("  "), "no second use line and no re-run hint under a tie");
        assertEquals("  Decided: 1 of 11 lines (0 with a winner, 1 equal within 10%); 1 undecided; 9 not measured "
                + "or with one contender.", console.get(console.size() - 1));
        String md = Report.markdown(r, Map.of());
        assertTrue(md.contains("Decided: 1 of 11 lines"), md);
        assertTrue(md.contains("equal here (a difference that small"), md);
    }

    @Test
    void jdkLinksAreUrlsAndJfioLinksPointIntoTheSourceTreeWhenItIsThere() {
        assertEquals(Call.FILES_COPY.link(), WhatWins.href(Call.FILES_COPY.link()));
        String jfio = WhatWins.href(Call.JFIO_TREE_COPY.link());
        if (WhatWins.sourceRoot() != null) {
            assertTrue(jfio.startsWith("file:/") && jfio.endsWith("TreeCopy.java"), jfio);
        }
    }
}
