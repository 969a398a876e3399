package io.jfio.core.engine;

import io.jfio.core.sys.ErrnoException;
import io.jfio.core.sys.Platform;
import io.jfio.core.uring.UringUnavailableException;
import java.util.Locale;

/**
 * Chooses the engine: io_uring where it works, else the thread engine, unless {@code -Djfio.engine} forces one.
 *
 * <p>Thread-safe. {@link #shared()} is one process-wide engine created on first use (its threads are daemons);
 * {@link #create()} makes a new one that the caller closes.
 */
public final class Engines {
    /** System property choosing the engine: {@code auto} (default), {@code uring} or {@code threads}. */
    public static final String ENGINE_PROP = "jfio.engine";
    public static final String ENGINE_DEFAULT = "auto";

    private static volatile IoEngine shared;
    private static volatile String fallbackReason;

    private Engines() {
    }

    /** The configured choice, validated: {@code auto}, {@code uring} or {@code threads}. */
    public static String configured() {
        String v = System.getProperty(ENGINE_PROP, ENGINE_DEFAULT).trim().toLowerCase(Locale.ROOT);
        return switch (v) {
            case "auto", "uring", "threads" -> v;
            case "io_uring", "iouring" -> "uring";
            case "thread" -> "threads";
            default -> throw new IllegalArgumentException("invalid -D" + ENGINE_PROP + "=" + v
                    + ": expected auto, uring or threads");
        };
    }

    /**
     * A new engine as configured.
     *
     * @throws UringUnavailableException if {@code uring} is forced and io_uring cannot be used
     */
    public static IoEngine create() throws ErrnoException {
        Platform.requireSupported();
        String choice = configured();
        if (choice.equals("threads")) return new ThreadEngine();
        try {
            return new UringEngine();
        } catch (UringUnavailableException e) {
            if (choice.equals("uring")) throw e;
            fallbackReason = e.getMessage();
            return new ThreadEngine();
        }
    }

    /** The process-wide engine, created on first use. */
    public static IoEngine shared() throws ErrnoException {
        IoEngine e = shared;
        if (e != null && !e.isClosed()) return e;
        synchronized (Engines.class) {
            if (shared == null || shared.isClosed()) shared = create();
            return shared;
        }
    }

    /** Why {@code auto} fell back to the thread engine, or null if it did not. */
    public static String fallbackReason() {
        return fallbackReason;
    }
}
