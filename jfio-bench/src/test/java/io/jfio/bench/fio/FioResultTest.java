package io.jfio.bench.fio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Parses real fio 3.33 output captured on the development machine (see the resource files). */
class FioResultTest {
    private static String resource(String name) throws IOException {
        try (InputStream in = FioResultTest.class.getResourceAsStream(name)) {
            if (in == null) throw new IOException("missing test resource " + name);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void readsIopsAndTotalLatencyPercentilesOfAnIoUringJob() throws IOException {
        FioResult r = FioResult.parse(resource("fio-3.33-io_uring-randread-direct-qd32.json"));
        assertEquals("fio-3.33", r.version());
        assertEquals(160481.518482, r.iops(), 1e-6);
        assertEquals(657332299, r.bandwidth(), 1e-6);
        assertEquals(160642, r.ios());
        assertEquals(1001, r.runtimeMs());
        assertEquals("lat", r.latencyKind());
        assertEquals(187392, r.p50Ns());
        assertEquals(358400, r.p99Ns());
        assertEquals(872448, r.p999Ns());
        assertEquals(0, r.error());
    }

    @Test
    void fallsBackToCompletionLatencyWhenFioReportedNoTotalLatencyPercentiles() throws IOException {
        FioResult r = FioResult.parse(resource("fio-3.33-psync-randread-clat-only.json"));
        assertEquals(37950.0998, r.iops(), 1e-6);
        assertEquals(19013, r.ios());
        assertEquals("clat", r.latencyKind());
        assertEquals(22400, r.p50Ns());
        assertEquals(52480, r.p99Ns());
        assertEquals(399360, r.p999Ns());
    }

    @Test
    void toleratesWarningLinesBeforeTheJson() throws IOException {
        String text = "fio: io_u error on file x: Input/output error\n"
                + resource("fio-3.33-io_uring-randread-direct-qd32.json");
        assertEquals(160642, FioResult.parse(text).ios());
    }

    @Test
    void rejectsOutputWithoutJobs() {
        assertThrows(IllegalArgumentException.class, () -> FioResult.parse("{\"fio version\": \"fio-3.33\"}"));
        assertThrows(IllegalArgumentException.class, () -> FioResult.parse("fio: command not found"));
    }

    @Test
    void jobCommandCarriesTheSameParametersAsTheJavaCell() {
        FioJob j = new FioJob(Path.of("/data/f"), 1L << 30, "io_uring", 32, true, Duration.ofMillis(1500), true,
                4096, 7, true);
        List<String> c = j.command(Path.of("/usr/bin/fio"));
        assertEquals("/usr/bin/fio", c.get(0));
        for (String arg : List.of("--filename=/data/f", "--readonly", "--size=1073741824", "--ioengine=io_uring",
                "--rw=randread", "--bs=4096", "--iodepth=32", "--direct=1", "--invalidate=1", "--time_based",
                "--runtime=1500ms", "--randseed=7", "--fadvise_hint=1", "--lat_percentiles=1",
                "--output-format=json")) {
            assertTrue(c.contains(arg), arg + " missing from " + c);
        }
    }
}
