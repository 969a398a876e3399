package io.jfio.cli;

/**
 * A failure a command reports to the user as one message and an exit code, without a stack trace: bad input
 * ({@link ExitCodes#USAGE}) or an unusable environment ({@link ExitCodes#ENVIRONMENT}).
 *
 * <p>Immutable. Messages follow the {@code key=value} convention, e.g. {@code "no such path: path=/x"}.
 */
public final class CliException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int exitCode;

    /**
     * Creates the exception.
     *
     * @param exitCode one of {@link ExitCodes}
     * @param message  what went wrong, for the user
     */
    public CliException(int exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    /** The exit code the command ends with. */
    public int exitCode() {
        return exitCode;
    }

    /**
     * Fails with {@link ExitCodes#ENVIRONMENT} and the library's own message when jfio cannot run on this system
     * (anything but Linux on x86_64 or aarch64).
     */
    static void requireSupportedPlatform() {
        try {
            io.jfio.core.sys.Platform.requireSupported();
        } catch (io.jfio.core.sys.Platform.UnsupportedPlatformException e) {
            throw new CliException(ExitCodes.ENVIRONMENT, e.getMessage());
        }
    }
}
