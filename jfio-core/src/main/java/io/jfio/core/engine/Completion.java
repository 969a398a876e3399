package io.jfio.core.engine;

/**
 * A callback for an asynchronous request.
 *
 * <p>Runs on the engine's completion thread (the ring thread for io_uring, a pool thread for the thread engine): it
 * must be short and must not block. It may submit further requests; on the io_uring engine those go straight into
 * the ring without a wake-up, which is how a single thread keeps a deep queue full cheaply.
 */
@FunctionalInterface
public interface Completion {
    /**
     * Called once when {@code op} completes.
     *
     * @param op     the request
     * @param result its result: a byte count, descriptor or 0 on success; {@code -errno} on failure
     *               ({@code -ECANCELED} when cancelled). {@link IoOp#check(long)} turns it into an exception.
     */
    void complete(IoOp op, long result);
}
