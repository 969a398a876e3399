package io.jfio.core.engine;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;

/**
 * Executes {@link IoOp} requests against the kernel: io_uring ({@code UringEngine}) or a thread pool over the
 * plain system calls ({@link ThreadEngine}). Both give the same results for the same requests.
 *
 * <p>Thread-safe; any thread, platform or virtual, may submit. Three ways to submit:
 * <ul>
 *   <li>{@link #execute}: blocks until the request completed. A virtual thread is parked (its carrier is free for
 *       other virtual threads); a platform thread waits. It never returns while the kernel may still touch the
 *       request's buffers: when the waiting thread is interrupted the request is cancelled and the call still waits
 *       for the kernel to let go, then throws {@link java.io.InterruptedIOException} (interrupt status kept) if the
 *       request was in fact cancelled, or returns its result if it completed anyway.</li>
 *   <li>{@link #submit(IoOp)}: returns a future.</li>
 *   <li>{@link #submit(IoOp, Completion)}: calls back on a completion thread of the engine (with io_uring, the
 *       thread of the ring the request went to).</li>
 * </ul>
 * Chains built with {@link IoOp#link} are submitted by submitting the head.
 *
 * <p>Memory during a request. The kernel reads or writes a request's memory (buffers, {@link IoOp#readv}/
 * {@link IoOp#writev} segments, statx buffers, openat and statx paths) from submission until completion: the caller
 * must not reuse it before then. Freeing it anyway never lets the kernel touch memory that may have been handed to
 * another allocation; what happens depends on the memory's arena:
 * <ul>
 *   <li>{@link IoArena}: the request holds the arena; closing it while requests are in flight frees the memory only
 *       when the last of them completes. The kernel uses this memory directly: the zero-copy path, used by copy,
 *       {@link io.jfio.core.file.BufferPool} and the benchmarks.</li>
 *   <li>{@link java.lang.foreign.Arena#ofAuto()}, {@link java.lang.foreign.Arena#global()}, direct buffers: freed
 *       only once unreachable, and the request keeps them reachable. Also zero-copy.</li>
 *   <li>Memory confined to the thread that waits in {@link #execute}: only that thread could close the arena, and
 *       it is blocked until the request is over. Also zero-copy.</li>
 *   <li>Any other memory ({@link java.lang.foreign.Arena#ofShared()}, custom arenas, confined memory submitted
 *       asynchronously): the kernel gets a bounce buffer from the engine's pool. Memory the kernel reads (a write's
 *       source, a path) is copied into it at submission, so the request uses the bytes of that moment. Memory the
 *       kernel writes (a read's destination, a statx buffer) is copied from it at completion; if the arena was closed
 *       meanwhile the request fails with EFAULT and the bytes are dropped. Such a request must end its chain, and
 *       into confined memory it must be a blocking {@link #execute} of the owning thread (else
 *       {@link IllegalArgumentException} at submission).</li>
 * </ul>
 * {@link #registerBuffers} accepts only memory that cannot be freed under the registration (the first two kinds),
 * and holds an {@link IoArena} until the buffers are replaced or the engine closes. A request on memory of a
 * closed {@link IoArena} or arena is refused with {@link IllegalStateException}.
 * Read-only destinations are refused with {@link IllegalArgumentException} before submission.
 */
public interface IoEngine extends AutoCloseable {

    /**
     * {@code "io_uring"} or {@code "threads"}.
     *
     * @return the engine's name
     */
    String name();

    /**
     * Submits {@code op} (and the chain it heads) and waits for it.
     *
     * @param op the request to run, not yet submitted
     * @return the head's result, {@code >= 0}
     * @throws IOException                     for a failed request (the first failure in a chain), naming the errno
     * @throws java.io.InterruptedIOException  if the thread was interrupted and the request was cancelled
     * @throws EngineClosedException           if the engine is closed
     */
    long execute(IoOp op) throws IOException;

    /**
     * Submits {@code op} (and the chain it heads). Each request of a chain gets its own future
     * ({@link IoOp#future()}); this returns the head's. A failed request completes its future exceptionally with
     * an {@link IOException} naming the errno; on a closed engine with {@link EngineClosedException}.
     *
     * @param op the request to run, not yet submitted
     * @return the head's future: its result, or exceptionally an {@link IOException} naming the errno
     */
    CompletableFuture<Long> submit(IoOp op);

    /**
     * Submits {@code op} (and the chain it heads); {@code completion} is called once per request.
     *
     * @param op the request to run, not yet submitted
     * @param completion called with each request of the chain when it completes
     * @throws IllegalStateException if the engine is closed
     */
    void submit(IoOp op, Completion completion);

    /**
     * Asks that {@code op} be cancelled. A request not yet started completes with -ECANCELED; one the kernel is
     * already executing may still complete normally. Does nothing for a completed request.
     *
     * @param op a submitted request
     */
    void cancel(IoOp op);

    /**
     * True when this engine can execute requests with this io_uring opcode.
     *
     * @param opcode an {@code IORING_OP_*} value, e.g. the one of {@link IoOp#opcode()}
     * @return true when requests with this opcode can run here
     */
    boolean supports(int opcode);

    /**
     * Registers buffers for {@link IoOp#readFixed}/{@link IoOp#writeFixed}, replacing any registered before (none
     * for an empty call); buffer {@code i} gets index {@code i}. The registration keeps the buffers alive until they
     * are replaced or the engine closes: memory of an {@link IoArena} (closing the arena frees it only then),
     * {@link java.lang.foreign.Arena#ofAuto()} or {@link java.lang.foreign.Arena#global()} memory and direct
     * buffers. On the thread engine nothing reaches the kernel and fixed requests run as plain ones, but the same
     * buffers are accepted and held.
     *
     * @param buffers the memory to register; buffer {@code i} is the {@code bufIndex} of fixed requests into it
     * @throws IllegalArgumentException for heap segments and memory of other arenas, which could be freed while the
     *                                  kernel still uses it
     * @throws EngineClosedException    if the engine is closed
     * @throws IOException              if the kernel refuses the registration (the message names the errno, e.g.
     *                                  ENOMEM beyond RLIMIT_MEMLOCK)
     */
    void registerBuffers(MemorySegment... buffers) throws IOException;

    /**
     * True once {@link #close()} has been called.
     *
     * @return true after close
     */
    boolean isClosed();

    /**
     * Stops the engine: queued requests fail with {@link EngineClosedException}, requests in flight are cancelled
     * and waited for, then every descriptor and mapping the engine owns is released. Idempotent.
     */
    @Override
    void close();
}
