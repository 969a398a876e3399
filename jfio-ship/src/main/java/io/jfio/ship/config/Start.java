package io.jfio.ship.config;

/** Where a file that was never seen before starts shipping. */
public enum Start {
    /** From its first byte (the default: nothing present is skipped). */
    BEGINNING,
    /**
     * From its size when the shipper starts and finds it. Applies only to files found by the first scan of a run;
     * files that appear later always start at the beginning, since everything in them was written after start.
     */
    END
}
