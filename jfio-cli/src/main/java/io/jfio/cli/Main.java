package io.jfio.cli;

import io.jfio.core.sys.PathBytes;
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
        int code = refuseLostBytes(err, args);
        if (code == ExitCodes.OK) code = Cli.run(out, err, args);
        // Writers without a trailing println still hold output; System.exit does not flush them.
        out.flush();
        err.flush();
        System.exit(code);
    }

    /**
     * Takes the arguments' bytes from the process ({@link RawArgs}). {@code copy} opens its paths by those bytes; the
     * other commands take paths as strings, so an argument whose string lost bytes is refused, before anything is
     * done, rather than read as another name.
     *
     * @return {@link ExitCodes#OK} to go on, else {@link ExitCodes#USAGE}
     */
    private static int refuseLostBytes(PrintWriter err, String[] args) {
        byte[][] raw = RawArgs.read(args);
        RawArgs.install(args, raw);
        if (args.length > 0 && args[0].equals("copy")) return ExitCodes.OK;
        for (int i = 0; i < args.length; i++) {
            boolean lost = raw != null ? !RawArgs.exact(args[i], raw[i]) : RawArgs.mayHaveLost(args[i]);
            if (lost) {
                String shown = raw != null ? Quote.name(raw[i]) : Quote.name(args[i]);
                err.println("jfio: an argument is not valid in the locale's encoding (" + PathBytes.JNU
                        + ") and would name another file: " + shown);
                return ExitCodes.USAGE;
            }
        }
        return ExitCodes.OK;
    }
}
