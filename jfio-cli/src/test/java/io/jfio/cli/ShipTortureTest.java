package io.jfio.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.bench.ship.torture.S3Server;
import io.jfio.bench.ship.torture.Torture;
import io.jfio.bench.ship.torture.TortureOptions;
import io.jfio.bench.ship.torture.TortureTable;
import io.jfio.bench.ship.torture.Verifier;
import io.jfio.core.testing.TestSeed;
import io.jfio.ship.testing.KafkaBroker;
import io.jfio.ship.testing.Minio;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The torture run of {@code jfio ship} (the same harness as {@code jfio bench ship --torture}): the real shipper as a
 * child process, SIGKILLed 20 times at random moments while four writers append and every rotation mode runs, into
 * the dir sink, the tcp sink with a real {@code jfio receive}, Kafka with a real broker and the s3 sink with a real
 * MinIO; the receiver, the broker and MinIO are also paused now and then (outages). Nothing may be lost; the dir and
 * s3 sinks may duplicate nothing; tcp and Kafka at most max-in-flight plus one read buffer per kill or outage. Sized
 * for CI on 2 cores (30-60 s per sink). The seed is printed; {@code -Djfio.test.seed=N} replays its choices.
 */
class ShipTortureTest {
    private static final int SECONDS = 20;
    private static final int KILLS = 20;
    /**
     * Kill delays from 0.2 to 2 s after a run's start line: most runs are short (20 kills fit into the writing), some
     * live long enough (the record in the sink, then 1.5 s) for a truncate in place to be safe and done.
     */
    private static final long KILL_MIN_MS = 200;
    private static final long KILL_MAX_MS = 2000;
    /** Set to a directory to keep the runs' files there (logs, events, sink output) to look into a failure. */
    private static final String KEEP_PROP = "jfio.torture.dir";
    /** For {@link #run}: outages of the server the run starts itself (the tcp sink's receiver). */
    private static final long OUTAGES = -1;

    @TempDir
    Path tmp;

    @Test
    void dirSinkLosesAndDuplicatesNothing() {
        TestSeed seed = TestSeed.pick();
        seed.run(s -> {
            Torture.SinkResult r = run(seed, "dir", null);
            Verifier.Counts c = r.counts();
            assertEquals(0, c.lost(), "lost records: " + c.lostSamples());
            assertEquals(0, c.duplicated(), "duplicated records in the dir sink");
            assertTrue(r.pass(), "verdict: " + r.reasons());
        });
    }

    @Test
    void tcpSinkLosesNothingAndDuplicatesWithinTheBound() {
        TestSeed seed = TestSeed.pick();
        seed.run(s -> atLeastOnce(run(seed, "tcp", null, null, OUTAGES)));
    }

    @Test
    void kafkaSinkLosesNothingAndDuplicatesWithinTheBound() throws Exception {
        TestSeed seed = TestSeed.pick();
        try (KafkaBroker broker = KafkaBroker.start(tmp.resolve("kafka"))) {
            seed.run(s -> atLeastOnce(run(seed, "kafka", broker.bootstrap(), null, broker.pid())));
        }
    }

    @Test
    void s3SinkLosesAndDuplicatesNothingThroughServerOutages() throws Exception {
        TestSeed seed = TestSeed.pick();
        try (Minio minio = Minio.start(tmp.resolve("minio"), "torture")) {
            S3Server server = new S3Server(minio.endpoint(), "torture", Minio.USER, Minio.PASSWORD);
            seed.run(s -> {
                Torture.SinkResult r = run(seed, "s3", null, server, minio.pid());
                Verifier.Counts c = r.counts();
                assertEquals(0, c.lost(), "lost records: " + c.lostSamples());
                assertEquals(0, c.duplicated(), "duplicated records in the s3 sink");
                assertTrue(r.outages() > 0, "no outage in the run");
                assertTrue(r.pass(), "verdict: " + r.reasons());
            });
        }
    }

    private static void atLeastOnce(Torture.SinkResult r) {
        Verifier.Counts c = r.counts();
        assertEquals(0, c.lost(), "lost records: " + c.lostSamples());
        assertTrue(r.outages() > 0, "no outage in the run");
        long events = r.kills() + r.outages();
        assertTrue(c.duplicateBytes() <= events * r.boundPerKill(), "duplicate bytes " + c.duplicateBytes()
                + " > " + events + " x " + r.boundPerKill());
        assertTrue(r.pass(), "verdict: " + r.reasons());
    }

    private Torture.SinkResult run(TestSeed seed, String sink, String bootstrap) throws Exception {
        return run(seed, sink, bootstrap, null, 0);
    }

    /**
     * One sink's run; with a {@code serverPid} (or {@link #OUTAGES} for the tcp sink, whose receiver the run starts)
     * the server is paused now and then.
     */
    private Torture.SinkResult run(TestSeed seed, String sink, String bootstrap, S3Server s3, long serverPid)
            throws Exception {
        System.out.println("ShipTortureTest " + sink + ": " + seed);
        String keep = System.getProperty(KEEP_PROP);
        TortureOptions o = new TortureOptions(keep != null ? Path.of(keep) : tmp.resolve("work"), SECONDS, KILLS, 4,
                1000, TortureOptions.ALL_MODES, List.of(sink), bootstrap, s3, serverPid != 0, Math.max(0, serverPid),
                seed.value(),
                KILL_MIN_MS, KILL_MAX_MS, 120, TortureOptions.thisJvm(Main.class.getName()));
        Torture.Result result = Torture.run(o, new PrintWriter(System.out, true, StandardCharsets.UTF_8));
        System.out.print(TortureTable.format(result));
        System.out.flush();
        Torture.SinkResult r = result.sinks().get(0);
        assertNotNull(r.counts(), seed + ": the run failed: " + r.reasons());
        assertEquals(KILLS, r.kills(), seed + ": kills done");
        return r;
    }
}
