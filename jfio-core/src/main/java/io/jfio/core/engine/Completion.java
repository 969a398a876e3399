package io.jfio.core.engine;

/**
 * A callback for an asynchronous request.
 *
 * <p>Runs on a completion thread of the engine (for io_uring, the thread of the ring the request went to; for the
 * thread engine, a pool thread): it must be short and must not block. It may submit further requests; on the
 * io_uring engine those go straight into the same ring without a wake-up, which is how one ring thread keeps a deep
 * queue full cheaply.
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
