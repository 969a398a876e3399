package io.jfio.core.engine;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.core.file.BufferPool;
import io.jfio.core.sys.Errno;
import io.jfio.core.sys.ErrnoException;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import io.jfio.core.sys.Statx;
import io.jfio.core.testing.EngineKind;
import io.jfio.core.testing.Pipe;
import io.jfio.core.uring.UringConstants;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link IoEngine} behaviour, the same on both engines: results, errors, chains, timeouts, cancellation,
 * interruption and closing. Each test gets a fresh engine and closes it.
 */
class EngineTest {
    private static final Duration HANG = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    private final List<AutoCloseable> cleanup = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = cleanup.size() - 1; i >= 0; i--) cleanup.get(i).close();
    }

    private <T extends AutoCloseable> T closeLater(T resource) {
        cleanup.add(resource);
        return resource;
    }

    private IoEngine engine(EngineKind kind) throws IOException {
        return closeLater(kind.create());
    }

    private int openFile(String name, byte[] content) throws IOException {
        Path p = dir.resolve(name);
        Files.write(p, content);
        int fd = LibC.openat(Fcntl.AT_FDCWD, p.toString(), Fcntl.O_RDWR | Fcntl.O_CLOEXEC, 0);
        ErrnoException.check(fd, "open", -1, p.toString());
        cleanup.add(() -> LibC.close(fd));
        return fd;
    }

    private Arena arena() {
        return closeLater(Arena.ofShared());
    }

    private static byte[] bytes(MemorySegment s) {
        return s.toArray(JAVA_BYTE);
    }

    /** Waits until {@code op} is submitted and has had time to reach the kernel (or a worker thread). */
    static void awaitInFlight(IoOp op) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (op.state == IoOp.NEW && System.nanoTime() < deadline) Thread.sleep(1);
        Thread.sleep(50);
        assertFalse(op.isDone(), "request completed on its own: " + op);
    }

    private static void awaitDone(IoOp op) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!op.isDone() && System.nanoTime() < deadline) Thread.sleep(1);
        assertTrue(op.isDone(), "request did not complete: " + op);
    }

    private static Throwable cause(CompletableFuture<?> f) {
        CompletionException e = assertThrows(CompletionException.class, f::join);
        return e.getCause();
    }

    // ------------------------------------------------------------------ results

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldReadWhatWasWritten(EngineKind kind) throws Exception {
        IoEngine e = engine(kind);
        int fd = openFile("f", new byte[0]);
        Arena a = arena();
        MemorySegment src = a.allocate(10_000);
        for (int i = 0; i < src.byteSize(); i++) src.set(JAVA_BYTE, i, (byte) (i * 31));
        assertEquals(10_000, e.execute(IoOp.write(fd, src, 5)));
        MemorySegment dst = a.allocate(10_005);
        assertEquals(10_005, e.execute(IoOp.read(fd, dst, 0)));
        assertArrayEquals(new byte[5], bytes(dst.asSlice(0, 5)));
        assertArrayEquals(bytes(src), bytes(dst.asSlice(5)));
        assertEquals(0, e.execute(IoOp.nop()));
    }

    /** A virtual thread's own confined arena: the kernel (or a pool thread) must still be able to use it. */
    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldUseBuffersOfConfinedArenaOfVirtualThread(EngineKind kind) throws Exception {
        IoEngine e = engine(kind);
        int fd = openFile("f", "confined".getBytes());
        AtomicReference<Object> outcome = new AtomicReference<>();
        Thread t = Thread.ofVirtual().start(() -> {
            try (Arena confined = Arena.ofConfined()) {
                MemorySegment buf = confined.allocate(8);
                long n = e.execute(IoOp.read(fd, buf, 0));
                long m = e.submit(IoOp.write(fd, buf, 8)).get(10, TimeUnit.SECONDS);
                outcome.set(n + m + ":" + new String(bytes(buf)));
            } catch (Throwable ex) {
                outcome.set(ex);
            }
        });
        assertTimeoutPreemptively(HANG, () -> t.join());
        assertEquals("16:confined", outcome.get());
        assertEquals("confinedconfined", Files.readString(dir.resolve("f")));
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldReadZeroAtAndPastEndOfFile(EngineKind kind) throws Exception {
        IoEngine e = engine(kind);
        int fd = openFile("f", new byte[100]);
        MemorySegment buf = arena().allocate(4096);
        assertEquals(100, e.execute(IoOp.read(fd, buf, 0)));
        assertEquals(40, e.execute(IoOp.read(fd, buf, 60)));
        assertEquals(0, e.execute(IoOp.read(fd, buf, 100)));
        assertEquals(0, e.execute(IoOp.read(fd, buf, 1L << 40)));
        assertEquals(0L, e.submit(IoOp.read(fd, buf, 5000)).get(10, TimeUnit.SECONDS));
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldScatterAndGatherWithIovecs(EngineKind kind) throws Exception {
        IoEngine e = engine(kind);
        int fd = openFile("f", new byte[0]);
        Arena a = arena();
        MemorySegment one = a.allocate(3);
        one.copyFrom(MemorySegment.ofArray("abc".getBytes()));
        MemorySegment two = a.allocate(4);
        two.copyFrom(MemorySegment.ofArray("defg".getBytes()));
        assertEquals(7, e.execute(IoOp.writev(fd, new MemorySegment[] {one, two}, 1)));
        MemorySegment x = a.allocate(5);
        MemorySegment y = a.allocate(5);
        assertEquals(8, e.execute(IoOp.readv(fd, new MemorySegment[] {x, y}, 0)));
        assertEquals("\0abcd", new String(bytes(x)));
        assertEquals("efg", new String(bytes(y.asSlice(0, 3))));
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldSyncAllocateAndAdvise(EngineKind kind) throws Exception {
        IoEngine e = engine(kind);
        int fd = openFile("f", new byte[10]);
        assertEquals(0, e.execute(IoOp.fsync(fd)));
        assertEquals(0, e.execute(IoOp.fdatasync(fd)));
        assertEquals(0, e.execute(IoOp.fallocate(fd, 0, 0, 1 << 20)));
        assertEquals(1 << 20, Files.size(dir.resolve("f")));
        assertEquals(0, e.execute(IoOp.fadvise(fd, 0, 0, Fcntl.POSIX_FADV_DONTNEED)));
        assertEquals(0, e.execute(IoOp.syncFileRange(fd, 0, 0, Fcntl.SYNC_FILE_RANGE_WRITE)));
        assertTrue(e.supports(UringConstants.IORING_OP_READ));
        assertTrue(e.supports(UringConstants.IORING_OP_TIMEOUT));
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldReportStatxOfDescriptor(EngineKind kind) throws Exception {
        IoEngine e = engine(kind);
        int fd = openFile("f", new byte[4321]);
        Arena a = arena();
        MemorySegment statx = a.allocate(Statx.LAYOUT);
        assertEquals(0, e.execute(IoOp.statx(fd, a.allocateFrom(""), Fcntl.AT_EMPTY_PATH, Statx.STATX_SIZE,
                statx)));
        assertEquals(4321, Statx.size(statx));
    }

    // ------------------------------------------------------------------ errors

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldFailWithEbadfOnClosedDescriptor(EngineKind kind) throws Exception {
        IoEngine e = engine(kind);
        Path p = dir.resolve("f");
        Files.write(p, new byte[10]);
        int fd = LibC.openat(Fcntl.AT_FDCWD, p.toString(), Fcntl.O_RDONLY | Fcntl.O_CLOEXEC, 0);
        ErrnoException.check(fd, "open", -1, null);
        assertEquals(0, LibC.close(fd));
        MemorySegment buf = arena().allocate(10);
        ErrnoException ex = assertThrows(ErrnoException.class, () -> e.execute(IoOp.read(fd, buf, 4).path("/x")));
        assertEquals(Errno.EBADF, ex.errno());
        assertEquals("read", ex.call());
        assertTrue(ex.getMessage().contains("errno=EBADF") && ex.getMessage().contains("fd=" + fd)
                && ex.getMessage().contains("path=/x") && ex.getMessage().contains("offset=4"), ex.getMessage());

        ErrnoException async = assertInstanceOf(ErrnoException.class, cause(e.submit(IoOp.fsync(fd))));
        assertEquals(Errno.EBADF, async.errno());
        assertEquals("fsync", async.call());

        CompletableFuture<Long> viaCallback = new CompletableFuture<>();
        e.submit(IoOp.fdatasync(fd), (op, r) -> viaCallback.complete(r));
        assertEquals(-Errno.EBADF, viaCallback.get(10, TimeUnit.SECONDS));
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldRunWriteThenFdatasyncChain(EngineKind kind) throws Exception {
        IoEngine e = engine(kind);
        int fd = openFile("f", new byte[0]);
        MemorySegment buf = arena().allocate(4096);
        buf.fill((byte) 7);
        IoOp write = IoOp.write(fd, buf, 0);
        IoOp sync = write.link(IoOp.fdatasync(fd));
        assertEquals(4096, e.execute(write));
        assertTrue(sync.isDone());
        assertEquals(0, sync.result());

        IoOp w2 = IoOp.write(fd, buf, 4096);
        IoOp s2 = w2.link(IoOp.fdatasync(fd));
        CompletableFuture<Long> head = e.submit(w2);
        assertEquals(4096L, head.get(10, TimeUnit.SECONDS));
        assertEquals(0L, s2.future().get(10, TimeUnit.SECONDS));
        assertEquals(8192, Files.size(dir.resolve("f")));
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldCancelFollowerWhenChainHeadFails(EngineKind kind) throws Exception {
        IoEngine e = engine(kind);
        MemorySegment buf = arena().allocate(16);
        int badFd = 1_000_000; // far above any descriptor limit: EBADF
        IoOp head = IoOp.write(badFd, buf, 0);
        IoOp follower = head.link(IoOp.fdatasync(badFd));
        ErrnoException ex = assertThrows(ErrnoException.class, () -> e.execute(head));
        assertEquals(Errno.EBADF, ex.errno(), "execute reports the first failure of the chain");
        assertEquals(-Errno.ECANCELED, follower.result());

        IoOp h2 = IoOp.write(badFd, buf, 0);
        IoOp f2 = h2.link(IoOp.fdatasync(badFd));
        assertEquals(Errno.EBADF, assertInstanceOf(ErrnoException.class, cause(e.submit(h2))).errno());
        assertEquals(Errno.ECANCELED, assertInstanceOf(ErrnoException.class, cause(f2.future())).errno());
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldCallBackOncePerRequestOfChainOnCompletionThread(EngineKind kind) throws Exception {
        IoEngine e = engine(kind);
        int fd = openFile("f", new byte[0]);
        MemorySegment buf = arena().allocate(100);
        List<String> calls = new ArrayList<>();
        CountDownLatch done = new CountDownLatch(2);
        AtomicReference<Throwable> blocking = new AtomicReference<>();
        IoOp write = IoOp.write(fd, buf, 0);
        write.link(IoOp.fsync(fd));
        e.submit(write, (op, r) -> {
            synchronized (calls) {
                calls.add(op.name() + "=" + r);
            }
            try {
                e.execute(IoOp.nop()); // would deadlock on the completion thread: must be refused
            } catch (Throwable t) {
                blocking.compareAndSet(null, t);
            }
            done.countDown();
        });
        assertTrue(done.await(10, TimeUnit.SECONDS));
        assertEquals(List.of("write=100", "fsync=0"), calls);
        assertInstanceOf(IllegalStateException.class, blocking.get());
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldRefuseRequestSubmittedTwice(EngineKind kind) throws Exception {
        IoEngine e = engine(kind);
        IoOp op = IoOp.nop();
        assertEquals(0, e.execute(op));
        assertThrows(IllegalStateException.class, () -> e.execute(op));
        assertThrows(IllegalStateException.class, () -> e.submit(op));
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldRefuseBufferOfArenaClosedBeforeSubmission(EngineKind kind) throws Exception {
        IoEngine e = engine(kind);
        int fd = openFile("f", new byte[10]);
        Arena a = Arena.ofConfined();
        IoOp op = IoOp.read(fd, a.allocate(10), 0);
        a.close();
        IllegalStateException ex = assertThrows(IllegalStateException.class, () -> e.execute(op));
        assertTrue(ex.getMessage().contains("closed arena"), ex.getMessage());
        assertEquals(0, e.execute(IoOp.nop()), "engine still usable");
    }

    // ------------------------------------------------------------------ timers, cancellation, interruption

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldCompleteTimeoutWithZeroAfterDelay(EngineKind kind) throws Exception {
        IoEngine e = engine(kind);
        long t0 = System.nanoTime();
        assertEquals(0, e.execute(IoOp.timeout(Duration.ofMillis(150))));
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertTrue(ms >= 140 && ms < 5000, "timeout took " + ms + " ms");
        CompletableFuture<Long> f = e.submit(IoOp.timeout(Duration.ZERO));
        assertEquals(0L, f.get(10, TimeUnit.SECONDS));
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldReadFromPipeOnceDataArrives(EngineKind kind) throws Exception {
        IoEngine e = engine(kind);
        Pipe pipe = closeLater(Pipe.open());
        MemorySegment buf = arena().allocate(64);
        IoOp read = IoOp.read(pipe.readFd(), buf, 0);
        CompletableFuture<Long> f = e.submit(read);
        awaitInFlight(read);
        pipe.feed(3);
        assertEquals(3L, f.get(10, TimeUnit.SECONDS));
        assertEquals("xxx", new String(bytes(buf.asSlice(0, 3))));
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldCancelBlockedPipeReadWithLinkedTimeout(EngineKind kind) throws Exception {
        IoEngine e = engine(kind);
        Pipe pipe = closeLater(Pipe.open());
        MemorySegment buf = arena().allocate(64);
        long t0 = System.nanoTime();
        ErrnoException ex = assertTimeoutPreemptively(HANG, () -> assertThrows(ErrnoException.class,
                () -> e.execute(IoOp.read(pipe.readFd(), buf, 0).withTimeout(Duration.ofMillis(100)))));
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertEquals(Errno.ECANCELED, ex.errno(), ex.getMessage());
        assertTrue(ms >= 90, "cancelled after " + ms + " ms, before the timeout");
        // A request that completes in time is not affected by its timeout.
        int fd = openFile("f", new byte[10]);
        assertEquals(10, e.execute(IoOp.read(fd, buf, 0).withTimeout(Duration.ofSeconds(10))));
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldCompleteCancelledFutureOfBlockedPipeRead(EngineKind kind) throws Exception {
        IoEngine e = engine(kind);
        Pipe pipe = closeLater(Pipe.open());
        MemorySegment buf = arena().allocate(64);
        IoOp read = IoOp.read(pipe.readFd(), buf, 0);
        CompletableFuture<Long> f = e.submit(read);
        awaitInFlight(read);
        assertTrue(f.cancel(true));
        assertThrows(CancellationException.class, f::join);
        assertTimeoutPreemptively(HANG, () -> awaitDone(read));
        assertEquals(-Errno.ECANCELED, read.result());
        assertEquals(0, e.execute(IoOp.nop()), "engine still usable");
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldCancelBlockedPipeReadWithEngineCancel(EngineKind kind) throws Exception {
        IoEngine e = engine(kind);
        Pipe pipe = closeLater(Pipe.open());
        MemorySegment buf = arena().allocate(64);
        IoOp read = IoOp.read(pipe.readFd(), buf, 0);
        CompletableFuture<Long> f = e.submit(read);
        awaitInFlight(read);
        e.cancel(read);
        Throwable t = assertTimeoutPreemptively(HANG, () -> cause(f));
        assertEquals(Errno.ECANCELED, assertInstanceOf(ErrnoException.class, t).errno());
        e.cancel(read); // a completed request: nothing happens
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldThrowInterruptedIoExceptionWhenVirtualThreadIsInterrupted(EngineKind kind) throws Exception {
        IoEngine e = engine(kind);
        Pipe pipe = closeLater(Pipe.open());
        MemorySegment buf = arena().allocate(64);
        IoOp read = IoOp.read(pipe.readFd(), buf, 0);
        AtomicReference<Object> outcome = new AtomicReference<>();
        AtomicReference<Boolean> interruptKept = new AtomicReference<>();
        Thread t = Thread.ofVirtual().start(() -> {
            try {
                outcome.set(e.execute(read));
            } catch (Throwable ex) {
                outcome.set(ex);
            }
            interruptKept.set(Thread.currentThread().isInterrupted());
        });
        awaitInFlight(read);
        t.interrupt();
        assertTimeoutPreemptively(HANG, () -> t.join());
        InterruptedIOException ex = assertInstanceOf(InterruptedIOException.class, outcome.get());
        assertTrue(ex.getMessage().contains("read"), ex.getMessage());
        assertEquals(Boolean.TRUE, interruptKept.get(), "interrupt status must be kept");
        assertTrue(read.isDone(), "execute must not return before the kernel let go of the buffer");

        // The engine still works, pipes included.
        IoOp again = IoOp.read(pipe.readFd(), buf, 0);
        CompletableFuture<Long> f = e.submit(again);
        pipe.feed(2);
        assertEquals(2L, f.get(10, TimeUnit.SECONDS));
        assertEquals(0, e.execute(IoOp.nop()));
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldThrowInterruptedIoExceptionWhenPlatformThreadIsInterrupted(EngineKind kind) throws Exception {
        // On the io_uring engine with inline platform calls, and on the thread engine, the blocked thread runs the
        // read itself: it must notice its own interrupt.
        IoEngine e = engine(kind);
        Pipe pipe = closeLater(Pipe.open());
        MemorySegment buf = arena().allocate(64);
        IoOp read = IoOp.read(pipe.readFd(), buf, 0);
        AtomicReference<Object> outcome = new AtomicReference<>();
        AtomicReference<Boolean> interruptKept = new AtomicReference<>();
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                outcome.set(e.execute(read));
            } catch (Throwable ex) {
                outcome.set(ex);
            }
            interruptKept.set(Thread.currentThread().isInterrupted());
        });
        awaitInFlight(read);
        t.interrupt();
        assertTimeoutPreemptively(HANG, () -> t.join());
        assertInstanceOf(InterruptedIOException.class, outcome.get());
        assertEquals(Boolean.TRUE, interruptKept.get(), "interrupt status must be kept");
        assertTrue(read.isDone(), "execute must not return before the request completed");
        pipe.feed(1);
        assertEquals(1, e.execute(IoOp.read(pipe.readFd(), buf, 0)));
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldEitherCompleteOrCancelWhenInterruptedBeforeCall(EngineKind kind) throws Exception {
        IoEngine e = engine(kind);
        int fd = openFile("f", new byte[10]);
        MemorySegment buf = arena().allocate(10);
        AtomicReference<Object> outcome = new AtomicReference<>();
        AtomicReference<Boolean> interruptKept = new AtomicReference<>();
        Thread t = Thread.ofVirtual().unstarted(() -> {
            Thread.currentThread().interrupt();
            try {
                outcome.set(e.execute(IoOp.read(fd, buf, 0)));
            } catch (Throwable ex) {
                outcome.set(ex);
            }
            interruptKept.set(Thread.currentThread().isInterrupted());
        });
        t.start();
        assertTimeoutPreemptively(HANG, () -> t.join());
        Object o = outcome.get();
        assertTrue(Long.valueOf(10).equals(o) || o instanceof InterruptedIOException, String.valueOf(o));
        assertEquals(Boolean.TRUE, interruptKept.get(), "interrupt status must be kept");
    }

    // ------------------------------------------------------------------ closing

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldRefuseRequestsAfterClose(EngineKind kind) throws Exception {
        IoEngine e = kind.create();
        e.close();
        assertTrue(e.isClosed());
        e.close(); // idempotent
        assertThrows(EngineClosedException.class, () -> e.execute(IoOp.nop()));
        CompletableFuture<Long> f = e.submit(IoOp.nop());
        assertTrue(f.isCompletedExceptionally());
        assertInstanceOf(EngineClosedException.class, cause(f));
        IllegalStateException ex = assertThrows(IllegalStateException.class,
                () -> e.submit(IoOp.nop(), (op, r) -> { }));
        assertTrue(ex.getMessage().contains("closed"), ex.getMessage());
        if (e instanceof UringEngine) {
            assertThrows(EngineClosedException.class, () -> e.registerBuffers(Arena.global().allocate(4096)));
        }
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldCancelRequestsInFlightWhenClosed(EngineKind kind) throws Exception {
        IoEngine e = kind.create();
        Pipe pipe = closeLater(Pipe.open());
        Arena a = arena();
        List<IoOp> reads = new ArrayList<>();
        List<CompletableFuture<Long>> futures = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            IoOp read = IoOp.read(pipe.readFd(), a.allocate(8), 0);
            reads.add(read);
            futures.add(e.submit(read));
        }
        awaitInFlight(reads.get(3));
        long t0 = System.nanoTime();
        assertTimeoutPreemptively(HANG, e::close);
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertTrue(ms < 5000, "close took " + ms + " ms");
        for (int i = 0; i < reads.size(); i++) {
            assertTrue(reads.get(i).isDone(), "request " + i + " not completed by close");
            Throwable t = cause(futures.get(i));
            boolean cancelled = t instanceof EngineClosedException
                    || t instanceof ErrnoException ee && ee.errno() == Errno.ECANCELED;
            assertTrue(cancelled, "request " + i + ": " + t);
        }
    }

    // ------------------------------------------------------------------ capacity and registered buffers

    /** More requests at once than the ring has SQ entries, CQ entries and slots: all must complete correctly. */
    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldCompleteFarMoreRequestsThanRingEntries(EngineKind kind) throws Exception {
        IoEngine e = closeLater(switch (kind) {
            case URING -> EngineKind.uring(8);
            case URING_RING -> EngineKind.ringOnly(8);
            case URING_ONE_RING -> EngineKind.uring(8, 1);
            case THREADS -> new ThreadEngine(2);
        });
        if (e instanceof UringEngine u) {
            assertEquals(8, u.sqEntries());
            assertEquals(32, u.cqEntries());
        }
        int blocks = 250;
        int block = 512;
        byte[] initial = new byte[blocks * block];
        for (int i = 0; i < initial.length; i++) initial[i] = (byte) (i / block);
        int fd = openFile("f", initial);
        Arena a = arena();
        List<CompletableFuture<Long>> futures = new ArrayList<>();
        List<MemorySegment> readBufs = new ArrayList<>();
        for (int i = 0; i < blocks; i++) {
            // Reads of the first half of the file, writes of a second region beyond it.
            MemorySegment r = a.allocate(block);
            readBufs.add(r);
            futures.add(e.submit(IoOp.read(fd, r, (long) i * block)));
            MemorySegment w = a.allocate(block);
            w.fill((byte) ~i);
            futures.add(e.submit(IoOp.write(fd, w, (long) (blocks + i) * block)));
        }
        assertEquals(500, futures.size());
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        for (CompletableFuture<Long> f : futures) assertEquals(block, f.join());
        for (int i = 0; i < blocks; i++) {
            byte[] expected = new byte[block];
            Arrays.fill(expected, (byte) i);
            assertArrayEquals(expected, bytes(readBufs.get(i)), "read of block " + i);
        }
        byte[] file = Files.readAllBytes(dir.resolve("f"));
        for (int i = 0; i < blocks; i++) {
            byte[] expected = new byte[block];
            Arrays.fill(expected, (byte) ~i);
            assertArrayEquals(expected, Arrays.copyOfRange(file, (blocks + i) * block, (blocks + i + 1) * block),
                    "written block " + i);
        }
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldRoundTripThroughRegisteredBuffers(EngineKind kind) throws Exception {
        IoEngine e = engine(kind);
        int fd = openFile("f", new byte[0]);
        BufferPool pool = closeLater(new BufferPool(4, 4096, 4096));
        pool.registerWith(e);
        MemorySegment out = pool.acquire();
        MemorySegment in = pool.acquire();
        for (int i = 0; i < 4096; i++) out.set(JAVA_BYTE, i, (byte) (i ^ 0x5a));
        assertEquals(4096, e.execute(IoOp.writeFixed(fd, out, 8192, 0)));
        assertEquals(4096, e.execute(IoOp.readFixed(fd, in, 8192, 0)));
        assertArrayEquals(bytes(out), bytes(in));
        MemorySegment part = in.asSlice(1000, 100);
        part.fill((byte) 0);
        assertEquals(100, e.execute(IoOp.readFixed(fd, part, 8192, 0)));
        assertArrayEquals(bytes(out.asSlice(0, 100)), bytes(part));
        pool.release(out);
        pool.release(in);
        e.registerBuffers(); // unregister before the pool frees the slab
    }
}
