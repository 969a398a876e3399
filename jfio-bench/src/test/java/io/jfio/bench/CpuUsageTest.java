package io.jfio.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** CPU times from /proc: parsing, their unit, and a real child's time arriving in this JVM's cutime and cstime. */
class CpuUsageTest {

    @Test
    void shouldParseProcStatWithSpacesAndParenthesesInTheCommandName() {
        // utime 7, stime 8, cutime 250, cstime 125.
        CpuUsage.ProcessTimes t = CpuUsage.ProcessTimes.parse("4242 (a (b) c) S 1 4242 4242 0 -1 4194560 100 200 0 "
                + "0 7 8 250 125 20 0 1 0 12345 1000000 200 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 "
                + "0\n");
        assertEquals(new CpuUsage.ProcessTimes(7, 8, 250, 125), t);
        assertNull(CpuUsage.ProcessTimes.parse("garbage"));
        assertNull(CpuUsage.ProcessTimes.parse("4242 (short) S 1 2 3"));
        assertNull(CpuUsage.ProcessTimes.parse("4242 (x) S 1 4242 4242 0 -1 4194560 100 200 0 0 7 8 many 125 20"));
    }

    @Test
    void shouldCountInTheSystemsClockTicks() throws Exception {
        // USER_HZ, the unit of /proc's times, is what sysconf(_SC_CLK_TCK) reports.
        Process p;
        try {
            p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
        } catch (IOException e) {
            assumeTrue(false, "no getconf: " + e.getMessage());
            return;
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        assertEquals(Double.parseDouble(out), CpuUsage.TICKS_PER_SECOND, out);
    }

    @Test
    void shouldCountAWaitedForChildsTimeInOwnChildTimes() throws Exception {
        CpuUsage.ProcessTimes before = CpuUsage.ProcessTimes.self();
        assertNotNull(before);
        // A shell spinning until it has used at least 5 ticks of CPU by its own /proc entry, then killed.
        Process spin = new ProcessBuilder("/bin/sh", "-c", "while :; do :; done").start();
        Path stat = Path.of("/proc", Long.toString(spin.pid()), "stat");
        long used = 0;
        long deadline = System.nanoTime() + 60_000_000_000L;
        try {
            while (used < 5 && System.nanoTime() < deadline) {
                Thread.sleep(20);
                CpuUsage.ProcessTimes t = CpuUsage.ProcessTimes.parse(Files.readString(stat));
                if (t != null) used = t.user() + t.system();
            }
        } finally {
            spin.destroyForcibly();
        }
        assertTrue(used >= 5, "the child never used 5 ticks: " + used);
        assertTrue(spin.waitFor(30, TimeUnit.SECONDS));
        CpuUsage.ProcessTimes after = CpuUsage.ProcessTimes.self();
        long counted = after.childUser() + after.childSystem() - before.childUser() - before.childSystem();
        // At least what its /proc entry showed last; a little more from the ticks after that read.
        assertTrue(counted >= used, "counted " + counted + " ticks, the child had used " + used);
    }
}
