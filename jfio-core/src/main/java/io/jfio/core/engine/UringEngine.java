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
import io.jfio.core.uring.UringConstants;
import java.io.IOException;
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
 * The io_uring engine: one ring owned by one platform thread, the ring thread.
 *
 * <p>Thread-safe; any thread may submit. Other threads never touch ring memory: they put requests on a lock-free
 * queue and, if the ring thread is asleep in io_uring_enter, wake it by writing to an eventfd on which the ring
 * keeps a read outstanding. The ring thread moves everything queued into SQEs and submits the lot with one
 * io_uring_enter, so the more threads submit, the bigger each batch (implicit batching). Requests submitted from the
 * ring thread itself (from a {@link Completion}) skip the queue and the wake-up.
 *
 * <p>Bounds: at most {@code cqEntries - RESERVED} requests are in the kernel at once, so the CQ can never overflow;
 * more wait in the queue, in order. A full SQ is submitted and refilled; nothing is dropped or blocks forever.
 *
 * <p>Lifecycle: the ring is created on the ring thread (IORING_SETUP_SINGLE_ISSUER makes the creating thread the
 * only one allowed to submit). {@link #close()} fails queued requests, cancels those in flight, waits for every
 * completion, then unmaps the ring and closes its descriptors.
 */
public final class UringEngine extends AbstractEngine {
    /** Default SQ entries. */
    public static final int DEFAULT_ENTRIES = 256;
    /**
     * The io_uring setup flags jfio asks for by default ({@code DEFER_TASKRUN}, {@code SINGLE_ISSUER} and others);
     * one the kernel rejects is dropped and the ring is set up without it.
     */
    public static final int DEFAULT_FLAGS = Ring.DEFAULT_FLAGS;
    /** CQEs kept free for cancellations, linked timeouts and the wake-up read. */
    private static final int RESERVED = 16;
    /**
     * System property: how many requests submitted by completion callbacks may wait while the ring thread goes on
     * running the callbacks of the same batch of completions, before it pushes them into the kernel with an
     * io_uring_enter of their own. Without this, a batch of completions is resubmitted only after all its callbacks
     * ran; requests then travel in convoys and the device idles between them. Pushing early costs at most one extra
     * syscall per this many requests (docs/measurements/uring-engine.md).
     */
    public static final String SUBMIT_BATCH_PROP = "jfio.uring.submitBatch";
    /** The default of {@link #SUBMIT_BATCH_PROP}. */
    public static final int SUBMIT_BATCH_DEFAULT = 8;

    /**
     * System property: whether a blocking call from a platform thread runs its system calls on the calling thread
     * ({@code true}, the default) or goes through the ring like every other request ({@code false}, to measure the
     * ring's round trip). Virtual threads and asynchronous requests always use the ring.
     */
    public static final String INLINE_PLATFORM_PROP = "jfio.uring.inlinePlatform";

    private static final long WAKE_UD = -1L;
    private static final long INTERNAL_UD = -2L;
    private static final AtomicInteger RING_IDS = new AtomicInteger();
    private static final System.Logger LOG = System.getLogger("io.jfio.core.engine");

    private static final VarHandle SLEEPING;

    static {
        try {
            SLEEPING = MethodHandles.lookup().findVarHandle(UringEngine.class, "sleeping", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Thread thread;
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
    /** The buffers registered with the ring, held until unregistered or the ring is closed. */
    private RegisteredBuffers registered;

    private final int submitBatch = submitBatch();
    private final boolean inlinePlatform;
    private final int setupFlags;
    private final int features;
    private final int sqEntries;
    private final int cqEntries;
    private final boolean registeredRing;

    /**
     * An engine with {@link #DEFAULT_ENTRIES} SQ entries and the default setup flags.
     *
     * @throws IOException if io_uring cannot be used here ({@link UringUnavailableException}) or the ring cannot be set
     *     up (the message names the call and the errno)
     */
    public UringEngine() throws IOException {
        this(DEFAULT_ENTRIES, Ring.DEFAULT_FLAGS);
    }

    /**
     * An engine with a ring of {@code entries} SQ entries (CQ four times that), asking for {@code setupFlags};
     * flags the kernel rejects are dropped.
     *
     * @param entries the SQ entries, a power of two in 2..32768
     * @param setupFlags the {@code IORING_SETUP_*} flags to ask for, e.g. {@link #DEFAULT_FLAGS}
     * @throws IOException if io_uring cannot be used here ({@link UringUnavailableException}) or the ring cannot be
     *     set up (the message names the call and the errno)
     */
    public UringEngine(int entries, int setupFlags) throws IOException {
        this(entries, setupFlags, !"false".equalsIgnoreCase(System.getProperty(INLINE_PLATFORM_PROP, "true").trim()));
    }

    /**
     * Like {@link #UringEngine(int, int)}, choosing explicitly whether a blocking call from a platform thread runs
     * its system calls on the calling thread ({@code inlinePlatform}) or goes through the ring.
     *
     * @param entries the SQ entries, a power of two in 2..32768
     * @param setupFlags the {@code IORING_SETUP_*} flags to ask for, e.g. {@link #DEFAULT_FLAGS}
     * @param inlinePlatform true to run a platform thread's blocking calls on that thread, false to send them through
     *     the ring
     * @throws IOException if io_uring cannot be used here ({@link UringUnavailableException}) or the ring cannot be set
     *     up (the message names the call and the errno)
     */
    public UringEngine(int entries, int setupFlags, boolean inlinePlatform) throws IOException {
        this.inlinePlatform = inlinePlatform;
        if (entries < 2 || Integer.bitCount(entries) != 1 || entries > 32768) {
            throw new IllegalArgumentException("entries must be a power of two in 2..32768: entries=" + entries);
        }
        int efd = LibC.eventfd(0, Fcntl.EFD_CLOEXEC);
        ErrnoException.check(efd, "eventfd", -1, null);
        this.eventFd = efd;
        this.wakeValue = arena.allocateFrom(JAVA_LONG, 1L);
        CompletableFuture<Ring> started = new CompletableFuture<>();
        this.thread = new Thread(() -> run(entries, setupFlags, started), "jfio-ring-" + RING_IDS.incrementAndGet());
        thread.setDaemon(true);
        thread.start();
        Ring r;
        try {
            r = started.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            close();
            throw new ErrnoException("io_uring_setup (interrupted)", Errno.EINTR, null);
        } catch (ExecutionException e) {
            LibC.close(efd);
            arena.close();
            if (e.getCause() instanceof IOException ioe) throw ioe;
            throw new IllegalStateException("ring thread failed to start", e.getCause());
        }
        this.setupFlags = r.setupFlags();
        this.features = r.features();
        this.sqEntries = r.sq().entries();
        this.cqEntries = r.cq().entries();
        this.registeredRing = r.registeredRingFd();
    }

    private static int submitBatch() {
        String v = System.getProperty(SUBMIT_BATCH_PROP);
        if (v == null || v.isBlank()) return SUBMIT_BATCH_DEFAULT;
        try {
            int n = Integer.parseInt(v.trim());
            if (n < 1) throw new NumberFormatException();
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("invalid -D" + SUBMIT_BATCH_PROP + "=" + v + ": expected a positive"
                    + " integer");
        }
    }

    // ------------------------------------------------------------------ public surface

    @Override
    public String name() {
        return "io_uring";
    }

    /**
     * The setup flags the kernel accepted.
     *
     * @return the {@code IORING_SETUP_*} bits in effect
     */
    public int setupFlags() {
        return setupFlags;
    }

    /**
     * The IORING_FEAT_* bits the kernel reported.
     *
     * @return the {@code IORING_FEAT_*} bits
     */
    public int features() {
        return features;
    }

    /**
     * SQ entries of the ring.
     *
     * @return the submission queue's size
     */
    public int sqEntries() {
        return sqEntries;
    }

    /**
     * CQ entries of the ring.
     *
     * @return the completion queue's size
     */
    public int cqEntries() {
        return cqEntries;
    }

    /**
     * True when blocking calls from platform threads run their system calls on the calling thread.
     *
     * @return whether platform threads' blocking calls bypass the ring
     */
    public boolean inlinePlatform() {
        return inlinePlatform;
    }

    /**
     * True when io_uring_enter uses a registered ring descriptor.
     *
     * @return true with a registered ring descriptor (Linux 5.18 and later)
     */
    public boolean registeredRingFd() {
        return registeredRing;
    }

    @Override
    public boolean supports(int opcode) {
        return supportedOps.get(opcode);
    }

    /**
     * The opcodes the kernel's probe reported.
     *
     * @return a new set of the supported {@code IORING_OP_*} opcodes
     */
    public BitSet supportedOps() {
        return (BitSet) supportedOps.clone();
    }

    @Override
    boolean onCompletionThread() {
        return Thread.currentThread() == thread;
    }

    @Override
    void enqueue(IoOp head) throws EngineClosedException {
        for (IoOp op = head; op != null; op = op.next) {
            if (!supportedOps.get(op.opcode)) {
                throw new UnsupportedOperationException("this kernel's io_uring lacks IORING_OP_"
                        + UringConstants.opName(op.opcode) + "; use the thread engine for it");
            }
            if (op.linkTimeoutNanos >= 0 && op.opcode == IORING_OP_TIMEOUT) {
                throw new IllegalArgumentException("a timeout cannot have a linked timeout");
            }
        }
        Thread me = Thread.currentThread();
        if (me == thread) {
            if (closing) throw new EngineClosedException(name());
            local.add(head);
            return;
        }
        if (inlinePlatform && head.waiter == me && !me.isVirtual() && InlineRunner.canRun(head)) {
            // A blocking call from a platform thread: one request at a time gains nothing from a ring, and the
            // hand-off to the ring thread and back costs two context switches, several times the cost of a cached
            // read (docs/measurements/uring-engine.md). The caller makes the system call itself.
            if (closing) throw new EngineClosedException(name());
            InlineRunner.runOps(head);
            return;
        }
        if (closing) throw new EngineClosedException(name());
        queue.offer(head);
        wake();
        if (terminated && queue.remove(head)) {
            // The ring thread drained the queue for the last time before our offer landed.
            throw new EngineClosedException(name());
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
                    LOG.log(System.Logger.Level.ERROR, "eventfd write failed: errno=" + Errno.name((int) -w));
                }
            }
        } finally {
            wakers.decrementAndGet();
        }
    }

    @Override
    public void cancel(IoOp op) {
        if (op.state == IoOp.DONE) return;
        op.cancelRequested = true;
        cancels.add(op);
        if (Thread.currentThread() != thread) wake();
    }

    @Override
    public void registerBuffers(MemorySegment... buffers) throws IOException {
        RegisteredBuffers held = RegisteredBuffers.hold(buffers);
        // Whoever sets this owns {@code held}: the ring thread registering it, or this thread giving up.
        java.util.concurrent.atomic.AtomicBoolean taken = new java.util.concurrent.atomic.AtomicBoolean();
        long r;
        try {
            r = onRingThread(() -> {
                if (!taken.compareAndSet(false, true)) return -Errno.ECANCELED;
                LibC.ioUringRegister(ring.fd(), IORING_UNREGISTER_BUFFERS, 0, 0); // ENXIO when none: fine
                if (registered != null) registered.release(); // the kernel no longer uses them
                registered = null;
                if (held.count() == 0) return 0L;
                long res;
                try (Arena a = Arena.ofConfined()) { // the kernel copies the iovecs during the call
                    MemorySegment[] bufs = held.buffers();
                    MemorySegment iov = a.allocate(Iovec.SIZE * bufs.length, 8);
                    for (int i = 0; i < bufs.length; i++) Iovec.set(iov, i, bufs[i]);
                    res = ring.register(IORING_REGISTER_BUFFERS, iov.address(), bufs.length);
                }
                if (res >= 0) {
                    registered = held;
                } else {
                    held.release();
                }
                return res;
            });
        } catch (IOException | RuntimeException e) {
            if (taken.compareAndSet(false, true)) held.release();
            throw e;
        }
        ErrnoException.check(r, "io_uring_register(IORING_REGISTER_BUFFERS)", ring.fd(), null);
    }

    private interface RingTask {
        long run();
    }

    /** Runs {@code task} on the ring thread (registration calls must come from the single issuer) and waits. */
    private long onRingThread(RingTask task) throws IOException {
        if (Thread.currentThread() == thread) return task.run();
        if (closing) throw new EngineClosedException(name());
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
                    if (terminated && !f.isDone()) throw new EngineClosedException(name());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted waiting for the ring thread");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) throw io;
            throw new IllegalStateException(e.getCause());
        }
    }

    @Override
    public boolean isClosed() {
        return closing;
    }

    @Override
    public void close() {
        if (closing) {
            awaitTermination();
            return;
        }
        closing = true;
        wake();
        awaitTermination();
    }

    private void awaitTermination() {
        if (Thread.currentThread() == thread) return; // the loop notices closing and ends after this callback
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

    @Override
    public String toString() {
        return "UringEngine[sq=" + sqEntries + " cq=" + cqEntries + " flags="
                + UringConstants.setupFlagNames(setupFlags) + (closing ? " closed" : "") + "]";
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
            return;
        }
        started.complete(ring);
        try {
            loop();
        } catch (Throwable t) {
            fatal = t;
            LOG.log(System.Logger.Level.ERROR, "io_uring engine failed; failing all requests", t);
        } finally {
            shutdown();
        }
    }

    private void loop() {
        while (true) {
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
        }
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
                if (local.size() >= submitBatch && !closing) submitEarly();
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
            ring.close(); // the kernel cancels whatever is left and releases registered buffers
            if (registered != null) registered.release();
            registered = null;
            bounces().close();
            // The ring thread no longer sets sleeping = 1, so no new waker can win the CAS; wait out the ones that
            // did, which are at most one write(2) away from done.
            while (wakers.get() != 0) Thread.onSpinWait();
            LibC.close(eventFd);
            arena.close();
        }
    }

    private IoOp pollAny() {
        IoOp h = local.poll();
        return h != null ? h : queue.poll();
    }
}
