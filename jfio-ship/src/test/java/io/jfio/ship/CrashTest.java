package io.jfio.ship;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jfio.ship.testing.Records;
import io.jfio.ship.testing.ShipMain;
import io.jfio.ship.testing.ShipRun;
import io.jfio.ship.testing.Writer;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 of a real shipper process at random moments, 20 times, while a real writer appends and rotates: after a
 * final run nothing is lost, and the duplicates of each crash stay within what can be unacknowledged at once
 * (max-in-flight plus one read buffer).
 */
class CrashTest {
    private static final int TOTAL = 150_000;
    private static final int EVERY = 20_000;
    private static final int CRASHES = 20;
    private static final long MAX_IN_FLIGHT = 256 << 10;
    private static final long BUFFER = 64 << 10;

    @TempDir
    Path tmp;

    @Test
    void shouldLoseNothingWhenKilledAtRandomMoments() throws Exception {
        io.jfio.core.testing.TestSeed ts = io.jfio.core.testing.TestSeed.pick();
        String seed = ts.toString();
        RandomGenerator rnd = ts.random();
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path out = tmp.resolve("out");
        Path state = tmp.resolve("state");
        Path file = logs.resolve("app.log");
        Files.createFile(file);
        String glob = logs.resolve("app.log*").toString();
        Process writer = ShipRun.java(Writer.class, List.of(), file.toString(), "rename", Integer.toString(TOTAL),
                Integer.toString(EVERY), "-", "1000").redirectErrorStream(true).start();
        int crashes = 0;
        try {
            for (; crashes < CRASHES; crashes++) {
                Path err = tmp.resolve("ship-" + crashes + ".err");
                Process ship = ShipRun.java(ShipMain.class, List.of("-Xmx128m", "-XX:TieredStopAtLevel=1"), glob,
                        out.toString(), state.toString(), Long.toString(MAX_IN_FLIGHT), Long.toString(BUFFER),
                        "16KiB").redirectError(err.toFile()).start();
                // "started": the kill lands while it works, not while the JVM boots; a shipper that died at start
                // prints nothing, and killing a dead process would test nothing.
                String started = new BufferedReader(new InputStreamReader(ship.getInputStream(),
                        StandardCharsets.US_ASCII)).readLine();
                assertEquals("started", started, "shipper " + crashes + " did not start; stderr: "
                        + ShipRun.tail(err, 20));
                Thread.sleep(50 + rnd.nextInt(600));
                if (!ship.isAlive()) {
                    fail("shipper " + crashes + " ended before the kill, exit " + ship.exitValue() + "; stderr: "
                            + ShipRun.tail(err, 20));
                }
                ship.destroyForcibly(); // SIGKILL
                assertEquals(128 + 9, ship.waitFor(), "shipper " + crashes + " died of the SIGKILL; stderr: "
                        + ShipRun.tail(err, 20));
            }
        } finally {
            String wout = new String(writer.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, writer.waitFor(), "writer failed: " + wout);
        }
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        var cfg = ShipRun.config(List.of(glob), out, state, Map.of("max-in-flight", Long.toString(MAX_IN_FLIGHT),
                "buffer-size", Long.toString(BUFFER), "max-record", "16KiB"));
        assertTrue(ShipRun.once(cfg, log), log.toString(StandardCharsets.UTF_8));
        Records r = Records.read(out, TOTAL, false).assertComplete();
        long dupBytes = 0;
        for (int n = 1; n <= TOTAL; n++) {
            if (r.count[n] > 1) dupBytes += (long) (r.count[n] - 1) * recordLength(n);
        }
        long bound = (long) crashes * (MAX_IN_FLIGHT + BUFFER);
        assertTrue(dupBytes <= bound, "seed=" + seed + ": duplicate bytes " + dupBytes + " > " + bound + " after "
                + crashes + " crashes");
        System.out.println("crash test: seed=" + seed + " crashes=" + crashes + " duplicates=" + r.duplicates
                + " duplicate-bytes=" + dupBytes + " bound=" + bound);
    }

    /** The last lines of a child's stderr, for a failure message. */
    private static int recordLength(int n) {
        // "g=G n=N " + pad + "\n"; G has one digit up to generation 9
        int gen = (n - 1) / EVERY + 1;
        return ("g=" + gen + " n=" + n + " ").length() + n % 50 + 1;
    }
}
