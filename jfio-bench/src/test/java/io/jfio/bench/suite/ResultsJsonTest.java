package io.jfio.bench.suite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jfio.bench.system.SystemInfo;
import io.jfio.bench.verdict.Call;
import io.jfio.bench.verdict.Contest;
import io.jfio.bench.verdict.Noise;
import io.jfio.bench.verdict.Workload;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * results.json of {@code jfio bench} keeps its schema (docs/BENCH-RESULTS.md): a fixed suite result written now is,
 * structurally, the one {@code results-schema5.json} holds, which the schema-5 writer produced from the same
 * result: the same keys in the same order, the same JSON types, the same values (numbers by value, so 3 and 3.0
 * are equal), non-finite numbers as null.
 */
class ResultsJsonTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    @Test
    void shouldWriteTheSameStructureAsTheRecordedResults() throws Exception {
        JsonNode written = MAPPER.readTree(Report.json(fixedResult(), Map.of("buffers", "buffers.png")));
        JsonNode recorded;
        try (InputStream in = ResultsJsonTest.class.getResourceAsStream("results-schema5.json")) {
            assertNotNull(in, "results-schema5.json is on the test class path");
            recorded = MAPPER.readTree(in);
        }
        assertSameStructure(recorded, written, "$");
    }

    /** A result with every kind of value the writer meets: text with escapes, integers, fractions, NaN, nulls. */
    static SuiteResult fixedResult() {
        SuiteOptions o = new SuiteOptions(Path.of("/tmp/jfio-results"), null, SuiteOptions.Scale.TINY,
                List.of("buffers"), false, true, false, 42, false);
        SystemInfo sys = new SystemInfo("6.8.0", "ext4 (/dev/vda1)", "vda1 on vda", "1", "mq-deadline", "128",
                "23.5 GiB", "Some CPU \"model\" @ 2.0GHz", 2, "25 (OpenJDK 64-Bit Server VM, Vendor)",
                "0.10 0.20 0.30");
        ExperimentResult e = new ExperimentResult("buffers", "heap vs direct\tbuffers\nsecond line");
        e.table(new Table("MB/s by buffer", "buffer", "MB/s", "runs", "ratio")
                .add("heap", 1234.5, 5, Double.NaN)
                .add("direct", 2000.0, 5L, 1.62)
                .add("mapped \u00e9", null, 0, Double.POSITIVE_INFINITY));
        e.plot(Plot.lines("throughput", "size", "MB/s", true, false)
                .line("heap", new double[] {4096, 65536}, new double[] {100.25, Double.NaN}));
        e.fio(new FioCheck("4k read", "jfio", "fio", "MB/s", 100.0, 110.5, true));
        e.fio(new FioCheck("64k read", "jfio", "fio", "MB/s", 200.0, 190.0, true, 195, 205, 185, 195));
        e.note("a note with a backslash \\ and a slash /");
        e.noise(new Noise(0.5, 40.0, 0.25, Double.NaN, 2));
        e.contest(new Contest(Workload.SEQUENTIAL_READ_HOT, "64 MiB file, GB/s", "GB/s", true, List.of(
                Call.FILECHANNEL_READ.contender("FileChannel", true, new double[] {1.0, 1.1, 0.9, 1.05, 0.95}),
                Call.JFIO_READ_ASYNC.contender("jfio io_uring", false, new double[] {2.0, 2.2, 1.8, 2.1, 1.9}),
                Call.FILECHANNEL_MAP.contender("mmap", false, new double[] {1.9, 2.3, 1.7, 2.0, 2.15}))));
        e.contest(new Contest(Workload.APPEND_FDATASYNC, "append", "GB/s", true, List.of(
                Call.FILECHANNEL_WRITE.contender("FileChannel", true, new double[] {1.0}),
                Call.JFIO_WRITE_ASYNC.contender("jfio io_uring", false, new double[] {1.2}))));
        e.seconds(12.0);
        ExperimentResult skipped = new ExperimentResult("fio", "fio cross-check");
        List<ExperimentResult> rs = new ArrayList<>(List.of(e, skipped));
        return new SuiteResult(o, sys, List.of("echo 3 > /proc/sys/vm/drop_caches"), rs,
                List.of("load average 2.5 at start"), "2025-01-01T12:00:00Z", 61.5);
    }

    private static void assertSameStructure(JsonNode want, JsonNode got, String at) {
        if (want.isNumber() || got.isNumber()) {
            if (!want.isNumber() || !got.isNumber()) fail(at + ": want " + want + " got " + got);
            assertEquals(want.doubleValue(), got.doubleValue(), 0.0, at);
            return;
        }
        assertEquals(want.getNodeType(), got.getNodeType(), at + ": want " + want + " got " + got);
        if (want.isObject()) {
            assertEquals(names(want), names(got), at + ": keys");
            for (String k : names(want)) assertSameStructure(want.get(k), got.get(k), at + "." + k);
        } else if (want.isArray()) {
            assertEquals(want.size(), got.size(), at + ": length");
            for (int i = 0; i < want.size(); i++) assertSameStructure(want.get(i), got.get(i), at + "[" + i + "]");
        } else {
            assertEquals(want, got, at);
        }
    }

    private static List<String> names(JsonNode object) {
        List<String> names = new ArrayList<>();
        for (Iterator<String> it = object.fieldNames(); it.hasNext(); ) names.add(it.next());
        return names;
    }
}
