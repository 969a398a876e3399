package io.jfio.ship.tcp;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jfio.core.engine.EventRing;
import io.jfio.core.sys.Errno;
import io.jfio.core.sys.ErrnoException;
import io.jfio.core.sys.LibC;
import io.jfio.core.sys.SockaddrIn;
import io.jfio.core.sys.SockaddrIn6;
import io.jfio.core.sys.Sockets;
import io.jfio.ship.sink.Batch;
import io.jfio.ship.sink.Sink;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * A sink that streams batches to a TCP receiver, newline-framed, optionally with acknowledgements
 * ({@link TcpProtocol}).
 *
 * <p>Not thread-safe for callers: one pipeline thread calls {@link #send}, {@link #flush} and {@link #close}. With
 * acknowledgements, one daemon thread per connection ({@code jfio-tcp-ack}) reads the receiver's counts and
 * completes the futures; it shares only the lock-guarded window state with the pipeline thread.
 *
 * <p>The socket is our own (FFM socket/connect), and a batch goes from its native bytes (what the harvester read) to
 * the socket with send(2), never through the Java heap. Not with sendfile(2) from the source file: that reads the file
 * again when it sends, and a send held up by a slow receiver may then find the file truncated and written anew
 * (copytruncate) and send the new content's bytes in place of the ones read, checked and counted.
 *
 * <p>With acknowledgements, a batch's future completes when the receiver's count covers its last byte; the sink keeps
 * only the lengths of unacknowledged batches (the files on disk are the buffer) and blocks {@code send} while more
 * than {@link Options#window()} bytes are unacknowledged. When the connection breaks, every pending future fails and
 * the next {@code send} reconnects, after an exponential backoff (100 ms doubling to {@link Options#maxBackoff()}).
 * Without acknowledgements a batch counts as delivered once the kernel accepted it, which loses what was in flight
 * when the receiver crashes.
 *
 * <p>With TLS ({@link Options#security()}) the connection is the JDK's {@link SSLSocket} (TLS 1.3, the receiver's
 * certificate checked against the host name) and batches are copied from their native bytes into it: encryption
 * happens in user space. A token, if any, is sent in the handshake.
 */
public final class TcpSink implements Sink {
    private static final ValueLayout.OfLong BE_LONG = JAVA_LONG.withOrder(ByteOrder.BIG_ENDIAN);
    private static final long FIRST_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** How often the acknowledgement reader wakes to check {@link Options#ackTimeout()}. */
    private static final long ACK_POLL_MILLIS = 500;
    /** Batches up to this size are copied into the staging buffer and sent together at {@link #flush}. */
    static final long STAGE_MAX_BATCH = 64 << 10;
    /** The staging buffer: what one flush sends with one system call at most. */
    private static final long STAGE_BYTES = 256 << 10;
    /**
     * After taking an acknowledgement, the reader lets the next ones gather this long before it reads again, unless
     * someone waits for them: a receiver that acknowledges every read would else wake it once per batch.
     */
    private static final long ACK_GATHER_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    /** An acknowledgement of this much or more says the stream is fast: the next one is read at once. */
    private static final long ACK_GATHER_MAX_BYTES = 256 << 10;

    /**
     * How the sink behaves.
     *
     * @param ack              use the acknowledgement protocol (default true: at-least-once; false: plain stream)
     * @param window           most unacknowledged bytes before {@code send} blocks (default 64 MiB)
     * @param connectTimeout   longest wait for a connection, and for the receiver's handshake (default 5 s)
     * @param ackTimeout       a connection with unacknowledged data and no acknowledgement for this long is taken for
     *                         dead (default 30 s)
     * @param maxBackoff       cap of the reconnect backoff (default 5 s)
     * @param security         TLS and the token to present (default none); both need acknowledgements, since
     *                         they travel in the handshake
     */
    public record Options(boolean ack, long window, Duration connectTimeout, Duration ackTimeout, Duration maxBackoff,
                          TcpSecurity security) {
        public static final long WINDOW_DEFAULT = 64L << 20;

        public Options {
            if (window <= 0 || connectTimeout.isNegative() || connectTimeout.isZero() || ackTimeout.isNegative()
                    || ackTimeout.isZero() || maxBackoff.isNegative() || security == null) {
                throw new IllegalArgumentException("tcp sink options: window=" + window + " connectTimeout="
                        + connectTimeout + " ackTimeout=" + ackTimeout + " maxBackoff=" + maxBackoff);
            }
            if (!ack && (security.tls() != null || security.token() != null)) {
                throw new IllegalArgumentException("tcp sink: TLS and the token need acknowledgements (the "
                        + "handshake carries them); do not turn acknowledgements off");
            }
        }

        /** The defaults: acknowledgements on, 64 MiB window, 5 s connect, 30 s ack timeout, 5 s backoff. */
        public static Options defaults() {
            return new Options(true, WINDOW_DEFAULT, Duration.ofSeconds(5), Duration.ofSeconds(30),
                    Duration.ofSeconds(5), TcpSecurity.none());
        }

        public Options withAck(boolean value) {
            return new Options(value, window, connectTimeout, ackTimeout, maxBackoff, security);
        }

        public Options withWindow(long value) {
            return new Options(ack, value, connectTimeout, ackTimeout, maxBackoff, security);
        }

        public Options withConnectTimeout(Duration value) {
            return new Options(ack, window, value, ackTimeout, maxBackoff, security);
        }

        public Options withMaxBackoff(Duration value) {
            return new Options(ack, window, connectTimeout, ackTimeout, value, security);
        }

        public Options withSecurity(TcpSecurity value) {
            return new Options(ack, window, connectTimeout, ackTimeout, maxBackoff, value);
        }
    }

    private final String host;
    private final int port;
    private final Options options;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final AtomicLong copiedBytes = new AtomicLong();
    private final AtomicLong connects = new AtomicLong();
    /** Native memory of the staging buffer; allocated by the pipeline thread. */
    private final Arena arena = Arena.ofShared();
    /** Scratch for copying a batch into a TLS connection; owned by the pipeline thread, made on first use. */
    private byte[] tlsChunk;
    /**
     * Small batches of one round, copied here and sent with one send(2) at {@link #flush} (or when a batch does not
     * fit, or a large one must go after them): a round that read ten files makes one system call, not ten. Owned by
     * the pipeline thread; made on first use. Only with acknowledgements, where a batch is delivered when the
     * receiver says so: without them a batch counts as delivered when {@code send} returns.
     */
    private MemorySegment stage;
    /**
     * Whether the caller flushes (it called {@link #flush} once): only then are batches staged, since only then is
     * a flush sure to follow them. A caller that never flushes gets each batch sent at once.
     */
    private boolean flushes;
    private long staged;
    /**
     * The staged batches' acknowledgement, shared by all of them (they go with one send and are acknowledged
     * together): its end moves with each batch staged, and it closes when they are sent. One future and one entry per
     * round rather than per batch. Null while nothing is staged. Pipeline thread; its end is read under the lock.
     */
    private Pending stagedGroup;
    private final AtomicLong sendCalls = new AtomicLong();
    /** Set when the caller waits for the last acknowledgements (drain, finish): the reader then takes each at once. */
    private volatile boolean promptAcks;
    /** The caller waits for acknowledgements ({@link #acknowledgeSoon}; until it says otherwise): none gather. */
    private volatile boolean waitedFor = true;

    /**
     * The pipeline thread's ring ({@link #sendsWith}), or null: a flush's send is then queued on it, to go with the
     * pipeline's next wait. Pipeline thread only, like the fields below.
     */
    private EventRing ring;
    /** The connection of the ring send in flight (queued or submitted, not completed), or null when none is. */
    private Connection ringConn;
    /** How much of the stage the ring send in flight carries, and how much of that has gone. */
    private long ringLength;
    private long ringDone;
    private final EventRing.Completion ringSent = this::ringSent;

    private Connection conn;
    private long backoffNanos;
    private long nextAttemptNanos = System.nanoTime();
    private boolean closed;

    /** A sink for {@code host:port}; connects on the first {@link #send}. The host is resolved then, by the JDK. */
    public TcpSink(String host, int port, Options options) {
        if (host == null || host.isEmpty() || port <= 0 || port > 65535) {
            throw new IllegalArgumentException("tcp sink: bad address host=" + host + " port=" + port);
        }
        this.host = host;
        this.port = port;
        this.options = options;
    }

    @Override
    public String describe() {
        String h = host.indexOf(':') >= 0 ? "[" + host + "]" : host;
        return "tcp:" + h + ":" + port + (options.ack() ? "" : " (no ack)")
                + (options.security().tls() != null ? " (tls)" : "");
    }

    /** Bytes written from the batches' native memory with send(2) so far. */
    public long copiedBytes() {
        return copiedBytes.get();
    }

    /** Connections made so far. */
    public long connects() {
        return connects.get();
    }

    /** System calls that moved batch bytes so far: a measure of how well small batches are joined. */
    public long sendCalls() {
        return sendCalls.get();
    }

    /** Bytes sent and not yet acknowledged on the current connection (0 without acknowledgements). */
    public long unacknowledged() {
        lock.lock();
        try {
            return conn == null || conn.dead ? 0 : conn.sent - conn.acked;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public CompletableFuture<Void> send(Batch batch) throws IOException {
        if (closed) {
            throw new IOException("tcp sink closed: " + describe());
        }
        settle();
        Connection c = connection();
        if (options.ack()) {
            awaitWindow(c, batch.payload().byteSize());
        }
        long end;
        try {
            MemorySegment payload = batch.payload();
            long plen = payload.byteSize();
            if (flushes && options.ack() && c.tls == null && plen <= STAGE_MAX_BATCH) {
                if (stage == null) {
                    stage = arena.allocate(STAGE_BYTES, 64);
                }
                if (staged + plen > STAGE_BYTES) {
                    sendStaged(c);
                }
                MemorySegment.copy(payload, 0, stage, staged, plen);
                staged += plen;
                end = c.sent + staged; // the pipeline thread alone moves sent
            } else {
                sendStaged(c);
                transfer(c, batch);
                end = c.sent;
            }
        } catch (IOException e) {
            lost(c, e);
            throw new IOException("send to " + describe() + " failed: " + e.getMessage(), e);
        }
        if (!options.ack()) {
            return CompletableFuture.completedFuture(null);
        }
        boolean staging = staged > 0;
        lock.lock();
        try {
            Pending g = stagedGroup;
            if (staging && g != null && g.connection == c) {
                // Staged behind the group's earlier batches: the same send carries it. Its bytes are past the
                // limit, so no acknowledgement can have completed the group (a dead connection failed it).
                if (!c.dead) {
                    g.end = end;
                }
                return g.future;
            }
            CompletableFuture<Void> f = new CompletableFuture<>();
            if (c.dead) {
                f.completeExceptionally(c.cause);
            } else if (c.acked >= end) {
                f.complete(null);
            } else {
                Pending p = new Pending(c, end, f);
                c.pending.add(p);
                if (staging) {
                    stagedGroup = p;
                }
            }
            return f;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Sends the staged batches (one send(2) unless the socket takes them in parts). Pipeline thread only.
     *
     * @throws IOException when the connection fails; the caller marks it lost, which fails the staged futures too
     */
    private void sendStaged(Connection c) throws IOException {
        sendStaged(c, false);
    }

    /**
     * As above; with {@code queue} (and a ring), the send is queued on the ring instead and completes in {@link
     * #ringSent}: the stage and the connection's {@code sent} are then not touched until {@link #settle}.
     */
    private void sendStaged(Connection c, boolean queue) throws IOException {
        if (staged == 0) {
            return;
        }
        long length = staged;
        staged = 0;
        stagedGroup = null;
        lock.lock();
        try {
            c.limit = c.sent + length;
        } finally {
            lock.unlock();
        }
        if (queue && ring != null) {
            ringConn = c;
            ringLength = length;
            ringDone = 0;
            queueRest(c);
            return;
        }
        long done = 0;
        while (done < length) {
            long n = LibC.send(c.fd, done == 0 ? stage : stage.asSlice(done), length - done, Sockets.MSG_NOSIGNAL);
            sendCalls.incrementAndGet();
            if (n == -Errno.EINTR || n == -Errno.EAGAIN) {
                continue;
            }
            if (n < 0) {
                throw new ErrnoException("send", (int) -n, c.fd, describe(), c.sent, length - done);
            }
            done += n;
            copied(c, n);
        }
    }

    /** Blocks while the window is full; an empty window always takes a batch, however large. */
    private void awaitWindow(Connection c, long length) throws IOException {
        lock.lock();
        try {
            boolean waited = false;
            while (!c.dead && c.sent - c.acked > 0 && c.sent - c.acked + length > options.window()) {
                if (!waited) {
                    waited = true;
                    c.waiting = true;
                    if (c.reader != null) {
                        LockSupport.unpark(c.reader); // it may be letting acknowledgements gather
                    }
                }
                changed.awaitUninterruptibly();
            }
            c.waiting = false;
            if (c.dead) {
                throw new IOException("connection to " + describe() + " lost: " + c.cause.getMessage(), c.cause);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Sends the whole batch: loops over short transfers, retries EINTR, waits out EAGAIN. */
    private void transfer(Connection c, Batch batch) throws IOException {
        long done = 0;
        long length = batch.payload().byteSize();
        lock.lock();
        try {
            // The receiver may acknowledge bytes of this batch before the syscall that sent them has returned.
            c.limit = c.sent + length;
        } finally {
            lock.unlock();
        }
        if (c.tls != null) {
            transferTls(c, batch);
            return;
        }
        // The payload: the bytes the harvester read (or their encoding), never the file again (see the class doc).
        while (done < length) {
            long n = LibC.send(c.fd, batch.payload().asSlice(done), length - done, Sockets.MSG_NOSIGNAL);
            sendCalls.incrementAndGet();
            if (n > 0) {
                copiedBytes.addAndGet(n);
            }
            if (n == -Errno.EINTR || n == -Errno.EAGAIN) {
                continue; // blocking socket: EAGAIN only if a timeout was set; just try again
            }
            if (n < 0) {
                throw new ErrnoException("send", (int) -n, c.fd, batch.source(),
                        batch.offset() + done, length - done);
            }
            done += n;
            lock.lock();
            try {
                c.sent += n;
            } finally {
                lock.unlock();
            }
        }
    }

    /** Copies the batch's native bytes into the TLS connection, in chunks. */
    private void transferTls(Connection c, Batch batch) throws IOException {
        if (tlsChunk == null) {
            tlsChunk = new byte[256 << 10];
        }
        MemorySegment bytes = batch.payload();
        long length = bytes.byteSize();
        long done = 0;
        while (done < length) {
            int n = (int) Math.min(tlsChunk.length, length - done);
            MemorySegment.copy(bytes, JAVA_BYTE, done, tlsChunk, 0, n);
            c.tls.out.write(tlsChunk, 0, n);
            done += n;
            copied(c, n);
        }
    }

    /** The live connection, reconnecting (after the backoff) when there is none. */
    private Connection connection() throws IOException {
        if (conn != null && !conn.dead) {
            return conn;
        }
        if (conn != null) {
            release(conn);
            conn = null;
            staged = 0; // their futures failed with the connection
            stagedGroup = null;
        }
        long wait = nextAttemptNanos - System.nanoTime();
        if (wait > 0) {
            try {
                TimeUnit.NANOSECONDS.sleep(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting to reconnect to " + describe(), e);
            }
        }
        try {
            conn = open();
            backoffNanos = 0;
            connects.incrementAndGet();
            return conn;
        } catch (IOException e) {
            backoffNanos = backoffNanos == 0 ? FIRST_BACKOFF_NANOS
                    : Math.min(backoffNanos * 2, options.maxBackoff().toNanos());
            nextAttemptNanos = System.nanoTime() + backoffNanos;
            throw e;
        }
    }

    private Connection open() throws IOException {
        InetAddress[] addresses;
        try {
            addresses = InetAddress.getAllByName(host);
        } catch (UnknownHostException e) {
            throw new IOException("tcp sink: cannot resolve host " + host + ": " + e.getMessage(), e);
        }
        IOException failure = null;
        for (InetAddress a : addresses) {
            try {
                return open(a);
            } catch (IOException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        throw failure;
    }

    private Connection open(InetAddress address) throws IOException {
        if (options.security().tls() != null) {
            return openTls(address);
        }
        boolean v6 = address instanceof Inet6Address;
        int fd = LibC.socket(v6 ? Sockets.AF_INET6 : Sockets.AF_INET, Sockets.SOCK_STREAM | Sockets.SOCK_CLOEXEC, 0);
        ErrnoException.check(fd, "socket", -1, describe());
        boolean ok = false;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment one = a.allocate(JAVA_INT);
            one.set(JAVA_INT, 0, 1);
            // Small batches at the end of a burst should not wait for Nagle; big ones fill segments anyway.
            ErrnoException.check(LibC.setsockopt(fd, Sockets.IPPROTO_TCP, Sockets.TCP_NODELAY, one, 4),
                    "setsockopt(TCP_NODELAY)", fd, describe());
            ErrnoException.check(LibC.setsockopt(fd, Sockets.SOL_SOCKET, Sockets.SO_KEEPALIVE, one, 4),
                    "setsockopt(SO_KEEPALIVE)", fd, describe());
            MemorySegment tv = a.allocate(Sockets.TIMEVAL_SIZE);
            // On a blocking socket Linux bounds connect(2) by SO_SNDTIMEO; no non-blocking connect+poll dance needed.
            Sockets.setTimeval(tv, options.connectTimeout().toMillis());
            ErrnoException.check(LibC.setsockopt(fd, Sockets.SOL_SOCKET, Sockets.SO_SNDTIMEO, tv,
                    (int) Sockets.TIMEVAL_SIZE), "setsockopt(SO_SNDTIMEO)", fd, describe());
            MemorySegment sa;
            if (v6) {
                sa = a.allocate(SockaddrIn6.LAYOUT);
                SockaddrIn6.set(sa, address.getAddress(), port, ((Inet6Address) address).getScopeId());
            } else {
                sa = a.allocate(SockaddrIn.LAYOUT);
                SockaddrIn.set(sa, address.getAddress(), port);
            }
            int r;
            do {
                r = LibC.connect(fd, sa, (int) sa.byteSize());
            } while (r == -Errno.EINTR);
            if (r == -Errno.EINPROGRESS || r == -Errno.EAGAIN) {
                throw new IOException("connect to " + address.getHostAddress() + ":" + port + " timed out after "
                        + options.connectTimeout().toMillis() + " ms");
            }
            if (r < 0) {
                throw new IOException("connect to " + address.getHostAddress() + ":" + port + " failed: "
                        + Errno.name(r) + " (" + Errno.describe(r) + ")");
            }
            Connection c = new Connection(fd, null);
            if (options.ack()) {
                ErrnoException.check(LibC.setsockopt(c.fd, Sockets.SOL_SOCKET, Sockets.SO_RCVTIMEO, tv,
                        (int) Sockets.TIMEVAL_SIZE), "setsockopt(SO_RCVTIMEO)", c.fd, describe());
                handshake(c);
                // Sends block as long as the receiver is alive; liveness is the ack reader's job (ackTimeout).
                Sockets.setTimeval(tv, 0);
                ErrnoException.check(LibC.setsockopt(fd, Sockets.SOL_SOCKET, Sockets.SO_SNDTIMEO, tv,
                        (int) Sockets.TIMEVAL_SIZE), "setsockopt(SO_SNDTIMEO)", fd, describe());
                Sockets.setTimeval(tv, ACK_POLL_MILLIS);
                ErrnoException.check(LibC.setsockopt(fd, Sockets.SOL_SOCKET, Sockets.SO_RCVTIMEO, tv,
                        (int) Sockets.TIMEVAL_SIZE), "setsockopt(SO_RCVTIMEO)", fd, describe());
                c.reader = Thread.ofPlatform().daemon().name("jfio-tcp-ack " + host + ":" + port)
                        .start(() -> readAcks(c));
            } else {
                Sockets.setTimeval(tv, 0);
                ErrnoException.check(LibC.setsockopt(fd, Sockets.SOL_SOCKET, Sockets.SO_SNDTIMEO, tv,
                        (int) Sockets.TIMEVAL_SIZE), "setsockopt(SO_SNDTIMEO)", fd, describe());
            }
            ok = true;
            return c;
        } finally {
            if (!ok) {
                LibC.close(fd);
            }
        }
    }

    /** A TLS connection: TCP connect, TLS handshake (both within the connect timeout), then the handshake line. */
    private Connection openTls(InetAddress address) throws IOException {
        String where = address.getHostAddress() + ":" + port;
        int timeout = (int) Math.min(Integer.MAX_VALUE, options.connectTimeout().toMillis());
        Socket plain = new Socket();
        boolean ok = false;
        try {
            plain.setTcpNoDelay(true);
            plain.setKeepAlive(true);
            try {
                plain.connect(new InetSocketAddress(address, port), timeout);
            } catch (SocketTimeoutException e) {
                throw new IOException("connect to " + where + " timed out after " + timeout + " ms");
            } catch (IOException e) {
                throw new IOException("connect to " + where + " failed: " + e.getMessage());
            }
            // The host as given: its name (or address) is what the receiver's certificate must name.
            SSLSocket ssl = (SSLSocket) options.security().tls().getSocketFactory().createSocket(plain, host, port,
                    true);
            SSLParameters p = ssl.getSSLParameters();
            p.setProtocols(new String[] {TcpSecurity.TLS_VERSION});
            p.setEndpointIdentificationAlgorithm("HTTPS");
            ssl.setSSLParameters(p);
            ssl.setSoTimeout(timeout);
            try {
                ssl.startHandshake();
            } catch (SocketTimeoutException e) {
                throw new IOException(describe() + ": no TLS handshake within " + timeout + " ms; does the "
                        + "receiver speak TLS?");
            } catch (SSLException e) {
                throw new IOException(describe() + ": TLS handshake failed: " + e.getMessage());
            }
            Connection c = new Connection(-1, new TlsStream(plain, ssl));
            handshake(c);
            ssl.setSoTimeout((int) ACK_POLL_MILLIS);
            c.reader = Thread.ofPlatform().daemon().name("jfio-tcp-ack " + host + ":" + port)
                    .start(() -> readAcks(c));
            ok = true;
            return c;
        } finally {
            if (!ok) {
                plain.close();
            }
        }
    }

    /**
     * Sends the handshake line (with the token, if any) and waits (at most the connect timeout: the socket's read
     * timeout is set) for the receiver's answer line; a refusal ({@code JFIO-SHIP error ...}) says why.
     */
    private void handshake(Connection c) throws IOException {
        byte[] line = TcpProtocol.handshake(options.security().token());
        sendAll(c, line);
        byte[] expected = TcpProtocol.reply(options.security().token() != null);
        byte[] reply = new byte[TcpProtocol.MAX_LINE];
        int have = 0;
        while (have == 0 || reply[have - 1] != '\n') {
            if (have == reply.length) {
                throw new IOException(describe() + " answered the handshake with something else than "
                        + new String(expected, StandardCharsets.US_ASCII).strip() + "; is it a jfio receiver?");
            }
            int b = recvByte(c);
            if (b < 0) {
                throw new IOException(describe() + " did not answer the acknowledgement handshake ("
                        + (b == -1 ? "closed the connection" : "no answer in " + options.connectTimeout().toMillis()
                        + " ms") + "); is it a jfio receiver? A plain listener needs the sink without ack");
            }
            reply[have++] = (byte) b;
        }
        String text = new String(reply, 0, have, StandardCharsets.US_ASCII);
        if (text.startsWith(TcpProtocol.ERROR_PREFIX)) {
            throw new IOException(describe() + " refused the connection: "
                    + text.substring(TcpProtocol.ERROR_PREFIX.length()).strip());
        }
        if (!Arrays.equals(Arrays.copyOf(reply, have), expected)) {
            throw new IOException(describe() + " answered the handshake with something else than "
                    + new String(expected, StandardCharsets.US_ASCII).strip() + "; is it a jfio receiver?");
        }
    }

    private void sendAll(Connection c, byte[] bytes) throws IOException {
        if (c.tls != null) {
            c.tls.out.write(bytes);
            c.tls.out.flush();
            return;
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment seg = a.allocate(bytes.length);
            MemorySegment.copy(bytes, 0, seg, JAVA_BYTE, 0, bytes.length);
            long off = 0;
            while (off < seg.byteSize()) {
                long n = LibC.send(c.fd, seg.asSlice(off), seg.byteSize() - off, Sockets.MSG_NOSIGNAL);
                if (n == -Errno.EINTR) {
                    continue;
                }
                ErrnoException.check(n, "send(handshake)", c.fd, describe());
                off += n;
            }
        }
    }

    /** One byte of the handshake's answer; -1 at the end of the stream, -2 when the read timed out. */
    private int recvByte(Connection c) throws IOException {
        if (c.tls != null) {
            try {
                return c.tls.in.read();
            } catch (SocketTimeoutException e) {
                return -2;
            }
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment one = a.allocate(1);
            while (true) {
                long n = LibC.recv(c.fd, one, 1, 0);
                if (n == -Errno.EINTR) {
                    continue;
                }
                if (n == -Errno.EAGAIN) {
                    return -2;
                }
                if (n == 0) {
                    return -1;
                }
                ErrnoException.check(n, "recv(handshake)", c.fd, describe());
                return one.get(JAVA_BYTE, 0) & 0xff;
            }
        }
    }

    /**
     * Reads acknowledgement bytes into {@code buf}: the count read, 0 at the end of the stream, {@code -EAGAIN} when
     * the poll interval passed without data, another negative errno on a socket error (TLS: an exception).
     */
    private long recv(Connection c, MemorySegment buf) throws IOException {
        if (c.tls == null) {
            return LibC.recv(c.fd, buf, buf.byteSize(), 0);
        }
        byte[] b = new byte[(int) buf.byteSize()];
        int n;
        try {
            n = c.tls.in.read(b);
        } catch (SocketTimeoutException e) {
            return -Errno.EAGAIN;
        }
        if (n < 0) {
            return 0;
        }
        MemorySegment.copy(b, 0, buf, JAVA_BYTE, 0, n);
        return n;
    }

    /** The acknowledgement reader's loop: one per connection, until the connection dies. */
    private void readAcks(Connection c) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment buf = a.allocate(TcpProtocol.ACK_BYTES * 64L);
            ArrayList<Pending> completed = new ArrayList<>(); // reused by every acknowledgement of this reader
            long have = 0;
            long lastProgress = System.nanoTime();
            while (true) {
                long n;
                try {
                    n = recv(c, have == 0 ? buf : buf.asSlice(have, buf.byteSize() - have));
                } catch (IOException e) {
                    lost(c, new IOException("reading acknowledgements from " + describe() + " failed: "
                            + e.getMessage(), e));
                    return;
                }
                if (n == -Errno.EINTR) {
                    continue;
                }
                if (n == -Errno.EAGAIN) {
                    lock.lock();
                    try {
                        if (c.dead) {
                            return;
                        }
                        if (c.sent == c.acked || c.closing) {
                            lastProgress = System.nanoTime();
                        }
                    } finally {
                        lock.unlock();
                    }
                    if (System.nanoTime() - lastProgress > options.ackTimeout().toNanos()) {
                        lost(c, new IOException("no acknowledgement from " + describe() + " for "
                                + options.ackTimeout().toMillis() + " ms"));
                        return;
                    }
                    continue;
                }
                if (n == 0) {
                    lost(c, new IOException(describe() + " closed the connection"));
                    return;
                }
                if (n < 0) {
                    lost(c, new ErrnoException("recv(ack)", (int) -n, c.fd, describe(), ErrnoException.NONE,
                            ErrnoException.NONE));
                    return;
                }
                have += n;
                // A full buffer may have left acknowledgements in the socket: they are read before any gathering, or
                // a stream acknowledged more often than the buffer holds per gathering wait would fall behind.
                boolean full = have == buf.byteSize();
                long whole = have - have % TcpProtocol.ACK_BYTES;
                if (whole > 0) {
                    long count = buf.get(BE_LONG, whole - TcpProtocol.ACK_BYTES);
                    MemorySegment.copy(buf, whole, buf, 0, have - whole);
                    have -= whole;
                    lastProgress = System.nanoTime();
                    long before = c.acked; // the reader alone moves it
                    if (!acknowledge(c, count, completed)) {
                        return;
                    }
                    if (!full) {
                        gatherAcks(c, count - before);
                    }
                }
            }
        }
    }

    /**
     * Lets the next acknowledgements gather for {@link #ACK_GATHER_NANOS} while nobody waits for them (no send
     * blocked on a full window, no drain, finish or close) and the stream is slow (the last one acknowledged less than
     * {@link #ACK_GATHER_MAX_BYTES}): one wake-up of the reader then takes many. The pipeline takes acknowledgements
     * when it turns anyway, so they are not late for anything but the window, which wakes the reader
     * ({@link #awaitWindow}); a fast stream is acknowledged as it comes, as before.
     */
    private void gatherAcks(Connection c, long acknowledged) {
        if (promptAcks || waitedFor || c.waiting || acknowledged >= ACK_GATHER_MAX_BYTES) {
            return;
        }
        LockSupport.parkNanos(this, ACK_GATHER_NANOS);
    }

    /** Applies a cumulative count; completes covered futures in order. False when the connection is done. */
    private boolean acknowledge(Connection c, long count, ArrayList<Pending> done) {
        done.clear();
        IOException violation = null;
        lock.lock();
        try {
            if (c.dead) {
                return false;
            }
            if (count > c.limit || count < c.acked) {
                violation = new IOException(describe() + " acknowledged " + count + " bytes; sent " + c.limit
                        + ", acknowledged before " + c.acked + ": protocol violation");
            } else {
                c.acked = count;
                while (!c.pending.isEmpty() && c.pending.peekFirst().end <= count) {
                    done.add(c.pending.pollFirst());
                }
                changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
        if (violation != null) {
            lost(c, violation);
            return false;
        }
        // Complete outside the lock: continuations may run here and must not deadlock with send().
        for (int i = 0; i < done.size(); i++) {
            done.get(i).future.complete(null);
        }
        done.clear();
        return true;
    }

    /** Marks the connection dead, fails its pending futures and wakes everything blocked on it. Idempotent. */
    private void lost(Connection c, IOException cause) {
        ArrayDeque<Pending> failed;
        lock.lock();
        try {
            if (c.dead) {
                return;
            }
            c.dead = true;
            c.cause = cause;
            failed = new ArrayDeque<>(c.pending);
            c.pending.clear();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        // Wakes a send blocked in send(2) and the ack reader; the descriptor itself is closed by the owner thread.
        if (c.tls != null) {
            c.tls.shutdown();
        } else {
            LibC.shutdown(c.fd, Sockets.SHUT_RDWR);
        }
        IOException failure = new IOException("connection to " + describe() + " lost with unacknowledged data: "
                + cause.getMessage(), cause);
        for (Pending p : failed) {
            p.future.completeExceptionally(failure);
        }
    }

    /** Owner thread only: joins the reader and closes the descriptor of a dead connection. */
    private void release(Connection c) {
        if (c.reader != null) {
            try {
                c.reader.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (c.tls != null) {
            c.tls.close();
        } else {
            LibC.close(c.fd);
        }
    }

    /**
     * Sends the staged batches; nothing else to do: the receiver syncs on its own timer, and every other byte is
     * already in the kernel's hands.
     */
    @Override
    public void flush() throws IOException {
        flushes = true;
        Connection c = conn;
        if (staged == 0 || c == null) {
            return;
        }
        if (c.dead) {
            staged = 0; // their futures failed with the connection
            stagedGroup = null;
            return;
        }
        try {
            settle();
            sendStaged(c, c.tls == null);
        } catch (IOException e) {
            lost(c, e);
            throw new IOException("send to " + describe() + " failed: " + e.getMessage(), e);
        }
    }

    @Override
    public void sendsWith(EventRing ring) throws IOException {
        settle();
        this.ring = ring;
    }

    /**
     * Waits until the ring send in flight, if any, has completed (submitting it if it is still queued): before the
     * stage, the connection's {@code sent} or its descriptor are touched. Like a blocking send(2), this lasts while
     * the receiver is alive and does not take the bytes; the acknowledgement reader ends it by shutting the socket
     * down when the receiver stops answering.
     */
    private void settle() throws IOException {
        if (ringConn == null) {
            return;
        }
        ring.submit();
        while (ringConn != null) {
            ring.awaitAny(TimeUnit.SECONDS.toNanos(1));
        }
    }

    /** Queues the send of the stage's bytes from {@link #ringDone} to {@link #ringLength} on the ring. */
    private void queueRest(Connection c) {
        ring.send(c.fd, stage.asSlice(ringDone, ringLength - ringDone), Sockets.MSG_NOSIGNAL, ringSent);
        sendCalls.incrementAndGet();
    }

    /** {@code n} bytes of the batches' own memory went out on {@code c}. */
    private void copied(Connection c, long n) {
        copiedBytes.addAndGet(n);
        lock.lock();
        try {
            c.sent += n;
        } finally {
            lock.unlock();
        }
    }

    /** The ring send's completion (pipeline thread, from inside a ring wait): the bytes sent, or -errno. */
    private void ringSent(int result) {
        Connection c = ringConn;
        if (result >= 0) {
            ringDone += result;
            copied(c, result);
        }
        if ((result >= 0 || result == -Errno.EINTR || result == -Errno.EAGAIN) && ringDone < ringLength && !c.dead) {
            // Taken in part (kernels without MSG_WAITALL for ring sends) or interrupted: the rest goes the same way.
            queueRest(c);
            return;
        }
        ringConn = null;
        if (result < 0 && ringDone < ringLength) {
            lost(c, new ErrnoException("send", -result, c.fd, describe(), c.sent, ringLength - ringDone));
        }
    }

    @Override
    public void acknowledgeSoon(boolean soon) {
        waitedFor = soon;
        Connection c = conn;
        if (soon && c != null && c.reader != null) {
            LockSupport.unpark(c.reader);
        }
    }

    /** The caller waits for every acknowledgement now: the staged batches go, and the reader stops gathering. */
    @Override
    public void drain() throws IOException {
        promptAcks = true;
        flush();
    }

    @Override
    public void finish() throws IOException {
        promptAcks = true;
        flush();
    }

    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            try {
                settle();
            } catch (IOException e) {
                // A ring that cannot wait: the connection goes below, and with it what was unacknowledged.
            }
            Connection c = conn;
            conn = null;
            if (c == null) {
                return;
            }
            promptAcks = true;
            if (!c.dead && staged > 0) {
                try {
                    sendStaged(c);
                } catch (IOException e) {
                    lost(c, e);
                }
            }
            if (!c.dead && options.ack()) {
                // FIN first: the receiver sees the end, syncs what is left and sends its last acknowledgement.
                lock.lock();
                try {
                    c.closing = true;
                } finally {
                    lock.unlock();
                }
                if (c.tls != null) {
                    c.tls.shutdownOutput();
                } else {
                    LibC.shutdown(c.fd, Sockets.SHUT_WR);
                }
                long deadline = System.nanoTime() + options.connectTimeout().toNanos();
                lock.lock();
                try {
                    while (!c.dead && c.acked < c.sent) {
                        long left = deadline - System.nanoTime();
                        if (left <= 0) {
                            break;
                        }
                        changed.awaitNanos(left);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    lock.unlock();
                }
            }
            lost(c, new IOException("tcp sink closed"));
            release(c);
        } finally {
            arena.close();
        }
    }

    /**
     * One unacknowledged batch, or the staged batches of one send: the connection's byte count at its end (guarded by
     * the sink's lock: it moves while batches are staged) and its future.
     */
    private static final class Pending {
        final Connection connection;
        long end;
        final CompletableFuture<Void> future;

        Pending(Connection connection, long end, CompletableFuture<Void> future) {
            this.connection = connection;
            this.end = end;
            this.future = future;
        }
    }

    /** One TCP connection; fields other than fd, tls and reader are guarded by the sink's lock. */
    private static final class Connection {
        /** The socket of a plain connection; -1 with TLS. */
        final int fd;
        /** The TLS stream, or null for a plain connection. */
        final TlsStream tls;
        Thread reader;
        long sent;
        /** sent plus what the transfer in progress may have put on the wire already: no ack may exceed it. */
        long limit;
        long acked;
        boolean dead;
        boolean closing;
        /** The pipeline waits in {@link #awaitWindow}: the reader takes acknowledgements at once. */
        volatile boolean waiting;
        IOException cause;
        final ArrayDeque<Pending> pending = new ArrayDeque<>();

        Connection(int fd, TlsStream tls) {
            this.fd = fd;
            this.tls = tls;
        }
    }

    /**
     * A TLS connection: the JDK's socket and the TLS socket over it. The pipeline thread writes while the ack reader
     * reads; {@link #shutdown} (any thread) wakes both through the plain socket.
     */
    private static final class TlsStream {
        final Socket plain;
        final SSLSocket ssl;
        final InputStream in;
        final OutputStream out;

        TlsStream(Socket plain, SSLSocket ssl) throws IOException {
            this.plain = plain;
            this.ssl = ssl;
            this.in = ssl.getInputStream();
            this.out = ssl.getOutputStream();
        }

        /** Ends the stream (TLS close_notify): the receiver sees the end; reading acknowledgements goes on. */
        void shutdownOutput() {
            try {
                ssl.shutdownOutput();
            } catch (IOException e) {
                // broken already: the ack reader notices
            }
        }

        void shutdown() {
            try {
                plain.shutdownInput();
            } catch (IOException e) {
                // closed or broken already
            }
            try {
                plain.shutdownOutput();
            } catch (IOException e) {
                // closed or broken already
            }
        }

        void close() {
            try {
                plain.close();
            } catch (IOException e) {
                // nothing left to release
            }
        }
    }
}
