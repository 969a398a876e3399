package io.jfio.ship.sink;

import io.jfio.ship.kafka.KafkaSink;
import io.jfio.ship.log.ShipLog;
import io.jfio.ship.tcp.TcpSink;
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
     * @param maxInFlight bytes the pipeline keeps unacknowledged before it pauses reading
     * @param bufferSize  the pipeline's read buffer: the most one batch can hold
     * @param tcpAck      tcp sinks: wait for the receiver's acknowledgement of durable bytes (at-least-once), or
     *                    count bytes as delivered once the kernel took them (a plain newline stream, e.g. for
     *                    {@code nc -l})
     * @param tcpSecurity tcp sinks: TLS and token
     * @param kafkaCompression kafka sinks' codec: none, gzip, snappy, lz4 or zstd
     * @param kafkaRaw    kafka sinks: one record per batch instead of one per line (every input of the sink is raw)
     * @param kafkaProperties kafka sinks: producer properties applied over the sink's own
     * @param log         where sinks log
     */
    public record Options(long segmentSize, long maxInFlight, long bufferSize, boolean tcpAck,
                          io.jfio.ship.tcp.TcpSecurity tcpSecurity, String kafkaCompression, boolean kafkaRaw,
                          java.util.Map<String, String> kafkaProperties, ShipLog log, int outputMode) {
    }

    /**
     * Opens the sink {@code spec} names.
     *
     * @throws UnavailableException     when this build has no such sink
     * @throws IllegalArgumentException with a message for the user when the spec cannot name a sink (a bad kafka
     *                                  topic)
     * @throws IOException              when the sink cannot be opened (a directory that cannot be made, a lock held)
     */
    public static Sink open(SinkSpec spec, Options options) throws IOException {
        return switch (spec.scheme()) {
            case SinkSpec.DIR -> new DirSink(spec.dir(), options.segmentSize(), options.outputMode(), options.log());
            case SinkSpec.STDOUT -> new StdoutSink();
            // The window is above the pipeline's own bound by one batch, so that the pipeline's bound is the one
            // that acts: a send that blocks in the sink would also hold off stop requests.
            case SinkSpec.TCP -> new TcpSink(spec.host(), spec.port(), TcpSink.Options.defaults()
                    .withAck(options.tcpAck()).withWindow(options.maxInFlight() + options.bufferSize())
                    .withSecurity(options.tcpSecurity()));
            case SinkSpec.KAFKA -> {
                // send() blocks the pipeline thread (and so a stop) up to max.block.ms while the cluster is away;
                // the files are the buffer, so failing after a few seconds and retrying with backoff loses nothing.
                KafkaSink.Options o = KafkaSink.Options.defaults().withCompression(options.kafkaCompression())
                        .withRaw(options.kafkaRaw()).withMaxBlock(java.time.Duration.ofSeconds(5));
                for (var e : options.kafkaProperties().entrySet()) o = o.withProperty(e.getKey(), e.getValue());
                yield new KafkaSink(spec.bootstrap(), spec.topic(), o);
            }
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
