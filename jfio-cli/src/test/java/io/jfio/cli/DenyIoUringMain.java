package io.jfio.cli;

import io.jfio.core.testing.Seccomp;
import java.io.PrintWriter;

/**
 * Runs the jfio command line in a process where io_uring_setup fails with EPERM, the way container runtimes' default
 * seccomp profiles deny it. Started as a child JVM by {@link InfoWithoutIoUringTest}; the filter cannot be removed
 * again, which is why it needs a process of its own.
 */
public final class DenyIoUringMain {
    private DenyIoUringMain() {
    }

    /** Installs the filter, then runs {@code jfio args} and exits with its exit code. */
    public static void main(String[] args) throws Throwable {
        Seccomp.denyIoUringSetup();
        PrintWriter out = new PrintWriter(System.out, true);
        PrintWriter err = new PrintWriter(System.err, true);
        int code = Cli.run(out, err, args);
        out.flush();
        err.flush();
        System.exit(code);
    }
}
