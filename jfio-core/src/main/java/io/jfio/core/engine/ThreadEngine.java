package io.jfio.core.engine;

import static io.jfio.core.uring.UringConstants.IORING_OP_TIMEOUT;

import io.jfio.core.sys.Errno;
import java.lang.foreign.MemorySegment;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The fallback engine: a pool of platform threads executing requests with pread, pwrite and the other plain system
 * calls. Used where io_uring cannot be (kernel too old, disabled by sysctl or seccomp), or when forced with
 * {@code -Djfio.engine=threads}.
 *
 * <p>Thread-safe; any thread may submit. Queue depth is emulated by the pool size: {@code threads} requests run at
 * once, the rest wait in an unbounded queue. A blocking call from a platform thread runs the system call on the
 * calling thread itself (no hand-off); from a virtual thread it is handed to the pool so that the carrier is not
 * blocked in the kernel. Cancellation, linked timeouts and {@link #close()} stop a request that has not started,
 * a timer, and a read or write of a pipe or socket that is waiting for its peer (it waits in poll(2) in short
 * slices); a read or write of a regular file, once started, runs to completion.
 */
public final class ThreadEngine extends AbstractEngine {
    /** Default pool size: enough threads to keep a queue depth of 32 busy. */
    public static final int DEFAULT_THREADS = 32;

    private static final AtomicInteger POOL_IDS = new AtomicInteger();

    private final ThreadPoolExecutor pool;
    private final ScheduledExecutorService timers;
    private final ThreadGroupMarker marker = new ThreadGroupMarker();
    /** Chains handed to the pool and not finished yet: what close() must cancel. */
    private final Set<IoOp> live = ConcurrentHashMap.newKeySet();
    /** Timers not fired yet; whoever removes one (the timer, cancel or close) completes it. */
    private final Set<IoOp> pendingTimers = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;
    /** The buffers registered last; guarded by this. */
    private RegisteredBuffers registered;

    /** A pool of {@link #DEFAULT_THREADS} threads. */
    public ThreadEngine() {
        this(DEFAULT_THREADS);
    }

    /**
     * A pool of {@code threads} threads.
     *
     * @param threads the pool's size, at least 1
     */
    public ThreadEngine(int threads) {
        if (threads < 1) throw new IllegalArgumentException("threads must be >= 1: threads=" + threads);
        int id = POOL_IDS.incrementAndGet();
        AtomicInteger n = new AtomicInteger();
        pool = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(() -> {
                marker.set(Boolean.TRUE);
                r.run();
            }, "jfio-threads-" + id + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        pool.allowCoreThreadTimeOut(true);
        timers = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "jfio-threads-" + id + "-timer");
            t.setDaemon(true);
            return t;
        });
    }

    private static final class ThreadGroupMarker extends ThreadLocal<Boolean> {
    }

    @Override
    public String name() {
        return "threads";
    }

    @Override
    boolean onCompletionThread() {
        return marker.get() == Boolean.TRUE;
    }

    @Override
    void enqueue(IoOp head) throws EngineClosedException {
        if (closed) throw new EngineClosedException(name());
        for (IoOp op = head; op != null; op = op.next) {
            if (op.linkTimeoutNanos >= 0) {
                IoOp target = op;
                ScheduledFuture<?> unused = timers.schedule(() -> target.cancelRequested = true,
                        op.linkTimeoutNanos, TimeUnit.NANOSECONDS);
            }
        }
        if (head.opcode == IORING_OP_TIMEOUT && head.next == null) {
            pendingTimers.add(head);
            try {
                ScheduledFuture<?> unused = timers.schedule(() -> {
                    if (pendingTimers.remove(head)) InlineRunner.finish(head, 0);
                }, head.timeoutNanos(), TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException e) {
                pendingTimers.remove(head);
                throw new EngineClosedException(name());
            }
            return;
        }
        live.add(head);
        Thread me = Thread.currentThread();
        if (head.waiter == me && !me.isVirtual()) {
            runChain(head);
            return;
        }
        try {
            pool.execute(() -> runChain(head));
        } catch (RejectedExecutionException e) {
            live.remove(head);
            throw new EngineClosedException(name());
        }
    }

    private void runChain(IoOp head) {
        try {
            if (closed) {
                // Still queued when the engine closed: it never started, so it fails as the contract says.
                for (IoOp op = head; op != null; op = op.next) {
                    op.closedByEngine = true;
                    InlineRunner.finish(op, -Errno.ECANCELED);
                }
            } else {
                InlineRunner.runOps(head);
            }
        } finally {
            live.remove(head);
        }
    }

    @Override
    public void cancel(IoOp op) {
        op.cancelRequested = true;
        if (pendingTimers.remove(op)) InlineRunner.finish(op, -Errno.ECANCELED);
    }

    @Override
    public boolean supports(int opcode) {
        return opcode == IORING_OP_TIMEOUT || Syscalls.implemented(opcode);
    }

    /**
     * Holds the buffers as the io_uring engine does (the same buffers are accepted and kept alive), though nothing
     * is registered with the kernel: fixed requests run as plain pread/pwrite on the same memory.
     */
    @Override
    public void registerBuffers(MemorySegment... buffers) throws EngineClosedException {
        RegisteredBuffers held = RegisteredBuffers.hold(buffers);
        RegisteredBuffers old;
        synchronized (this) {
            if (closed) {
                held.release();
                throw new EngineClosedException(name());
            }
            old = registered;
            registered = held;
        }
        if (old != null) old.release();
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    /**
     * Stops accepting requests; queued ones fail with {@link EngineClosedException}, timers and requests waiting on a
     * pipe or socket are cancelled, reads and writes of files already running finish; then stops the threads.
     * Idempotent.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) return;
            closed = true;
        }
        for (IoOp head : live) {
            for (IoOp op = head; op != null; op = op.next) op.cancelRequested = true;
        }
        for (IoOp timer : pendingTimers) {
            if (pendingTimers.remove(timer)) InlineRunner.finish(timer, -Errno.ECANCELED);
        }
        pool.shutdown();
        timers.shutdownNow();
        try {
            boolean done = pool.awaitTermination(60, TimeUnit.SECONDS);
            if (!done) throw new IllegalStateException("thread engine did not drain within 60 s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        RegisteredBuffers held;
        synchronized (this) {
            held = registered;
            registered = null;
        }
        if (held != null) held.release();
        bounces().close();
    }

    @Override
    public String toString() {
        return "ThreadEngine[threads=" + pool.getMaximumPoolSize() + (closed ? " closed" : "") + "]";
    }
}
