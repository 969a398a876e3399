package io.jfio.bench.system;

import io.jfio.core.engine.Engines;
import java.io.IOException;

/**
 * Which engine {@link Engines#create()} will give, told from the configured choice and an io_uring probe, without
 * creating a second ring.
 *
 * <p>Immutable.
 *
 * @param configured {@code auto}, {@code uring} or {@code threads}, from {@code -Djfio.engine}
 * @param selected   {@code io_uring}, {@code threads}, or null when no engine can be created
 * @param reason     why this engine, for people
 * @param error      why no engine can be created, or null
 */
public record EngineChoice(String configured, String selected, String reason, String error) {

    /**
     * Mirrors {@link Engines#create()}: {@code threads} when forced; io_uring when it works; when it does not, an
     * error if io_uring was forced, else the thread engine ({@code create()} falls back from any
     * {@link IOException} of the setup), and an error only for an unexpected failure.
     */
    public static EngineChoice decide(String configured, UringProbe probe) {
        String prop = "-D" + Engines.ENGINE_PROP + "=" + configured;
        if (configured.equals("threads")) return new EngineChoice(configured, "threads", "forced by " + prop, null);
        if (probe.works()) {
            String why = configured.equals("uring") ? "forced by " + prop : "io_uring works";
            return new EngineChoice(configured, "io_uring", why, null);
        }
        if (configured.equals("uring")) {
            return new EngineChoice(configured, null, null, "io_uring forced by " + prop
                    + " but unavailable: reason=" + probe.reason());
        }
        if (probe.failure() instanceof IOException) {
            return new EngineChoice(configured, "threads", "io_uring unavailable: " + probe.reason(), null);
        }
        return new EngineChoice(configured, null, null, "io_uring setup failed with an error the engine does not "
                + "fall back from: reason=" + probe.reason());
    }

    /** Adds the {@code engine} section. */
    public void describe(Report report) {
        Report.Section s = report.section("engine", "Engine");
        s.put("configured", "configured", configured, configured + " (-D" + Engines.ENGINE_PROP + ")");
        s.put("selected", "selected", selected, selected == null ? "none" : selected);
        s.put("reason", "reason", reason, reason);
        s.put("error", "error", error, error);
    }
}
