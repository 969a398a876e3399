package io.jfio.cli;

import java.io.PrintWriter;

/**
 * The entry point of {@code jfio.jar}: runs the command line and exits with the command's exit code
 * ({@link ExitCodes}).
 */
public final class Main {
    /** The writer over the process's stderr, so commands can tell it from a test's captured writer. */
    private static volatile PrintWriter processErr;

    private Main() {
    }

    /** True when {@code w} writes to this process's stderr (not to a buffer, as in tests). */
    static boolean isProcessErr(PrintWriter w) {
        return w != null && w == processErr;
    }

    /**
     * Runs {@code jfio} with {@code args} and exits the JVM with the command's exit code.
     *
     * @param args the command line, e.g. {@code info --json /data}
     */
    public static void main(String[] args) {
        PrintWriter out = new PrintWriter(System.out, true, System.out.charset());
        PrintWriter err = new PrintWriter(System.err, true, System.err.charset());
        processErr = err;
        int code = Cli.run(out, err, args);
        // Writers without a trailing println still hold output; System.exit does not flush them.
        out.flush();
        err.flush();
        System.exit(code);
    }
}
