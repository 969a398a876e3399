package io.jfio.core.engine;

import static io.jfio.core.uring.UringConstants.IORING_OP_TIMEOUT;

import io.jfio.core.sys.ErrnoException;
import io.jfio.core.uring.UringConstants;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The io_uring engine: several rings, by default one per available CPU, each owned by its own platform thread.
 *
 * <p>Thread-safe; any thread may submit. A request goes to one ring and stays there until it completes:
 * <ul>
 *   <li>submitted from a ring thread (a {@link Completion} submitting the next request): to that thread's own ring,
 *       without a queue or a wake-up;</li>
 *   <li>from any other thread: to the rings in turn (round-robin), so a burst of submissions from one thread spreads
 *       evenly and no ring becomes the hot spot;</li>
 *   <li>a blocking call from a platform thread runs its system calls on the calling thread (see
 *       {@link #INLINE_PLATFORM_PROP}); a blocking read from a virtual thread first tries the page cache without
 *       waiting (see {@link #INLINE_NOWAIT_PROP}) and goes to a ring only when that would wait.</li>
 * </ul>
 * A chain goes whole to one ring. Each ring is set up with SINGLE_ISSUER, DEFER_TASKRUN and COOP_TASKRUN where the
 * kernel has them (flags it rejects are dropped one at a time), see {@link UringRing} for one ring's threading.
 *
 * <p>Registered buffers are registered with every ring under the same indexes, so a fixed request works on whichever
 * ring it lands. The engine registers no files: requests name plain descriptors, valid on every ring.
 *
 * <p>Lifecycle: {@link #close()} makes every ring fail its queued requests and cancel those in flight, waits for
 * every ring thread to end (each waits for its completions, then unmaps its ring and closes its descriptors), then
 * lets go of the registered buffers and the bounce buffers. Closed from a ring thread (a callback), it returns at
 * once and the last ring to end does the rest.
 */
public final class UringEngine extends AbstractEngine {
    /** Default SQ entries of each ring. */
    public static final int DEFAULT_ENTRIES = 256;
    /**
     * The io_uring setup flags jfio asks for by default ({@code DEFER_TASKRUN}, {@code SINGLE_ISSUER} and others);
     * one the kernel rejects is dropped and the ring is set up without it.
     */
    public static final int DEFAULT_FLAGS = Ring.DEFAULT_FLAGS;
    /**
     * System property: how many requests submitted by completion callbacks may wait while the ring thread goes on
     * running the callbacks of the same batch of completions, before it pushes them into the kernel with an
     * io_uring_enter of their own. Without this, a batch of completions is resubmitted only after all its callbacks
     * ran; requests then travel in convoys and the device idles between them. Pushing early costs at most one extra
     * syscall per this many requests (docs/measurements/uring-engine.md). This is the batch of a busy ring; one with
     * time to spare uses {@link #IDLE_BATCH_PROP}.
     */
    public static final String SUBMIT_BATCH_PROP = "jfio.uring.submitBatch";
    /** The default of {@link #SUBMIT_BATCH_PROP}. */
    public static final int SUBMIT_BATCH_DEFAULT = 8;
    /**
     * System property: at most how many SQEs a ring hands to the kernel per io_uring_enter while its thread has time
     * to spare (it slept waiting for a completion in its last few loops), whether callbacks or other threads submitted
     * them. The kernel plugs the block queue for a batch of more than two SQEs and lets the device see none of them
     * until the last is issued; with CPU to spare, getting each request to the device sooner is worth the extra
     * call. A ring that never sleeps (cached reads completing inside the call that submits them) batches up to
     * {@link #SUBMIT_BATCH_PROP} instead. Setting it to that value turns the distinction off.
     */
    public static final String IDLE_BATCH_PROP = "jfio.uring.idleBatch";
    /** The default of {@link #IDLE_BATCH_PROP}: the most SQEs the kernel submits without plugging. */
    public static final int IDLE_BATCH_DEFAULT = 2;

    /**
     * System property: whether a blocking call from a platform thread runs its system calls on the calling thread
     * ({@code true}, the default) or goes through a ring like every other request ({@code false}, to measure the
     * ring's round trip). Virtual threads and asynchronous requests use the rings.
     */
    public static final String INLINE_PLATFORM_PROP = "jfio.uring.inlinePlatform";

    /**
     * System property: whether a blocking read from a virtual thread is first tried on the calling thread with
     * preadv2(RWF_NOWAIT) ({@code true}, the default), which the kernel serves from the page cache or refuses without
     * waiting; a refused read goes to a ring. {@code false} sends every such read to a ring.
     */
    public static final String INLINE_NOWAIT_PROP = "jfio.uring.inlineNowait";

    /**
     * System property: how many rings (each with its own thread) the engine runs. A positive number, or
     * {@code auto} (the default): one per CPU this process may run on ({@link Runtime#availableProcessors()}), at most
     * {@link #MAX_RINGS}.
     */
    public static final String RINGS_PROP = "jfio.uring.rings";
    /** The most rings an engine runs. */
    public static final int MAX_RINGS = 256;

    private static final AtomicInteger ENGINE_IDS = new AtomicInteger();

    private final UringRing[] rings;
    private final AtomicInteger next = new AtomicInteger();
    private final AtomicInteger live = new AtomicInteger();
    private volatile boolean closing;
    private final boolean inlinePlatform;
    private final boolean inlineNowait;
    private final int setupFlags;
    private final int features;
    private final int sqEntries;
    private final int cqEntries;
    private final boolean registeredRing;
    private final BitSet supportedOps;

    /** Guards the registration of buffers; the fields below are the engine's, released when the last ring ends. */
    private final Object registration = new Object();
    private RegisteredBuffers registered;
    private final List<RegisteredBuffers> releaseAtEnd = new ArrayList<>();
    private boolean ended;

    /**
     * An engine with {@link #DEFAULT_ENTRIES} SQ entries per ring, the default setup flags and as many rings as
     * {@link #RINGS_PROP} says.
     *
     * @throws IOException if io_uring cannot be used here ({@link UringUnavailableException}) or a ring cannot be set
     *     up (the message names the call and the errno)
     */
    public UringEngine() throws IOException {
        this(DEFAULT_ENTRIES, Ring.DEFAULT_FLAGS);
    }

    /**
     * An engine whose rings have {@code entries} SQ entries (CQ four times that), asking for {@code setupFlags};
     * flags the kernel rejects are dropped. As many rings as {@link #RINGS_PROP} says.
     *
     * @param entries the SQ entries of each ring, a power of two in 2..32768
     * @param setupFlags the {@code IORING_SETUP_*} flags to ask for, e.g. {@link #DEFAULT_FLAGS}
     * @throws IOException if io_uring cannot be used here ({@link UringUnavailableException}) or a ring cannot be
     *     set up (the message names the call and the errno)
     */
    public UringEngine(int entries, int setupFlags) throws IOException {
        this(entries, setupFlags, !"false".equalsIgnoreCase(System.getProperty(INLINE_PLATFORM_PROP, "true").trim()));
    }

    /**
     * Like {@link #UringEngine(int, int)}, choosing explicitly whether a blocking call from a platform thread runs
     * its system calls on the calling thread ({@code inlinePlatform}) or goes through a ring.
     *
     * @param entries the SQ entries of each ring, a power of two in 2..32768
     * @param setupFlags the {@code IORING_SETUP_*} flags to ask for, e.g. {@link #DEFAULT_FLAGS}
     * @param inlinePlatform true to run a platform thread's blocking calls on that thread, false to send them through
     *     a ring
     * @throws IOException if io_uring cannot be used here ({@link UringUnavailableException}) or a ring cannot be set
     *     up (the message names the call and the errno)
     */
    public UringEngine(int entries, int setupFlags, boolean inlinePlatform) throws IOException {
        this(entries, setupFlags, inlinePlatform, configuredRings());
    }

    /**
     * Like {@link #UringEngine(int, int, boolean)}, with {@code rings} rings. When {@code inlinePlatform} is false
     * the virtual threads' inline attempt ({@link #INLINE_NOWAIT_PROP}) is off too: every request goes through a
     * ring.
     *
     * @param entries the SQ entries of each ring, a power of two in 2..32768
     * @param setupFlags the {@code IORING_SETUP_*} flags to ask for, e.g. {@link #DEFAULT_FLAGS}
     * @param inlinePlatform true to run a platform thread's blocking calls on that thread, false to send every
     *     request through a ring
     * @param rings how many rings, each with its own thread, in 1..{@link #MAX_RINGS}
     * @throws IllegalArgumentException for {@code entries} or {@code rings} out of range
     * @throws IOException if io_uring cannot be used here ({@link UringUnavailableException}) or a ring cannot be set
     *     up (the message names the call and the errno)
     */
    public UringEngine(int entries, int setupFlags, boolean inlinePlatform, int rings) throws IOException {
        if (entries < 2 || Integer.bitCount(entries) != 1 || entries > 32768) {
            throw new IllegalArgumentException("entries must be a power of two in 2..32768: entries=" + entries);
        }
        if (rings < 1 || rings > MAX_RINGS) {
            throw new IllegalArgumentException("rings must be in 1.." + MAX_RINGS + ": rings=" + rings);
        }
        this.inlinePlatform = inlinePlatform;
        this.inlineNowait = inlinePlatform
                && !"false".equalsIgnoreCase(System.getProperty(INLINE_NOWAIT_PROP, "true").trim());
        int batch = positiveProperty(SUBMIT_BATCH_PROP, SUBMIT_BATCH_DEFAULT);
        int idleBatch = positiveProperty(IDLE_BATCH_PROP, IDLE_BATCH_DEFAULT);
        int id = ENGINE_IDS.incrementAndGet();
        this.rings = new UringRing[rings];
        try {
            for (int i = 0; i < rings; i++) {
                this.rings[i] = new UringRing(this, i, "jfio-ring-" + id + (rings > 1 ? "." + i : ""), entries,
                        setupFlags, batch, idleBatch);
            }
        } catch (IOException | RuntimeException e) {
            closing = true;
            closeRings(true);
            throw e;
        }
        Ring r = this.rings[0].setup;
        this.setupFlags = r.setupFlags();
        this.features = r.features();
        this.sqEntries = r.sq().entries();
        this.cqEntries = r.cq().entries();
        this.registeredRing = r.registeredRingFd();
        this.supportedOps = this.rings[0].supportedOps();
    }

    /**
     * The ring count {@link #RINGS_PROP} asks for: its number, or one per available CPU.
     *
     * @return the ring count, in 1..{@link #MAX_RINGS}
     * @throws IllegalArgumentException if the property is neither {@code auto} nor a number in 1..{@link #MAX_RINGS}
     */
    public static int configuredRings() {
        String v = System.getProperty(RINGS_PROP, "auto").trim();
        if (v.isEmpty() || v.equalsIgnoreCase("auto")) {
            return Math.min(MAX_RINGS, Math.max(1, Runtime.getRuntime().availableProcessors()));
        }
        try {
            int n = Integer.parseInt(v);
            if (n >= 1 && n <= MAX_RINGS) return n;
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("invalid -D" + RINGS_PROP + "=" + v + ": expected auto or a number in 1.."
                + MAX_RINGS);
    }

    private static int positiveProperty(String name, int dflt) {
        String v = System.getProperty(name);
        if (v == null || v.isBlank()) return dflt;
        try {
            int n = Integer.parseInt(v.trim());
            if (n < 1) throw new NumberFormatException();
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("invalid -D" + name + "=" + v + ": expected a positive integer");
        }
    }

    // ------------------------------------------------------------------ public surface

    @Override
    public String name() {
        return "io_uring";
    }

    /**
     * The setup flags the kernel accepted (the same for every ring).
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
     * SQ entries of each ring.
     *
     * @return the submission queue's size
     */
    public int sqEntries() {
        return sqEntries;
    }

    /**
     * CQ entries of each ring.
     *
     * @return the completion queue's size
     */
    public int cqEntries() {
        return cqEntries;
    }

    /**
     * How many rings (and ring threads) the engine runs.
     *
     * @return the ring count, at least 1
     */
    public int rings() {
        return rings.length;
    }

    /**
     * Requests each ring handed to the kernel so far, by ring: shows how evenly the engine spreads its work.
     *
     * @return one count per ring, in ring order
     */
    public long[] requestsPerRing() {
        long[] n = new long[rings.length];
        for (int i = 0; i < n.length; i++) n[i] = rings[i].placed();
        return n;
    }

    /**
     * io_uring_enter calls that handed requests to the kernel so far, by ring; beside {@link #requestsPerRing()}, how
     * many requests each call carried. A ring with time to spare hands them over at most two at a time, so that the
     * kernel does not hold a request to a device until the rest of its batch is issued; a busy ring batches more.
     *
     * @return one count per ring, in ring order
     */
    public long[] submitCallsPerRing() {
        long[] n = new long[rings.length];
        for (int i = 0; i < n.length; i++) n[i] = rings[i].submitCalls();
        return n;
    }

    /**
     * True when blocking calls from platform threads run their system calls on the calling thread.
     *
     * @return whether platform threads' blocking calls bypass the rings
     */
    public boolean inlinePlatform() {
        return inlinePlatform;
    }

    /**
     * True when a blocking read from a virtual thread is first tried with preadv2(RWF_NOWAIT) on that thread.
     *
     * @return whether virtual threads' blocking reads try the page cache inline first
     */
    public boolean inlineNowait() {
        return inlineNowait;
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

    /** The ring whose thread is the calling thread, or null. */
    private UringRing ownRing() {
        return Thread.currentThread() instanceof UringRing.RingThread t && t.ring.engine == this ? t.ring : null;
    }

    @Override
    boolean onCompletionThread() {
        return ownRing() != null;
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
        if (closing) throw new EngineClosedException(name());
        UringRing own = ownRing();
        if (own != null) {
            for (IoOp op = head; op != null; op = op.next) op.ring = own;
            own.addLocal(head);
            return;
        }
        Thread me = Thread.currentThread();
        if (head.waiter == me && inlinePlatform) {
            if (!me.isVirtual()) {
                if (InlineRunner.canRun(head)) {
                    // A blocking call from a platform thread: one request at a time gains nothing from a ring, and
                    // the hand-off to a ring thread and back costs two context switches, several times the cost of
                    // a cached read (docs/measurements/uring-engine.md). The caller makes the system call itself.
                    InlineRunner.runOps(head);
                    return;
                }
            } else if (inlineNowait && NowaitRead.eligible(head)) {
                // A blocking read from a virtual thread: served from the page cache here when it can be without
                // waiting, which saves the round trip through a ring thread (docs/measurements/uring-engine.md).
                long r = NowaitRead.attempt(head);
                if (r != NowaitRead.NOT_DONE) {
                    InlineRunner.finish(head, r);
                    return;
                }
            }
        }
        UringRing ring = rings.length == 1 ? rings[0] : rings[Math.floorMod(next.getAndIncrement(), rings.length)];
        for (IoOp op = head; op != null; op = op.next) op.ring = ring;
        ring.offer(head);
    }

    @Override
    public void cancel(IoOp op) {
        if (op.state == IoOp.DONE) return;
        // Flag first, then look for the ring: a request not yet handed to a ring sees the flag when it is placed.
        op.cancelRequested = true;
        UringRing ring = op.ring;
        if (ring != null) ring.cancel(op);
    }

    /**
     * {@inheritDoc}
     *
     * <p>The buffers are registered with every ring under the same indexes. If a ring refuses them, none keeps them
     * (nor the buffers registered before) and the error is thrown.
     */
    @Override
    public void registerBuffers(MemorySegment... buffers) throws IOException {
        RegisteredBuffers held = RegisteredBuffers.hold(buffers);
        synchronized (registration) {
            if (closing) {
                held.release();
                throw new EngineClosedException(name());
            }
            AtomicBoolean abandoned = new AtomicBoolean();
            RegisteredBuffers old = registered;
            registered = null;
            long failed = 0;
            int failedRing = -1;
            IOException thrown = null;
            for (UringRing ring : rings) {
                try {
                    long r = ring.register(held, abandoned);
                    if (r < 0) {
                        failed = r;
                        failedRing = ring.index;
                        break;
                    }
                } catch (IOException | RuntimeException e) {
                    // Interrupted or closed: a ring may still register them later, so they are held to the end.
                    abandoned.set(true);
                    if (old != null) releaseAtEnd.add(old);
                    releaseAtEnd.add(held);
                    releaseIfEnded();
                    throw e;
                }
            }
            if (failed == 0) {
                if (old != null) old.release(); // every ring has let go of them
                registered = held;
                return;
            }
            // A ring refused (and holds none now): the rings before it registered the new buffers and the rings after
            // it still hold the old ones; take them all off.
            boolean clean = true;
            for (UringRing ring : rings) {
                if (ring.index == failedRing) continue;
                try {
                    ring.register(null, abandoned);
                } catch (IOException | RuntimeException e) {
                    clean = false;
                    if (thrown == null && e instanceof IOException io) thrown = io;
                }
            }
            if (clean) {
                if (old != null) old.release();
                held.release();
            } else {
                if (old != null) releaseAtEnd.add(old);
                releaseAtEnd.add(held);
                releaseIfEnded();
            }
            ErrnoException.check(failed, "io_uring_register(IORING_REGISTER_BUFFERS)", rings[failedRing].fd(), null);
            if (thrown != null) throw thrown;
        }
    }

    @Override
    public boolean isClosed() {
        return closing;
    }

    @Override
    public void close() {
        closing = true;
        // On a ring thread (a callback closing the engine) nobody waits: each ring notices closing and ends after
        // this callback, and the last one cleans up.
        closeRings(ownRing() == null);
    }

    /** Tells every ring to end, then waits for them when {@code wait}. */
    private void closeRings(boolean wait) {
        for (UringRing r : rings) {
            if (r != null) r.beginClose();
        }
        if (!wait) return;
        for (UringRing r : rings) {
            if (r != null) r.awaitTermination();
        }
    }

    @Override
    public String toString() {
        return "UringEngine[rings=" + rings.length + " sq=" + sqEntries + " cq=" + cqEntries + " flags="
                + UringConstants.setupFlagNames(setupFlags) + (closing ? " closed" : "") + "]";
    }

    // ------------------------------------------------------------------ called by the rings

    /** A ring thread is about to start. */
    void ringStarted() {
        live.incrementAndGet();
    }

    /** A ring failed beyond repair: the engine closes, so no request waits on a ring that is gone. */
    void ringFailed() {
        closing = true;
        closeRings(false);
    }

    /**
     * A ring thread ended (its ring unmapped, so the kernel no longer uses any buffer through it); the last one lets
     * go of the registered buffers and the bounce buffers.
     */
    void ringTerminated() {
        if (live.decrementAndGet() != 0) return;
        synchronized (registration) {
            ended = true;
            if (registered != null) registered.release();
            registered = null;
            releaseIfEnded();
        }
        bounces().close();
    }

    private void releaseIfEnded() {
        if (!ended) return;
        for (RegisteredBuffers b : releaseAtEnd) b.release();
        releaseAtEnd.clear();
    }
}
