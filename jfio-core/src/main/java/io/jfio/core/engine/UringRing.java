package io.jfio.core.engine;

import static io.jfio.core.uring.UringConstants.IORING_ASYNC_CANCEL_ANY;
import static io.jfio.core.uring.UringConstants.IORING_ENTER_GETEVENTS;
import static io.jfio.core.uring.UringConstants.IORING_OP_ASYNC_CANCEL;
import static io.jfio.core.uring.UringConstants.IORING_OP_LINK_TIMEOUT;
import static io.jfio.core.uring.UringConstants.IORING_OP_READ;
import static io.jfio.core.uring.UringConstants.IORING_OP_TIMEOUT;
import static io.jfio.core.uring.UringConstants.IORING_REGISTER_BUFFERS;
import static io.jfio.core.uring.UringConstants.IORING_UNREGISTER_BUFFERS;
import static io.jfio.core.uring.UringConstants.IOSQE_IO_LINK;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jfio.core.sys.Errno;
import io.jfio.core.sys.ErrnoException;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.Iovec;
import io.jfio.core.sys.LibC;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayDeque;
import java.util.BitSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One ring of a {@link UringEngine} and the platform thread that owns it: the ring is created on that thread, and
 * only that thread touches ring memory, submits or registers (IORING_SETUP_SINGLE_ISSUER lets the kernel enforce
 * it).
 *
 * <p>Thread-safe entry points ({@link #offer}, {@link #cancel}, {@link #onRingThread}, {@link #beginClose}); the
 * rest is owned by the ring thread. Other threads put requests on a lock-free queue and, if the ring thread is
 * asleep in io_uring_enter, wake it by writing to an eventfd on which the ring keeps a read outstanding. The ring
 * thread moves everything queued into SQEs and submits the lot with one io_uring_enter, so the more threads submit,
 * the bigger each batch. Requests submitted from the ring thread itself (from a {@link Completion}) skip the queue
 * and the wake-up ({@link #addLocal}).
 *
 * <p>Bounds: at most {@code cqEntries - RESERVED} requests are in the kernel at once, so the CQ can never overflow;
 * more wait in the queue, in order. A full SQ is submitted and refilled; nothing is dropped or blocks forever.
 *
 * <p>End: after {@link #beginClose()} the ring thread fails queued requests, cancels those in flight, waits for
 * every completion, unmaps the ring, closes its descriptors and tells the engine ({@link UringEngine#ringTerminated}).
 */
final class UringRing {
    /** CQEs kept free for cancellations, linked timeouts and the wake-up read. */
    private static final int RESERVED = 16;
    private static final long WAKE_UD = -1L;
    private static final long INTERNAL_UD = -2L;
    /**
     * Requests handed to the kernel since the ring thread last slept during which it still counts as having time to
     * spare: more than a deep queue (128-256 requests) completes between two sleeps only on a ring that is busy.
     */
    private static final int IDLE_REQUESTS = 256;
    private static final System.Logger LOG = System.getLogger("io.jfio.core.engine");

    private static final VarHandle SLEEPING;

    static {
        try {
            SLEEPING = MethodHandles.lookup().findVarHandle(UringRing.class, "sleeping", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The ring thread: knows its ring, so a submission from a completion callback finds it without a lookup. */
    static final class RingThread extends Thread {
        final UringRing ring;

        RingThread(UringRing ring, Runnable run, String name) {
            super(run, name);
            this.ring = ring;
        }
    }

    final UringEngine engine;
    final int index;
    private final RingThread thread;
    private final ConcurrentLinkedQueue<IoOp> queue = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<IoOp> cancels = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final int eventFd;
    private final MemorySegment wakeValue;
    private volatile int sleeping;
    /** Threads inside {@link #wake()}; the eventfd and wakeValue stay alive until none is. */
    private final AtomicInteger wakers = new AtomicInteger();
    private volatile boolean closing;
    private volatile boolean terminated;
    /** Requests in the kernel as of the ring thread's last loop: what the engine balances new requests by. */
    private volatile int load;
    /** Requests this ring handed to the kernel; written by the ring thread only. */
    private volatile long placed;
    /** io_uring_enter calls of this ring that handed SQEs to the kernel; written by the ring thread only. */
    private volatile long submitCalls;

    // ---- state owned by the ring thread ----
    private final Arena arena = Arena.ofShared();
    private Ring ring;
    private SubmissionQueue sq;
    private CompletionQueue cq;
    private BitSet supportedOps;
    private IoOp[] slots;
    private int[] generations;
    private int[] freeSlots;
    private int freeCount;
    private int inKernel;       // CQEs still expected from the kernel, internal ones included
    private int limit;          // at most this many CQEs outstanding
    private MemorySegment timespecs;
    private MemorySegment wakeBuffer;
    private boolean wakeArmed;
    private final ArrayDeque<IoOp> local = new ArrayDeque<>();
    private IoOp backlog;       // a chain taken from a queue that did not fit yet; placed first next time
    private long[] cqeUserData;
    private int[] cqeRes;
    private Throwable fatal;
    private final int submitBatch;
    /** At most this many SQEs per io_uring_enter while the ring has time to spare ({@link #idle()}). */
    private final int idleBatch;
    /** {@link #placed} when the ring thread last slept in io_uring_enter waiting for a completion. */
    private long placedAtSleep;

    /** The ring as the kernel set it up; set once the ring thread created it. */
    final Ring setup;

    /**
     * Starts the ring thread, which creates the ring, and waits for it.
     *
     * @throws IOException as {@link UringEngine#UringEngine(int, int, boolean, int)} documents
     */
    UringRing(UringEngine engine, int index, String name, int entries, int setupFlags, int submitBatch,
              int idleBatch) throws IOException {
        this.engine = engine;
        this.index = index;
        this.submitBatch = submitBatch;
        this.idleBatch = idleBatch;
        int efd = LibC.eventfd(0, Fcntl.EFD_CLOEXEC);
        ErrnoException.check(efd, "eventfd", -1, null);
        this.eventFd = efd;
        this.wakeValue = arena.allocateFrom(JAVA_LONG, 1L);
        CompletableFuture<Ring> started = new CompletableFuture<>();
        this.thread = new RingThread(this, () -> run(entries, setupFlags, started), name);
        thread.setDaemon(true);
        engine.ringStarted();
        thread.start();
        Ring r;
        try {
            r = started.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            beginClose();
            awaitTermination();
            throw new ErrnoException("io_uring_setup (interrupted)", Errno.EINTR, null);
        } catch (ExecutionException e) {
            LibC.close(efd);
            arena.close();
            if (e.getCause() instanceof IOException ioe) throw ioe;
            throw new IllegalStateException("ring thread failed to start: ring=" + index, e.getCause());
        }
        this.setup = r;
    }

    /** The opcodes the kernel's probe reported; the same for every ring of a kernel. */
    BitSet supportedOps() {
        return supportedOps;
    }

    /** True when the calling thread is this ring's thread. */
    boolean isRingThread() {
        return Thread.currentThread() == thread;
    }

    /** Requests this ring had in the kernel at its last look; a hint for spreading new requests. */
    int load() {
        return load;
    }

    /** Requests this ring handed to the kernel so far. */
    long placed() {
        return placed;
    }

    /** io_uring_enter calls of this ring that handed at least one SQE to the kernel so far. */
    long submitCalls() {
        return submitCalls;
    }

    boolean closing() {
        return closing;
    }

    /** Queues a chain submitted by the ring thread itself (a completion callback): no queue, no wake-up. */
    void addLocal(IoOp head) throws EngineClosedException {
        if (closing) throw new EngineClosedException(engine.name());
        local.add(head);
    }

    /** Queues a chain submitted by another thread and wakes the ring thread if it sleeps. */
    void offer(IoOp head) throws EngineClosedException {
        if (closing) throw new EngineClosedException(engine.name());
        queue.offer(head);
        wake();
        if (terminated && queue.remove(head)) {
            // The ring thread drained the queue for the last time before our offer landed.
            throw new EngineClosedException(engine.name());
        }
    }

    /** Wakes the ring thread if it sleeps in io_uring_enter; at most one eventfd write per sleep. */
    private void wake() {
        if (sleeping != 1) return;
        // Counted before the CAS: shutdown waits for the count to drop to 0 before it closes the eventfd and frees
        // wakeValue, so a waker that won the CAS never writes to a closed (possibly reused) descriptor, and never
        // holds wakeValue's arena in its downcall while the ring thread closes that arena.
        wakers.incrementAndGet();
        try {
            if (SLEEPING.compareAndSet(this, 1, 0)) {
                long w = LibC.write(eventFd, wakeValue, 8);
                if (w < 0 && w != -Errno.EAGAIN) {
                    LOG.log(System.Logger.Level.ERROR, "eventfd write failed: errno=" + Errno.name((int) -w)
                            + " ring=" + index);
                }
            }
        } finally {
            wakers.decrementAndGet();
        }
    }

    /** Asks the ring thread to cancel {@code op}, which was handed to this ring. */
    void cancel(IoOp op) {
        if (op.state == IoOp.DONE) return;
        cancels.add(op);
        if (Thread.currentThread() != thread) wake();
    }

    /**
     * Replaces the buffers registered with this ring by {@code held}'s (none when {@code held} is null or empty).
     * Runs on the ring thread: registration calls must come from the single issuer.
     *
     * @return 0, or -errno of the failed registration (nothing is registered then)
     */
    long register(RegisteredBuffers held, java.util.concurrent.atomic.AtomicBoolean abandoned) throws IOException {
        return onRingThread(() -> {
            LibC.ioUringRegister(ring.fd(), IORING_UNREGISTER_BUFFERS, 0, 0); // ENXIO when none: fine
            if (held == null || held.count() == 0 || abandoned.get()) return 0L;
            try (Arena a = Arena.ofConfined()) { // the kernel copies the iovecs during the call
                MemorySegment[] bufs = held.buffers();
                MemorySegment iov = a.allocate(Iovec.SIZE * bufs.length, 8);
                for (int i = 0; i < bufs.length; i++) Iovec.set(iov, i, bufs[i]);
                return (long) ring.register(IORING_REGISTER_BUFFERS, iov.address(), bufs.length);
            }
        });
    }

    /** The ring descriptor, for messages. */
    int fd() {
        return setup.fd();
    }

    private interface RingTask {
        long run();
    }

    /** Runs {@code task} on the ring thread and waits. */
    private long onRingThread(RingTask task) throws IOException {
        if (Thread.currentThread() == thread) return task.run();
        if (closing) throw new EngineClosedException(engine.name());
        CompletableFuture<Long> f = new CompletableFuture<>();
        tasks.add(() -> {
            try {
                f.complete(task.run());
            } catch (Throwable t) {
                f.completeExceptionally(t);
            }
        });
        wake();
        try {
            while (true) {
                try {
                    return f.get(100, TimeUnit.MILLISECONDS);
                } catch (TimeoutException e) {
                    // The ring thread runs its last tasks while shutting down; one queued after that never runs.
                    if (terminated && !f.isDone()) throw new EngineClosedException(engine.name());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted waiting for the ring thread: ring=" + index);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) throw io;
            throw new IllegalStateException(e.getCause());
        }
    }

    /** Makes the ring thread end: it fails queued requests and cancels those in flight. Returns at once. */
    void beginClose() {
        closing = true;
        wake();
    }

    /** Waits for the ring thread to end; returns at once on the ring thread itself. */
    void awaitTermination() {
        if (Thread.currentThread() == thread) return;
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
    }

    // ------------------------------------------------------------------ ring thread

    private void run(int entries, int flags, CompletableFuture<Ring> started) {
        try {
            ring = Ring.create(entries, entries * 4, flags);
            sq = ring.sq();
            cq = ring.cq();
            supportedOps = ring.probeOps();
            if (supportedOps.isEmpty()) {
                // IORING_REGISTER_PROBE arrived in 5.6 with the opcodes jfio uses; a kernel without it is too old.
                ring.close();
                throw new UringUnavailableException("io_uring_register(PROBE)", Errno.EINVAL);
            }
            int n = cq.entries();
            limit = n - RESERVED;
            slots = new IoOp[n];
            generations = new int[n];
            freeSlots = new int[n];
            for (int i = 0; i < n; i++) freeSlots[i] = n - 1 - i;
            freeCount = n;
            timespecs = arena.allocate(16L * n, 8);
            wakeBuffer = arena.allocate(8, 8);
            cqeUserData = new long[n];
            cqeRes = new int[n];
        } catch (Throwable t) {
            started.completeExceptionally(t);
            engine.ringTerminated();
            return;
        }
        started.complete(ring);
        try {
            loop();
        } catch (Throwable t) {
            fatal = t;
            LOG.log(System.Logger.Level.ERROR, "io_uring ring " + index + " failed; closing the engine", t);
            engine.ringFailed();
        } finally {
            shutdown();
        }
    }

    private void loop() {
        while (true) {
            load = inKernel;
            runTasks();
            processCancels();
            boolean blocked = place();
            if (closing) return;
            boolean busy = cq.ready() > 0 || !local.isEmpty() || !cancels.isEmpty() || !tasks.isEmpty()
                    || (!blocked && !queue.isEmpty());
            int wait = 0;
            if (!busy) {
                if (!wakeArmed) armWake();
                // Announce the sleep, then look once more: a submitter that enqueued before seeing sleeping == 1 is
                // caught by this check; one that enqueues after sees 1 and writes the eventfd, completing our read.
                SLEEPING.setVolatile(this, 1);
                boolean newWork = (!blocked && !queue.isEmpty()) || !cancels.isEmpty() || !tasks.isEmpty();
                // Blocked on capacity, the completions of requests in flight will wake us.
                wait = newWork || closing ? 0 : 1;
            }
            int toSubmit = sq.publish();
            // Enter only to submit, to wait, or to let the kernel post completions of requests in flight (with
            // DEFER_TASKRUN it posts them only inside io_uring_enter); CQEs already waiting are reaped without one.
            boolean flush = cq.ready() == 0 && inKernel > (wakeArmed ? 1 : 0);
            if (toSubmit > 0 || wait > 0 || flush) enter(toSubmit, wait);
            sleeping = 0;
            if (wait > 0) placedAtSleep = placed;
            reap();
        }
    }

    /**
     * Submits and optionally waits. Always with GETEVENTS: with DEFER_TASKRUN completions are only posted while we
     * are in the kernel asking for them.
     */
    private void enter(int toSubmit, int wait) {
        while (true) {
            int r = ring.enter(toSubmit, wait, IORING_ENTER_GETEVENTS);
            if (r > 0) submitCalls++;
            if (r >= 0) return;
            if (r == -Errno.EINTR) {
                if (cq.ready() > 0) return;
                continue;
            }
            if (r == -Errno.EAGAIN || r == -Errno.EBUSY) {
                // The kernel is short of memory or has overflowed completions to flush: reap and try again.
                if (cq.ready() > 0) return;
                Thread.onSpinWait();
                continue;
            }
            throw new IllegalStateException("io_uring_enter failed: errno=" + Errno.name(-r) + " toSubmit="
                    + toSubmit + " ring=" + ring);
        }
    }

    private void armWake() {
        if (sq.space() == 0) return;
        sq.prepare(IORING_OP_READ, 0, eventFd, 0, wakeBuffer.address(), 8, 0, WAKE_UD, 0, 0, 0);
        inKernel++;
        wakeArmed = true;
    }

    private void runTasks() {
        Runnable t;
        while ((t = tasks.poll()) != null) t.run();
    }

    private void processCancels() {
        IoOp op;
        while ((op = cancels.peek()) != null) {
            if (op.state == IoOp.DONE || op.userData < 0) {
                // Done, or not placed yet: place() completes it with -ECANCELED when its turn comes.
                cancels.poll();
                continue;
            }
            if (sq.space() == 0 || inKernel >= cq.entries() - 1) return;
            cancels.poll();
            sq.prepare(IORING_OP_ASYNC_CANCEL, 0, -1, 0, op.userData, 0, 0, INTERNAL_UD, 0, 0, 0);
            inKernel++;
        }
    }

    /** Moves queued chains into SQEs; returns true if work remains that did not fit. */
    private boolean place() {
        while (true) {
            IoOp head = backlog;
            if (head == null) head = local.poll();
            if (head == null) head = queue.poll();
            if (head == null) return false;
            backlog = null;
            if (closing) {
                failClosed(head);
                continue;
            }
            int ops = 0;
            int sqes = 0;
            for (IoOp op = head; op != null; op = op.next) {
                ops++;
                sqes += op.linkTimeoutNanos >= 0 ? 2 : 1;
            }
            if (ops > freeCount || inKernel + sqes > limit || sqes > sq.space()) {
                if (sqes > sq.entries()) {
                    failChain(head, -Errno.EINVAL);
                    continue;
                }
                if (sqes > sq.space() && inKernel + sqes <= limit && ops <= freeCount) {
                    // The SQ is full of SQEs the kernel has not consumed: submit them and retry this chain.
                    enter(sq.publish(), 0);
                    if (sqes <= sq.space()) {
                        backlog = head;
                        continue;
                    }
                }
                backlog = head;
                return true;
            }
            prepareChain(head);
            // With time to spare, hand what is placed to the kernel before the queue grows past a plugged batch.
            if (idle() && sq.pending() >= idleBatch) enter(sq.publish(), 0);
        }
    }

    /**
     * True while the ring thread slept a few requests ago: it has CPU to spare, so it spends io_uring_enter
     * calls on getting each request to its device sooner (at most {@code idleBatch} SQEs per call: the kernel plugs
     * the block queue for a batch of more than two and lets the device see none of it until the last is issued); a
     * ring that never sleeps (cached reads completing inside the call that submits them) batches up to
     * {@code submitBatch} to save the calls.
     */
    private boolean idle() {
        return placed - placedAtSleep <= IDLE_REQUESTS;
    }

    private void prepareChain(IoOp head) {
        for (IoOp op = head; op != null; op = op.next) {
            if (op.cancelRequested) {
                // Cancelled before reaching the kernel: it and the rest of its chain end here.
                failChain(op, -Errno.ECANCELED);
                return;
            }
        }
        for (IoOp op = head; op != null; op = op.next) {
            int slot = freeSlots[--freeCount];
            int gen = (generations[slot] + 1) & 0x7fffffff;
            generations[slot] = gen;
            slots[slot] = op;
            long ud = ((long) gen << 32) | slot;
            op.userData = ud;
            boolean hasTimeout = op.linkTimeoutNanos >= 0;
            int flags = op.sqeFlags | (hasTimeout || op.next != null ? IOSQE_IO_LINK : 0);
            long addr = op.addr;
            int len = op.len;
            long off = op.sqeOff();
            if (op.opcode == IORING_OP_TIMEOUT || hasTimeout) {
                long nanos = op.opcode == IORING_OP_TIMEOUT ? op.timeoutNanos() : op.linkTimeoutNanos;
                long ts = 16L * slot;
                timespecs.set(JAVA_LONG, ts, nanos / 1_000_000_000L);
                timespecs.set(JAVA_LONG, ts + 8, nanos % 1_000_000_000L);
                if (op.opcode == IORING_OP_TIMEOUT) {
                    addr = timespecs.address() + ts;
                    len = 1;
                    off = 0; // pure timer: do not complete on a count of other completions
                }
            }
            sq.prepare(op.opcode, flags, op.fd, off, addr, len, op.opFlags, ud, op.bufIndex, op.spliceFdIn,
                    op.opcode == IORING_OP_TIMEOUT ? 0 : op.addr3);
            inKernel++;
            placed++;
            if (hasTimeout) {
                sq.prepare(IORING_OP_LINK_TIMEOUT, op.next != null ? IOSQE_IO_LINK : 0, -1, 0,
                        timespecs.address() + 16L * slot, 1, 0, INTERNAL_UD, 0, 0, 0);
                inKernel++;
            }
        }
    }

    private void reap() {
        while (true) {
            int n = cq.ready();
            if (n == 0) return;
            for (int i = 0; i < n; i++) {
                cqeUserData[i] = cq.userData(i);
                cqeRes[i] = cq.res(i);
            }
            // Release the CQ slots before running callbacks: they may submit and the kernel may post more.
            cq.advance(n);
            inKernel -= n;
            for (int i = 0; i < n; i++) {
                long ud = cqeUserData[i];
                if (ud == WAKE_UD) {
                    wakeArmed = false;
                    continue;
                }
                if (ud == INTERNAL_UD) continue;
                int slot = (int) ud;
                IoOp op = slots[slot];
                if (op == null || op.userData != ud) {
                    LOG.log(System.Logger.Level.ERROR, "completion for unknown request: user_data=" + ud);
                    continue;
                }
                slots[slot] = null;
                freeSlots[freeCount++] = slot;
                finish(op, cqeRes[i]);
                if (local.size() >= (idle() ? idleBatch : submitBatch) && !closing) submitEarly();
            }
        }
    }

    /**
     * Pushes requests that callbacks submitted into the kernel now, instead of after the remaining completions of
     * this batch ran their callbacks: the device gets them sooner.
     */
    private void submitEarly() {
        place();
        int n = sq.publish();
        if (n > 0) enter(n, 0);
    }

    private void finish(IoOp op, long res) {
        try {
            op.complete(res);
        } catch (Throwable t) {
            LOG.log(System.Logger.Level.ERROR, "completion callback threw for " + op, t);
        }
    }

    private void failChain(IoOp head, long res) {
        for (IoOp op = head; op != null; op = op.next) finish(op, res);
    }

    private void failClosed(IoOp head) {
        for (IoOp op = head; op != null; op = op.next) {
            op.closedByEngine = true;
            finish(op, -Errno.ECANCELED);
        }
    }

    /** Ends the engine: fail what never reached the kernel, cancel what did, wait for all of it, free the ring. */
    private void shutdown() {
        closing = true;
        IoOp head;
        try {
            if (backlog != null) failClosed(backlog);
            backlog = null;
            while ((head = local.poll()) != null) failClosed(head);
            while ((head = queue.poll()) != null) failClosed(head);
            runTasks();
            if (fatal == null) {
                // Cancel everything in flight (ANY: 5.19), then wait for every CQE, the wake-up read's included.
                if (inKernel > 0 && sq.space() > 0) {
                    sq.prepare(IORING_OP_ASYNC_CANCEL, 0, -1, 0, 0, 0, IORING_ASYNC_CANCEL_ANY, INTERNAL_UD, 0,
                            0, 0);
                    inKernel++;
                }
                long deadline = System.nanoTime() + 30_000_000_000L;
                while (inKernel > 0 && System.nanoTime() < deadline) {
                    int r = ring.enter(sq.publish(), 1, IORING_ENTER_GETEVENTS);
                    if (r < 0 && r != -Errno.EINTR && r != -Errno.EAGAIN && r != -Errno.EBUSY) break;
                    reap();
                    if (inKernel == 1 && wakeArmed) {
                        // Only our eventfd read is left: complete it ourselves.
                        LibC.write(eventFd, wakeValue, 8);
                    }
                }
            }
            for (int i = 0; i < slots.length; i++) {
                IoOp op = slots[i];
                if (op != null) {
                    slots[i] = null;
                    op.closedByEngine = true;
                    finish(op, -Errno.ECANCELED);
                }
            }
        } finally {
            terminated = true;
            while ((head = pollAny()) != null) failClosed(head);
            ring.close(); // the kernel cancels whatever is left and lets go of the registered buffers
            // The ring thread no longer sets sleeping = 1, so no new waker can win the CAS; wait out the ones that
            // did, which are at most one write(2) away from done.
            while (wakers.get() != 0) Thread.onSpinWait();
            LibC.close(eventFd);
            arena.close();
            engine.ringTerminated();
        }
    }

    private IoOp pollAny() {
        IoOp h = local.poll();
        return h != null ? h : queue.poll();
    }
}
