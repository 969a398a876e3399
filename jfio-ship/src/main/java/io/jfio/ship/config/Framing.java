package io.jfio.ship.config;

/** How an input's bytes are cut into records. */
public enum Framing {
    /** Newline-delimited records; a batch always ends after a newline (unless a partial line times out). */
    LINES,
    /** Raw bytes: a batch is whatever was read, records are not counted. */
    RAW
}
