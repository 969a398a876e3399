package io.jfio.ship.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.ship.config.Framing;
import io.jfio.ship.config.InputConfig;
import io.jfio.ship.config.Start;
import io.jfio.ship.metrics.ShipMetrics;
import io.jfio.ship.sink.Batch;
import io.jfio.ship.sink.Sink;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The window of unacknowledged batches alone: offsets move only in send order, a failure stops them, what the sink
 * still acknowledges after a failure counts, the rest is forgotten. The sink here is a recorder whose futures the test
 * completes; the window is what is under test.
 */
class BatchWindowTest {
    private static class Recorder implements Sink {
        final List<CompletableFuture<Void>> futures = new ArrayList<>();
        final AtomicInteger flushes = new AtomicInteger();

        @Override
        public String describe() {
            return "recorder";
        }

        @Override
        public CompletableFuture<Void> send(Batch batch) {
            CompletableFuture<Void> f = new CompletableFuture<>();
            futures.add(f);
            return f;
        }

        @Override
        public void flush() {
            flushes.incrementAndGet();
        }

        @Override
        public void close() {
        }
    }

    private final MemorySegment bytes = Arena.ofAuto().allocate(100);

    private static TrackedFile file(Stream s) {
        TrackedFile t = new TrackedFile(new InputConfig("in", List.of("/x"), List.of(), Framing.LINES,
                Start.BEGINNING, null, "s"), "/x", 1, 2);
        t.stream = s;
        s.bind(t);
        return t;
    }

    private void send(BatchWindow w, TrackedFile t, long length) throws IOException {
        w.send(t, new Batch(t.path, "in", -1, t.stream.read, length, 1, bytes.asSlice(0, length)));
    }

    @Test
    void shouldAcknowledgeOffsetsOnlyInSendOrder() throws IOException {
        Recorder sink = new Recorder();
        AtomicInteger woken = new AtomicInteger();
        BatchWindow w = new BatchWindow(sink, new ShipMetrics().of("s"), (v, e) -> woken.incrementAndGet());
        Stream s = new Stream(0, 0, 0);
        TrackedFile t = file(s);
        send(w, t, 10);
        send(w, t, 20);
        assertEquals(30, s.read);
        assertEquals(30, w.inFlightBytes());
        sink.futures.get(1).complete(null); // the second first: nothing moves yet
        assertNull(w.collect());
        assertEquals(0, s.acked);
        sink.futures.get(0).complete(null);
        assertNull(w.collect());
        assertEquals(30, s.acked);
        assertEquals(0, w.inFlightBytes());
        assertEquals(0, s.inFlight);
        assertEquals(2, woken.get(), "each completion wakes the pipeline");
        w.flush();
        assertEquals(1, sink.flushes.get());
        w.flush();
        assertEquals(1, sink.flushes.get(), "nothing new to flush");
    }

    @Test
    void shouldKeepWhatTheSinkStillAcknowledgesAfterAFailureAndForgetTheRest() throws IOException {
        Recorder sink = new Recorder();
        BatchWindow w = new BatchWindow(sink, new ShipMetrics().of("s"), (v, e) -> { });
        Stream s = new Stream(0, 0, 0);
        TrackedFile t = file(s);
        send(w, t, 10);
        w.skip(t, 15, bytes.asSlice(0, 5));
        send(w, t, 20);
        send(w, t, 30);
        IOException boom = new IOException("connection reset");
        sink.futures.get(0).complete(null);
        sink.futures.get(1).completeExceptionally(boom);
        sink.futures.get(2).complete(null);
        assertSame(boom, w.collect());
        assertEquals(15, s.acked, "the first batch and the skip before the failure");
        w.settle(System.nanoTime());
        assertEquals(15, s.acked, "a success after a failure does not count: the failed bytes are before it");
        assertEquals(0, s.inFlight);
        assertEquals(0, w.inFlightBytes());
        assertTrue(w.isEmpty());
        s.rewind();
        assertEquals(15, s.read);
    }

    @Test
    void shouldKeepWhatSucceededForOtherFilesAfterOneFileFailed() throws IOException {
        Recorder sink = new Recorder();
        BatchWindow w = new BatchWindow(sink, new ShipMetrics().of("s"), (v, e) -> { });
        Stream a = new Stream(0, 0, 0);
        Stream b = new Stream(0, 0, 0);
        TrackedFile ta = file(a);
        TrackedFile tb = file(b);
        send(w, ta, 10);
        send(w, tb, 20);
        send(w, ta, 30);
        send(w, tb, 40);
        send(w, tb, 50);
        sink.futures.get(0).completeExceptionally(new IOException("object dropped"));
        sink.futures.get(1).complete(null);
        sink.futures.get(2).complete(null);
        sink.futures.get(3).complete(null);
        sink.futures.get(4).completeExceptionally(new IOException("object dropped"));
        assertTrue(w.collect() instanceof IOException);
        w.settle(System.nanoTime());
        assertEquals(0, a.acked, "the failed file: nothing after its failed batch counts");
        assertEquals(60, b.acked, "the other file keeps what the sink stored of it, up to its own failure");
        assertEquals(0, a.inFlight);
        assertEquals(0, b.inFlight);
        assertEquals(0, w.inFlightBytes());
        assertTrue(w.isEmpty());
        b.rewind();
        assertEquals(60, b.read, "read again only from its own first failure");
    }

    @Test
    void shouldCountWhatASinkStillHoldsAfterAFailureInFlightUntilItLetsGo() throws IOException {
        Recorder sink = new Recorder() {
            @Override
            public boolean holdsFailedBatches() {
                return true;
            }
        };
        AtomicInteger woken = new AtomicInteger();
        BatchWindow w = new BatchWindow(sink, new ShipMetrics().of("s"), (v, e) -> woken.incrementAndGet());
        Stream s = new Stream(0, 0, 0);
        TrackedFile t = file(s);
        send(w, t, 10);
        send(w, t, 20);
        send(w, t, 30);
        sink.futures.get(0).completeExceptionally(new IOException("delivery timed out"));
        assertTrue(w.collect() instanceof IOException);
        w.settle(System.nanoTime());
        assertTrue(w.isEmpty());
        assertEquals(50, w.inFlightBytes(), "the two batches the sink has not let go of still weigh");
        s.rewind();
        send(w, t, 10); // the resend
        assertEquals(60, w.inFlightBytes());
        int before = woken.get();
        sink.futures.get(2).completeExceptionally(new IOException("delivery timed out"));
        assertEquals(30, w.inFlightBytes());
        assertTrue(woken.get() > before, "a batch let go of wakes the pipeline: reading may wait for it");
        sink.futures.get(1).complete(null);
        assertEquals(10, w.inFlightBytes(), "only the resend is left");
        sink.futures.get(3).complete(null);
        assertNull(w.collect());
        assertEquals(0, w.inFlightBytes());
        assertEquals(10, s.acked);
    }

    @Test
    void shouldForgetWhatASinkLetsGoOfAtItsFailure() throws IOException {
        Recorder sink = new Recorder();
        BatchWindow w = new BatchWindow(sink, new ShipMetrics().of("s"), (v, e) -> { });
        Stream s = new Stream(0, 0, 0);
        TrackedFile t = file(s);
        send(w, t, 10);
        send(w, t, 20);
        sink.futures.get(0).completeExceptionally(new IOException("connection reset"));
        assertTrue(w.collect() instanceof IOException);
        w.settle(System.nanoTime());
        assertEquals(0, w.inFlightBytes(), "a future that may never complete must not hold the window");
    }

    @Test
    void shouldMoveTheContentsOffsetNotTheFilesSoACopyAcknowledgesForTheOriginal() throws IOException {
        Recorder sink = new Recorder();
        BatchWindow w = new BatchWindow(sink, new ShipMetrics().of("s"), (v, e) -> { });
        Stream s = new Stream(0, 0, 100);
        TrackedFile original = file(s);
        send(w, original, 50);
        // The original is truncated (it starts a new content) while its batch is in flight.
        s.unbind(original);
        original.stream = new Stream(0, 0, 0);
        sink.futures.get(0).complete(null);
        assertNull(w.collect());
        assertEquals(150, s.acked);
        assertEquals(0, original.stream.acked, "the new content is not moved by the old one's acknowledgement");
    }
}
