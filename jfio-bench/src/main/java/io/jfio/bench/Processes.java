package io.jfio.bench;

/**
 * Ending the processes a benchmark starts, with what they started.
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
}
