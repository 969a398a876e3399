package io.jfio.ship;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jfio.core.testing.TestSeed;
import io.jfio.ship.sink.DirSink;
import io.jfio.ship.state.StateReport;
import io.jfio.ship.testing.JavaLog;
import io.jfio.ship.testing.ShipMain;
import io.jfio.ship.testing.ShipRun;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 of a real shipper process, many times at random moments, while a real writer appends a Java log line by
 * line (stack traces in one record with the line before them): every checkpoint found after a kill is the start of a
 * record, so a record the writer was in the middle of is shipped whole by the next run, and the directory sink ends
 * up with the log's exact bytes (raw), or with one JSON object per record, each once, at its offset (ndjson).
 */
class MultilineCrashTest {
    private static final int RECORDS = 12_000;
    private static final int KILLS = 8;

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "encoding {0}")
    @ValueSource(strings = {"raw", "ndjson"})
    void shouldKeepCheckpointsOnRecordBoundariesWhenKilledInTheMiddleOfRecords(String encoding) throws Exception {
        TestSeed.pick().run(ts -> {
            SplittableRandom rnd = ts.random();
            long logSeed = rnd.nextLong();
            List<String> records = JavaLog.records(logSeed, RECORDS, 20, 30);
            long[] bounds = JavaLog.boundaries(records);
            Path logs = Files.createDirectories(tmp.resolve("logs"));
            Path out = tmp.resolve("out");
            Path state = tmp.resolve("state");
            Path file = logs.resolve("app.log");
            String glob = logs.resolve("*.log").toString();
            List<String> settings = List.of("multiline.preset=iso8601", "multiline.timeout=1h",
                    "encoding=" + encoding);
            Process writer = ShipRun.java(JavaLog.class, List.of(), file.toString(), Long.toString(logSeed),
                    Integer.toString(RECORDS), "20", "4").redirectErrorStream(true).start();
            int midRecord = 0;
            try {
                for (int k = 0; k < KILLS; k++) {
                    Path err = tmp.resolve("ship-" + k + ".err");
                    List<String> args = new java.util.ArrayList<>(List.of(glob, out.toString(), state.toString(),
                            "1MiB", "16KiB", "64KiB", "run"));
                    args.addAll(settings);
                    Process ship = ShipRun.java(ShipMain.class, List.of("-Xmx128m", "-XX:TieredStopAtLevel=1"),
                            args.toArray(String[]::new)).redirectError(err.toFile()).start();
                    String started = new BufferedReader(new InputStreamReader(ship.getInputStream(),
                            StandardCharsets.US_ASCII)).readLine();
                    assertEquals("started", started, "shipper " + k + " did not start; stderr: "
                            + ShipRun.tail(err, 20));
                    Thread.sleep(100 + rnd.nextInt(700));
                    if (!ship.isAlive()) {
                        fail("shipper " + k + " ended before the kill, exit " + ship.exitValue() + "; stderr: "
                                + ShipRun.tail(err, 20));
                    }
                    long size = Files.size(file);
                    ship.destroyForcibly(); // SIGKILL
                    assertEquals(128 + 9, ship.waitFor(), "shipper " + k + " died of the SIGKILL");
                    if (Arrays.binarySearch(bounds, size) < 0) midRecord++;
                    for (StateReport.Entry e : StateReport.read(state).entries()) {
                        assertTrue(Arrays.binarySearch(bounds, e.offset()) >= 0, "after kill " + k
                                + " the checkpoint of " + e.path() + " is at " + e.offset()
                                + ", inside a record");
                    }
                }
            } finally {
                String wout = new String(writer.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertEquals(0, writer.waitFor(), "writer failed: " + wout);
            }
            ByteArrayOutputStream log = new ByteArrayOutputStream();
            var cfg = ShipRun.config(List.of(glob), out, state, Map.of("buffer-size", "16KiB", "max-record", "64KiB",
                    "multiline.preset", "iso8601", "multiline.timeout", "1h", "encoding", encoding));
            assertTrue(ShipRun.once(cfg, log), log.toString(StandardCharsets.UTF_8));
            if (encoding.equals("raw")) {
                assertArrayEquals(JavaLog.bytes(records), DirSink.readAll(out), "the sink holds the log once");
            } else {
                // One JSON object per record, each record once, whole, in order, at its offset.
                String[] lines = new String(DirSink.readAll(out), StandardCharsets.UTF_8).split("\n");
                assertEquals(records.size(), lines.length);
                var json = new com.fasterxml.jackson.databind.ObjectMapper();
                for (int i = 0; i < lines.length; i++) {
                    var n = json.readTree(lines[i]);
                    String r = records.get(i);
                    assertEquals(r.substring(0, r.length() - 1), n.get("message").asText(), "record " + i);
                    assertEquals(bounds[i], n.get("offset").asLong(), "record " + i);
                }
            }
            System.out.println("multiline crash test: encoding=" + encoding + " " + ts + " kills=" + KILLS
                    + " mid-record-kills=" + midRecord);
        });
    }
}
