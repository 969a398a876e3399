package io.jfio.ship.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.core.engine.EventRing;
import io.jfio.core.testing.Fds;
import io.jfio.ship.testing.SourceFile;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The TCP sink whose flushes go with the caller's waits in its {@link EventRing} ({@link TcpSink#sendsWith}), against
 * a real receiver over loopback: every byte once and in order, one send per flush, and a receiver that goes away
 * while a send is queued fails the batches instead of losing them.
 */
class TcpSinkRingTest {
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    /** Waits in the ring, as the pipeline does between rounds, until {@code f} completes. */
    private static void driveUntilDone(EventRing ring, CompletableFuture<?> f) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!f.isDone() && System.nanoTime() < deadline) ring.await(TimeUnit.MILLISECONDS.toNanos(20));
        assertTrue(f.isDone(), "not completed within 30 s");
    }

    /** Closes the receiver and returns what it wrote, its files in order. */
    private static byte[] received(TcpReceiver receiver) throws IOException {
        receiver.close();
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        for (Path p : receiver.files()) got.write(Files.readAllBytes(p));
        return got.toByteArray();
    }

    @Test
    void shouldSendEachRoundWithTheNextWaitAndDeliverEveryByteInOrder(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("out");
        // Small batches of a few lines each: staged, and sent with one send per flush.
        try (SourceFile src = SourceFile.create(dir.resolve("a.log"), "a", "ring", 3_000, 50, 500);
             TcpReceiver receiver = TcpReceiver.start(LOOPBACK, out, TcpReceiver.Options.defaults(), System.err);
             EventRing ring = EventRing.open()) {
            TcpSink sink = new TcpSink("127.0.0.1", receiver.port(), TcpSink.Options.defaults());
            try {
                sink.flush(); // the caller flushes: small batches are staged from now on
                sink.sendsWith(ring);
                int perRound = 7;
                int rounds = 0;
                List<CompletableFuture<Void>> all = new ArrayList<>();
                for (int i = 0; i < src.batches(); i += perRound) {
                    CompletableFuture<Void> last = null;
                    for (int j = i; j < Math.min(src.batches(), i + perRound); j++) {
                        last = sink.send(src.batch(j));
                        all.add(last);
                    }
                    sink.flush();
                    rounds++;
                    driveUntilDone(ring, last);
                }
                CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
                assertEquals(rounds, sink.sendCalls(), "one send per flushed round");
                assertEquals(src.content().length, sink.copiedBytes());
            } finally {
                sink.close();
            }
            assertArrayEquals(src.content(), received(receiver));
        }
    }

    @Test
    void shouldSettleAQueuedSendBeforeTheNextBatchAndOnClose(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("out");
        try (SourceFile src = SourceFile.create(dir.resolve("b.log"), "b", "settle", 400, 40, 400);
             TcpReceiver receiver = TcpReceiver.start(LOOPBACK, out, TcpReceiver.Options.defaults(), System.err);
             EventRing ring = EventRing.open()) {
            List<CompletableFuture<Void>> all = new ArrayList<>();
            try (TcpSink sink = new TcpSink("127.0.0.1", receiver.port(), TcpSink.Options.defaults())) {
                sink.flush();
                sink.sendsWith(ring);
                // Never waiting in the ring: each send after a flush must complete the queued one first.
                for (int i = 0; i < src.batches(); i++) {
                    all.add(sink.send(src.batch(i)));
                    if (i % 3 == 2) sink.flush();
                }
                sink.flush(); // left queued: close completes it before it lets the connection go
            }
            CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
            assertArrayEquals(src.content(), received(receiver));
        }
    }

    @Test
    void shouldFailTheBatchesWhenTheReceiverGoesAwayWithASendQueued(@TempDir Path dir) throws Exception {
        // Twice: the first run also starts what the JDK and libc open once per process (a name service socket).
        int[] runs = {0};
        Fds.assertNoLeak("a sink whose receiver went away with a ring send queued",
                () -> receiverGoneWithASendQueued(Files.createDirectory(dir.resolve("run-" + runs[0]++))));
    }

    private void receiverGoneWithASendQueued(Path dir) throws Exception {
        Path out = dir.resolve("out");
        try (SourceFile src = SourceFile.create(dir.resolve("c.log"), "c", "gone", 2_000, 60, 600);
             EventRing ring = EventRing.open()) {
            TcpReceiver receiver = TcpReceiver.start(LOOPBACK, out, TcpReceiver.Options.defaults(), System.err);
            TcpSink sink = new TcpSink("127.0.0.1", receiver.port(), TcpSink.Options.defaults());
            try {
                sink.flush();
                sink.sendsWith(ring);
                CompletableFuture<Void> first = sink.send(src.batch(0));
                sink.flush();
                driveUntilDone(ring, first);
                List<CompletableFuture<Void>> queued = new ArrayList<>();
                for (int i = 1; i < 6; i++) queued.add(sink.send(src.batch(i)));
                receiver.close(); // gone before the queued send goes
                sink.flush();
                CompletableFuture<Void> all = CompletableFuture.allOf(queued.toArray(CompletableFuture[]::new));
                driveUntilDone(ring, all.handle((v, e) -> null));
                assertTrue(all.isCompletedExceptionally(), "batches the receiver never acknowledged must fail");
            } finally {
                sink.close();
            }
        }
    }
}
