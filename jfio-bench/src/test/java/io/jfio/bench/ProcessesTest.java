package io.jfio.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Killing a real process tree: a shell with a child of its own, as a launcher or a timing shell is. */
class ProcessesTest {

    /**
     * Starts {@code sh} with a {@code sleep} below it; returns the shell, once the sleep's pid is in {@code pid}. If
     * that does not happen, both are killed.
     */
    static Process shellWithChild(Path pid) throws Exception {
        Process sh = new ProcessBuilder("/bin/sh", "-c", "sleep 600 & echo $! > \"$0\"; wait", pid.toString())
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        try {
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (!(Files.exists(pid) && Files.readString(pid).endsWith("\n"))) {
                if (System.nanoTime() > deadline) throw new AssertionError("the shell wrote no pid within 30 s");
                Thread.sleep(10);
            }
            return sh;
        } catch (Throwable t) {
            destroyTree(sh);
            throw t;
        }
    }

    /** Kills {@code p} and what is below it, for cleaning up: not by the code under test. */
    static void destroyTree(Process p) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
    }

    @Test
    void shouldKillTheProcessAndWhatItStarted(@TempDir Path dir) throws Exception {
        Path pid = dir.resolve("pid");
        Process sh = shellWithChild(pid);
        ProcessHandle sleep = null;
        try {
            sleep = ProcessHandle.of(Long.parseLong(Files.readString(pid).trim())).orElseThrow();
            assertTrue(sleep.isAlive());
            assertTrue(sh.descendants().toList().contains(sleep), "the sleep is the shell's child");
            Processes.kill(sh);
            assertTrue(sh.waitFor(10, TimeUnit.SECONDS));
            sleep.onExit().get(10, TimeUnit.SECONDS);
            assertFalse(sleep.isAlive(), "the shell's child was left running");
        } finally {
            if (sleep != null) sleep.destroyForcibly();
            destroyTree(sh);
        }
    }

    @Test
    void shouldRunACommandAndKillItsTreeOnATimeout(@TempDir Path dir) throws Exception {
        Processes.run(List.of("true"), 60);
        IOException failed = assertThrows(IOException.class, () -> Processes.run(List.of("false"), 60));
        assertTrue(failed.getMessage().startsWith("failed: command=false exit=1"), failed.getMessage());
        Path pid = dir.resolve("pid");
        IOException timedOut = assertThrows(IOException.class, () -> Processes.run(List.of("/bin/sh", "-c",
                "sleep 600 & echo $! > \"$0\"; wait", pid.toString()), 3));
        assertTrue(timedOut.getMessage().startsWith("timed out: command=/bin/sh"), timedOut.getMessage());
        ProcessHandle sleep = ProcessHandle.of(Long.parseLong(Files.readString(pid).trim())).orElse(null);
        if (sleep != null) {
            try {
                sleep.onExit().get(10, TimeUnit.SECONDS);
            } finally {
                sleep.destroyForcibly();
            }
        }
    }

    @Test
    void shouldRunAProcessAsSetUpAndKillItsTreeOnATimeout(@TempDir Path dir) throws Exception {
        // The environment and the redirection set on the builder reach the child; its exit code comes back.
        Path out = dir.resolve("out");
        ProcessBuilder env = new ProcessBuilder("/bin/sh", "-c", "printf %s \"$JFIO_PROCESSES_TEST\"; exit 3")
                .redirectErrorStream(true).redirectOutput(out.toFile());
        env.environment().put("JFIO_PROCESSES_TEST", "noninteractive");
        assertEquals(3, Processes.run(env, 60));
        assertEquals("noninteractive", Files.readString(out));
        Path pid = dir.resolve("pid");
        ProcessBuilder hang = new ProcessBuilder("/bin/sh", "-c", "sleep 600 & echo $! > \"$0\"; wait",
                pid.toString()).redirectOutput(ProcessBuilder.Redirect.DISCARD);
        long t0 = System.nanoTime();
        IOException timedOut = assertThrows(IOException.class, () -> Processes.run(hang, 3));
        assertTrue(timedOut.getMessage().startsWith("timed out: command=/bin/sh -c sleep 600"),
                timedOut.getMessage());
        assertTrue(System.nanoTime() - t0 < 60_000_000_000L, "not waited for to the end");
        ProcessHandle sleep = ProcessHandle.of(Long.parseLong(Files.readString(pid).trim())).orElse(null);
        if (sleep != null) {
            try {
                sleep.onExit().get(10, TimeUnit.SECONDS);
                assertFalse(sleep.isAlive(), "the shell's child was left running");
            } finally {
                sleep.destroyForcibly();
            }
        }
    }

    @Test
    void shouldKillNothingElse(@TempDir Path dir) throws Exception {
        Process other = new ProcessBuilder(List.of("sleep", "600")).start();
        try {
            Process sh = shellWithChild(dir.resolve("pid"));
            ProcessHandle sleep = sh.descendants().findFirst().orElse(null);
            try {
                Processes.kill(sh);
                assertTrue(sh.waitFor(10, TimeUnit.SECONDS));
                assertTrue(other.isAlive(), "a process beside the tree was killed");
            } finally {
                if (sleep != null) sleep.destroyForcibly();
                destroyTree(sh);
            }
        } finally {
            other.destroyForcibly();
        }
    }
}
