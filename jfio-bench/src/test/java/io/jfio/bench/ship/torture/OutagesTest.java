package io.jfio.bench.ship.torture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Outages of a real process: it is stopped (state T) during a pause, and running again once they end. */
class OutagesTest {
    @TempDir
    Path tmp;

    /** The process's state letter from /proc/PID/stat (R, S, T, ...). */
    private static char state(long pid) throws Exception {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.US_ASCII);
        return stat.charAt(stat.lastIndexOf(')') + 2);
    }

    @Test
    void shouldPauseTheServerAndLeaveItRunningWhenStopped() throws Exception {
        Process server = new ProcessBuilder("sleep", "120").start();
        try (Events events = new Events(tmp.resolve("events.log"))) {
            Outages o = new Outages(server.pid(), new SplittableRandom(7), events);
            o.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            boolean sawStopped = false;
            while (!sawStopped && System.nanoTime() < deadline) {
                sawStopped = state(server.pid()) == 'T';
                Thread.sleep(20);
            }
            assertTrue(sawStopped, "the server was never paused");
            o.stop(); // at once, during the pause or just after it
            assertTrue(o.pauses() >= 1);
            Thread.sleep(100);
            assertTrue(state(server.pid()) != 'T', "still stopped after the outages ended");
            assertTrue(server.isAlive());
        } finally {
            server.destroyForcibly().waitFor();
        }
        String log = Files.readString(tmp.resolve("events.log"), StandardCharsets.UTF_8);
        assertTrue(log.contains("event=outage-start pid=" + server.pid()), log);
        assertEquals(log.split("event=outage-start", -1).length, log.split("event=outage-end", -1).length, log);
    }
}
