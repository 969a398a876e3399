package io.jfio.ship.sink;

import io.jfio.ship.log.ShipLog;
import java.io.IOException;

/**
 * Makes the sink a {@link SinkSpec} names.
 *
 * <p>Thread-safe; stateless.
 */
public final class Sinks {
    private Sinks() {
    }

    /**
     * Options that sinks take from the shipper's configuration.
     *
     * @param segmentSize the dir sink's segment size
     * @param maxInFlight bytes a sink may hold unacknowledged before {@code send} blocks
     * @param log         where sinks log
     */
    public record Options(long segmentSize, long maxInFlight, ShipLog log) {
    }

    /**
     * Opens the sink {@code spec} names.
     *
     * @throws UnavailableException when this build has no such sink
     * @throws IOException          when the sink cannot be opened (a directory that cannot be made, a lock held)
     */
    public static Sink open(SinkSpec spec, Options options) throws IOException {
        return switch (spec.scheme()) {
            case SinkSpec.DIR -> new DirSink(spec.dir(), options.segmentSize(), options.log());
            case SinkSpec.STDOUT -> new StdoutSink();
            case SinkSpec.TCP, SinkSpec.KAFKA -> throw new UnavailableException("sink not available yet in this "
                    + "build: sink=" + spec + " (available: dir:PATH, stdout:)");
            default -> throw new UnavailableException("unknown sink: sink=" + spec);
        };
    }

    /** The sink named is not part of this build. */
    public static final class UnavailableException extends IOException {
        private static final long serialVersionUID = 1L;

        UnavailableException(String message) {
            super(message);
        }
    }
}
