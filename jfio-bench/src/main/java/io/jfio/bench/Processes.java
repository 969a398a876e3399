package io.jfio.bench;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Running the helper programs a benchmark needs ({@code sync}, {@code rm}), and ending the processes it starts with
 * what they started.
 *
 * <p>Thread-safe; stateless.
 */
public final class Processes {
    private Processes() {
    }

    /**
     * Kills {@code p} and every process below it (SIGKILL), the descendants first: once {@code p} is dead its
     * children belong to init and can no longer be found from it. What a benchmark starts is often a shell or a
     * launcher (bash building a jar, {@code bin/jfio}, a timing shell) above the process that does the work. Does
     * not wait for the exits.
     */
    public static void kill(Process p) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
    }

    /**
     * Runs a command, discarding its output; fails unless it exits 0 within {@code timeoutSeconds}. On a timeout or
     * an interrupt it is killed ({@link #kill}).
     */
    public static void run(List<String> command, long timeoutSeconds) throws IOException {
        int exit = run(new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD), timeoutSeconds);
        if (exit != 0) {
            throw new IOException("failed: command=" + String.join(" ", command) + " exit=" + exit);
        }
    }

    /**
     * Starts {@code process} as the caller set it up (environment, redirections) and returns its exit code once it
     * exits within {@code timeoutSeconds}. On a timeout or an interrupt it is killed ({@link #kill}) and this throws
     * (after an interrupt, with an {@link InterruptedException} as the cause and the thread's interrupt status set
     * again). Nothing reads its output here: a pipe left for it would fill and stall the process until the timeout,
     * so redirect the output to a file or discard it.
     */
    public static int run(ProcessBuilder process, long timeoutSeconds) throws IOException {
        Process p = process.start();
        try {
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                kill(p);
                throw new IOException("timed out: command=" + String.join(" ", process.command()));
            }
        } catch (InterruptedException e) {
            kill(p);
            Thread.currentThread().interrupt();
            throw new IOException("interrupted: command=" + String.join(" ", process.command()), e);
        }
        return p.exitValue();
    }

    /** Runs {@code sync(1)}, which writes every file system's dirty data back; fails after 600 s. */
    public static void sync() throws IOException {
        run(List.of("sync"), 600);
    }
}
