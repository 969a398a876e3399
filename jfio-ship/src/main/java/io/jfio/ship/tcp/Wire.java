package io.jfio.ship.tcp;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import javax.net.ssl.SSLSocket;

/**
 * The byte stream of one {@link TcpReceiver} connection: the socket itself, or TLS over it.
 *
 * <p>One thread reads while another writes (the reader and the syncer of a connection); {@link #close} may be called
 * from any thread and makes blocked calls fail.
 */
interface Wire {
    /** Reads into {@code dst}; -1 at the end of the stream. */
    int read(ByteBuffer dst) throws IOException;

    /** Writes all of {@code src}. */
    void write(ByteBuffer src) throws IOException;

    /** The sender's data ends here: the reader sees the end of the stream. */
    void shutdownInput() throws IOException;

    /** Nothing more is sent: the peer sees the end of the stream after what was written. */
    void shutdownOutput() throws IOException;

    /** A plain TCP connection. */
    static Wire plain(SocketChannel ch) {
        return new Wire() {
            @Override
            public int read(ByteBuffer dst) throws IOException {
                return ch.read(dst);
            }

            @Override
            public void write(ByteBuffer src) throws IOException {
                while (src.hasRemaining()) {
                    ch.write(src);
                }
            }

            @Override
            public void shutdownInput() throws IOException {
                ch.shutdownInput();
            }

            @Override
            public void shutdownOutput() throws IOException {
                ch.shutdownOutput();
            }
        };
    }

    /** TLS over the connection's socket; the handshake is done. Closing the channel closes it. */
    static Wire tls(SSLSocket s) throws IOException {
        InputStream in = s.getInputStream();
        OutputStream out = s.getOutputStream();
        return new Wire() {
            private final byte[] readBuf = new byte[64 << 10];
            private final byte[] writeBuf = new byte[4096];

            @Override
            public int read(ByteBuffer dst) throws IOException {
                int n = in.read(readBuf, 0, Math.min(readBuf.length, dst.remaining()));
                if (n > 0) {
                    dst.put(readBuf, 0, n);
                }
                return n;
            }

            @Override
            public void write(ByteBuffer src) throws IOException {
                while (src.hasRemaining()) {
                    int n = Math.min(writeBuf.length, src.remaining());
                    src.get(writeBuf, 0, n);
                    out.write(writeBuf, 0, n);
                }
                out.flush();
            }

            @Override
            public void shutdownInput() throws IOException {
                s.shutdownInput();
            }

            @Override
            public void shutdownOutput() throws IOException {
                s.shutdownOutput();
            }
        };
    }
}
