package io.jfio.ship.config;

/**
 * An invalid configuration: a file that cannot be parsed, an unknown key, a value out of range, a missing input or
 * sink. The message says what and where ({@code key=value}); the command line turns it into exit code 2.
 *
 * <p>Immutable.
 */
public final class ConfigException extends Exception {
    private static final long serialVersionUID = 1L;

    /** Creates the exception with a message for the user. */
    public ConfigException(String message) {
        super(message);
    }

    /** Creates the exception with a message for the user and the parser's exception. */
    public ConfigException(String message, Throwable cause) {
        super(message, cause);
    }
}
