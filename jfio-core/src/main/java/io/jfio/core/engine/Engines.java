package io.jfio.core.engine;

import io.jfio.core.sys.Platform;
import java.io.IOException;
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
    /** The default of {@link #ENGINE_PROP}: io_uring where it works, else the thread engine. */
    public static final String ENGINE_DEFAULT = "auto";

    private static volatile IoEngine shared;
    private static volatile String fallbackReason;

    private Engines() {
    }

    /**
     * The configured choice, validated: {@code auto}, {@code uring} or {@code threads}. Unless it is {@code threads},
     * the io_uring engine's ring count ({@link UringEngine#RINGS_PROP}) is validated too.
     *
     * @return the choice
     * @throws IllegalArgumentException naming the property and its value when either is invalid
     */
    public static String configured() {
        String choice = choice();
        if (!choice.equals("threads")) UringEngine.configuredRings();
        return choice;
    }

    private static String choice() {
        String raw = System.getProperty(ENGINE_PROP, ENGINE_DEFAULT);
        String v = raw.trim().toLowerCase(Locale.ROOT);
        return switch (v) {
            case "auto", "uring", "threads" -> v;
            case "io_uring", "iouring" -> "uring";
            case "thread" -> "threads";
            default -> throw new IllegalArgumentException("invalid -D" + ENGINE_PROP + "=" + raw
                    + ": expected auto, uring or threads");
        };
    }

    /**
     * A new engine as configured.
     *
     * In {@code auto} mode any failure to bring up io_uring (not only its absence: also ENOMEM or a failed mmap
     * of the rings) falls back to the thread engine, and {@link #fallbackReason()} says why.
     *
     * @return a new engine, which the caller closes
     * @throws IOException if {@code uring} is forced and io_uring cannot be used ({@link UringUnavailableException}
     *                     when the kernel refuses it, another {@code IOException} naming the errno otherwise)
     */
    public static IoEngine create() throws IOException {
        Platform.requireSupported();
        String choice = configured();
        if (choice.equals("threads")) {
            fallbackReason = null;
            return new ThreadEngine();
        }
        try {
            UringEngine e = new UringEngine();
            fallbackReason = null;
            return e;
        } catch (IOException e) {
            if (choice.equals("uring")) throw e;
            fallbackReason = e.getMessage();
            return new ThreadEngine();
        }
    }

    /**
     * The process-wide engine, created on first use.
     *
     * @return the shared engine; callers do not close it
     * @throws IOException if {@code uring} is forced and io_uring cannot be used, as for {@link #create()}
     */
    public static IoEngine shared() throws IOException {
        IoEngine e = shared;
        if (e != null && !e.isClosed()) return e;
        synchronized (Engines.class) {
            if (shared == null || shared.isClosed()) shared = create();
            return shared;
        }
    }

    /**
     * Why the last {@code auto} {@link #create()} fell back to the thread engine, or null if it did not.
     *
     * @return the reason, or null
     */
    public static String fallbackReason() {
        return fallbackReason;
    }
}
