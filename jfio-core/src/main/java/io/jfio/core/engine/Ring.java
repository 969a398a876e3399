package io.jfio.core.engine;

import static io.jfio.core.uring.UringConstants.IORING_ENTER_REGISTERED_RING;
import static io.jfio.core.uring.UringConstants.IORING_FEAT_NODROP;
import static io.jfio.core.uring.UringConstants.IORING_FEAT_SINGLE_MMAP;
import static io.jfio.core.uring.UringConstants.IORING_OFF_CQ_RING;
import static io.jfio.core.uring.UringConstants.IORING_OFF_SQES;
import static io.jfio.core.uring.UringConstants.IORING_OFF_SQ_RING;
import static io.jfio.core.uring.UringConstants.IORING_REGISTER_PROBE;
import static io.jfio.core.uring.UringConstants.IORING_REGISTER_RING_FDS;
import static io.jfio.core.uring.UringConstants.IORING_SETUP_COOP_TASKRUN;
import static io.jfio.core.uring.UringConstants.IORING_SETUP_CQSIZE;
import static io.jfio.core.uring.UringConstants.IORING_SETUP_DEFER_TASKRUN;
import static io.jfio.core.uring.UringConstants.IORING_SETUP_SINGLE_ISSUER;
import static io.jfio.core.uring.UringConstants.IORING_SETUP_SUBMIT_ALL;
import static io.jfio.core.uring.UringConstants.IO_URING_OP_SUPPORTED;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.jfio.core.sys.Errno;
import io.jfio.core.sys.ErrnoException;
import io.jfio.core.sys.LibC;
import io.jfio.core.sys.Mman;
import io.jfio.core.uring.UringConstants;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.BitSet;

/**
 * One io_uring instance: the ring descriptor, the mapped SQ and CQ rings and the SQE array, set up through the raw
 * system calls (no liburing).
 *
 * <p>Not thread-safe; owned by the thread that created it. With IORING_SETUP_SINGLE_ISSUER (requested by default)
 * the kernel itself enforces that only the creating thread submits or registers. {@link #close()} is idempotent.
 *
 * <p>Setup flags are probed the way fio probes them: ask for all wanted flags, and when the kernel answers EINVAL
 * drop the newest one and try again, so the ring works on every kernel from 5.6 on and uses what the newer ones
 * offer.
 */
final class Ring implements AutoCloseable {
    /**
     * Flags tried, newest first, with the kernel version that added each; dropped one at a time on EINVAL.
     * DEFER_TASKRUN needs SINGLE_ISSUER, so it goes first.
     */
    private static final int[] DROP_ORDER = {
        IORING_SETUP_DEFER_TASKRUN,  // 6.1
        IORING_SETUP_SINGLE_ISSUER,  // 6.0
        IORING_SETUP_COOP_TASKRUN,   // 5.19
        IORING_SETUP_SUBMIT_ALL,     // 5.18
        IORING_SETUP_CQSIZE,         // 5.5
    };

    /** The flags jfio asks for by default. */
    static final int DEFAULT_FLAGS = IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_SINGLE_ISSUER
            | IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SUBMIT_ALL | IORING_SETUP_CQSIZE;

    private final Arena arena = Arena.ofConfined();
    private final int ringFd;
    private final int enterFd;
    private final int enterFlags;
    private final int setupFlags;
    private final int features;
    private final long sqRingAddr;
    private final long sqRingSize;
    private final long cqRingAddr;
    private final long cqRingSize;
    private final long sqesAddr;
    private final long sqesSize;
    private final SubmissionQueue sq;
    private final CompletionQueue cq;
    private boolean closed;

    private Ring(int ringFd, int setupFlags, MemorySegment params) throws ErrnoException, UringUnavailableException {
        this.ringFd = ringFd;
        this.setupFlags = setupFlags;
        this.features = UringParams.features(params);
        int sqEntries = UringParams.sqEntries(params);
        int cqEntries = UringParams.cqEntries(params);
        if ((features & IORING_FEAT_NODROP) == 0) {
            // Without NODROP a full CQ silently loses completions; the engine bounds in-flight requests anyway, but
            // jfio promises never to lose one, so such an old kernel (< 5.5) gets the thread engine instead.
            LibC.close(ringFd);
            throw new UringUnavailableException("io_uring_setup (kernel lacks IORING_FEAT_NODROP)", Errno.ENOSYS);
        }
        long sqSize = UringParams.sqOff(params, UringParams.SQ_ARRAY) + 4L * sqEntries;
        long cqSize = UringParams.cqOff(params, UringParams.CQ_CQES) + Cqe.SIZE * cqEntries;
        long sqAddr = -1;
        long cqAddr = -1;
        long sqesA = -1;
        try {
            if ((features & IORING_FEAT_SINGLE_MMAP) != 0) {
                sqSize = cqSize = Math.max(sqSize, cqSize);
                sqAddr = map(ringFd, sqSize, IORING_OFF_SQ_RING, "sq+cq ring");
                cqAddr = sqAddr;
            } else {
                sqAddr = map(ringFd, sqSize, IORING_OFF_SQ_RING, "sq ring");
                cqAddr = map(ringFd, cqSize, IORING_OFF_CQ_RING, "cq ring");
            }
            sqesA = map(ringFd, Sqe.SIZE * sqEntries, IORING_OFF_SQES, "sqes");
        } catch (ErrnoException e) {
            if (sqesA > 0) LibC.munmap(sqesA, Sqe.SIZE * sqEntries);
            if (cqAddr > 0 && cqAddr != sqAddr) LibC.munmap(cqAddr, cqSize);
            if (sqAddr > 0) LibC.munmap(sqAddr, sqSize);
            LibC.close(ringFd);
            throw e;
        }
        this.sqRingAddr = sqAddr;
        this.sqRingSize = sqSize;
        this.cqRingAddr = cqAddr;
        this.cqRingSize = cqSize;
        this.sqesAddr = sqesA;
        this.sqesSize = Sqe.SIZE * sqEntries;
        MemorySegment sqRing = MemorySegment.ofAddress(sqAddr).reinterpret(sqSize);
        MemorySegment cqRing = MemorySegment.ofAddress(cqAddr).reinterpret(cqSize);
        MemorySegment sqes = MemorySegment.ofAddress(sqesA).reinterpret(sqesSize);
        this.sq = new SubmissionQueue(sqRing, sqes, params);
        this.cq = new CompletionQueue(cqRing, params);

        // Registering the ring fd (5.18) saves an fget/fput on every io_uring_enter; optional.
        MemorySegment update = arena.allocate(16, 8);
        update.set(JAVA_INT, 0, -1);           // io_uring_rsrc_update.offset: -1U = pick a free slot
        update.set(JAVA_LONG, 8, ringFd);      // .data: the fd to register
        int r = LibC.ioUringRegister(ringFd, IORING_REGISTER_RING_FDS, update.address(), 1);
        if (r == 1) {
            this.enterFd = update.get(JAVA_INT, 0);
            this.enterFlags = IORING_ENTER_REGISTERED_RING;
        } else {
            this.enterFd = ringFd;
            this.enterFlags = 0;
        }
    }

    private static long map(int fd, long size, long offset, String what) throws ErrnoException {
        long addr = LibC.mmap(0, size, Mman.PROT_READ | Mman.PROT_WRITE, Mman.MAP_SHARED | Mman.MAP_POPULATE, fd,
                offset);
        return ErrnoException.check(addr, "mmap(" + what + ")", fd, null, offset, size);
    }

    /**
     * Creates a ring with {@code entries} SQ entries and {@code cqEntries} CQ entries, asking for {@code flags} and
     * dropping the ones the kernel rejects.
     *
     * @throws UringUnavailableException when io_uring cannot be set up at all (ENOSYS, EPERM, ...)
     */
    static Ring create(int entries, int cqEntries, int flags) throws ErrnoException, UringUnavailableException {
        int wanted = flags;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment params = a.allocate(UringParams.LAYOUT);
            int dropIndex = 0;
            while (true) {
                params.fill((byte) 0);
                params.set(JAVA_INT, UringParams.OFF_FLAGS, wanted);
                if ((wanted & IORING_SETUP_CQSIZE) != 0) params.set(JAVA_INT, UringParams.OFF_CQ_ENTRIES, cqEntries);
                int fd = LibC.ioUringSetup(entries, params);
                if (fd >= 0) return new Ring(fd, wanted, params);
                if (fd == -Errno.EINVAL) {
                    while (dropIndex < DROP_ORDER.length && (wanted & DROP_ORDER[dropIndex]) == 0) dropIndex++;
                    if (dropIndex < DROP_ORDER.length) {
                        wanted &= ~DROP_ORDER[dropIndex++];
                        continue;
                    }
                }
                throw new UringUnavailableException("io_uring_setup", -fd);
            }
        }
    }

    SubmissionQueue sq() {
        return sq;
    }

    CompletionQueue cq() {
        return cq;
    }

    /** The ring descriptor. */
    int fd() {
        return ringFd;
    }

    /** The setup flags the kernel accepted. */
    int setupFlags() {
        return setupFlags;
    }

    /** The IORING_FEAT_* bits the kernel reported. */
    int features() {
        return features;
    }

    /** True when the ring descriptor is registered and io_uring_enter uses the registered index. */
    boolean registeredRingFd() {
        return enterFlags != 0;
    }

    /**
     * io_uring_enter(2) on this ring.
     *
     * @return SQEs consumed, or -errno
     */
    int enter(int toSubmit, int minComplete, int flags) {
        return LibC.ioUringEnter(enterFd, toSubmit, minComplete, flags | enterFlags, 0, 0);
    }

    /**
     * io_uring_enter(2) on this ring with an extended argument ({@code IORING_ENTER_EXT_ARG} in {@code flags}: {@code
     * arg} points at a struct io_uring_getevents_arg of {@code argSize} bytes).
     *
     * @return SQEs consumed, or -errno
     */
    int enter(int toSubmit, int minComplete, int flags, long arg, long argSize) {
        return LibC.ioUringEnter(enterFd, toSubmit, minComplete, flags | enterFlags, arg, argSize);
    }

    /** io_uring_register(2) on this ring; returns the result or -errno. */
    int register(int opcode, long arg, int nrArgs) {
        return LibC.ioUringRegister(ringFd, opcode, arg, nrArgs);
    }

    /**
     * The opcodes this kernel supports (IORING_REGISTER_PROBE, 5.6). Empty if the probe is unavailable.
     */
    BitSet probeOps() {
        try (Arena a = Arena.ofConfined()) {
            int maxOps = 256;
            // struct io_uring_probe { __u8 last_op; __u8 ops_len; __u16 resv; __u32 resv2[3];
            //     struct io_uring_probe_op { __u8 op; __u8 resv; __u16 flags; __u32 resv2; } ops[]; }
            MemorySegment probe = a.allocate(16 + 8L * maxOps, 8);
            BitSet ops = new BitSet();
            if (register(IORING_REGISTER_PROBE, probe.address(), maxOps) < 0) return ops;
            int len = Byte.toUnsignedInt(probe.get(JAVA_BYTE, 1));
            for (int i = 0; i < len; i++) {
                long base = 16 + 8L * i;
                int flags = Short.toUnsignedInt(probe.get(JAVA_SHORT, base + 2));
                if ((flags & IO_URING_OP_SUPPORTED) != 0) ops.set(Byte.toUnsignedInt(probe.get(JAVA_BYTE, base)));
            }
            return ops;
        }
    }

    /** Unmaps the rings and closes the descriptor. In-flight requests are cancelled by the kernel. Idempotent. */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        LibC.munmap(sqesAddr, sqesSize);
        if (cqRingAddr != sqRingAddr) LibC.munmap(cqRingAddr, cqRingSize);
        LibC.munmap(sqRingAddr, sqRingSize);
        LibC.close(ringFd);
        arena.close();
    }

    @Override
    public String toString() {
        return "Ring[fd=" + ringFd + " sq=" + sq.entries() + " cq=" + cq.entries() + " flags="
                + UringConstants.setupFlagNames(setupFlags) + "]";
    }
}
