package io.jfio.ship.pipeline;

import java.time.Duration;

/** Defaults the pipeline applies where the configuration leaves a choice to it. */
final class ShipConfigDefaults {
    /**
     * The rescan interval while no file-change watcher is in use: every input path is stat'ed this often (files
     * that grew in the last two seconds are also checked every 2 ms through their descriptor).
     */
    static final Duration POLL = Duration.ofMillis(250);

    private ShipConfigDefaults() {
    }
}
