package io.jfio.ship.config;

/** What happens to a line longer than {@code max-record}. */
public enum Overlong {
    /** Shipped in pieces of at most {@code max-record} bytes, each a record of its own; the bytes are unchanged. */
    SPLIT,
    /** Skipped up to and including its newline, and counted. */
    DROP
}
