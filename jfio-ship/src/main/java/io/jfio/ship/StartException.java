package io.jfio.ship;

import io.jfio.ship.config.ShipConfig;
import io.jfio.ship.log.OsReason;
import java.io.IOException;

/**
 * Immutable.
 *
 * <p>The shipper cannot start: one line for the user that says what could not be used, its path or value, the
 * operating system's reason and the option and configuration key that named it, e.g.
 * {@code cannot use state directory /var/lib/ship: Read-only file system (--state, config key state)}; and whether
 * the configuration itself is wrong ({@link Kind#USAGE}) or the machine refuses a valid one
 * ({@link Kind#ENVIRONMENT}).
 */
public final class StartException extends IOException {
    private static final long serialVersionUID = 1L;

    /** The option and configuration key of the state directory. */
    static final String STATE_KEY = "--state, config key state";
    /** The option and configuration key of the metrics address. */
    static final String METRICS_KEY = "--metrics, config key metrics";

    /** Whose fault the failure is. */
    public enum Kind {
        /** The configuration is wrong: the user has to change it. */
        USAGE,
        /** The configuration is valid but the machine refuses it (a file system, a lock, the resolver). */
        ENVIRONMENT
    }

    private final Kind kind;

    /** A failure with a message already written for the user. */
    StartException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    /** {@code what path: REASON (key)}: {@code path} could not be used, for the reason {@code cause} gives. */
    static StartException environment(String what, Object path, String key, Throwable cause) {
        return new StartException(Kind.ENVIRONMENT, what + " " + path + ": " + OsReason.of(cause) + " (" + key + ")",
                cause);
    }

    /** The option and configuration key that define the sink named {@code sink}. */
    static String sinkKey(String sink) {
        return ShipConfig.MAIN.equals(sink) ? "--to, config key to" : "config key sinks." + sink;
    }

    /** Whose fault the failure is. */
    public Kind kind() {
        return kind;
    }
}
