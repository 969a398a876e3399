package io.jfio.ship.tcp;

import io.jfio.ship.state.CheckpointStore;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.UnresolvedAddressException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * The receiving end of {@link TcpSink}: accepts connections, writes what arrives to files and, for senders that open
 * with the acknowledgement handshake ({@link TcpProtocol}), acknowledges what it has made durable.
 *
 * <p>Thread-safe. One acceptor thread (it closes connections beyond {@link Options#maxConnections()} at once, and
 * backs off from 10 ms to 1 s while accepting fails, e.g. at the descriptor limit); per connection a reader thread
 * (socket to file, 1 MiB direct buffer, no per-record work) and, with acknowledgements, a syncer thread that
 * fdatasyncs the file at most every {@link Options#syncInterval()} or every {@link Options#syncBytes()} and then
 * sends the synced count. Syncing on its own thread keeps the socket read while the disk flushes.
 *
 * <p>Each connection writes its own file in the output directory, {@code receive-<epoch-millis>-<n>.log}, created
 * new: a stream is never mixed with another one or cut between connections, and what a sender resends after a
 * reconnect lands in the next file. Without an output directory the receiver discards the data (acknowledging it at
 * once), which measures the network path alone.
 *
 * <p>With {@link Options#security()} a connection first passes TLS (the JDK's, optionally requiring a client
 * certificate) and the token check of the version 2 handshake ({@link TcpProtocol}); one that fails, or does not
 * finish within {@link Options#handshakeTimeout()}, is closed with a log line before any file is made.
 */
public final class TcpReceiver implements AutoCloseable {
    private static final int BUFFER = 1 << 20;
    /** Accept failures (descriptor limit, out of memory) wait this long first, doubling up to the maximum. */
    private static final long FIRST_ACCEPT_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final long MAX_ACCEPT_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** A kind of error line (accept failures, refused connections) is printed at most once per this interval. */
    private static final long LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

    /**
     * How the receiver behaves.
     *
     * @param syncInterval   the longest time received data waits for its fsync and acknowledgement (default 10 ms)
     * @param syncBytes      sync early once this much data is unsynced (default 4 MiB)
     * @param maxConnections most connections served at once; more are closed as soon as they are accepted
     *                       (default {@link #MAX_CONNECTIONS_DEFAULT})
     * @param security       TLS and the token senders must present (default none: plain TCP, no token)
     * @param handshakeTimeout with TLS or a token, a connection that has not passed its checks by then is closed
     *                       (default 10 s), so that silent peers cannot hold the connection slots
     */
    public record Options(Duration syncInterval, long syncBytes, int maxConnections, TcpSecurity security,
                          Duration handshakeTimeout) {
        /** The default connection limit: each connection holds a 1 MiB buffer, a file and one or two threads. */
        public static final int MAX_CONNECTIONS_DEFAULT = 64;

        public Options {
            if (syncInterval.isNegative() || syncInterval.isZero() || syncBytes <= 0 || maxConnections <= 0
                    || security == null || handshakeTimeout.isNegative() || handshakeTimeout.isZero()) {
                throw new IllegalArgumentException("receiver options: syncInterval=" + syncInterval
                        + " syncBytes=" + syncBytes + " maxConnections=" + maxConnections);
            }
        }

        /** 10 ms, 4 MiB, 64 connections, no TLS, no token, 10 s handshake timeout. */
        public static Options defaults() {
            return new Options(Duration.ofMillis(10), 4L << 20, MAX_CONNECTIONS_DEFAULT, TcpSecurity.none(),
                    Duration.ofSeconds(10));
        }

        public Options withSyncInterval(Duration value) {
            return new Options(value, syncBytes, maxConnections, security, handshakeTimeout);
        }

        public Options withMaxConnections(int value) {
            return new Options(syncInterval, syncBytes, value, security, handshakeTimeout);
        }

        public Options withSecurity(TcpSecurity value) {
            return new Options(syncInterval, syncBytes, maxConnections, value, handshakeTimeout);
        }

        public Options withHandshakeTimeout(Duration value) {
            return new Options(syncInterval, syncBytes, maxConnections, security, value);
        }

        /** Whether a connection must pass a check (TLS or token) before anything it sends is kept. */
        boolean secured() {
            return security.tls() != null || security.token() != null;
        }
    }

    /** What a {@link StartException} is about: the address to listen on, or the output directory. */
    public enum StartPart {
        LISTEN, DIRECTORY
    }

    /** The receiver could not start; the message says why, in one line, for the user. */
    public static final class StartException extends IOException {
        private static final long serialVersionUID = 1L;
        private final StartPart part;

        StartException(StartPart part, String message) {
            super(message);
            this.part = part;
        }

        /** Which part of the setup failed. */
        public StartPart part() {
            return part;
        }
    }

    private final ServerSocketChannel server;
    private final Path dir;
    private final Options options;
    private final PrintStream log;
    private final Thread acceptor;
    private final Set<Conn> conns = ConcurrentHashMap.newKeySet();
    private final AtomicLong received = new AtomicLong();
    private final AtomicLong durable = new AtomicLong();
    private final AtomicLong fileSeq = new AtomicLong();
    private final List<Path> files = new ArrayList<>();
    private final RateLimitedLog acceptErrors;
    private final RateLimitedLog refusals;
    private final RateLimitedLog connectionErrors;
    private final RateLimitedLog authFailures;
    private volatile boolean closed;

    private TcpReceiver(ServerSocketChannel server, Path dir, Options options, PrintStream log) {
        this.server = server;
        this.dir = dir;
        this.options = options;
        this.log = log;
        this.acceptErrors = new RateLimitedLog(log, LOG_INTERVAL_NANOS);
        this.refusals = new RateLimitedLog(log, LOG_INTERVAL_NANOS);
        this.connectionErrors = new RateLimitedLog(log, LOG_INTERVAL_NANOS);
        this.authFailures = new RateLimitedLog(log, LOG_INTERVAL_NANOS);
        this.acceptor = Thread.ofPlatform().daemon().name("jfio-receive-accept").start(this::acceptLoop);
    }

    /**
     * Starts listening on {@code bind} (port 0: any free port). The output directory is created only once the
     * address is listened on, so a bad address leaves nothing behind.
     *
     * @param dir where the connections' files go (created if missing); null: discard the data
     * @param log where connection errors are reported (one line each, the same kind at most once a second)
     * @throws StartException when the address cannot be listened on or the directory cannot be made or written
     */
    public static TcpReceiver start(InetSocketAddress bind, Path dir, Options options, PrintStream log)
            throws IOException {
        String where = bind.getHostString() + ":" + bind.getPort();
        if (bind.isUnresolved()) {
            throw new StartException(StartPart.LISTEN, "cannot resolve host " + bind.getHostString());
        }
        ServerSocketChannel s = ServerSocketChannel.open();
        boolean ok = false;
        try {
            // Restarting on the same port right after a stop must not wait for TIME_WAIT.
            s.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            try {
                s.bind(bind, 128);
            } catch (IOException | UnresolvedAddressException e) {
                throw new StartException(StartPart.LISTEN, "cannot listen on " + where + ": " + e.getMessage());
            }
            if (dir != null) {
                prepareDirectory(dir);
            }
            TcpReceiver r = new TcpReceiver(s, dir, options, log);
            ok = true;
            return r;
        } finally {
            if (!ok) {
                s.close();
            }
        }
    }

    /**
     * Creates the output directory if missing (0700: what senders ship is often readable by root only at its source)
     * and checks that files can be created in it.
     */
    private static void prepareDirectory(Path dir) throws StartException {
        try {
            io.jfio.ship.sink.PrivateDirs.create(dir, 0700);
        } catch (java.nio.file.NotDirectoryException e) {
            throw new StartException(StartPart.DIRECTORY, "cannot create output directory " + dir + ": "
                    + e.getFile() + " exists and is not a directory");
        } catch (FileSystemException e) {
            throw new StartException(StartPart.DIRECTORY, "cannot create output directory " + dir + ": "
                    + (e.getReason() != null ? e.getReason() : e.getClass().getSimpleName()));
        } catch (IOException e) {
            throw new StartException(StartPart.DIRECTORY, "cannot create output directory " + dir + ": "
                    + e.getMessage());
        }
        if (!Files.isWritable(dir)) {
            throw new StartException(StartPart.DIRECTORY, "output directory " + dir + " is not writable");
        }
    }

    /** The address listened on. */
    public InetSocketAddress localAddress() {
        try {
            return (InetSocketAddress) server.getLocalAddress();
        } catch (IOException e) {
            throw new IllegalStateException("receiver closed", e);
        }
    }

    /** The port listened on. */
    public int port() {
        try {
            return ((InetSocketAddress) server.getLocalAddress()).getPort();
        } catch (IOException e) {
            throw new IllegalStateException("receiver closed", e);
        }
    }

    /**
     * Data bytes received and kept so far, on all connections (handshakes excluded; what comes after a graceful stop
     * began is dropped and not counted).
     */
    public long received() {
        return received.get();
    }

    /** Data bytes made durable (and acknowledged to senders that asked) so far. */
    public long durable() {
        return durable.get();
    }

    /** The files written so far, in the order their connections arrived. */
    public List<Path> files() {
        synchronized (files) {
            return List.copyOf(files);
        }
    }

    /** Connections currently open. */
    public int connections() {
        return conns.size();
    }

    private void acceptLoop() {
        long backoff = 0;
        while (!closed) {
            SocketChannel ch;
            try {
                ch = server.accept();
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                // Out of descriptors the pending connection stays queued and accept fails again at once: back off,
                // so the loop neither spins nor floods the log, and retry when connections have ended.
                if (closed) {
                    return;
                }
                acceptErrors.report("receive: accept failed: " + e.getMessage() + "; retrying");
                backoff = backoff == 0 ? FIRST_ACCEPT_BACKOFF_NANOS : Math.min(backoff * 2, MAX_ACCEPT_BACKOFF_NANOS);
                try {
                    TimeUnit.NANOSECONDS.sleep(backoff);
                } catch (InterruptedException ie) {
                    return;
                }
                continue;
            }
            backoff = 0;
            if (conns.size() >= options.maxConnections()) {
                String peer = peerOf(ch);
                closeQuietly(ch);
                refusals.report("receive: refused connection from " + peer + ": " + options.maxConnections()
                        + " connections already open (the connection limit)");
                continue;
            }
            Conn c = new Conn(ch);
            conns.add(c);
            if (closed) {
                c.abort();
            }
            try {
                c.reader = Thread.ofPlatform().daemon().name("jfio-receive " + c.peer).unstarted(c::run);
                c.reader.start();
            } catch (OutOfMemoryError e) {
                // No thread for this connection (too many threads or no memory): drop it, keep accepting.
                c.reader = null;
                c.abort();
                conns.remove(c);
                connectionErrors.report("receive: dropped connection from " + c.peer + ": " + e.getMessage());
            }
        }
    }

    /**
     * Compares tokens in constant time: the digests have one length whatever the tokens', and
     * {@link MessageDigest#isEqual} does not stop at the first difference.
     */
    static boolean sameToken(byte[] expected, byte[] given) {
        try {
            return MessageDigest.isEqual(MessageDigest.getInstance("SHA-256").digest(expected),
                    MessageDigest.getInstance("SHA-256").digest(given));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    private static String peerOf(SocketChannel ch) {
        try {
            return String.valueOf(ch.getRemoteAddress());
        } catch (IOException e) {
            return "?";
        }
    }

    private static void closeQuietly(SocketChannel ch) {
        try {
            ch.close();
        } catch (IOException e) {
            // closing a socket that is already broken: nothing left to release
        }
    }

    private FileChannel newFile() throws IOException {
        while (true) {
            Path p = dir.resolve("receive-" + System.currentTimeMillis() + "-" + fileSeq.incrementAndGet() + ".log");
            try {
                // 0600, and CREATE_NEW (O_EXCL) never follows a symlink planted at the name.
                FileChannel fc = FileChannel.open(p, java.util.Set.of(StandardOpenOption.CREATE_NEW,
                        StandardOpenOption.WRITE), PosixFilePermissions.asFileAttribute(
                        io.jfio.ship.sink.PrivateDirs.perms(0600)));
                synchronized (files) {
                    files.add(p);
                }
                try {
                    // The new name must survive a power loss before anything in the file is acknowledged: the
                    // fdatasync of the file makes its data durable, not its directory entry.
                    CheckpointStore.syncDirectory(dir);
                } catch (IOException e) {
                    fc.close();
                    throw e;
                }
                return fc;
            } catch (FileAlreadyExistsException e) {
                // a file of an earlier run with the same millisecond and number: take the next number
            }
        }
    }

    /**
     * Stops gracefully: stops listening; on every connection stops writing what still comes (it is never
     * acknowledged, and the sender resends it), fdatasyncs what was written, acknowledges exactly that, and half-closes
     * the connection (FIN after the last acknowledgement); what the sender still sends is read and dropped until it
     * closes its side, so the connection ends without the reset that closing with unread data would send (a reset
     * can make the sender fail before it has read the last acknowledgement). A plain connection (no
     * acknowledgements: nothing to tell the sender, which would stream on) has its input shut down instead: its
     * reader sees the end at once, fdatasyncs what it wrote and closes.
     * Whatever is not done within {@code grace} is dropped as by {@link #close}. So a stopped receiver leaves only
     * acknowledged bytes behind; a sender resends at most the acknowledged part of the one batch in flight (the
     * receiver acknowledges bytes, the sender completes whole batches).
     */
    public void shutdown(Duration grace) throws IOException {
        server.close();
        try {
            acceptor.join();
            for (Conn c : conns) {
                c.beginStop();
            }
            long deadline = System.nanoTime() + grace.toNanos();
            for (Conn c : conns) {
                Thread r = c.reader;
                long left = deadline - System.nanoTime();
                if (r != null && left > 0) {
                    r.join(Duration.ofNanos(left));
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            close();
        }
    }

    /**
     * Stops listening and drops every connection at once, without a last sync or acknowledgement, as a crash would:
     * senders resend what was not acknowledged.
     */
    @Override
    public void close() throws IOException {
        closed = true;
        server.close();
        for (Conn c : conns) {
            c.abort();
        }
        try {
            acceptor.join();
            for (Conn c : conns) {
                c.join();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * One connection. {@code written}, {@code synced}, {@code eof}, {@code stopping}, {@code plain}, {@code opened},
     * {@code writing} and {@code aborted} are guarded by {@code lock}; the only writer of a counter (the reader of
     * {@code written}, the syncer of {@code synced}) also reads it without the lock.
     */
    private final class Conn {
        final SocketChannel ch;
        final String peer;
        final ReentrantLock lock = new ReentrantLock();
        final Condition wake = lock.newCondition();
        volatile FileChannel file;
        long written;
        long synced;
        boolean eof;
        /** A graceful stop began: nothing more is written; the syncer makes its last sync and acknowledgement. */
        boolean stopping;
        /** The handshake found a plain stream: no acknowledgements, no syncer. */
        boolean plain;
        /** The handshake is over ({@code plain} is known). */
        boolean opened;
        /** The reader is writing a buffer to the file (its bytes not yet in {@code written}). */
        boolean writing;
        /**
         * The connection was dropped (it failed, or the receiver closed): the syncer stops at once, even when
         * everything written is synced and it would otherwise wait for more.
         */
        boolean aborted;
        volatile Thread syncer;
        volatile Thread reader;
        /** Closes the connection if its handshakes take too long; null without TLS and token. */
        Thread watchdog;
        /** The connection's stream, plain or TLS; set by the reader before {@code opened}. */
        volatile Wire wire;
        /** The handshakes did not complete within {@link Options#handshakeTimeout()}; guarded by {@code lock}. */
        boolean handshakeTimedOut;

        Conn(SocketChannel ch) {
            this.ch = ch;
            this.peer = peerOf(ch);
        }

        void run() {
            try {
                // Allocated inside the try: when direct memory is exhausted the connection is closed, not leaked.
                ByteBuffer buf = ByteBuffer.allocateDirect(BUFFER);
                // A sender that vanishes without a reset (host down, cable pulled) must not hold the connection, its
                // file and its threads forever; TcpSink does the same on its side.
                ch.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
                if (options.secured()) {
                    // A peer that connects and stays silent must not hold a connection slot: it has to pass its
                    // checks in time.
                    watchdog = Thread.ofVirtual().name("jfio-receive-handshake " + peer).start(this::watchHandshake);
                }
                wire = options.security().tls() != null ? tls() : Wire.plain(ch);
                boolean ack = handshake(buf);
                if (dir != null) {
                    file = newFile();
                }
                if (ack) {
                    syncer = Thread.ofPlatform().daemon().name("jfio-receive-sync " + peer).start(this::syncLoop);
                }
                lock.lock();
                try {
                    opened = true;
                    plain = !ack;
                    if (stopping) {
                        stopPlain();
                    }
                } finally {
                    lock.unlock();
                }
                if (watchdog != null) {
                    watchdog.interrupt();
                }
                while (true) {
                    if (buf.position() > 0) {
                        buf.flip();
                        long n = buf.remaining();
                        boolean keep;
                        lock.lock();
                        try {
                            keep = !stopping;
                            writing = keep;
                        } finally {
                            lock.unlock();
                        }
                        // After a graceful stop began, what comes is dropped: never written, never acknowledged.
                        if (keep) {
                            boolean ok = false;
                            try {
                                if (file != null) {
                                    while (buf.hasRemaining()) {
                                        file.write(buf);
                                    }
                                }
                                ok = true;
                            } finally {
                                lock.lock();
                                try {
                                    writing = false;
                                    if (ok) {
                                        written += n;
                                    }
                                    if (!ok || written - synced >= options.syncBytes() || stopping) {
                                        wake.signalAll();
                                    }
                                } finally {
                                    lock.unlock();
                                }
                            }
                            received.addAndGet(n);
                            if (syncer == null && file == null) {
                                durable.addAndGet(n);
                            }
                        }
                        buf.clear();
                    }
                    if (wire.read(buf) < 0) {
                        break;
                    }
                }
                // The sender closed its side: sync the rest, acknowledge, then close.
                lock.lock();
                try {
                    eof = true;
                    wake.signal();
                } finally {
                    lock.unlock();
                }
                if (syncer != null) {
                    syncer.join();
                } else if (file != null) {
                    file.force(false);
                    durable.addAndGet(written);
                }
            } catch (Refused e) {
                // logged where it was refused
            } catch (IOException e) {
                if (timedOut()) {
                    authFailures.report("receive: refused connection from " + peer + ": no handshake within "
                            + options.handshakeTimeout().toMillis() + " ms");
                } else if (!closed) {
                    log.println("receive: connection from " + peer + " failed: " + e.getMessage());
                }
            } catch (OutOfMemoryError e) {
                // No direct memory for the buffer, or no thread for the syncer: drop this connection, keep serving.
                if (!closed) {
                    connectionErrors.report("receive: dropped connection from " + peer + ": " + e.getMessage());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                if (watchdog != null) {
                    watchdog.interrupt();
                }
                abort();
                if (syncer != null) {
                    try {
                        syncer.join();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                try {
                    if (file != null) {
                        file.close();
                    }
                } catch (IOException e) {
                    log.println("receive: closing the file of " + peer + " failed: " + e.getMessage());
                }
                conns.remove(this);
            }
        }

        /** Closes the connection when its handshakes are not done in time (TLS or token configured). */
        private void watchHandshake() {
            try {
                Thread.sleep(options.handshakeTimeout());
            } catch (InterruptedException e) {
                return; // the handshake completed or the connection ended
            }
            lock.lock();
            try {
                if (opened) {
                    return;
                }
                handshakeTimedOut = true;
            } finally {
                lock.unlock();
            }
            abort();
        }

        private boolean timedOut() {
            lock.lock();
            try {
                return handshakeTimedOut;
            } finally {
                lock.unlock();
            }
        }

        /** The TLS handshake, as the server; a peer that fails it (no or a wrong certificate, no TLS) is refused. */
        private Wire tls() throws IOException {
            TcpSecurity sec = options.security();
            SSLSocket s = (SSLSocket) sec.tls().getSocketFactory().createSocket(ch.socket(), peer,
                    ch.socket().getPort(), true);
            s.setUseClientMode(false);
            SSLParameters p = s.getSSLParameters();
            p.setProtocols(new String[] {TcpSecurity.TLS_VERSION});
            p.setNeedClientAuth(sec.requireClientCert());
            s.setSSLParameters(p);
            try {
                s.startHandshake();
            } catch (SSLException e) {
                if (timedOut()) {
                    throw e;
                }
                throw refuse("TLS handshake failed: " + e.getMessage(), false);
            }
            return Wire.tls(s);
        }

        /**
         * Reads the first line if it is the handshake and checks its token; returns true for an acknowledging
         * sender, false for a plain stream (whose first bytes are in {@code buf}).
         */
        private boolean handshake(ByteBuffer buf) throws IOException {
            byte[] magic = TcpProtocol.MAGIC;
            while (true) {
                int have = buf.position();
                int check = Math.min(have, magic.length);
                for (int i = 0; i < check; i++) {
                    if (buf.get(i) != magic[i]) {
                        return plain(); // everything read so far is data
                    }
                }
                if (have >= magic.length) {
                    for (int i = magic.length; i < have; i++) {
                        if (buf.get(i) == '\n') {
                            byte[] line = new byte[i + 1];
                            buf.get(0, line);
                            boolean v2 = accept(line);
                            buf.flip().position(i + 1);
                            buf.compact();
                            wire.write(ByteBuffer.wrap(TcpProtocol.reply(v2)));
                            return true;
                        }
                    }
                    if (have > TcpProtocol.MAX_LINE) {
                        return plain(); // no line end: not a handshake after all
                    }
                }
                if (wire.read(buf) < 0) {
                    return plain();
                }
            }
        }

        /** A stream without the handshake: kept, unless a token is required (it cannot carry one). */
        private boolean plain() throws IOException {
            if (options.security().token() != null) {
                throw refuse("no handshake, and this receiver requires a token", false);
            }
            return false;
        }

        /** Checks a handshake line; returns whether it is version 2. A wrong or missing token is refused. */
        private boolean accept(byte[] line) throws IOException {
            byte[] token = options.security().token();
            if (Arrays.equals(line, TcpProtocol.HANDSHAKE_BYTES)) {
                if (token != null) {
                    throw refuse("token required; the sender sent none", true);
                }
                return false;
            }
            byte[] prefix = TcpProtocol.TOKEN_HANDSHAKE_PREFIX.getBytes(StandardCharsets.US_ASCII);
            if (line.length > prefix.length + 1 && Arrays.equals(line, 0, prefix.length, prefix, 0, prefix.length)) {
                if (token != null && !sameToken(token, Arrays.copyOfRange(line, prefix.length, line.length - 1))) {
                    throw refuse("wrong token", true);
                }
                return true;
            }
            // The line may hold a secret of a later version: name only its version.
            String text = new String(line, StandardCharsets.US_ASCII).strip();
            String[] words = text.split(" ", 3);
            throw refuse("unsupported handshake (version " + (words.length > 1 ? words[1] : "?") + ")", true);
        }

        /**
         * Logs the refusal (at most once a second), tells an acknowledging sender why ({@code JFIO-SHIP error
         * REASON}) and returns the exception that ends the connection.
         */
        private Refused refuse(String reason, boolean answer) {
            if (answer) {
                try {
                    wire.write(ByteBuffer.wrap((TcpProtocol.ERROR_PREFIX + reason + "\n")
                            .getBytes(StandardCharsets.US_ASCII)));
                } catch (IOException e) {
                    // the sender is gone: nobody to tell
                }
            }
            authFailures.report("receive: refused connection from " + peer + ": " + reason);
            return new Refused(reason);
        }

        /** Syncs and acknowledges; every syncInterval, or sooner when syncBytes are waiting, or at the end. */
        private void syncLoop() {
            ByteBuffer ackBuf = ByteBuffer.allocateDirect(TcpProtocol.ACK_BYTES).order(ByteOrder.BIG_ENDIAN);
            long intervalNanos = options.syncInterval().toNanos();
            try {
                while (true) {
                    long target;
                    boolean last;
                    boolean stop;
                    lock.lock();
                    try {
                        long deadline = System.nanoTime() + intervalNanos;
                        while (!eof && !aborted && !stopping && written - synced < options.syncBytes()) {
                            long left = deadline - System.nanoTime();
                            if (left <= 0) {
                                break;
                            }
                            wake.awaitNanos(left);
                        }
                        // A graceful stop: the buffer being written goes into the last acknowledgement, nothing after.
                        while (stopping && writing && !aborted) {
                            wake.await();
                        }
                        if (aborted) {
                            return;
                        }
                        target = written;
                        stop = stopping;
                        last = eof || stop;
                    } finally {
                        lock.unlock();
                    }
                    if (target > synced) {
                        if (file != null) {
                            file.force(false);
                        }
                        lock.lock();
                        try {
                            durable.addAndGet(target - synced);
                            synced = target;
                        } finally {
                            lock.unlock();
                        }
                        ackBuf.clear();
                        ackBuf.putLong(0, target);
                        wire.write(ackBuf);
                    }
                    if (last) {
                        if (stop) {
                            // FIN after the last acknowledgement: the sender sees the end and closes its side.
                            wire.shutdownOutput();
                        }
                        return;
                    }
                }
            } catch (IOException e) {
                if (!closed) {
                    log.println("receive: acknowledging " + peer + " failed: " + e.getMessage());
                }
                abort();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        /** Begins a graceful stop (see {@link TcpReceiver#shutdown}). */
        void beginStop() {
            lock.lock();
            try {
                stopping = true;
                stopPlain();
                wake.signalAll();
            } finally {
                lock.unlock();
            }
        }

        /**
         * At a graceful stop, a plain stream has no syncer to end it and its sender would stream on for the whole
         * grace, read and dropped: shutting the input down makes the reader see the end at once and take the end's
         * path (fdatasync what was written, close). Called under {@code lock} once both are known.
         */
        private void stopPlain() {
            if (!opened || !plain) {
                return;
            }
            try {
                wire.shutdownInput();
            } catch (IOException e) {
                // already closed or broken: the reader is ending anyway
            }
        }

        void abort() {
            closeQuietly(ch);
            lock.lock();
            try {
                aborted = true;
                wake.signalAll();
            } finally {
                lock.unlock();
            }
        }

        void join() throws InterruptedException {
            Thread r = reader;
            if (r != null) {
                r.join();
            }
        }
    }

    /** A connection refused by a check; already logged. */
    private static final class Refused extends IOException {
        private static final long serialVersionUID = 1L;

        Refused(String reason) {
            super(reason);
        }
    }
}
