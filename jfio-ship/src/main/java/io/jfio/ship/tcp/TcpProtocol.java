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
 * <p>Version 2 adds a shared token: the sender opens with {@code JFIO-SHIP 2 ack token TOKEN\n} (TOKEN: 16-200
 * visible ASCII characters, {@link TokenFile}) and the receiver answers {@code JFIO-SHIP 2 ack\n} (16 bytes); the
 * rest is as in version 1. A sender without a token keeps sending version 1, so old receivers still understand it.
 * A receiver that refuses a connection (wrong or missing token, unknown version) answers
 * {@code JFIO-SHIP error REASON\n} instead and closes it. Over TLS the same lines travel inside the TLS stream.
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
    /** The start of a version 2 handshake, before the token and the line end. */
    static final String TOKEN_HANDSHAKE_PREFIX = "JFIO-SHIP 2 ack token ";
    /** The receiver's answer to a version 2 handshake. */
    static final String HANDSHAKE_V2 = "JFIO-SHIP 2 ack\n";
    /** {@link #HANDSHAKE_V2} as bytes. */
    static final byte[] HANDSHAKE_V2_BYTES = HANDSHAKE_V2.getBytes(StandardCharsets.US_ASCII);
    /** What a receiver's refusal starts with; the reason and a line end follow. */
    static final String ERROR_PREFIX = "JFIO-SHIP error ";
    /** The longest handshake or refusal line, line end included. */
    static final int MAX_LINE = 256;
    /** The size of one acknowledgement. */
    public static final int ACK_BYTES = 8;

    private TcpProtocol() {
    }

    /** The handshake a sender opens with: version 1 without a token, version 2 with one. */
    static byte[] handshake(byte[] token) {
        if (token == null) {
            return HANDSHAKE_BYTES.clone();
        }
        byte[] prefix = TOKEN_HANDSHAKE_PREFIX.getBytes(StandardCharsets.US_ASCII);
        byte[] line = new byte[prefix.length + token.length + 1];
        System.arraycopy(prefix, 0, line, 0, prefix.length);
        System.arraycopy(token, 0, line, prefix.length, token.length);
        line[line.length - 1] = '\n';
        return line;
    }

    /** The answer a receiver gives to a sender's accepted handshake. */
    static byte[] reply(boolean withToken) {
        return withToken ? HANDSHAKE_V2_BYTES : HANDSHAKE_BYTES;
    }
}
