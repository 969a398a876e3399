package io.jfio.ship.tcp;

import java.nio.charset.StandardCharsets;

/**
 * The acknowledgement protocol between {@link TcpSink} and a receiver such as {@link TcpReceiver}.
 *
 * <ol>
 *   <li>The sender opens the connection with the handshake line {@code JFIO-SHIP 1 ack\n} (16 bytes).</li>
 *   <li>The receiver answers with the same 16 bytes; a sender that does not get them within its handshake timeout
 *       gives up on the connection (the peer does not speak the protocol).</li>
 *   <li>Then the sender writes the records, raw, as one byte stream.</li>
 *   <li>The receiver writes back, whenever it likes (jfio's: after every batched fsync), acknowledgements: 8 bytes,
 *       a big-endian unsigned count of the data bytes (handshake excluded) of this connection that it has made
 *       durable. Counts are cumulative and never decrease; the sender completes every batch the count covers.</li>
 * </ol>
 * Without acknowledgements the sender writes the records alone: a plain newline-framed stream, as {@code nc -l}
 * expects. A stream that begins with {@code JFIO-SHIP } is taken for the handshake by {@link TcpReceiver}.
 *
 * <p>Thread-safe; constants only.
 */
public final class TcpProtocol {
    /** The handshake line, sent by the sender and echoed by the receiver. */
    public static final String HANDSHAKE = "JFIO-SHIP 1 ack\n";
    /** {@link #HANDSHAKE} as bytes. */
    static final byte[] HANDSHAKE_BYTES = HANDSHAKE.getBytes(StandardCharsets.US_ASCII);
    /** What every handshake of this protocol starts with, whatever its version. */
    public static final String MAGIC_PREFIX = "JFIO-SHIP ";
    /** {@link #MAGIC_PREFIX} as bytes. */
    static final byte[] MAGIC = MAGIC_PREFIX.getBytes(StandardCharsets.US_ASCII);
    /** The size of one acknowledgement. */
    public static final int ACK_BYTES = 8;

    private TcpProtocol() {
    }
}
