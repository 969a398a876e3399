package io.jfio.bench.ship;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.ship.sink.DirSink;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The parts of {@code jfio bench ship}: verdicts, children, delivery checks, line and log parsing, on real processes
 * and files. The whole benchmark with the real shipper runs in jfio-cli's ShipBenchRunTest, where the jfio command is.
 */
class ShipBenchTest {

    /** A result row as the runs make it: tool, sink, run, then key-value pairs (null values kept). */
    private static Map<String, Object> row(String tool, String sink, Object... kv) {
        Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("tool", tool);
        m.put("sink", sink);
        m.put("run", 1);
        for (int i = 0; i < kv.length; i += 2) m.put((String) kv[i], kv[i + 1]);
        return m;
    }

    private static ShipBench judge(Path dir) {
        ShipBench b = new ShipBench(ShipBenchOptions.defaults(dir, dir.resolve("r"), List.of("jfio")),
                new PrintWriter(new StringWriter()));
        b.inputBytes = 460_000_000L;
        return b;
    }

    @Test
    void shouldNotPassATargetOnRunsThatFailedOrMeasuredNothing(@TempDir Path dir) {
        ShipBench b = judge(dir);
        // Fast runs whose delivery was wrong, or that exited early: 0.1 s would be 4,600 MB/s.
        b.single.add(row("jfio", "dir", "ship_seconds", 0.1, "wall_seconds", 0.5, "peak_rss_bytes", 60L << 20,
                "problem", "differs: offset=7 line=1"));
        b.single.add(row("jfio", "dir", "ship_seconds", 0.1, "wall_seconds", 0.5, "peak_rss_bytes", 60L << 20,
                "problem", "exit 1: jfio ship: failed"));
        // A run that lost lines may still have a fine p99.
        b.latency.add(row("jfio", "tcp", "measured_lines", 1000L, "p99_ms", 0.3, "peak_rss_bytes", 60L << 20,
                "problem", "delivered 900 of 1000 lines"));
        // cpuNow() of an exited shipper is NaN: no share.
        b.idle.add(row("jfio", "dir", "files", 10_000, "cpu_percent", Double.NaN, "peak_rss_bytes", 60L << 20,
                "problem", "shipper exited: killed"));
        assertEquals(List.of(
                "FAIL: single file into the dir sink: n/a (run failed) (target >= 1000 MB/s)",
                "FAIL: latency p99 at 10,000 lines/s, tcp sink: n/a (run failed) (target <= 5 ms)",
                "FAIL: idle CPU with 10,000 watched files: n/a (run failed) (target <= 0.5%)",
                "FAIL: peak RSS of the shipper over all runs: n/a (run failed) (target <= 128 MB = 122.1 MiB)"),
                b.verdicts());
        // Nothing measured is no result: the runs record it as a problem. An empty histogram reads 0 ms at every
        // percentile, a CPU time that could not be read is no share.
        ShipBench none = judge(dir);
        none.latency.add(row("jfio", "dir", "measured_lines", 0L, "p99_ms", 0.0, "peak_rss_bytes", 60L << 20,
                "problem", ShipBench.NO_LINE_MEASURED));
        none.idle.add(row("jfio", "dir", "files", 10_000, "cpu_percent", Double.NaN, "peak_rss_bytes", 60L << 20,
                "problem", ShipBench.CPU_UNREADABLE));
        List<String> v = none.verdicts();
        assertEquals("FAIL: latency p99 at 10,000 lines/s, dir sink: n/a (run failed) (target <= 5 ms)", v.get(0));
        assertEquals("FAIL: idle CPU with 10,000 watched files: n/a (run failed) (target <= 0.5%)", v.get(1));
    }

    @Test
    void shouldJudgeOnlyTheRunsThatSucceeded(@TempDir Path dir) {
        ShipBench b = judge(dir);
        // Counted with the failed fast run the median would be 0.3 s, 1,533 MB/s: a PASS.
        b.single.add(row("jfio", "dir", "ship_seconds", 0.1, "wall_seconds", 0.4, "peak_rss_bytes", 200L << 20,
                "problem", "incomplete: delivered=1000"));
        b.single.add(row("jfio", "dir", "ship_seconds", 0.5, "wall_seconds", 0.9, "peak_rss_bytes", 64L << 20,
                "problem", null));
        b.single.add(row("rsyslog", "omfile", "wall_seconds", 0.2, "peak_rss_bytes", 11L << 20,
                "problem", "output stopped growing at 5 of 460000000 bytes"));
        List<String> v = b.verdicts();
        assertEquals(List.of("FAIL: single file into the dir sink: 920 MB/s (target >= 1000 MB/s); 1 of 2 runs "
                + "failed, not counted", "PASS: peak RSS of the shipper over all runs: 64.0 MiB = 67.1 MB (target <= "
                + "128 MB = 122.1 MiB)"), v);
        // And what succeeded passes when it meets the target.
        ShipBench good = judge(dir);
        good.single.add(row("jfio", "dir", "ship_seconds", 0.4, "wall_seconds", 0.8, "peak_rss_bytes", 64L << 20,
                "problem", null));
        good.latency.add(row("jfio", "tcp", "measured_lines", 200_000L, "p99_ms", 0.26, "peak_rss_bytes", 70L << 20,
                "problem", null));
        good.idle.add(row("jfio", "dir", "files", 10_000, "cpu_percent", 0.067, "peak_rss_bytes", 85L << 20,
                "problem", null));
        assertEquals(List.of("PASS: single file into the dir sink: 1150 MB/s (target >= 1000 MB/s)",
                "PASS: latency p99 at 10,000 lines/s, tcp sink: 0.26 ms (target <= 5 ms)",
                "PASS: idle CPU with 10,000 watched files: 0.067% of one core (target <= 0.5%)",
                "PASS: peak RSS of the shipper over all runs: 85.0 MiB = 89.1 MB (target <= 128 MB = 122.1 MiB)"),
                good.verdicts());
        // The target is 128 MB (10^6 bytes), not 128 MiB: 123 MiB is 129 MB.
        ShipBench over = judge(dir);
        over.idle.add(row("jfio", "dir", "files", 10_000, "cpu_percent", 0.067, "peak_rss_bytes", 123L << 20,
                "problem", null));
        assertEquals("FAIL: peak RSS of the shipper over all runs: 123.0 MiB = 129.0 MB (target <= 128 MB = 122.1 MiB)",
                over.verdicts().get(1));
    }

    @Test
    void shouldJudgeCpuAndTailAgainstRsyslogOfTheSameRun(@TempDir Path dir) {
        ShipBench b = judge(dir);
        b.latency.add(row("jfio", "tcp", "measured_lines", 200_000L, "p99_ms", 0.20, "cpu_percent", 12.0,
                "wake_ups_per_1000_lines", 40.0, "reads_per_1000_lines", 30.0, "writes_per_1000_lines", 10.0,
                "peak_rss_bytes", 70L << 20, "problem", null));
        b.latency.add(row("jfio", "dir", "measured_lines", 200_000L, "p99_ms", 0.90, "cpu_percent", 20.0,
                "peak_rss_bytes", 70L << 20, "problem", null));
        b.latency.add(row("rsyslog", "omfwd tcp", "measured_lines", 200_000L, "p99_ms", 0.25, "cpu_percent", 30.0,
                "wake_ups_per_1000_lines", 200.0, "reads_per_1000_lines", 100.0, "writes_per_1000_lines", 60.0,
                "peak_rss_bytes", 6L << 20, "problem", null));
        List<String> v = b.verdicts();
        assertTrue(v.contains("PASS: CPU at 10,000 lines/s, tcp sink, against rsyslog's: 12.0% against 30.0% of a "
                + "core, 0.40x (target <= 0.5x)"), v.toString());
        assertTrue(v.contains("PASS: latency p99 at 10,000 lines/s, tcp sink, against rsyslog's: 0.20 ms against "
                + "0.25 ms (target: no worse)"), v.toString());
        assertTrue(v.contains("FAIL: CPU at 10,000 lines/s, dir sink, against rsyslog's: 20.0% against 30.0% of a "
                + "core, 0.67x (target <= 0.5x)"), v.toString());
        assertTrue(v.contains("FAIL: latency p99 at 10,000 lines/s, dir sink, against rsyslog's: 0.90 ms against "
                + "0.25 ms (target: no worse)"), v.toString());
        // The ratios of the activity table: a sum of columns against the same sum of the peer's.
        assertEquals("0.25x", ShipBench.ratio(b.latency.get(0), b.latency.get(2), "reads_per_1000_lines",
                "writes_per_1000_lines"));
        assertEquals("-", ShipBench.ratio(b.latency.get(1), b.latency.get(2), "wake_ups_per_1000_lines"));
    }

    /** A latency row of one configuration: files, rate, "wide" when it is the wide one. */
    private static Map<String, Object> lat(String tool, String sink, int files, int rate, double p99, double cpu) {
        Map<String, Object> m = row(tool, sink, "measured_lines", 100_000L, "p99_ms", p99, "cpu_percent", cpu,
                "peak_rss_bytes", 70L << 20, "problem", null, "files", files, "rate", rate);
        if (files == 1000) m.put("config", "wide");
        return m;
    }

    @Test
    void shouldJudgeEachConfigurationOnlyAgainstThePeersOfTheSameConfiguration(@TempDir Path dir) {
        ShipBench b = judge(dir);
        b.latency.add(lat("jfio", "tcp", 100, 10_000, 0.20, 3.0));
        b.latency.add(lat("rsyslog", "omfwd tcp", 100, 10_000, 0.30, 8.0));
        b.latency.add(lat("syslog-ng", "network tcp", 100, 10_000, 900.0, 2.0));
        b.latency.add(lat("jfio", "tcp", 1000, 100_000, 4.0, 30.0));
        b.latency.add(lat("rsyslog", "omfwd tcp", 1000, 100_000, 2.0, 60.0));
        b.latency.add(lat("syslog-ng", "network tcp", 1000, 100_000, 950.0, 40.0));
        assertEquals(2, ShipBench.configurations(b.latency).size());
        List<String> v = b.verdicts();
        assertEquals(List.of(
                "PASS: latency p99 at 10,000 lines/s, tcp sink: 0.20 ms (target <= 5 ms)",
                "PASS: CPU at 10,000 lines/s, tcp sink, against rsyslog's: 3.0% against 8.0% of a core, 0.38x "
                        + "(target <= 0.5x)",
                "PASS: latency p99 at 10,000 lines/s, tcp sink, against rsyslog's: 0.20 ms against 0.30 ms "
                        + "(target: no worse)",
                // syslog-ng polls its files once a second: its tail is no target, its CPU is.
                "FAIL: CPU at 10,000 lines/s, tcp sink, against syslog-ng's: 3.0% against 2.0% of a core, 1.50x "
                        + "(target: lower)",
                // The wide configuration against its own peers' CPU (60% and 40%), not the everyday one's.
                "PASS: CPU at 100,000 lines/s over 1,000 files, tcp sink, against rsyslog's: 30.0% against 60.0% of "
                        + "a core, 0.50x (target: lower)",
                "PASS: CPU at 100,000 lines/s over 1,000 files, tcp sink, against syslog-ng's: 30.0% against 40.0% "
                        + "of a core, 0.75x (target: lower)",
                "PASS: peak RSS of the shipper over all runs: 70.0 MiB = 73.4 MB (target <= 128 MB = 122.1 MiB)"), v);
        // A wide peer whose run failed: the wide jfio row is not judged against the everyday peer instead.
        b.latency.get(4).put("problem", "delivered 1 of 2 lines");
        assertTrue(b.verdicts().stream().noneMatch(x -> x.contains("over 1,000 files, tcp sink, against rsyslog's")),
                b.verdicts().toString());
        assertTrue(ShipBench.peer(b.latency, b.latency.get(3), "rsyslog").isEmpty());
        assertEquals(b.latency.get(5), ShipBench.peer(b.latency, b.latency.get(3), "syslog-ng"));
    }

    @Test
    void shouldCountAChildsWakeUpsAndReadCalls(@TempDir Path dir) throws Exception {
        // A shell that reads a file 200 times, sleeping in between: its wake-ups and read calls rise by at least that.
        Path f = Files.writeString(dir.resolve("f"), "x\n");
        Path go = dir.resolve("go");
        try (Child c = Child.start(List.of("/bin/bash", "-c", "while [ ! -e \"$1\" ]; do sleep 0.01; done; "
                + "for i in $(seq 200); do read -r l < \"$0\"; sleep 0.001; done; sleep 600", f.toString(),
                go.toString()), dir.resolve("log"))) {
            Child.Activity before = null;
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (before == null && System.nanoTime() < deadline) before = c.activity();
            assertNotNull(before, "/proc/PID/io was not readable");
            Files.writeString(go, "");
            Thread.sleep(3000);
            Child.Activity d = c.activity().since(before);
            assertTrue(d.reads() >= 200, "read calls: " + d);
            assertTrue(d.wakeUps() >= 200, "wake-ups: " + d);
        }
    }

    @Test
    void shouldKillWhatAChildStartedWhenClosingIt(@TempDir Path dir) throws Exception {
        // bin/jfio is bash while it builds the jar, with Maven below it: closing the child must not leave those.
        Path pid = dir.resolve("pid");
        Child c = Child.start(List.of("/bin/sh", "-c", "sleep 600 & echo $! > \"$0\"; wait", pid.toString()),
                dir.resolve("log"));
        ProcessHandle sleep = null;
        try {
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (!(Files.exists(pid) && Files.readString(pid).endsWith("\n")) && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            sleep = ProcessHandle.of(Long.parseLong(Files.readString(pid).trim())).orElseThrow();
            assertTrue(Child.LIVE.contains(c.process()));
            c.close();
            assertFalse(c.process().isAlive());
            sleep.onExit().get(10, java.util.concurrent.TimeUnit.SECONDS);
            assertFalse(sleep.isAlive(), "the child's own child was left running");
            assertFalse(Child.LIVE.contains(c.process()));
        } finally {
            if (sleep != null) sleep.destroyForcibly();
            // Also when the pid never came: the shell and whatever it started. A second close does nothing.
            c.close();
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
        assertEquals(List.of(a, b), DirSink.segments(dir));
        assertNull(Verify.compare(input, DirSink.segments(dir)));

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
