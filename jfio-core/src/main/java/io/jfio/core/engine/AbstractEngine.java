package io.jfio.core.engine;

import io.jfio.core.sys.Errno;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;

/**
 * What both engines share: the blocking wait with its interrupt and cancellation rules, futures and callbacks.
 *
 * <p>Thread-safe. Subclasses implement {@link #enqueue} (hand a submitted chain to the engine) and report whether
 * the calling thread is the completion thread, on which blocking would deadlock.
 */
abstract class AbstractEngine implements IoEngine {
    /** Bounce buffers of this engine's requests; subclasses close it once no request can be in flight. */
    private final BouncePool bounces = new BouncePool();

    /** The pool requests take their bounce buffers from. */
    final BouncePool bounces() {
        return bounces;
    }

    /** Hands a chain, already marked submitted, to the engine. Throws if the engine is closed. */
    abstract void enqueue(IoOp head) throws EngineClosedException;

    /** True when the calling thread runs this engine's completions. */
    abstract boolean onCompletionThread();

    private void markChain(IoOp head) {
        int n = 0;
        for (IoOp op = head; op != null; op = op.next) {
            if (++n > 64) throw new IllegalArgumentException("chain longer than 64 requests");
            op.checkSubmittable();
        }
        for (IoOp op = head; op != null; op = op.next) {
            try {
                op.markSubmitted(this);
            } catch (RuntimeException e) {
                unpin(head);
                throw e;
            }
        }
    }

    /** A chain that never reached the engine lets go of the IoArenas its requests hold. */
    private static void unpin(IoOp head) {
        for (IoOp o = head; o != null; o = o.next) o.unpin();
    }

    /** Hands the chain over; a chain the engine rejects (not a closed engine: a bad request) holds no arena. */
    private void hand(IoOp head) throws EngineClosedException {
        try {
            enqueue(head);
        } catch (RuntimeException e) {
            unpin(head);
            throw e;
        }
    }

    @Override
    public long execute(IoOp op) throws IOException {
        if (onCompletionThread()) {
            throw new IllegalStateException("blocking call on the " + name() + " engine's completion thread would"
                    + " deadlock; submit with a callback instead: " + op);
        }
        Thread me = Thread.currentThread();
        IoOp last = op;
        for (IoOp o = op; o != null; o = o.next) {
            o.waiter = me;
            last = o;
        }
        markChain(op);
        try {
            hand(op);
        } catch (EngineClosedException e) {
            refuse(op);
            throw e;
        }
        boolean interrupted = false;
        for (IoOp o = op; o != null; o = o.next) {
            while (o.state != IoOp.DONE) {
                LockSupport.park(this);
                if (Thread.interrupted()) {
                    if (!interrupted) cancel(op);
                    interrupted = true;
                }
            }
        }
        // A request run inline by this thread (a platform thread's blocking call) saw the interrupt itself.
        if (!interrupted && me.isInterrupted()) interrupted = true;
        if (interrupted) me.interrupt();
        for (IoOp o = op; o != null; o = o.next) {
            if (o.closedByEngine) throw new EngineClosedException(name());
            if (o.result < 0) {
                if (interrupted && (o.result == -Errno.ECANCELED || o.result == -Errno.EINTR)) {
                    InterruptedIOException e = new InterruptedIOException("interrupted; request cancelled: " + o);
                    e.bytesTransferred = 0;
                    throw e;
                }
                throw o.error(o.result);
            }
        }
        assert last.state == IoOp.DONE;
        return op.result;
    }

    @Override
    public CompletableFuture<Long> submit(IoOp op) {
        for (IoOp o = op; o != null; o = o.next) o.future = new IoOp.OpFuture(o);
        try {
            markChain(op);
            hand(op);
        } catch (EngineClosedException e) {
            refuse(op);
            for (IoOp o = op; o != null; o = o.next) o.future.completeExceptionally(e);
        }
        return op.future;
    }

    @Override
    public void submit(IoOp op, Completion completion) {
        for (IoOp o = op; o != null; o = o.next) o.callback = completion;
        markChain(op);
        try {
            hand(op);
        } catch (EngineClosedException e) {
            refuse(op);
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /** A chain refused at submission never reaches the kernel: its whenDone actions run now (see IoOp#refuse). */
    private static void refuse(IoOp head) {
        for (IoOp o = head; o != null; o = o.next) o.refuse();
    }
}
