package io.jfio.ship.pipeline;

import io.jfio.ship.metrics.ShipMetrics.Counter;
import io.jfio.ship.metrics.ShipMetrics.SinkCounters;
import io.jfio.ship.sink.Batch;
import io.jfio.ship.sink.Sink;
import java.io.IOException;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Not thread-safe; owned by the pipeline thread. The sink's futures complete on other threads; {@code onDone}
 * (given once to each distinct future that is not done at once) is how they wake the pipeline.
 *
 * <p>The batches handed to the sink and not acknowledged yet, in send order. It hands batches to the sink, counts the
 * bytes in flight (reading pauses above {@code max-in-flight}), and moves each stream's acknowledged offset forward
 * from the futures that completed, strictly in order: an offset is acknowledged only when every batch before it is.
 * When the sink fails it keeps what the sink still acknowledges, per stream, and drops the rest, which the caller
 * then reads again from the acknowledged offsets.
 */
final class BatchWindow {
    /**
     * A batch handed to the sink and not yet acknowledged ({@code length == 0} for bytes skipped, dropped):
     * {@code length} source bytes, {@code weight} bytes in flight (the larger of its source bytes and the bytes
     * delivered, since an encoded batch may be several times its source, plus the sink's {@link Sink#overhead}).
     * The window's slots are reused: a batch costs no entry of its own.
     */
    private static final class Pending {
        Stream stream;
        long end;
        long length;
        long weight;
        long records;
        CompletableFuture<Void> future;

        void clear() {
            stream = null;
            future = null;
        }
    }

    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

    private final Sink sink;
    private final SinkCounters counters;
    private final java.util.function.BiConsumer<Void, Throwable> onDone;
    /** The batches in send order: a ring of reused slots, {@code count} of them from {@code head}. */
    private Pending[] ring = newSlots(16);
    private int head;
    private int count;
    /**
     * The future {@code onDone} was last given to: a sink that completes a round's batches together returns one
     * future for all of them, which needs {@code onDone} once, not once per batch.
     */
    private CompletableFuture<Void> watched;
    private long inFlightBytes;
    /**
     * The weight of batches forgotten at a failure that the sink still holds ({@link Sink#holdsFailedBatches}):
     * counted in flight until their futures complete, on the sink's threads.
     */
    private final AtomicLong lingering = new AtomicLong();
    private long unflushedBytes;
    private long firstUnflushedNanos;
    /** Incremented by every acknowledgement that moved an offset. */
    private long acks;

    BatchWindow(Sink sink, SinkCounters counters, java.util.function.BiConsumer<Void, Throwable> onDone) {
        this.sink = sink;
        this.counters = counters;
        this.onDone = onDone;
    }

    /** What the sink holds: the batches in the window, and those forgotten at a failure it has not let go of. */
    long inFlightBytes() {
        return inFlightBytes + lingering.get();
    }

    long unflushedBytes() {
        return unflushedBytes;
    }

    long firstUnflushedNanos() {
        return firstUnflushedNanos;
    }

    boolean isEmpty() {
        return count == 0;
    }

    int size() {
        return count;
    }

    private static Pending[] newSlots(int n) {
        Pending[] r = new Pending[n];
        for (int i = 0; i < n; i++) r[i] = new Pending();
        return r;
    }

    /** A free slot at the tail (the ring doubles when full), filled by the caller. */
    private Pending append(Stream s, long end, long length, long weight, long records, CompletableFuture<Void> f) {
        if (count == ring.length) {
            Pending[] r = new Pending[ring.length * 2];
            for (int i = 0; i < count; i++) r[i] = ring[(head + i) % ring.length];
            for (int i = count; i < r.length; i++) r[i] = new Pending();
            ring = r;
            head = 0;
        }
        Pending p = ring[(head + count) % ring.length];
        count++;
        p.stream = s;
        p.end = end;
        p.length = length;
        p.weight = weight;
        p.records = records;
        p.future = f;
        return p;
    }

    private Pending first() {
        return ring[head];
    }

    /** Frees the head slot (its contents must have been used before: the slot is reused). */
    private void removeFirst() {
        ring[head].clear();
        head = (head + 1) % ring.length;
        count--;
    }

    long acks() {
        return acks;
    }

    /**
     * Hands {@code batch}, read from {@code t} at its stream's read offset, to the sink, and moves the read offset
     * past it.
     *
     * @throws IOException as the sink threw it; nothing moved
     */
    void send(TrackedFile t, Batch batch) throws IOException {
        long weight = weight(batch) + sink.overhead(batch);
        CompletableFuture<Void> f = sink.send(batch);
        Stream s = t.stream;
        s.read = batch.end();
        s.anchor(batch.bytes());
        s.inFlight++;
        long length = batch.length();
        inFlightBytes += weight;
        if (unflushedBytes == 0) firstUnflushedNanos = System.nanoTime();
        // What the sink was given to write: a gzip file's batches carry records and no bytes of the file, and they
        // must bring a flush as much as any (a sink holds small batches until the next flush).
        unflushedBytes += Math.max(length, Math.max(1, batch.payload().byteSize()));
        counters.add(Counter.BYTES_READ, length);
        counters.add(Counter.RECORDS_READ, batch.records());
        append(s, s.read, length, weight, batch.records(), f);
        if (f != watched && !f.isDone()) {
            watched = f;
            f.whenComplete(onDone);
        }
    }

    /**
     * Bytes of {@code t} up to {@code end} were skipped (a dropped record): acknowledged in their turn.
     * {@code skipped} are those bytes (their last ones become the anchor).
     */
    void skip(TrackedFile t, long end, java.lang.foreign.MemorySegment skipped) {
        Stream s = t.stream;
        s.read = end;
        s.anchor(skipped);
        s.inFlight++;
        append(s, end, 0, 0, 0, DONE);
    }

    /** The sink's decompressed position of the gzip file {@code id} ({@link Sink#committedDecompressed}). */
    long committedDecompressed(io.jfio.ship.sink.SourceId id) throws IOException {
        return sink.committedDecompressed(id);
    }

    /** Asks the sink to make what was sent durable soon. */
    void flush() throws IOException {
        if (unflushedBytes == 0) return;
        unflushedBytes = 0;
        sink.flush();
    }

    /**
     * Takes the completed futures at the head, in order.
     *
     * @return null, or the failure of the first future that failed (it and every later batch stay pending; see
     *         {@link #settle})
     */
    Throwable collect() {
        while (count > 0) {
            Pending p = first();
            if (!p.future.isDone()) break;
            if (p.future.isCompletedExceptionally()) return cause(p.future);
            ack(p);
            removeFirst();
        }
        return null;
    }

    /**
     * After a failure: waits until {@code deadlineNanos} for the futures the sink may still complete, acknowledges
     * per stream those that succeeded before the stream's first that did not, and forgets the rest (their bytes are
     * read again). Per stream, not across them: a failed batch of one file says nothing about the sink's work on the
     * others, and an exactly-once sink that stored a later batch of another file would be sent it again (and store
     * it twice) if it were forgotten.
     */
    void settle(long deadlineNanos) {
        Set<Stream> failed = Collections.newSetFromMap(new IdentityHashMap<>());
        while (count > 0) {
            Pending p = first();
            boolean ok = !failed.contains(p.stream) && succeeds(p.future, deadlineNanos);
            if (ok) {
                ack(p);
            } else {
                failed.add(p.stream);
                p.stream.inFlight--;
                if (sink.holdsFailedBatches()) linger(p.weight, p.future);
            }
            removeFirst();
        }
        watched = null;
        inFlightBytes = 0;
        unflushedBytes = 0;
    }

    /** Whether {@code f} completes without failing by {@code deadlineNanos}. */
    private static boolean succeeds(CompletableFuture<Void> f, long deadlineNanos) {
        try {
            f.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (ExecutionException | TimeoutException | CancellationException e) {
            return false;
        }
    }

    /**
     * Counts {@code weight} in flight until {@code f} completes; its completion wakes the pipeline like an
     * acknowledgement, since reading may wait for it.
     */
    private void linger(long weight, CompletableFuture<Void> f) {
        if (weight == 0 || f.isDone()) return;
        lingering.addAndGet(weight);
        f.whenComplete((v, t) -> {
            lingering.addAndGet(-weight);
            onDone.accept(null, null);
        });
    }

    /** At shutdown: acknowledges what completes before {@code deadlineNanos}; the number of batches left. */
    int drain(long deadlineNanos) {
        while (count > 0 && deadlineNanos - System.nanoTime() > 0) {
            Pending p = first();
            try {
                p.future.get(Math.max(1, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (Exception e) {
                break;
            }
            ack(p);
            removeFirst();
        }
        return count;
    }

    private void ack(Pending p) {
        Stream s = p.stream;
        inFlightBytes -= p.weight;
        s.inFlight--;
        if (p.end > s.acked) {
            s.acked = p.end;
            acks++;
        }
        if (p.length > 0 || p.records > 0) {
            // A gzip file's batches carry records and no bytes of the file (its bytes count when it is done).
            counters.add(Counter.BYTES_SHIPPED, p.length);
            counters.add(Counter.RECORDS_SHIPPED, p.records);
        }
    }

    /**
     * What {@code batch} weighs against {@code max-in-flight}: the larger of its source bytes and the bytes delivered,
     * so that a sink holding what it delivers in memory (an s3 sink's objects) stays within the bound however much an
     * encoding adds.
     */
    static long weight(Batch batch) {
        return Math.max(batch.length(), batch.payload().byteSize());
    }

    private static Throwable cause(CompletableFuture<Void> f) {
        try {
            f.join();
            return new IllegalStateException("future not failed");
        } catch (CompletionException | CancellationException e) {
            return e.getCause() != null ? e.getCause() : e;
        }
    }
}
