package io.jfio.core.testing;

import static org.junit.jupiter.api.Assumptions.abort;

import io.jfio.core.engine.IoEngine;
import io.jfio.core.engine.ThreadEngine;
import io.jfio.core.engine.UringEngine;
import io.jfio.core.engine.UringUnavailableException;
import java.io.IOException;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * The engines every engine-level and file-level test runs on. Each {@link #create()} makes a fresh engine that the
 * test closes. {@code -Djfio.test.engine=uring|threads} restricts a run to one of them.
 *
 * <p>Thread-safe; stateless.
 */
public enum EngineKind {
    /** io_uring as configured by default: a platform thread's blocking call runs inline. */
    URING,
    /** io_uring with every request, blocking calls from platform threads included, going through the ring. */
    URING_RING,
    /** io_uring with a single ring (and ring thread), whatever the CPU count. */
    URING_ONE_RING,
    THREADS;

    /** System property restricting the parameterized tests to one engine. */
    public static final String ENGINE_PROP = "jfio.test.engine";

    /** A new engine of this kind; on a system without io_uring the calling test is skipped. */
    public IoEngine create() throws IOException {
        return switch (this) {
            case URING -> uring(UringEngine.DEFAULT_ENTRIES);
            case URING_RING -> ringOnly(UringEngine.DEFAULT_ENTRIES);
            case URING_ONE_RING -> uring(UringEngine.DEFAULT_ENTRIES, 1);
            case THREADS -> new ThreadEngine();
        };
    }

    /** A new io_uring engine through which every request goes via the ring thread; skips without io_uring. */
    public static UringEngine ringOnly(int entries) throws IOException {
        try {
            return new UringEngine(entries, UringEngine.DEFAULT_FLAGS, false);
        } catch (UringUnavailableException e) {
            return abort("io_uring unavailable on this system: " + e.getMessage());
        }
    }

    /** A new io_uring engine with {@code entries} SQ entries (CQ four times that); skips without io_uring. */
    public static UringEngine uring(int entries) throws IOException {
        try {
            return new UringEngine(entries, UringEngine.DEFAULT_FLAGS);
        } catch (UringUnavailableException e) {
            return abort("io_uring unavailable on this system: " + e.getMessage());
        }
    }

    /** A new io_uring engine with {@code rings} rings of {@code entries} SQ entries; skips without io_uring. */
    public static UringEngine uring(int entries, int rings) throws IOException {
        try {
            return new UringEngine(entries, UringEngine.DEFAULT_FLAGS, true, rings);
        } catch (UringUnavailableException e) {
            return abort("io_uring unavailable on this system: " + e.getMessage());
        }
    }

    /** The kinds to test, for {@code @MethodSource("io.jfio.core.testing.EngineKind#all")}. */
    public static Stream<EngineKind> all() {
        String only = System.getProperty(ENGINE_PROP, "").trim().toLowerCase(Locale.ROOT);
        if (only.isEmpty() || only.equals("all")) return Arrays.stream(values());
        return Arrays.stream(values()).filter(k -> k.name().toLowerCase(Locale.ROOT).startsWith(only));
    }
}
