package io.jfio.ship;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jfio.core.testing.TestSeed;
import io.jfio.ship.tcp.TcpReceiver;
import io.jfio.ship.testing.KafkaBroker;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The three together: a writer appending and rotating, the sink going away and coming back, and kill -9 of the
 * shipper, at random moments of a seeded schedule (the seed is printed; {@code -Djfio.test.seed} replays it). For
 * TCP the receiver is closed and started again on the same port; for Kafka the broker hangs (SIGSTOP: its
 * connections stay open and nothing answers) and goes on (SIGCONT). Some kills land while the sink is away, some
 * outages begin and end between two kills, some rounds have neither; rotations happen whenever the writer reaches
 * them. After a final run every record is there, and the duplicates stay within what the kills and the outages can
 * each leave unacknowledged.
 */
class CrashDuringOutageTest {
    private static final int TOTAL = 150_000;
    private static final int EVERY = 15_000;
    private static final int ROUNDS = 16;
    private static final long MAX_IN_FLIGHT = 256 << 10;
    private static final long BUFFER = 64 << 10;

    @TempDir
    Path tmp;

    /** A sink that the test can take away and bring back, and read back in the end. */
    private interface Target {
        /** The shipper's {@code to} setting. */
        String to();

        boolean up();

        void down() throws Exception;

        void back() throws Exception;

        /** Every record delivered, one per line. */
        String delivered() throws Exception;

        /** Producer settings short enough that an outage of a round fails batches (Kafka); none for TCP. */
        Map<String, String> settings();

        /** Brings the sink back if it is away and lets it go. */
        void close() throws Exception;
    }

    /** TCP: a receiver per period of being up, each writing into a directory of its own. */
    private final class Tcp implements Target {
        private final List<Path> dirs = new ArrayList<>();
        private final PrintStream log = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        private TcpReceiver receiver;
        private int port;

        Tcp() throws IOException {
            back();
        }

        @Override
        public String to() {
            return "tcp:127.0.0.1:" + port;
        }

        @Override
        public boolean up() {
            return receiver != null;
        }

        @Override
        public void down() throws IOException {
            receiver.close();
            receiver = null;
        }

        @Override
        public void back() throws IOException {
            Path dir = tmp.resolve("received-" + dirs.size());
            dirs.add(dir);
            receiver = TcpReceiver.start(new InetSocketAddress("127.0.0.1", port), dir,
                    TcpReceiver.Options.defaults(), log);
            port = receiver.port();
        }

        @Override
        public String delivered() throws IOException {
            return ShipRun.received(dirs.toArray(Path[]::new));
        }

        @Override
        public Map<String, String> settings() {
            return Map.of();
        }

        @Override
        public void close() throws IOException {
            if (receiver != null) receiver.close();
        }
    }

    /** Kafka: a real broker, hung with SIGSTOP and let go on with SIGCONT; a topic of one partition. */
    private final class Kafka implements Target {
        private final KafkaBroker broker;
        private boolean paused;

        Kafka() throws Exception {
            broker = KafkaBroker.start(tmp.resolve("broker"));
            broker.createTopic("combined", 1);
        }

        @Override
        public String to() {
            return "kafka:" + broker.bootstrap() + "/combined";
        }

        @Override
        public boolean up() {
            return !paused;
        }

        @Override
        public void down() throws Exception {
            broker.pause();
            paused = true;
        }

        @Override
        public void back() throws Exception {
            broker.resume();
            paused = false;
        }

        @Override
        public Map<String, String> settings() {
            return Map.of("kafka.delivery.timeout.ms", "3000", "kafka.request.timeout.ms", "1500",
                    "kafka.max.block.ms", "2000");
        }

        @Override
        public String delivered() {
            StringBuilder sb = new StringBuilder();
            for (ConsumerRecord<byte[], byte[]> r : broker.records("combined")) {
                sb.append(new String(r.value(), StandardCharsets.US_ASCII)).append('\n');
            }
            return sb.toString();
        }

        @Override
        public void close() throws Exception {
            if (paused) back();
            broker.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"tcp", "kafka"})
    void shouldLoseNothingWhenTheShipperIsKilledWhileTheSinkIsAwayAndFilesRotate(String sink) throws Exception {
        TestSeed ts = TestSeed.pick();
        RandomGenerator rnd = ts.random();
        String mode = rnd.nextBoolean() ? "rename" : "copytruncate";
        System.out.println("CrashDuringOutageTest " + sink + " " + ts + " rotation=" + mode);
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path state = tmp.resolve("state");
        Path file = logs.resolve("app.log");
        Files.createFile(file);
        String glob = logs.resolve("app.log*").toString();
        Target target = sink.equals("tcp") ? new Tcp() : new Kafka();
        try {
            List<String> settings = new ArrayList<>(List.of("to=" + target.to()));
            target.settings().forEach((k, v) -> settings.add(k + "=" + v));
            Process writer = ShipRun.java(Writer.class, List.of(), file.toString(), mode, Integer.toString(TOTAL),
                    Integer.toString(EVERY), "-", "1000").redirectErrorStream(true).start();
            int kills = 0;
            int outages = 0;
            int killedWhileAway = 0;
            try {
                for (int round = 0; round < ROUNDS; round++) {
                    Path err = tmp.resolve("ship-" + round + ".err");
                    List<String> args = new ArrayList<>(List.of(glob, tmp.resolve("unused").toString(),
                            state.toString(), Long.toString(MAX_IN_FLIGHT), Long.toString(BUFFER), "16KiB", "run"));
                    args.addAll(settings);
                    Process ship = ShipRun.java(ShipMain.class, List.of("-Xmx128m", "-XX:TieredStopAtLevel=1"),
                            args.toArray(String[]::new)).redirectError(err.toFile()).start();
                    try {
                        String started = new BufferedReader(new InputStreamReader(ship.getInputStream(),
                                StandardCharsets.US_ASCII)).readLine();
                        assertEquals("started", started, ts + ": shipper " + round + " did not start; stderr: "
                                + ShipRun.tail(err, 20));
                        // 0: no outage; 1: the sink goes and the kill comes while it is away; 2: it goes and comes
                        // back before the kill.
                        int plan = rnd.nextInt(3);
                        Thread.sleep(50 + rnd.nextInt(400));
                        if (plan > 0 && target.up()) {
                            target.down();
                            outages++;
                            Thread.sleep(50 + rnd.nextInt(400));
                            if (plan == 2) {
                                target.back();
                                Thread.sleep(50 + rnd.nextInt(300));
                            }
                        }
                        if (!ship.isAlive()) {
                            fail(ts + ": shipper " + round + " ended before the kill, exit " + ship.exitValue()
                                    + "; stderr: " + ShipRun.tail(err, 20));
                        }
                        if (!target.up()) killedWhileAway++;
                        ship.destroyForcibly(); // SIGKILL
                        assertEquals(128 + 9, ship.waitFor(), ts + ": shipper " + round
                                + " died of the SIGKILL; stderr: " + ShipRun.tail(err, 20));
                        kills++;
                    } finally {
                        ship.destroyForcibly(); // a failed round leaves no shipper behind
                    }
                    // Back for the next start, or only after that one started against nobody.
                    if (!target.up() && rnd.nextBoolean()) target.back();
                }
            } finally {
                String wout = new String(writer.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertEquals(0, writer.waitFor(), "writer failed: " + wout);
            }
            if (!target.up()) target.back();
            Map<String, String> extra = new HashMap<>(Map.of("max-in-flight", Long.toString(MAX_IN_FLIGHT),
                    "buffer-size", Long.toString(BUFFER), "max-record", "16KiB", "to", target.to()));
            extra.putAll(target.settings());
            ByteArrayOutputStream log = new ByteArrayOutputStream();
            assertTrue(ShipRun.once(ShipRun.config(List.of(glob), tmp.resolve("unused"), state, extra), log),
                    ts + ": " + log.toString(StandardCharsets.UTF_8));
            Records r = Records.parse(target.delivered(), TOTAL, false).assertComplete();
            long dupBytes = 0;
            for (int n = 1; n <= TOTAL; n++) {
                if (r.count[n] > 1) dupBytes += (long) (r.count[n] - 1) * recordLength(n);
            }
            // A kill leaves at most what was unacknowledged to be sent again; an outage too, and the batch it cut.
            long bound = (kills + 2L * outages) * (MAX_IN_FLIGHT + BUFFER);
            assertTrue(dupBytes <= bound, ts + ": duplicate bytes " + dupBytes + " > " + bound + " after " + kills
                    + " kills and " + outages + " outages");
            assertTrue(killedWhileAway > 0 || outages == 0, ts + ": no kill landed in an outage");
            System.out.println("CrashDuringOutageTest " + sink + ": kills=" + kills + " outages=" + outages
                    + " killed-while-away=" + killedWhileAway + " duplicates=" + r.duplicates + " duplicate-bytes="
                    + dupBytes + " bound=" + bound);
        } finally {
            target.close();
        }
    }

    /** The length of record {@code n}: {@code g=G n=N }, {@code n % 50} x and a newline. */
    private static int recordLength(int n) {
        int gen = (n - 1) / EVERY + 1;
        return ("g=" + gen + " n=" + n + " ").length() + n % 50 + 1;
    }
}
