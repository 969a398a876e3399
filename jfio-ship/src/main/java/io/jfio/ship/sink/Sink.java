package io.jfio.ship.sink;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;

/**
 * Where shipped bytes go. One pipeline thread calls {@link #send} and {@link #flush}, in order; the futures they
 * return may complete on other threads (a TCP acknowledgement reader, the Kafka producer's I/O thread).
 *
 * <p>The contract that makes shipping at-least-once: the future returned by {@code send} completes normally only
 * when every byte of the batch is durable at the destination (fsynced for a directory, acknowledged by the receiver
 * for TCP with acknowledgements, acknowledged by all in-sync replicas for Kafka). The pipeline advances a file's
 * checkpoint past a batch only after that. Futures complete in the order the batches were sent. A future that
 * completes exceptionally means the batch (and every later one) must be sent again; the pipeline retries with
 * backoff and the sink must accept the same bytes again (duplicates are allowed, loss is not).
 *
 * <p>Backpressure: {@code send} may block while the sink has too much unacknowledged data in flight; that is how a
 * slow or unreachable sink pauses reading (the files on disk are the buffer).
 */
public interface Sink extends AutoCloseable {

    /** A short description for logs and metrics, such as {@code dir:/var/ship}. */
    String describe();

    /**
     * Hands a batch to the sink. The batch's descriptor and bytes are valid only during this call.
     *
     * @return completes when the batch is durable at the destination
     * @throws IOException if the sink cannot take the batch now (connection refused, disk full, ...); the pipeline
     *                     retries with backoff
     */
    CompletableFuture<Void> send(Batch batch) throws IOException;

    /**
     * The memory this sink holds for {@code batch} while it is unacknowledged, beyond the batch's bytes: objects it
     * keeps per record (the kafka sink's producer keeps several for every record until it is acknowledged). The
     * pipeline counts it against {@code max-in-flight} with the bytes, so that a stream of tiny records pauses reading
     * as soon as their objects, not only their bytes, reach the bound. Called by the pipeline thread while the batch
     * is valid (before {@link #send}); 0 by default.
     */
    default long overhead(Batch batch) {
        return 0;
    }

    /**
     * Whether the sink goes on holding a batch's memory after a failure until the batch's future completes, and
     * completes every future it returned, however the sink fails. The kafka sink does both: its producer keeps a
     * record of a failed batch's neighbours until that record's own delivery times out. The pipeline then counts a
     * batch it stopped waiting for at a failure against {@code max-in-flight} until its future completes, so that
     * what it resends and what the sink still holds stay within the bound together. False by default: the sink lets
     * go of a batch when it reports the failure.
     */
    default boolean holdsFailedBatches() {
        return false;
    }

    /**
     * Makes everything sent so far durable soon (fsync for a directory, flush for Kafka) without waiting for it;
     * called when the pipeline has no more data for now, on a timer and before shutdown. A sink may hold the small
     * batches of one round until then, to write them with one system call (the directory and TCP sinks do; TCP only
     * once its caller has flushed, so that a flush is sure to follow); the pipeline flushes after every round that
     * moved little.
     */
    void flush() throws IOException;

    /**
     * Lets {@link #flush} leave its write queued on {@code ring}, the pipeline thread's own, to go with the pipeline's
     * next wait in that ring (one system call for both, see {@link io.jfio.core.engine.EventRing}); the pipeline
     * submits the ring before any other wait. Called by the pipeline thread; with null: no more, and what is still
     * queued or in flight completes first. By default nothing: every write happens in the call that makes it.
     *
     * @throws IOException when completing what was queued failed (the sink treats it as a failed send)
     */
    default void sendsWith(io.jfio.core.engine.EventRing ring) throws IOException {
    }

    /**
     * Whether the caller waits for acknowledgements now (a run with {@code --once}, the start-up ramp, a full window):
     * a sink that lets acknowledgements or syncs gather while its stream is slow stops doing so while {@code soon}.
     * Called by the pipeline thread when that changes; by default nothing.
     */
    default void acknowledgeSoon(boolean soon) {
    }

    /**
     * The source positions this sink has durably committed together with the data: for each source content ({@link
     * SourceId}) the offset just past the last byte it holds. A sink that stores them atomically with the data (the
     * directory sink's commit record) makes shipping to it exactly once: the pipeline resumes every file from here, and
     * its own checkpoints are only a cache of it.
     *
     * @return the committed positions (offset in {@link io.jfio.ship.state.Checkpoint#offset()}), or null when the
     *         sink cannot store positions with its data (at-least-once sinks)
     */
    default java.util.List<io.jfio.ship.state.Checkpoint> committed() throws IOException {
        return null;
    }

    /**
     * How much of the gzip file {@code id} this sink holds durably, in decompressed bytes: the decompressed offset
     * just past the last record of it the sink stored (0 when none), for a sink that stores decompressed records by
     * their range ({@link Batch#decompressed}) with the position, as the s3 sink does; a gzip file is then resumed from
     * there after a crash, never shipped twice. -1 (the default) when the sink keeps no such position: a gzip file that
     * was not shipped whole is shipped again from its start (at least once).
     *
     * @param id the gzip file's identity (device, inode, fingerprint of its compressed first bytes)
     * @throws IOException when the sink cannot say
     */
    default long committedDecompressed(SourceId id) throws IOException {
        return -1;
    }

    /**
     * How many sources this sink found at its start that it can no longer complete (the s3 sink: gzip files deleted
     * before all of their objects were stored, each reported once when found): work that failed, so that a {@code
     * --once} run ends with exit 1. 0 by default.
     */
    default int sourcesLost() {
        return 0;
    }

    /**
     * The pipeline has read everything there is and waits for the last acknowledgements ({@code --once}): deliver
     * what the sink holds now rather than on its own schedule (the s3 sink uploads the objects it is still filling).
     * By default a {@link #flush}.
     */
    default void drain() throws IOException {
        flush();
    }

    /**
     * The pipeline is stopping: deliver what the sink holds now rather than on its own schedule (the s3 sink uploads
     * the objects it is still filling). Called once, before the pipeline waits for the last acknowledgements and
     * {@link #close}s the sink. By default a {@link #flush}.
     */
    default void finish() throws IOException {
        flush();
    }

    /** Flushes and releases everything; waits at most a few seconds for outstanding acknowledgements. */
    @Override
    void close() throws IOException;
}
