package io.jfio.core.engine;

import static io.jfio.core.uring.UringConstants.IORING_OP_TIMEOUT;

import io.jfio.core.sys.Errno;
import java.util.concurrent.TimeUnit;

/**
 * Runs a chain of requests with the plain system calls on the calling thread, with io_uring's chain semantics: a
 * failure or a short read or write completes the rest of the chain with -ECANCELED.
 *
 * <p>Thread-safe; stateless. Used by the thread engine's pool threads and by both engines for a blocking call from
 * a platform thread, where a hand-off to another thread would only add latency.
 */
final class InlineRunner {
    private InlineRunner() {
    }

    /** True when every request of the chain can run as a plain system call (no linked timeout). */
    static boolean canRun(IoOp head) {
        for (IoOp op = head; op != null; op = op.next) {
            if (op.linkTimeoutNanos >= 0 || !(op.opcode == IORING_OP_TIMEOUT || Syscalls.implemented(op.opcode))) {
                return false;
            }
        }
        return true;
    }

    static void runOps(IoOp head) {
        boolean failed = false;
        for (IoOp op = head; op != null; op = op.next) {
            long r;
            if (failed || op.cancelRequested) {
                r = -Errno.ECANCELED;
            } else if (op.opcode == IORING_OP_TIMEOUT) {
                r = sleep(op.timeoutNanos());
            } else {
                r = runGuarded(op);
            }
            long expected = op.expectedTransfer();
            if (r < 0 || (expected >= 0 && r < expected)) failed = true;
            finish(op, r);
        }
    }

    /**
     * Runs the system call; an exception (a bug, never a failed call, which is -errno) must still complete the
     * request, or its waiter would wait forever: it completes with -EIO and is logged.
     */
    private static long runGuarded(IoOp op) {
        try {
            return Syscalls.run(op);
        } catch (RuntimeException | Error e) {
            System.getLogger("io.jfio.core.engine").log(System.Logger.Level.ERROR,
                    "system call threw; failing the request with EIO: " + op, e);
            return -Errno.EIO;
        }
    }

    private static long sleep(long nanos) {
        try {
            TimeUnit.NANOSECONDS.sleep(nanos);
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -Errno.EINTR;
        }
    }

    static void finish(IoOp op, long r) {
        try {
            op.complete(r);
        } catch (Throwable t) {
            System.getLogger("io.jfio.core.engine").log(System.Logger.Level.ERROR,
                    "completion callback threw for " + op, t);
        }
    }
}
