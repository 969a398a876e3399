package io.jfio.cli.shipbench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.bench.Json;
import io.jfio.cli.Main;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code jfio bench ship} at tiny sizes: real shipper processes, real files, real sockets, rsyslog where installed. */
class ShipBenchTest {

    private static List<String> jfio() {
        String java = ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"),
                "bin", "java").toString());
        return List.of(java, "--enable-native-access=ALL-UNNAMED", "-XX:TieredStopAtLevel=1", "-cp",
                System.getProperty("java.class.path"), Main.class.getName());
    }

    @Test
    void shouldRunEveryWorkloadAndReportRowsColumnsAndVerdicts(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("report");
        ShipBenchOptions o = ShipBenchOptions.defaults(dir, out, jfio())
                .withSizes(20_000, 1, 5, 500, Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(1),
                        3, 3, Duration.ofSeconds(1))
                .withPeer(true, false);
        StringWriter progress = new StringWriter();
        ShipBench.Result r = ShipBench.run(o, new PrintWriter(progress, true));
        String md = Files.readString(r.report());
        assertTrue(r.problems().isEmpty(), r.problems() + "\n" + progress + "\n" + md);
        assertTrue(md.contains("**Sizes differ from the issue's**"), md);
        assertTrue(md.contains("| tool | sink | runs | wall s | ship s | MB/s wall | MB/s ship | lines/s (ship) "
                + "| CPU s | peak RSS MB | output | MB/s vs rsyslog |"), md);
        assertTrue(md.contains("| jfio | dir | 1 |"), md);
        assertTrue(md.contains("| jfio | tcp | 1 |"), md);
        assertTrue(md.contains("| p50 ms | p90 ms | p99 ms | p99.9 ms | max ms | CPU % of a core | elsewhere (CPUs) |"),
                md);
        assertTrue(md.contains("| jfio | tcp | 500 |") || md.contains("| jfio | tcp | 49") || md.contains(
                "| jfio | tcp | 50"), md);
        assertTrue(md.contains("## Throughput"), md);
        assertTrue(md.contains("![latency by percentile](latency.png)") == Files.exists(out.resolve("latency.png")),
                md);
        assertTrue(md.contains("## Idle: 9 watched files"), md);
        assertEquals(5, r.verdicts().size(), r.verdicts().toString());
        for (String v : r.verdicts()) assertTrue(v.startsWith("PASS: ") || v.startsWith("FAIL: "), v);
        boolean rsyslog = md.contains("| rsyslog | omfile |");
        if (rsyslog) {
            assertTrue(md.contains("| rsyslog | omfwd tcp |"), md);
            assertTrue(r.verdicts().get(0).contains("rsyslog"), r.verdicts().get(0));
        } else {
            assertTrue(md.contains("rsyslog: not run"), md);
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> json = (Map<String, Object>) Json.parse(Files.readString(r.json()));
        assertEquals("ship", json.get("benchmark"));
        List<?> single = (List<?>) json.get("single");
        assertEquals(rsyslog ? 3 : 2, single.size(), single.toString());
        for (Object row : single) {
            Map<?, ?> m = (Map<?, ?>) row;
            assertEquals("equal to the input", m.get("verified"), m.toString());
            assertEquals(20_000L * LogLines.LINE, ((Number) m.get("bytes")).longValue());
            // A JVM takes more than one 10 ms tick to start; rsyslog may read 1.8 MB in less.
            double cpu = ((Number) m.get("cpu_seconds")).doubleValue();
            assertTrue(m.get("tool").equals("jfio") ? cpu > 0 : cpu >= 0, m.toString());
            assertTrue(((Number) m.get("peak_rss_bytes")).longValue() > 1 << 20, m.toString());
        }
        Map<?, ?> lat = (Map<?, ?>) ((List<?>) json.get("latency")).get(0);
        assertTrue(((Number) lat.get("measured_lines")).longValue() > 0, lat.toString());
        // Everything made is gone: the work directory, the shipper and rsyslogd processes.
        try (Stream<Path> s = Files.list(dir)) {
            assertEquals(List.of(out), s.toList());
        }
        assertTrue(Child.LIVE.isEmpty());
        assertEquals(0, ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).count(),
                () -> ProcessHandle.current().descendants().map(p -> p.info().commandLine().orElse("?")).toList()
                        .toString());
    }

    @Test
    void shouldLeaveNoProcessOrFileBehindWhenTerminated(@TempDir Path dir) throws Exception {
        List<String> cmd = new java.util.ArrayList<>(jfio());
        cmd.addAll(List.of("bench", "ship", "--dir", dir.toString(), "--out", dir.resolve("r").toString(),
                "--workloads", "latency", "--files", "3", "--rate", "100", "--seconds", "60"));
        Path err = dir.resolve("err.txt");
        Process bench = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(err.toFile()).start();
        try {
            // Wait until the shipper (a child of the benchmark) runs and writing has begun.
            long deadline = System.nanoTime() + 60_000_000_000L;
            List<ProcessHandle> children = List.of();
            while (System.nanoTime() < deadline && bench.isAlive()) {
                children = bench.descendants().filter(ProcessHandle::isAlive).toList();
                if (!children.isEmpty() && Files.readString(err).contains("latency:")) break;
                Thread.sleep(50);
            }
            assertFalse(children.isEmpty(), Files.readString(err));
            Thread.sleep(1500);
            children = bench.descendants().filter(ProcessHandle::isAlive).toList();
            bench.destroy(); // SIGTERM
            assertTrue(bench.waitFor(60, java.util.concurrent.TimeUnit.SECONDS), Files.readString(err));
            for (ProcessHandle c : children) {
                c.onExit().get(10, java.util.concurrent.TimeUnit.SECONDS);
                assertFalse(c.isAlive(), c.info().commandLine().orElse("?"));
            }
            try (Stream<Path> s = Files.list(dir)) {
                List<Path> left = s.filter(p -> p.getFileName().toString().startsWith("jfio-bench-ship-")).toList();
                assertTrue(left.isEmpty(), left + "\n" + Files.readString(err));
            }
        } finally {
            bench.destroyForcibly();
        }
    }

    @Test
    void shouldKillWhatAChildStartedWhenClosingIt(@TempDir Path dir) throws Exception {
        // bin/jfio is bash while it builds the jar, with Maven below it: closing the child must not leave those.
        Path pid = dir.resolve("pid");
        Child c = Child.start(List.of("/bin/sh", "-c", "sleep 600 & echo $! > \"$0\"; wait", pid.toString()),
                dir.resolve("log"));
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!(Files.exists(pid) && Files.readString(pid).endsWith("\n")) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        ProcessHandle sleep = ProcessHandle.of(Long.parseLong(Files.readString(pid).trim())).orElseThrow();
        try {
            assertTrue(Child.LIVE.contains(c.process()));
            c.close();
            assertFalse(c.process().isAlive());
            sleep.onExit().get(10, java.util.concurrent.TimeUnit.SECONDS);
            assertFalse(sleep.isAlive(), "the child's own child was left running");
            assertFalse(Child.LIVE.contains(c.process()));
        } finally {
            sleep.destroyForcibly();
        }
    }

    @Test
    void shouldCatchACorruptedTruncatedOrLongerDelivery(@TempDir Path dir) throws Exception {
        Path input = dir.resolve("in.log");
        long size = LogLines.writeFile(input, 1000);
        assertEquals(92_000, size);
        byte[] all = Files.readAllBytes(input);
        Path a = dir.resolve("ship-000000000001.log");
        Path b = dir.resolve("ship-000000000002.log");
        Files.write(a, java.util.Arrays.copyOfRange(all, 0, 50_000));
        Files.write(b, java.util.Arrays.copyOfRange(all, 50_000, all.length));
        Files.writeString(dir.resolve("ship.commit"), "not a segment");
        assertEquals(List.of(a, b), Verify.segments(dir));
        assertNull(Verify.compare(input, Verify.segments(dir)));

        long seed = new SplittableRandom().nextLong();
        int at = 50_000 + new SplittableRandom(seed).nextInt(42_000);
        try (FileChannel ch = FileChannel.open(b, StandardOpenOption.WRITE)) {
            ch.write(java.nio.ByteBuffer.wrap(new byte[] {(byte) (all[at] ^ 0x20)}), at - 50_000);
        }
        String d = Verify.compare(input, List.of(a, b));
        assertNotNull(d, "seed=" + seed);
        assertTrue(d.startsWith("differs: offset=" + at + " line=" + (at / 92 + 1)), d + " seed=" + seed);

        Files.write(b, java.util.Arrays.copyOfRange(all, 50_000, all.length - 1));
        assertTrue(Verify.compare(input, List.of(a, b)).startsWith("incomplete: delivered=91999"));
        Files.write(b, java.util.Arrays.copyOfRange(all, 50_000, all.length), StandardOpenOption.TRUNCATE_EXISTING);
        Files.write(b, "x".getBytes(), StandardOpenOption.APPEND);
        assertTrue(Verify.compare(input, List.of(a, b)).startsWith("more delivered than written"));
    }

    @Test
    void shouldMeasureLinesSplitAcrossReadsAndCountMalformedOnes() {
        Latencies lat = new Latencies();
        lat.recordFrom(0);
        byte[] line = LogLines.template();
        byte[] stream = new byte[3 * LogLines.LINE + 6];
        LogLines.fill(line, 0, 1, 5_000_000, 7, LogLines.timestamp(java.time.Instant.now()));
        System.arraycopy(line, 0, stream, 0, LogLines.LINE);
        System.arraycopy(line, 0, stream, LogLines.LINE, LogLines.LINE);
        System.arraycopy(line, 0, stream, 2 * LogLines.LINE, LogLines.LINE);
        System.arraycopy("short\n".getBytes(), 0, stream, 3 * LogLines.LINE, 6);
        Latencies.Parser p = lat.new Parser();
        // Cut in the middle of the second line and of the third's number.
        p.feed(stream, 0, 130, 7_000_000);
        p.feed(stream, 130, LogLines.LINE * 2 + LogLines.T_OFF + 3 - 130, 8_000_000);
        p.feed(stream, LogLines.LINE * 2 + LogLines.T_OFF + 3, stream.length - LogLines.LINE * 2 - LogLines.T_OFF
                - 3, 9_000_000);
        assertEquals(4, lat.lines());
        assertEquals(1, lat.malformed());
        assertEquals(stream.length, lat.bytes());
        var h = lat.snapshot();
        assertEquals(3, h.getTotalCount());
        assertEquals(2_000_000, h.getMinValue(), 2_000);
        assertEquals(4_000_000, h.getMaxValue(), 4_000);
        assertEquals(1, LogLines.number(line, 0, LogLines.SEQ_OFF, LogLines.SEQ_LEN));
        assertEquals(7, LogLines.number(line, 0, LogLines.SRC_OFF, LogLines.SRC_LEN));
    }

    @Test
    void shouldParseProcStatWithSpacesInTheCommandName() {
        String stat = "4242 (java (x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 31 7 3 20 0 30 0 100 1000 50";
        assertEquals(281, Child.statTicks(stat));
        assertEquals(-1, Child.statTicks("garbage"));
        assertEquals(75_000, Child.statusKb("Name:\tjava\nVmHWM:\t   75000 kB\nVmRSS:\t 100 kB\n", "VmHWM:"));
        assertEquals(-1, Child.statusKb("Name:\tjava\n", "VmHWM:"));
        assertFalse(Child.ownChildTicks() < 0);
    }

    @Test
    void shouldReadTheShippingTimeFromTheShippersLog(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("ship.log");
        Files.writeString(log, "ts=2026-01-01T00:00:01.250Z level=info event=start mode=ONCE\n"
                + "ts=2026-01-01T00:00:01.300Z level=info event=file path=x\n"
                + "ts=2026-01-01T00:00:02.000Z level=info event=stop bytes-shipped=1 ok=true\n");
        assertEquals(0.75, ShipBench.shipSeconds(log), 1e-9);
        Files.writeString(log, "jfio ship: failed\n");
        assertTrue(Double.isNaN(ShipBench.shipSeconds(log)));
    }

    @Test
    void shouldMeasureTheDisksDurableWriteSpeedAndLeaveNothingBehind(@TempDir Path dir) throws Exception {
        double mbps = ShipBench.durableWriteMBps(dir, (8L << 20) + 4096);
        assertTrue(mbps > 0 && Double.isFinite(mbps), "MB/s: " + mbps);
        try (Stream<Path> left = Files.list(dir)) {
            assertEquals(0, left.count());
        }
    }
}
