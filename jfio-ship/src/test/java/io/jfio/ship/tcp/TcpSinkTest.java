package io.jfio.ship.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import io.jfio.core.testing.Fds;
import io.jfio.ship.sink.Batch;
import io.jfio.ship.testing.SourceFile;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** TcpSink against a real TcpReceiver and against a plain listener, over loopback sockets, with real files. */
class TcpSinkTest {
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    private static byte[] concat(List<Path> files) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Path p : files) {
            out.write(Files.readAllBytes(p));
        }
        return out.toByteArray();
    }

    @Test
    void shouldDeliverEveryByteAndCompleteOnlyAfterTheReceiverSynced(@TempDir Path dir)
            throws Exception {
        Path out = dir.resolve("out");
        try (SourceFile src = SourceFile.create(dir.resolve("app.log"), "app", "line", 100_000, 100, 256 << 10);
             TcpReceiver receiver = TcpReceiver.start(LOOPBACK, out, TcpReceiver.Options.defaults(), System.err)) {
            ConcurrentLinkedQueue<String> early = new ConcurrentLinkedQueue<>();
            List<CompletableFuture<Void>> futures = new ArrayList<>();
            TcpSink sink = new TcpSink("localhost", receiver.port(), TcpSink.Options.defaults());
            try {
                for (int i = 0; i < src.batches(); i++) {
                    Batch b = src.batch(i);
                    long end = b.end();
                    futures.add(sink.send(b).thenRun(() -> {
                        if (receiver.durable() < end) {
                            early.add("batch ending at " + end + " completed with durable=" + receiver.durable());
                        }
                    }));
                }
                CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            } finally {
                sink.close();
            }
            assertTrue(early.isEmpty(), early.toString());
            assertEquals(src.content().length, sink.copiedBytes());
            assertEquals(1, receiver.files().size());
            assertArrayEquals(src.content(), Files.readAllBytes(receiver.files().get(0)));
            // What was shipped is the receiving user's only, as at many a source.
            assertEquals("rwx------", java.nio.file.attribute.PosixFilePermissions.toString(
                    Files.getPosixFilePermissions(out)));
            assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(
                    Files.getPosixFilePermissions(receiver.files().get(0))));
        }
    }

    @Test
    void shouldSendTheBytesReadAndNeverTheFileAgain(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("out");
        try (SourceFile src = SourceFile.create(dir.resolve("a.log"), "a", "x", 20_000, 80, 64 << 10);
             TcpReceiver receiver = TcpReceiver.start(LOOPBACK, out, TcpReceiver.Options.defaults(), System.err);
             Arena arena = Arena.ofConfined()) {
            // Between the read and the send (a send held up by a slow receiver) the file was truncated and written
            // anew, as copytruncate and an application writing on do: the batches' bytes are what was read, and
            // the file at their offsets now holds other lines of the same length.
            byte[] now = src.content();
            for (int i = 0; i < now.length; i++) {
                if (now[i] >= 'a' && now[i] <= 'z') now[i] = (byte) ('a' + (now[i] - 'a' + 1) % 26);
            }
            try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(src.path(),
                    java.nio.file.StandardOpenOption.WRITE)) {
                ch.truncate(0);
                ch.write(java.nio.ByteBuffer.wrap(now));
            }
            try (TcpSink sink = new TcpSink("127.0.0.1", receiver.port(), TcpSink.Options.defaults())) {
                List<CompletableFuture<Void>> fs = new ArrayList<>();
                for (int i = 0; i < src.batches(); i++) {
                    fs.add(sink.send(src.batch(i)));
                }
                CompletableFuture.allOf(fs.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
                assertEquals(src.content().length, sink.copiedBytes());
            }
            // A batch from a pipe (nothing to read again at an offset) is sent from its bytes as well.
            MemorySegment fds = arena.allocate(8);
            assertEquals(0, LibC.pipe2(fds, Fcntl.O_CLOEXEC));
            int rd = fds.get(java.lang.foreign.ValueLayout.JAVA_INT, 0);
            int wr = fds.get(java.lang.foreign.ValueLayout.JAVA_INT, 4);
            try (TcpSink sink = new TcpSink("127.0.0.1", receiver.port(), TcpSink.Options.defaults())) {
                byte[] piped = "from a pipe 1\nfrom a pipe 2\n".getBytes(StandardCharsets.US_ASCII);
                MemorySegment bytes = arena.allocate(piped.length);
                MemorySegment.copy(MemorySegment.ofArray(piped), 0, bytes, 0, piped.length);
                sink.send(new Batch("pipe", "p", rd, 0, piped.length, 2, bytes)).get(30, TimeUnit.SECONDS);
                assertEquals(piped.length, sink.copiedBytes());
            } finally {
                LibC.close(rd);
                LibC.close(wr);
            }
            receiver.close();
            byte[] all = concat(receiver.files());
            byte[] expected = (new String(src.content(), StandardCharsets.US_ASCII)
                    + "from a pipe 1\nfrom a pipe 2\n").getBytes(StandardCharsets.US_ASCII);
            assertArrayEquals(expected, all);
        }
    }

    @Test
    void shouldStreamPlainLinesToAListenerThatDoesNotAcknowledge(@TempDir Path dir) throws Exception {
        try (SourceFile src = SourceFile.create(dir.resolve("p.log"), "p", "plain", 5_000, 60, 16 << 10);
             ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(LOOPBACK);
            int port = ((InetSocketAddress) server.getLocalAddress()).getPort();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            Thread reader = Thread.ofPlatform().start(() -> {
                try (SocketChannel ch = server.accept()) {
                    ByteBuffer buf = ByteBuffer.allocate(65536);
                    while (ch.read(buf) >= 0) {
                        got.write(buf.array(), 0, buf.position());
                        buf.clear();
                    }
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            try (TcpSink sink = new TcpSink("localhost", port, TcpSink.Options.defaults().withAck(false))) {
                for (int i = 0; i < src.batches(); i++) {
                    assertTrue(sink.send(src.batch(i)).isDone(), "without ack a batch is done once sent");
                }
            }
            reader.join(30_000);
            assertArrayEquals(src.content(), got.toByteArray(), "the stream is the records, nothing else");
        }
    }

    /**
     * A receiver that acknowledges far more often than the reader's buffer holds per gathering wait (here 400 times per
     * read, the count repeated) must not leave the reader behind: it reads on while its reads fill the buffer. Read 64
     * at a time with a 10 ms wait after each, the last acknowledgement of this run would come about 19 s late.
     */
    @Test
    void shouldKeepUpWithAReceiverThatAcknowledgesMoreOftenThanTheReaderGathers(@TempDir Path dir) throws Exception {
        try (SourceFile src = SourceFile.create(dir.resolve("a.log"), "a", "acks", 300, 60, 60);
             ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(LOOPBACK);
            int port = ((InetSocketAddress) server.getLocalAddress()).getPort();
            Thread receiver = Thread.ofPlatform().daemon().start(() -> {
                try (SocketChannel ch = server.accept()) {
                    byte[] hs = TcpProtocol.HANDSHAKE.getBytes(StandardCharsets.US_ASCII);
                    ByteBuffer in = ByteBuffer.allocate(65536);
                    while (in.position() < hs.length) {
                        if (ch.read(in) < 0) return;
                    }
                    long received = in.position() - hs.length;
                    ch.write(ByteBuffer.wrap(hs));
                    ByteBuffer acks = ByteBuffer.allocate(400 * TcpProtocol.ACK_BYTES);
                    while (true) {
                        in.clear();
                        int n = ch.read(in);
                        if (n < 0) return;
                        received += n;
                        acks.clear();
                        while (acks.hasRemaining()) acks.putLong(received);
                        acks.flip();
                        while (acks.hasRemaining()) ch.write(acks);
                    }
                } catch (IOException e) {
                    // the sink closed the connection
                }
            });
            try (TcpSink sink = new TcpSink("localhost", port, TcpSink.Options.defaults())) {
                sink.acknowledgeSoon(false); // acknowledgements may gather, as when nobody waits for them
                List<CompletableFuture<Void>> futures = new ArrayList<>();
                for (int i = 0; i < src.batches(); i++) {
                    futures.add(sink.send(src.batch(i)));
                    Thread.sleep(1);
                }
                // Well inside the 19 s of the old reader, with room for a slow or busy machine.
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                for (CompletableFuture<Void> f : futures) {
                    f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                }
            }
            receiver.join(10_000);
        }
    }

    @Test
    void shouldRefuseAPlainListenerInAckModeWithAClearMessage(@TempDir Path dir) throws Exception {
        try (SourceFile src = SourceFile.create(dir.resolve("h.log"), "h", "h", 10, 20, 100);
             ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(LOOPBACK);
            int port = ((InetSocketAddress) server.getLocalAddress()).getPort();
            try (TcpSink sink = new TcpSink("localhost", port,
                    TcpSink.Options.defaults().withConnectTimeout(Duration.ofMillis(300)))) {
                IOException e = assertThrows(IOException.class, () -> sink.send(src.batch(0)));
                assertTrue(e.getMessage().contains("handshake"), e.getMessage());
            }
        }
    }

    @Test
    void shouldFailSendWhenNobodyListensAndBackOff(@TempDir Path dir) throws Exception {
        int port;
        try (ServerSocketChannel s = ServerSocketChannel.open()) {
            s.bind(LOOPBACK);
            port = ((InetSocketAddress) s.getLocalAddress()).getPort();
        }
        try (SourceFile src = SourceFile.create(dir.resolve("r.log"), "r", "r", 10, 20, 100);
             TcpSink sink = new TcpSink("127.0.0.1", port, TcpSink.Options.defaults())) {
            // t0 before the first attempt: the second may start no sooner than the first backoff (100 ms) after the
            // first failed, whatever happens in between, so the two together take at least that long.
            long t0 = System.nanoTime();
            IOException first = assertThrows(IOException.class, () -> sink.send(src.batch(0)));
            assertTrue(first.getMessage().contains("ECONNREFUSED"), first.getMessage());
            assertThrows(IOException.class, () -> sink.send(src.batch(0)));
            long tookNanos = System.nanoTime() - t0;
            assertTrue(tookNanos >= TimeUnit.MILLISECONDS.toNanos(100), "the second attempt waited the backoff: "
                    + TimeUnit.NANOSECONDS.toMillis(tookNanos) + " ms for both");
        }
    }

    /** graceful: the receiver is stopped with {@code shutdown} (as on SIGTERM), else dropped as by a crash. */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void shouldLoseNothingWhenTheReceiverStopsAndRestartsWithMemoryBoundedByTheWindow(boolean graceful,
                                                                                      @TempDir Path dir)
            throws Exception {
        Path out = dir.resolve("out");
        long window = 1 << 20;
        long batchBytes = 64 << 10;
        try (SourceFile src = SourceFile.create(dir.resolve("o.log"), "o", "rec", 200_000, 100, batchBytes)) {
            TcpReceiver first = TcpReceiver.start(LOOPBACK, out, TcpReceiver.Options.defaults(), System.err);
            int port = first.port();
            TcpSink sink = new TcpSink("127.0.0.1", port, TcpSink.Options.defaults().withWindow(window)
                    .withMaxBackoff(Duration.ofMillis(400)));
            AtomicLong maxUnacked = new AtomicLong();
            AtomicLong failures = new AtomicLong();
            // The pipeline, as the shipper runs it: send in order; the checkpoint advances over completed batches
            // only; a failed future or send resends from the checkpoint.
            Thread pipeline = Thread.ofPlatform().name("test-pipeline").start(() -> {
                int checkpoint = 0;
                List<CompletableFuture<Void>> inflight = new ArrayList<>();
                int next = 0;
                while (checkpoint < src.batches()) {
                    while (!inflight.isEmpty() && inflight.get(0).isDone()) {
                        if (inflight.get(0).isCompletedExceptionally()) {
                            failures.incrementAndGet();
                            inflight.clear();
                            next = checkpoint;
                            break;
                        }
                        inflight.remove(0);
                        checkpoint++;
                    }
                    if (next < src.batches()) {
                        try {
                            inflight.add(sink.send(src.batch(next)));
                            next++;
                        } catch (IOException e) {
                            failures.incrementAndGet();
                            // As the shipper's pipeline does: the batches whose futures still complete normally
                            // were acknowledged (completion may trail the failure); resend from the first that fails.
                            for (CompletableFuture<Void> f : inflight) {
                                try {
                                    f.get(5, TimeUnit.SECONDS);
                                    checkpoint++;
                                } catch (Exception notAcknowledged) {
                                    break;
                                }
                            }
                            inflight.clear();
                            next = checkpoint;
                        }
                        maxUnacked.accumulateAndGet(sink.unacknowledged(), Math::max);
                    } else {
                        Thread.onSpinWait();
                    }
                }
            });
            // Let some data through, then stop the receiver for a second and start it again on the same port.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (first.durable() < src.content().length / 4 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            if (graceful) {
                first.shutdown(Duration.ofSeconds(5));
                // Everything it read was synced and acknowledged before it closed, and nothing else is in its files.
                assertEquals(first.received(), first.durable());
                long onDisk = 0;
                for (Path f : first.files()) {
                    onDisk += Files.size(f);
                }
                assertEquals(first.durable(), onDisk);
            } else {
                first.close();
            }
            Thread.sleep(1000);
            TcpReceiver second = TcpReceiver.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), out,
                    TcpReceiver.Options.defaults(), System.err);
            try {
                pipeline.join(120_000);
                assertTrue(!pipeline.isAlive(), "the pipeline finished after the receiver came back");
                sink.close();
            } finally {
                second.close();
            }
            assertTrue(failures.get() > 0, "the outage was seen");
            assertTrue(sink.connects() >= 2, "the sink reconnected");
            assertTrue(maxUnacked.get() <= window + batchBytes + 200, "unacknowledged bytes stayed within the window: "
                    + maxUnacked.get());
            // Nothing lost: every line arrived (some twice: what was sent but not acknowledged before the stop).
            List<Path> files = new ArrayList<>(first.files());
            files.addAll(second.files());
            // A connection cut mid-batch leaves that batch's received part, never acknowledged, at the end of its
            // file (resent whole on the next connection): each file counts up to its last newline.
            StringBuilder text = new StringBuilder();
            for (Path f : files) {
                String t = Files.readString(f, StandardCharsets.US_ASCII);
                text.append(t, 0, t.lastIndexOf('\n') + 1);
            }
            String received = text.toString();
            assertTrue(received.endsWith("\n"));
            Set<String> got = new HashSet<>(List.of(received.split("\n")));
            String[] sent = new String(src.content(), StandardCharsets.US_ASCII).split("\n");
            for (String line : sent) {
                assertTrue(got.contains(line), "lost: " + line);
            }
            assertEquals(sent.length, got.size(), "nothing but the sent lines arrived");
            if (graceful) {
                // Only the acknowledged-but-incomplete batch at the stop is sent twice.
                long dupLines = received.chars().filter(ch -> ch == '\n').count() - sent.length;
                System.out.println("graceful receiver stop: duplicate lines " + dupLines);
                assertTrue(dupLines * 100 <= batchBytes + 100, "duplicates within one batch: " + dupLines + " lines");
            }
        }
    }

    /**
     * A connection that breaks after everything it wrote was synced and acknowledged (the sender's socket closed with
     * a reset) ends on the receiver's side too: its reader and syncer stop, its socket and file are closed, and it
     * is no longer counted, while the receiver keeps running.
     */
    @Test
    void shouldEndAReceiverConnectionThatBreaksAfterEverythingWasAcknowledged(@TempDir Path dir) throws Exception {
        byte[] data = "one\ntwo\nthree\n".getBytes(StandardCharsets.US_ASCII);
        try (TcpReceiver receiver = TcpReceiver.start(LOOPBACK, dir.resolve("out"), TcpReceiver.Options.defaults(),
                System.err)) {
            var before = Fds.open();
            Fds.assertNoLeak("the broken connection's socket and file", () -> {
                try (SocketChannel ch = SocketChannel.open(new InetSocketAddress(InetAddress.getLoopbackAddress(),
                        receiver.port()))) {
                    ch.write(ByteBuffer.wrap(TcpProtocol.HANDSHAKE_BYTES));
                    ByteBuffer reply = ByteBuffer.allocate(TcpProtocol.HANDSHAKE_BYTES.length);
                    while (reply.hasRemaining() && ch.read(reply) >= 0) {
                        // the receiver echoes the handshake
                    }
                    assertArrayEquals(TcpProtocol.HANDSHAKE_BYTES, reply.array());
                    ch.write(ByteBuffer.wrap(data));
                    ByteBuffer ack = ByteBuffer.allocate(TcpProtocol.ACK_BYTES);
                    while (ack.hasRemaining() && ch.read(ack) >= 0) {
                        // one acknowledgement covers the three lines (written at once, synced at once)
                    }
                    assertEquals(data.length, ack.getLong(0), "everything written was acknowledged");
                    assertEquals(1, receiver.connections());
                    // Close with a reset (SO_LINGER 0): the receiver's read fails instead of seeing the end.
                    ch.setOption(java.net.StandardSocketOptions.SO_LINGER, 0);
                }
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (receiver.connections() > 0 && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                }
                assertEquals(0, receiver.connections(), "the broken connection ended");
            });
            // The first connection is checked too: the receiver, started already, opens nothing on first use.
            assertEquals(before, Fds.open(), "the first broken connection's socket and file were closed");
            assertEquals(2L * data.length, receiver.durable());
        }
    }

    /**
     * A graceful stop with a plain (non-acknowledging) sender that keeps streaming: the connection ends at once, not
     * after the grace, and what was written to the file was synced and counted durable.
     */
    @Test
    void shouldEndAStreamingPlainConnectionAtOnceOnAGracefulStop(@TempDir Path dir) throws Exception {
        TcpReceiver receiver = TcpReceiver.start(LOOPBACK, dir.resolve("out"), TcpReceiver.Options.defaults(),
                System.err);
        CompletableFuture<IOException> senderEnd = new CompletableFuture<>();
        try (SocketChannel ch = SocketChannel.open(new InetSocketAddress(InetAddress.getLoopbackAddress(),
                receiver.port()))) {
            Thread sender = Thread.ofPlatform().name("test-plain-sender").start(() -> {
                ByteBuffer line = ByteBuffer.wrap("a plain line that never stops coming\n"
                        .repeat(1000).getBytes(StandardCharsets.US_ASCII));
                try {
                    while (true) {
                        line.clear();
                        ch.write(line);
                    }
                } catch (IOException e) {
                    senderEnd.complete(e);
                }
            });
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (receiver.received() < (1 << 20) && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertTrue(receiver.received() >= 1 << 20, "the plain stream flows: " + receiver.received());
            assertEquals(1, receiver.connections());
            long t0 = System.nanoTime();
            receiver.shutdown(Duration.ofSeconds(60));
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            // Without shutting its input down the reader drops what keeps coming until the grace is over (60 s).
            assertTrue(tookMs < 30_000, "the plain connection ended at the stop, not after the grace: " + tookMs
                    + " ms");
            assertEquals(0, receiver.connections());
            assertEquals(receiver.received(), receiver.durable(), "everything written was synced at the end");
            assertEquals(1, receiver.files().size());
            assertEquals(receiver.durable(), Files.size(receiver.files().get(0)));
            // The sender learns the end from the receiver: its writes fail with a reset (the receiver closed with
            // unread data) or a broken pipe, not because its own channel was closed.
            IOException end = senderEnd.get(30, TimeUnit.SECONDS);
            assertFalse(end instanceof java.nio.channels.ClosedChannelException, "the sender's own close: " + end);
            String why = String.valueOf(end.getMessage());
            assertTrue(why.contains("Connection reset") || why.contains("Broken pipe"),
                    "the sender's writes failed otherwise than by a reset or a broken pipe: " + end);
            sender.join(30_000);
        } finally {
            receiver.close();
        }
    }

    @Test
    void shouldNotLeakDescriptors(@TempDir Path dir) throws Exception {
        try (SourceFile src = SourceFile.create(dir.resolve("l.log"), "l", "l", 1000, 50, 4096)) {
            Fds.assertNoLeak("tcp sink and receiver", () -> {
                try (TcpReceiver r = TcpReceiver.start(LOOPBACK, dir.resolve("out"), TcpReceiver.Options.defaults(),
                        System.err); TcpSink sink = new TcpSink("localhost", r.port(), TcpSink.Options.defaults())) {
                    List<CompletableFuture<Void>> fs = new ArrayList<>();
                    for (int i = 0; i < src.batches(); i++) {
                        fs.add(sink.send(src.batch(i)));
                    }
                    CompletableFuture.allOf(fs.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
                }
            });
        }
    }
}
