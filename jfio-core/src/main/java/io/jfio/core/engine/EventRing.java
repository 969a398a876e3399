package io.jfio.core.engine;

import static io.jfio.core.uring.UringConstants.IORING_ENTER_EXT_ARG;
import static io.jfio.core.uring.UringConstants.IORING_ENTER_GETEVENTS;
import static io.jfio.core.uring.UringConstants.IORING_FEAT_EXT_ARG;
import static io.jfio.core.uring.UringConstants.IORING_OP_ASYNC_CANCEL;
import static io.jfio.core.uring.UringConstants.IORING_OP_POLL_ADD;
import static io.jfio.core.uring.UringConstants.IORING_OP_READ;
import static io.jfio.core.uring.UringConstants.IORING_OP_SEND;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jfio.core.sys.Errno;
import io.jfio.core.sys.ErrnoException;
import io.jfio.core.sys.Fcntl;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.BitSet;

/**
 * Not thread-safe: owned by the thread that opened it, which alone arms, sends, waits and closes (the kernel enforces
 * it: the ring is set up single-issuer).
 *
 * <p>A thread's own io_uring for an event loop that sleeps on descriptors and sends between its sleeps: readiness
 * polls ({@link #pollIn}), reads that wait for their descriptor ({@link #read}) and socket sends ({@link #send}) are
 * queued, and {@link #await} submits them and sleeps in the same io_uring_enter(2). What that buys over send(2)
 * followed by epoll_wait(2) and read(2): one system call instead of three, and the receiver a send wakes gets the CPU
 * the sender is leaving, instead of preempting the sender on its way back from send(2) or being woken on the other
 * CPU.
 *
 * <p>A send that the socket takes at once completes inside the submitting call; its completion does not end the
 * wait, so the thread still sleeps until a polled descriptor is ready. A send the socket cannot take at once (its
 * buffer full) completes later and ends a wait then; until it has, the wait that submitted it lasts at most
 * {@link #SEND_WAIT_NANOS}. Sends use {@code MSG_WAITALL}, so a completion normally reports the whole length; a shorter
 * one (older kernels) is the caller's to continue.
 *
 * <p>Completions are delivered to the {@link Completion} given with each request, on the owner thread, from inside
 * {@link #await} or {@link #awaitAny}. Memory a send reads or a read fills must stay valid until its completion was
 * delivered or the ring closed; {@link #allocate} gives memory that lives as long as the ring. {@link #close} cancels
 * what is still in flight and waits for the kernel to let go of it before it frees that memory.
 */
public final class EventRing implements AutoCloseable {
    /** Receives the result of one request: a poll's ready mask, a send's byte count, or -errno. */
    @FunctionalInterface
    public interface Completion {
        /**
         * Called on the ring's thread with the request's result.
         *
         * @param result the poll's ready mask, the bytes sent, or -errno
         */
        void complete(int result);
    }

    /** The longest {@link #close} waits for the kernel to give up the requests still in flight. */
    private static final long CLOSE_WAIT_NANOS = 1_000_000_000L;
    /** The longest a wait that submitted a send lasts while that send has not completed (its socket was full). */
    public static final long SEND_WAIT_NANOS = 10_000_000L;
    private static final int ENTRIES = 64;
    private static final int MSG_WAITALL = 0x100;
    /** user_data of cancel requests: their own completions are dropped. */
    private static final long CANCEL_TAG = -1L;

    private final Ring ring;
    private final SubmissionQueue sq;
    private final CompletionQueue cq;
    private final Arena arena = Arena.ofConfined();
    /** struct io_uring_getevents_arg, pointing at {@link #timeout}. */
    private final MemorySegment waitArg;
    /** struct __kernel_timespec. */
    private final MemorySegment timeout;
    /** The completion of each request in flight, by its slot (the request's user_data). */
    private final Completion[] slots = new Completion[ENTRIES * 2];
    private final BitSet free = new BitSet(slots.length);
    /** Scratch for {@link #deliver}. */
    private final int[] doneSlots = new int[ENTRIES * 2];
    private final int[] doneResults = new int[ENTRIES * 2];
    private final Thread owner = Thread.currentThread();
    private int queued;
    /** Sends queued since the last submission. */
    private int queuedSends;
    private boolean closed;

    private EventRing(Ring ring) {
        this.ring = ring;
        this.sq = ring.sq();
        this.cq = ring.cq();
        this.waitArg = arena.allocate(24, 8);
        this.timeout = arena.allocate(16, 8);
        free.set(0, slots.length);
    }

    /**
     * Opens a ring for the calling thread.
     *
     * @return the ring, owned by the calling thread
     * @throws UringUnavailableException when io_uring cannot be used here (not in the kernel, disabled, denied by a
     *                                   seccomp filter) or lacks what this needs (waits with a timeout argument, 5.11;
     *                                   poll, read, send and cancel requests)
     * @throws IOException               when setting the ring up fails otherwise
     */
    public static EventRing open() throws IOException {
        Ring r = Ring.create(ENTRIES, ENTRIES * 2, Ring.DEFAULT_FLAGS);
        try {
            if ((r.features() & IORING_FEAT_EXT_ARG) == 0) {
                throw new UringUnavailableException("io_uring_setup (kernel lacks IORING_FEAT_EXT_ARG)", Errno.ENOSYS);
            }
            BitSet ops = r.probeOps();
            if (!ops.get(IORING_OP_POLL_ADD) || !ops.get(IORING_OP_READ) || !ops.get(IORING_OP_SEND)
                    || !ops.get(IORING_OP_ASYNC_CANCEL)) {
                throw new UringUnavailableException("io_uring_register (no poll, read, send or cancel requests)",
                        Errno.ENOSYS);
            }
            return new EventRing(r);
        } catch (IOException | RuntimeException e) {
            r.close();
            throw e;
        }
    }

    /**
     * Queues a one-shot poll for {@code fd} becoming readable; {@code done} gets the ready mask (or -errno, such as
     * -ECANCELED when the ring closes first). Submitted by the next wait.
     *
     * @param fd   the descriptor to watch
     * @param done gets the result
     * @return the request's slot, for {@link #cancel}
     */
    public int pollIn(int fd, Completion done) {
        int slot = take(done);
        sq.prepare(IORING_OP_POLL_ADD, 0, fd, 0, 0, 0, Fcntl.POLLIN, slot, 0, 0, 0);
        queued++;
        return slot;
    }

    /**
     * Queues a read of up to {@code into}'s size from {@code fd} at its current position; {@code done} gets the bytes
     * read or -errno. A descriptor with nothing to read (a pipe, an inotify or event descriptor, even one opened
     * non-blocking) is waited for by the kernel, so the read completes when there is something: it is a poll and the
     * read that follows in one request. Its completion ends a wait. {@code into} must stay valid until {@code done}
     * was called or the ring closed ({@link #allocate}).
     *
     * @param fd   the descriptor to read
     * @param into where the bytes go
     * @param done gets the result
     * @return the request's slot, for {@link #cancel}
     */
    public int read(int fd, MemorySegment into, Completion done) {
        if (into.byteSize() > Integer.MAX_VALUE) throw new IllegalArgumentException("read of " + into.byteSize());
        int slot = take(done);
        sq.prepare(IORING_OP_READ, 0, fd, -1L, into.address(), (int) into.byteSize(), 0, slot, 0, 0, 0);
        queued++;
        return slot;
    }

    /**
     * Memory that lives as long as the ring, for reads into it: the kernel may still write to what an unfinished read
     * was given until the ring is closed.
     *
     * @param bytes the size
     * @return zeroed memory, 8-byte aligned, usable on the owner thread until {@link #close}
     */
    public MemorySegment allocate(long bytes) {
        if (closed) throw new IllegalStateException("event ring closed");
        return arena.allocate(bytes, 8);
    }

    /**
     * Queues a send of {@code bytes} on the socket {@code fd} with {@code flags} (and {@code MSG_WAITALL}); {@code
     * done} gets the bytes sent or -errno. Submitted by the next wait, or by {@link #submit}. {@code bytes} must stay
     * valid until {@code done} was called.
     *
     * @param fd    a connected socket
     * @param bytes what to send
     * @param flags send(2) flags, such as {@code MSG_NOSIGNAL}
     * @param done  gets the result
     * @return the request's slot, for {@link #cancel}
     */
    public int send(int fd, MemorySegment bytes, int flags, Completion done) {
        if (bytes.byteSize() > Integer.MAX_VALUE) throw new IllegalArgumentException("send of " + bytes.byteSize());
        int slot = take(done);
        sq.prepare(IORING_OP_SEND, 0, fd, 0, bytes.address(), (int) bytes.byteSize(), flags | MSG_WAITALL, slot, 0, 0,
                0);
        queued++;
        queuedSends++;
        return slot;
    }

    /**
     * Queues a cancellation of the request in {@code slot}; its completion comes soon (-ECANCELED if it had not).
     *
     * @param slot what {@link #pollIn} or {@link #send} returned
     */
    public void cancel(int slot) {
        ensureRoom();
        sq.prepare(IORING_OP_ASYNC_CANCEL, 0, -1, 0, slot, 0, 0, CANCEL_TAG, 0, 0, 0);
        queued++;
    }

    /**
     * Whether the calling thread is the ring's owner, the only one that may use it.
     *
     * @return true on the owner thread
     */
    public boolean ownedByCurrentThread() {
        return Thread.currentThread() == owner;
    }

    /**
     * Submits what is queued without waiting; delivers the completions that are there.
     *
     * @throws IOException when the ring is closed or io_uring_enter fails
     */
    public void submit() throws IOException {
        ensureOpen();
        if (queued == 0) return;
        enter(false, 0, 0);
    }

    /**
     * Submits what is queued and sleeps until a request completes, other than a send this call submitted that its
     * socket took at once, or {@code nanos} pass (0: only a look; {@link Long#MAX_VALUE}: no limit). Delivers every
     * completion that came.
     *
     * @param nanos the longest wait
     * @return the completions delivered
     * @throws IOException when the ring is closed or io_uring_enter fails
     */
    public int await(long nanos) throws IOException {
        ensureOpen();
        long wait = queuedSends > 0 ? Math.min(nanos, SEND_WAIT_NANOS) : nanos;
        return enter(true, cq.ready() + queuedSends + 1, wait);
    }

    /**
     * As {@link #await}, but any completion ends the wait, a send's too.
     *
     * @param nanos the longest wait
     * @return the completions delivered
     * @throws IOException when the ring is closed or io_uring_enter fails
     */
    public int awaitAny(long nanos) throws IOException {
        ensureOpen();
        return enter(true, cq.ready() + 1, nanos);
    }

    private void ensureOpen() throws IOException {
        if (closed) throw new IOException("event ring closed");
    }

    /** Submits what is queued; with {@code wait}, waits for {@code minComplete} completions or {@code nanos}. */
    private int enter(boolean wait, int minComplete, long nanos) throws IOException {
        int toSubmit = queued == 0 ? 0 : sq.publish();
        int flags = 0;
        long arg = 0;
        long argSize = 0;
        if (wait) {
            flags = IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG;
            waitArg.fill((byte) 0);
            if (nanos != Long.MAX_VALUE) {
                long n = Math.max(0, nanos);
                timeout.set(JAVA_LONG, 0, n / 1_000_000_000L);
                timeout.set(JAVA_LONG, 8, n % 1_000_000_000L);
                waitArg.set(JAVA_LONG, 16, timeout.address());
            }
            arg = waitArg.address();
            argSize = waitArg.byteSize();
        } else {
            minComplete = 0;
        }
        int r = ring.enter(toSubmit, minComplete, flags, arg, argSize);
        if (r >= 0) {
            queued = Math.max(0, queued - r);
            if (queued == 0) queuedSends = 0;
        } else if (r != -Errno.ETIME && r != -Errno.EINTR && r != -Errno.EAGAIN && r != -Errno.EBUSY) {
            throw new ErrnoException("io_uring_enter", -r, ring.fd(), null, ErrnoException.NONE, ErrnoException.NONE);
        } else if (toSubmit > 0 && sq.pending() == 0) {
            // The wait ended (timer, signal) after everything queued was taken.
            queued = 0;
            queuedSends = 0;
        }
        return deliver();
    }

    /** Takes every completion off the queue first, then calls their handlers: a handler may queue and fail. */
    private int deliver() {
        int ready = Math.min(cq.ready(), doneSlots.length);
        int n = 0;
        for (int i = 0; i < ready; i++) {
            long tag = cq.userData(i);
            if (tag == CANCEL_TAG) continue;
            doneSlots[n] = (int) tag;
            doneResults[n++] = cq.res(i);
        }
        cq.advance(ready);
        for (int i = 0; i < n; i++) {
            int slot = doneSlots[i];
            Completion c = slots[slot];
            slots[slot] = null;
            free.set(slot);
            if (c != null) c.complete(doneResults[i]);
        }
        return n;
    }

    private int take(Completion done) {
        ensureRoom();
        int slot = free.nextSetBit(0);
        if (slot < 0) throw new IllegalStateException("more than " + slots.length + " requests in flight");
        free.clear(slot);
        slots[slot] = done;
        return slot;
    }

    private void ensureRoom() {
        if (closed) throw new IllegalStateException("event ring closed");
        if (sq.space() == 0) throw new IllegalStateException("submission queue full: " + queued + " queued");
    }

    /**
     * Closes the ring. What is still in flight is cancelled first and its completions taken (not delivered), so that
     * the kernel writes to no read's memory and reads no send's after this returns; should the kernel not let go of a
     * request within a second, the ring's own memory ({@link #allocate}) is left allocated rather than freed under
     * it. Idempotent; called by the owner thread.
     */
    @Override
    public void close() {
        if (closed) return;
        boolean quiet = cancelAll();
        closed = true;
        ring.close();
        if (quiet) arena.close();
    }

    /** Cancels every request in flight and takes their completions; whether none is left. */
    private boolean cancelAll() {
        if (free.cardinality() == slots.length) return true;
        // Their completions are taken, not delivered: no handler runs (and queues more) while the ring closes.
        BitSet inFlight = (BitSet) free.clone();
        inFlight.flip(0, slots.length);
        for (int slot = inFlight.nextSetBit(0); slot >= 0; slot = inFlight.nextSetBit(slot + 1)) slots[slot] = null;
        try {
            for (int slot = inFlight.nextSetBit(0); slot >= 0; slot = inFlight.nextSetBit(slot + 1)) {
                if (sq.space() == 0) enter(false, 0, 0);
                sq.prepare(IORING_OP_ASYNC_CANCEL, 0, -1, 0, slot, 0, 0, CANCEL_TAG, 0, 0, 0);
                queued++;
            }
            long deadline = System.nanoTime() + CLOSE_WAIT_NANOS;
            while (free.cardinality() < slots.length) {
                long left = deadline - System.nanoTime();
                if (left <= 0) return false;
                enter(true, 1, left);
            }
            return true;
        } catch (IOException | RuntimeException e) {
            return false; // the ring cannot be entered (not the owner thread, or broken): its memory stays
        }
    }

    @Override
    public String toString() {
        return "EventRing[" + ring + "]";
    }
}
