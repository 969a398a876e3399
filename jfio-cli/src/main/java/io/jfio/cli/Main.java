package io.jfio.cli;

import java.io.PrintWriter;

/**
 * The entry point of {@code jfio.jar}: runs the command line and exits with the command's exit code
 * ({@link ExitCodes}).
 */
public final class Main {
    private Main() {
    }

    /**
     * Runs {@code jfio} with {@code args} and exits the JVM with the command's exit code.
     *
     * @param args the command line, e.g. {@code info --json /data}
     */
    public static void main(String[] args) {
        PrintWriter out = new PrintWriter(System.out, true, System.out.charset());
        PrintWriter err = new PrintWriter(System.err, true, System.err.charset());
        int code = Cli.commandLine(out, err).execute(args);
        // Writers without a trailing println still hold output; System.exit does not flush them.
        out.flush();
        err.flush();
        System.exit(code);
    }
}
