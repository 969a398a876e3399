package io.jfio.ship.sink;

import java.io.IOException;
import java.net.UnknownHostException;

/**
 * Implementations must be thread-safe and stateless. One kind of sink, named by the scheme before the colon of
 * {@code --to} ({@code dir:}, {@code tcp:}, {@code kafka:}): checks the text after the colon and opens the sink.
 *
 * <p>Each sink package provides one and lists it in {@code META-INF/services/io.jfio.ship.sink.SinkFactory};
 * {@link Sinks} finds them with {@link java.util.ServiceLoader}, so this package depends on none of them. A
 * factory must not load heavy classes (a client library) before {@link #open}: every shipper start loads every
 * factory.
 */
public interface SinkFactory {
    /** The scheme, lower case, without the colon: {@code tcp}. */
    String scheme();

    /** The accepted form for messages: {@code tcp:HOST:PORT}. */
    String form();

    /**
     * Checks what follows the scheme's colon.
     *
     * @throws IllegalArgumentException saying what is wrong, for the user (the caller adds the whole spec and the
     *                                  accepted forms)
     */
    void check(String target);

    /**
     * Opens the sink {@code spec} names; {@code spec} was {@linkplain #check checked}.
     *
     * @throws IllegalArgumentException with a message for the user when the spec cannot name a sink
     * @throws IOException              when the sink cannot be opened
     */
    Sink open(SinkSpec spec, Sinks.Options options) throws IOException;

    /**
     * Resolves the hosts {@code spec} names, if it names any, so that a misspelt host is one clear error at start
     * instead of a sink that retries forever. Sinks resolve again at every connect: an address that changes later
     * is followed.
     *
     * @throws UnknownHostException when the sink cannot reach any of its hosts by name; its message is
     *                              {@code HOST: REASON}
     */
    default void requireResolvable(SinkSpec spec) throws UnknownHostException {
    }
}
