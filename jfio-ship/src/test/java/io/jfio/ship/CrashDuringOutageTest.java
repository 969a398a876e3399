package io.jfio.ship;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jfio.core.testing.TestSeed;
import io.jfio.ship.tcp.TcpReceiver;
import io.jfio.ship.testing.Records;
import io.jfio.ship.testing.ShipMain;
import io.jfio.ship.testing.ShipRun;
import io.jfio.ship.testing.Writer;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The three together: a writer appending and rotating, the TCP receiver going away and coming back, and kill -9 of
 * the shipper, at random moments of a seeded schedule (the seed is printed; {@code -Djfio.test.seed} replays it).
 * Some kills land while the receiver is down, some outages begin and end between two kills, some rounds have
 * neither; rotations happen whenever the writer reaches them, so some fall in an outage, some between a kill and the
 * next start. After a final run every record is there, and the duplicates stay within what the kills and the
 * outages can each leave unacknowledged.
 */
class CrashDuringOutageTest {
    private static final int TOTAL = 150_000;
    private static final int EVERY = 15_000;
    private static final int ROUNDS = 16;
    private static final long MAX_IN_FLIGHT = 256 << 10;
    private static final long BUFFER = 64 << 10;

    @TempDir
    Path tmp;

    private final List<Path> receiverDirs = new ArrayList<>();
    private final PrintStream receiverLog = new PrintStream(new ByteArrayOutputStream(), true,
            StandardCharsets.UTF_8);
    private int port;

    /** A receiver on the test's port, writing into a directory of its own. */
    private TcpReceiver receiver() throws IOException {
        Path dir = tmp.resolve("received-" + receiverDirs.size());
        receiverDirs.add(dir);
        TcpReceiver r = TcpReceiver.start(new InetSocketAddress("127.0.0.1", port), dir,
                TcpReceiver.Options.defaults(), receiverLog);
        port = r.port();
        return r;
    }

    @Test
    void shouldLoseNothingWhenTheShipperIsKilledWhileTheReceiverIsAwayAndFilesRotate() throws Exception {
        TestSeed ts = TestSeed.pick();
        RandomGenerator rnd = ts.random();
        String mode = rnd.nextBoolean() ? "rename" : "copytruncate";
        System.out.println("CrashDuringOutageTest " + ts + " rotation=" + mode);
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path state = tmp.resolve("state");
        Path file = logs.resolve("app.log");
        Files.createFile(file);
        String glob = logs.resolve("app.log*").toString();
        TcpReceiver receiver = receiver();
        String to = "to=tcp:127.0.0.1:" + port;
        Process writer = ShipRun.java(Writer.class, List.of(), file.toString(), mode, Integer.toString(TOTAL),
                Integer.toString(EVERY), "-", "1000").redirectErrorStream(true).start();
        int kills = 0;
        int outages = 0;
        int killedWhileAway = 0;
        try {
            for (int round = 0; round < ROUNDS; round++) {
                Path err = tmp.resolve("ship-" + round + ".err");
                Process ship = ShipRun.java(ShipMain.class, List.of("-Xmx128m", "-XX:TieredStopAtLevel=1"), glob,
                        tmp.resolve("unused").toString(), state.toString(), Long.toString(MAX_IN_FLIGHT),
                        Long.toString(BUFFER), "16KiB", "run", to).redirectError(err.toFile()).start();
                String started = new BufferedReader(new InputStreamReader(ship.getInputStream(),
                        StandardCharsets.US_ASCII)).readLine();
                assertEquals("started", started, ts + ": shipper " + round + " did not start; stderr: "
                        + ShipRun.tail(err, 20));
                // 0: no outage; 1: the receiver goes and the kill comes while it is away; 2: it goes and comes
                // back before the kill.
                int plan = rnd.nextInt(3);
                Thread.sleep(50 + rnd.nextInt(400));
                if (plan > 0 && receiver != null) {
                    receiver.close();
                    receiver = null;
                    outages++;
                    Thread.sleep(50 + rnd.nextInt(400));
                    if (plan == 2) {
                        receiver = receiver();
                        Thread.sleep(50 + rnd.nextInt(300));
                    }
                }
                if (!ship.isAlive()) {
                    fail(ts + ": shipper " + round + " ended before the kill, exit " + ship.exitValue()
                            + "; stderr: " + ShipRun.tail(err, 20));
                }
                if (receiver == null) killedWhileAway++;
                ship.destroyForcibly(); // SIGKILL
                assertEquals(128 + 9, ship.waitFor(), ts + ": shipper " + round + " died of the SIGKILL; stderr: "
                        + ShipRun.tail(err, 20));
                kills++;
                // Back for the next start, or only after it started against nobody.
                if (receiver == null && rnd.nextBoolean()) receiver = receiver();
            }
        } finally {
            String wout = new String(writer.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, writer.waitFor(), "writer failed: " + wout);
        }
        if (receiver == null) receiver = receiver();
        try {
            ByteArrayOutputStream log = new ByteArrayOutputStream();
            var cfg = ShipRun.config(List.of(glob), tmp.resolve("unused"), state, Map.of("max-in-flight",
                    Long.toString(MAX_IN_FLIGHT), "buffer-size", Long.toString(BUFFER), "max-record", "16KiB",
                    "to", to.substring(3)));
            assertTrue(ShipRun.once(cfg, log), ts + ": " + log.toString(StandardCharsets.UTF_8));
        } finally {
            receiver.close();
        }
        Records r = Records.parse(ShipRun.received(receiverDirs.toArray(Path[]::new)), TOTAL, false)
                .assertComplete();
        long dupBytes = 0;
        for (int n = 1; n <= TOTAL; n++) {
            if (r.count[n] > 1) dupBytes += (long) (r.count[n] - 1) * recordLength(n);
        }
        // A kill leaves at most what was unacknowledged to be sent again; an outage too, and the batch it cut.
        long bound = (kills + 2L * outages) * (MAX_IN_FLIGHT + BUFFER);
        assertTrue(dupBytes <= bound, ts + ": duplicate bytes " + dupBytes + " > " + bound + " after " + kills
                + " kills and " + outages + " outages");
        assertTrue(killedWhileAway > 0 || outages == 0, ts + ": no kill landed in an outage");
        System.out.println("CrashDuringOutageTest: kills=" + kills + " outages=" + outages + " killed-while-away="
                + killedWhileAway + " duplicates=" + r.duplicates + " duplicate-bytes=" + dupBytes + " bound="
                + bound);
    }

    /** The length of record {@code n}: {@code g=G n=N }, {@code n % 50} x and a newline. */
    private static int recordLength(int n) {
        int gen = (n - 1) / EVERY + 1;
        return ("g=" + gen + " n=" + n + " ").length() + n % 50 + 1;
    }
}
