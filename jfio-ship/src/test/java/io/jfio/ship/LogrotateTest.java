package io.jfio.ship;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jfio.core.testing.TestSeed;
import io.jfio.ship.sink.DirSink;
import io.jfio.ship.testing.Records;
import io.jfio.ship.testing.ShipMain;
import io.jfio.ship.testing.ShipRun;
import io.jfio.ship.testing.Writer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipper beside the real logrotate, as most machines run it for an application that never reopens its log: the
 * application appends without a pause while logrotate rotates the log every few hundred milliseconds with
 * {@code copytruncate}, {@code compress} and {@code delaycompress} (the copy stays plain for one round, then becomes
 * {@code app.log.2.gz}, renamed on at every round), and the shipper reads {@code app.log*} with {@code read-gz}.
 * Every record that a file still holds at the end reaches the directory sink, with and without the shipper
 * SIGKILLed at random moments of a seeded schedule (rotations happen while it is down); none arrives twice, but for
 * the records of a gzip file that was being read at a kill (read again from its start: at least once). copytruncate
 * itself loses the lines written between the end of its copy and its truncation unless the shipper read them from
 * the original in that moment: those are allowed to be missing, one run per rotation. logrotate is Debian's package
 * ({@code /usr/sbin/logrotate}); the tests are skipped only where it is missing.
 */
class LogrotateTest {
    private static final Path[] LOGROTATE = {Path.of("/usr/sbin/logrotate"), Path.of("/usr/bin/logrotate")};

    @TempDir
    Path tmp;

    private static Path logrotate() {
        for (Path p : LOGROTATE) {
            if (Files.isExecutable(p)) return p;
        }
        return null;
    }

    @Test
    void shouldShipEveryRecordOnceThroughLogrotateCopytruncateAndCompress() throws Exception {
        TestSeed.pick().run(s -> run(s.random(), 0));
    }

    @Test
    void shouldShipEveryRecordOnceThroughLogrotateAndSigkills() throws Exception {
        TestSeed.pick().run(s -> run(s.random(), 6));
    }

    private void run(SplittableRandom random, int kills) throws Exception {
        Path logrotate = logrotate();
        assumeTrue(logrotate != null, "logrotate is not installed");
        // logrotate refuses a directory others may write to, and a configuration others may change.
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwx------"));
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path app = logs.resolve("app.log");
        Files.createFile(app);
        Path out = tmp.resolve("out");
        Path state = tmp.resolve("state");
        Path conf = tmp.resolve("logrotate.conf");
        Files.writeString(conf, app + " {\n    copytruncate\n    compress\n    delaycompress\n    rotate 1000\n"
                + "    missingok\n    notifempty\n    nomail\n}\n");
        Files.setPosixFilePermissions(conf, PosixFilePermissions.fromString("rw-------"));
        Path err = tmp.resolve("ship.err");
        int total = 60_000;
        // 10 records every 0.6 ms: some 15,000 records a second, for about 4 s.
        Process writer = ShipRun.java(Writer.class, List.of(), app.toString(), "none", Integer.toString(total), "1",
                "-", "600").redirectErrorStream(true).redirectOutput(tmp.resolve("writer.out").toFile()).start();
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicInteger rotations = new AtomicInteger();
        List<String> rotateErrors = new ArrayList<>();
        long rotateSeed = random.nextLong();
        Path rotateLog = tmp.resolve("logrotate.out");
        Thread rotator = Thread.ofPlatform().name("logrotate").start(() -> {
            SplittableRandom r = new SplittableRandom(rotateSeed);
            try {
                while (writing.get()) {
                    Thread.sleep(200 + r.nextInt(300));
                    Process p = new ProcessBuilder(logrotate.toString(), "-v", "-f", "-s",
                            tmp.resolve("logrotate.state").toString(), conf.toString()).redirectErrorStream(true)
                            .start();
                    String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                    Files.writeString(rotateLog, Instant.now() + " logrotate\n" + said, StandardOpenOption.CREATE,
                            StandardOpenOption.APPEND);
                    if (p.waitFor() != 0) {
                        synchronized (rotateErrors) {
                            rotateErrors.add(said);
                        }
                        return;
                    }
                    rotations.incrementAndGet();
                }
            } catch (IOException | InterruptedException e) {
                synchronized (rotateErrors) {
                    rotateErrors.add(e.toString());
                }
            }
        });
        Process ship = start(logs, out, state, err);
        int killed = 0;
        try {
            while (writer.isAlive()) {
                if (killed < kills) {
                    Thread.sleep(300 + random.nextInt(500));
                    if (!writer.isAlive()) break;
                    ship.destroyForcibly().waitFor();
                    killed++;
                    Thread.sleep(random.nextInt(700)); // rotations while it is down
                    ship = start(logs, out, state, err);
                } else {
                    writer.waitFor(100, TimeUnit.MILLISECONDS);
                }
            }
            assertEquals(0, writer.waitFor(), Files.readString(tmp.resolve("writer.out")));
            writing.set(false);
            rotator.join();
            assertTrue(rotateErrors.isEmpty(), "logrotate failed: " + rotateErrors);
            // Everything the files hold (a gzip file is read once it has not grown for a second), then a moment
            // more for anything shipped twice to show.
            Records held = Records.parseAllowingTorn(allFiles(logs, false), total);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (System.nanoTime() < deadline && !covers(sink(out, total), held)) {
                assertTrue(ship.isAlive(), ShipRun.tail(err, 30));
                Thread.sleep(50);
            }
            Thread.sleep(1_500);
        } finally {
            writing.set(false);
            ship.destroyForcibly().waitFor();
            writer.destroyForcibly().waitFor();
            rotator.join();
        }
        // copytruncate can also copy a write it catches halfway: the copy then ends in part of a record, which the
        // files hold and which the shipper delivers as it is (as one record of its own): counted apart as torn.
        Records r = sink(out, total);
        Records inFiles = Records.parseAllowingTorn(allFiles(logs, false), total);
        Records inGzip = Records.parseAllowingTorn(allFiles(logs, true), total);
        // copytruncate's own race: lines written between the end of the copy and the truncation are in no file
        // afterwards, and only a shipper that read them from the original in that moment has them. What a file still
        // holds must be in the sink; what no file holds is allowed to be missing, one run of lines per rotation.
        int notInFiles = 0;
        int lostRuns = 0;
        StringBuilder lostEverywhere = new StringBuilder();
        StringBuilder unshipped = new StringBuilder();
        int unshippedCount = 0;
        for (int i = 1; i <= total; i++) {
            if (r.count[i] > 0) continue;
            if (inFiles.count[i] > 0) {
                if (unshippedCount++ < 20) unshipped.append(i).append(' ');
            } else {
                if (notInFiles++ < 20) lostEverywhere.append(i).append(' ');
                if (i == 1 || r.count[i - 1] > 0 || inFiles.count[i - 1] > 0) lostRuns++;
            }
        }
        // A gzip file being read when the shipper is killed is read again from its start (at least once); any
        // other record arrives once.
        int twice = 0;
        StringBuilder twiceNotGzip = new StringBuilder();
        int twiceNotGzipCount = 0;
        for (int i = 1; i <= total; i++) {
            if (r.count[i] < 2) continue;
            twice++;
            if (inGzip.count[i] == 0 && twiceNotGzipCount++ < 20) twiceNotGzip.append(i).append(' ');
        }
        String summary = "kills=" + killed + " rotations=" + rotations.get() + " duplicates=" + r.duplicates
                + " (of gzip files: " + (twice - twiceNotGzipCount) + " records) lost-to-copytruncate=" + notInFiles
                + " in " + lostRuns + " runs; torn records in the files " + inFiles.torn + ", in the sink " + r.torn;
        System.out.println("logrotate: " + summary);
        assertTrue(rotations.get() >= 4, "too few rotations to mean anything: " + summary);
        String keep = System.getProperty("jfio.test.keep");
        if (keep != null && (unshippedCount > 0 || twiceNotGzipCount > 0 || kills == 0 && r.duplicates > 0)) {
            // -Djfio.test.keep=DIR: a failed run's files, sink and state are copied there for a closer look.
            Path to = Files.createDirectories(Path.of(keep)).resolve("run-" + System.nanoTime());
            ProcessBuilder cp = new ProcessBuilder("cp", "-a", tmp.toString(), to.toString());
            cp.inheritIO().start().waitFor();
            summary += " kept in " + to;
        }
        String context = "; " + summary + "; the shipper's log:\n" + ShipRun.tail(err, 400) + "\nlogrotate -v said:\n"
                + ShipRun.tail(tmp.resolve("logrotate.out"), 600);
        assertEquals(0, unshippedCount, "records the files hold were not shipped: " + unshipped + context);
        assertEquals(0, twiceNotGzipCount, "records shipped twice: " + twiceNotGzip + context);
        if (kills == 0) assertEquals(0, r.duplicates, "records shipped twice" + context);
        // The shipper invents no torn record: each is one the files hold (again after a kill, for a gzip file's).
        assertTrue(r.torn <= inFiles.torn * (killed + 1L), "torn records the files do not hold" + context);
        assertTrue(lostRuns <= rotations.get(), "more runs of lines in no file than rotations, starting at "
                + lostEverywhere + context);
    }

    /** The sink's records, a torn one (as the files may hold) counted apart. */
    private static Records sink(Path out, int total) {
        return Records.parseAllowingTorn(new String(DirSink.readAll(out), StandardCharsets.US_ASCII), total);
    }

    /** Whether the sink holds every record the files hold. */
    private static boolean covers(Records sink, Records files) {
        for (int i = 1; i < files.count.length; i++) {
            if (files.count[i] > 0 && sink.count[i] == 0) return false;
        }
        return true;
    }

    /** Every file's lines (gzip files decompressed; only theirs with {@code gzipOnly}), in no particular order. */
    private static String allFiles(Path logs, boolean gzipOnly) throws IOException {
        StringBuilder all = new StringBuilder();
        try (var files = Files.list(logs)) {
            for (Path f : files.toList()) {
                if (gzipOnly && !f.toString().endsWith(".gz")) continue;
                byte[] b = Files.readAllBytes(f);
                if (f.toString().endsWith(".gz")) {
                    try (var in = new GZIPInputStream(new ByteArrayInputStream(b))) {
                        b = in.readAllBytes();
                    }
                }
                all.append(new String(b, StandardCharsets.US_ASCII));
            }
        }
        return all.toString();
    }

    /** A shipper process on {@code logs/app.log*} with gzip files read, once it has said it started. */
    private static Process start(Path logs, Path out, Path state, Path err) throws IOException {
        return ShipRun.started(ShipRun.java(ShipMain.class, List.of("-Xmx128m"), logs.resolve("app.log*").toString(),
                out.toString(), state.toString(), "64MiB", "1MiB", "1MiB", "run", "read-gz=true",
                "checkpoint-interval=200ms").redirectError(ProcessBuilder.Redirect.appendTo(err.toFile())), err);
    }
}
