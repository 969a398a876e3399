package io.jfio.cli;

/**
 * The exit codes of every jfio command; scripts may rely on them.
 *
 * <p>Thread-safe; constants only.
 */
public final class ExitCodes {
    /** The command did all its work. */
    public static final int OK = 0;
    /** Some of the work failed (an I/O error, a failed check); the output says which. */
    public static final int FAILED = 1;
    /** Bad usage or input: an unknown option, a missing path, an invalid {@code -Djfio.engine} value. */
    public static final int USAGE = 2;
    /**
     * The environment cannot run the command: a JDK or kernel feature is missing, or io_uring was forced with
     * {@code -Djfio.engine=uring} where it is unavailable.
     */
    public static final int ENVIRONMENT = 3;
    /**
     * {@code jfio ship --once}: a pattern to ship from named no file. What the other patterns named was shipped; each
     * pattern without a file was named in a warning.
     */
    public static final int NOTHING_MATCHED = 4;

    private ExitCodes() {
    }
}
