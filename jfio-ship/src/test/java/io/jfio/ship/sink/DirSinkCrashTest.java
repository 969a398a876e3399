package io.jfio.ship.sink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jfio.core.testing.TestSeed;
import io.jfio.ship.log.ShipLog;
import io.jfio.ship.state.Checkpoint;
import io.jfio.ship.testing.ShipRun;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exactly once at the sink level: a child JVM ({@link DirSinkCrashChild}) writes numbered batches of several sources
 * through a dir sink and is SIGKILLed at random moments, 24 times, each restart resuming every source from {@link
 * DirSink#committed()}. At the end the segments hold every source's lines exactly once and in order, every
 * acknowledged batch among them, and the committed positions are exactly where each source's bytes end.
 */
class DirSinkCrashTest {
    private static final int RUNS = 24;
    private static final int SOURCES = 5;

    @TempDir
    Path tmp;

    @Test
    void shouldHoldEverySourceExactlyOnceWhenKilledAtRandomMoments() {
        TestSeed seed = TestSeed.pick();
        System.out.println("DirSinkCrashTest " + seed);
        seed.run(ts -> run(ts.random(), ts.value()));
    }

    private void run(SplittableRandom rnd, long seedValue) throws Exception {
        Path dir = tmp.resolve("out");
        Path acks = tmp.resolve("acks.txt");
        int resumedNonZero = 0;
        for (int run = 0; run < RUNS; run++) {
            Path started = tmp.resolve("started-" + run);
            Path out = tmp.resolve("child-" + run + ".out");
            Process p = ShipRun.java(DirSinkCrashChild.class, List.of("-Xmx64m", "-XX:TieredStopAtLevel=1"),
                    dir.toString(), acks.toString(), started.toString(), Long.toString(seedValue + run),
                    Integer.toString(SOURCES)).redirectErrorStream(true).redirectOutput(out.toFile()).start();
            boolean early = rnd.nextInt(5) == 0;
            if (early) {
                // Sometimes while it opens: recovery and the compaction at open must survive a kill too.
                Thread.sleep(rnd.nextInt(400));
            } else {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (!Files.exists(started) && p.isAlive() && System.nanoTime() < deadline) Thread.sleep(5);
                if (!p.isAlive() || !Files.exists(started)) {
                    p.destroyForcibly().waitFor();
                    fail("child " + run + " did not start: " + ShipRun.tail(out, 40));
                }
                Thread.sleep(20 + rnd.nextInt(600));
            }
            if (!p.isAlive()) fail("child " + run + " died by itself: " + ShipRun.tail(out, 40));
            p.destroyForcibly(); // SIGKILL
            p.waitFor();
            String o = Files.exists(out) ? Files.readString(out) : "";
            if (o.contains("resumed") && !o.contains("resumed [0, 0, 0, 0, 0]")) resumedNonZero++;
            if (o.contains("Exception") || o.contains("Error")) fail("child " + run + ": " + o);
        }
        assertTrue(resumedNonZero >= RUNS / 2, "children resumed from committed positions: " + resumedNonZero);

        // Recovery in this JVM, then the check.
        ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
        List<Checkpoint> committed;
        try (DirSink sink = new DirSink(dir, DirSinkCrashChild.SEGMENT_SIZE, new ShipLog(new PrintStream(logBytes,
                true, StandardCharsets.UTF_8), true))) {
            committed = sink.committed();
        }
        String log = logBytes.toString(StandardCharsets.UTF_8);
        assertTrue(!log.contains("damaged") && !log.contains("error"), log);
        byte[] all = DirSink.readAll(dir);
        assertEquals(0, all.length % DirSinkCrashChild.LINE, "only whole lines: bytes=" + all.length);
        long[] count = new long[SOURCES];
        String text = new String(all, StandardCharsets.US_ASCII);
        for (int at = 0; at < all.length; at += DirSinkCrashChild.LINE) {
            String line = text.substring(at, at + DirSinkCrashChild.LINE);
            int s = Integer.parseInt(line.substring(1, 3));
            if (!line.equals(DirSinkCrashChild.line(s, count[s]))) {
                fail("at byte " + at + ": want " + DirSinkCrashChild.line(s, count[s]).strip() + ", found "
                        + line.strip() + " (a duplicate or a gap)");
            }
            count[s]++;
        }
        long[] positions = new long[SOURCES];
        for (Checkpoint c : committed) positions[(int) (c.inode() - 1000)] = c.offset();
        for (int s = 0; s < SOURCES; s++) {
            assertEquals(count[s] * DirSinkCrashChild.LINE, positions[s], "source " + s + ": committed position");
            assertTrue(count[s] > 0, "source " + s + " shipped nothing");
        }
        long acked = 0;
        for (String l : Files.readAllLines(acks)) {
            String[] f = l.split(" ");
            if (f.length != 3 || !f[0].equals("ACK")) continue;
            acked++;
            int s = Integer.parseInt(f[1]);
            long end = Long.parseLong(f[2]);
            assertTrue(end <= count[s], "acknowledged batch of source " + s + " up to line " + end
                    + " is missing: the sink holds " + count[s] + " lines");
        }
        assertTrue(acked > 100, "acknowledged batches: " + acked);
        System.out.println("DirSinkCrashTest: " + RUNS + " kills, " + acked + " acknowledged batches, lines "
                + java.util.Arrays.toString(count) + ", segments " + DirSink.segments(dir).size());
    }
}
