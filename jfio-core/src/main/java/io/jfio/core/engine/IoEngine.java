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
 *   <li>{@link #submit(IoOp, Completion)}: calls back on the engine's completion thread.</li>
 * </ul>
 * Chains built with {@link IoOp#link} are submitted by submitting the head.
 *
 * <p>Memory during a request. A request's buffers belong to the kernel from submission until completion: the
 * caller must not reuse them before then. What happens if the caller frees them anyway depends on their arena:
 * <ul>
 *   <li>{@link IoArena}: the request holds the arena; closing it while requests are in flight frees the memory only
 *       when the last of them completes. Reads go straight into this memory: the zero-copy path, used by copy,
 *       {@link io.jfio.core.file.BufferPool} and the benchmarks.</li>
 *   <li>{@link java.lang.foreign.Arena#ofAuto()}, {@link java.lang.foreign.Arena#global()}, direct buffers: freed
 *       only once unreachable, and the request keeps them reachable. Also zero-copy.</li>
 *   <li>Any other arena ({@link java.lang.foreign.Arena#ofConfined()}, {@link java.lang.foreign.Arena#ofShared()}):
 *       the JDK has no public API to hold it open, so a {@link IoOp#read} into it goes through a bounce buffer the
 *       request owns, copied at completion; if the arena was closed meanwhile the read fails with EFAULT and the
 *       bytes are dropped. Such a read must end its chain, and into confined memory it must be a blocking
 *       {@link #execute} of the owning thread. Writes, {@link IoOp#readv} (the iovecs' targets),
 *       {@link IoOp#readFixed} (registered buffers) and statx are not bounced: freeing their memory in flight
 *       remains the caller's error.</li>
 * </ul>
 * Read-only destinations are refused with {@link IllegalArgumentException} before submission.
 */
public interface IoEngine extends AutoCloseable {

    /** {@code "io_uring"} or {@code "threads"}. */
    String name();

    /**
     * Submits {@code op} (and the chain it heads) and waits for it.
     *
     * @return the head's result, {@code >= 0}
     * @throws io.jfio.core.sys.ErrnoException for a failed request (the first failure in a chain)
     * @throws java.io.InterruptedIOException  if the thread was interrupted and the request was cancelled
     * @throws EngineClosedException           if the engine is closed
     */
    long execute(IoOp op) throws IOException;

    /**
     * Submits {@code op} (and the chain it heads). Each request of a chain gets its own future
     * ({@link IoOp#future()}); this returns the head's. A failed request completes its future exceptionally with
     * an {@link io.jfio.core.sys.ErrnoException}; on a closed engine with {@link EngineClosedException}.
     */
    CompletableFuture<Long> submit(IoOp op);

    /**
     * Submits {@code op} (and the chain it heads); {@code completion} is called once per request.
     *
     * @throws IllegalStateException if the engine is closed
     */
    void submit(IoOp op, Completion completion);

    /**
     * Asks that {@code op} be cancelled. A request not yet started completes with -ECANCELED; one the kernel is
     * already executing may still complete normally. Does nothing for a completed request.
     */
    void cancel(IoOp op);

    /** True when this engine can execute requests with this io_uring opcode. */
    boolean supports(int opcode);

    /**
     * Registers buffers for {@link IoOp#readFixed}/{@link IoOp#writeFixed}, replacing any registered before;
     * buffer {@code i} gets index {@code i}. The buffers must stay alive until replaced or the engine closes. On the
     * thread engine registration is a no-op and fixed requests run as plain ones.
     */
    void registerBuffers(MemorySegment... buffers) throws IOException;

    /** True once {@link #close()} has been called. */
    boolean isClosed();

    /**
     * Stops the engine: queued requests fail with {@link EngineClosedException}, requests in flight are cancelled
     * and waited for, then every descriptor and mapping the engine owns is released. Idempotent.
     */
    @Override
    void close();
}
