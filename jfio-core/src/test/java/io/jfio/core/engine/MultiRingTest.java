package io.jfio.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.core.sys.Errno;
import io.jfio.core.sys.ErrnoException;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import io.jfio.core.testing.EngineKind;
import io.jfio.core.testing.Fds;
import io.jfio.core.testing.Pipe;
import io.jfio.core.testing.TestSeed;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The io_uring engine with several rings: requests from many threads spread over every ring and come back right,
 * fixed reads work on every ring, cancellation finds the ring a request went to, closing under load on every ring
 * ends every request, and a single ring still works.
 */
class MultiRingTest {
    private static final int BLOCK = 4096;
    private static final int BLOCKS = 256;
    private static final Duration HANG = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    /** A file whose every 4 KiB block starts with its index as a long; returns its open descriptor. */
    private int stampedFile() throws IOException {
        Path p = dir.resolve("data");
        byte[] bytes = new byte[BLOCKS * BLOCK];
        MemorySegment s = MemorySegment.ofArray(bytes);
        for (int b = 0; b < BLOCKS; b++) {
            for (int i = 0; i < BLOCK; i += 8) {
                s.set(ValueLayout.JAVA_LONG_UNALIGNED, (long) b * BLOCK + i, b * 1000L + i);
            }
        }
        Files.write(p, bytes);
        int fd = LibC.openat(Fcntl.AT_FDCWD, p.toString(), Fcntl.O_RDONLY | Fcntl.O_CLOEXEC, 0);
        ErrnoException.check(fd, "open", -1, p.toString());
        return fd;
    }

    private static void check(MemorySegment buf, int block) {
        for (int i = 0; i < BLOCK; i += 512) {
            assertEquals(block * 1000L + i, buf.get(ValueLayout.JAVA_LONG_UNALIGNED, i), "block=" + block + " i=" + i);
        }
    }

    private static UringEngine engine(int rings, boolean inline) throws IOException {
        try {
            return new UringEngine(64, UringEngine.DEFAULT_FLAGS, inline, rings);
        } catch (UringUnavailableException e) {
            return org.junit.jupiter.api.Assumptions.abort("io_uring unavailable: " + e.getMessage());
        }
    }

    @Test
    void shouldSpreadRequestsFromManyThreadsOverEveryRingAndReturnTheRightData() throws Exception {
        TestSeed ts = TestSeed.pick();
        System.out.println("MultiRingTest " + ts);
        long seed = ts.value();
        int fd = stampedFile();
        try (UringEngine e = engine(4, false)) {
            assertEquals(4, e.rings());
            int threads = 16;
            int perThread = 400;
            AtomicReference<Throwable> failure = new AtomicReference<>();
            CountDownLatch done = new CountDownLatch(threads);
            for (int t = 0; t < threads; t++) {
                int id = t;
                Runnable body = () -> {
                    Random rnd = new Random(seed + id);
                    try (Arena a = Arena.ofShared()) {
                        MemorySegment buf = a.allocate(BLOCK, BLOCK);
                        for (int i = 0; i < perThread; i++) {
                            int block = rnd.nextInt(BLOCKS);
                            if ((i & 1) == 0) {
                                assertEquals(BLOCK, e.execute(IoOp.read(fd, buf, (long) block * BLOCK)));
                            } else {
                                assertEquals(BLOCK, e.submit(IoOp.read(fd, buf, (long) block * BLOCK)).get());
                            }
                            check(buf, block);
                        }
                    } catch (Throwable x) {
                        failure.compareAndSet(null, x);
                    } finally {
                        done.countDown();
                    }
                };
                // Half platform threads, half virtual threads.
                (id % 2 == 0 ? Thread.ofPlatform() : Thread.ofVirtual()).start(body);
            }
            assertTimeoutPreemptively(HANG, () -> done.await());
            if (failure.get() != null) throw new AssertionError("seed=" + seed, failure.get());
            long[] per = e.requestsPerRing();
            long total = Arrays.stream(per).sum();
            assertEquals((long) threads * perThread, total, Arrays.toString(per));
            for (long n : per) {
                // Round-robin: every ring gets its share, within a few percent.
                assertTrue(n > total / 4 * 0.9, "uneven spread: " + Arrays.toString(per));
            }
        } finally {
            LibC.close(fd);
        }
    }

    @Test
    void shouldKeepCallbackSubmissionsOnTheRingOfTheCallback() throws Exception {
        int fd = stampedFile();
        try (UringEngine e = engine(2, false); Arena a = Arena.ofShared()) {
            int chains = 8;
            int steps = 50;
            CountDownLatch done = new CountDownLatch(chains);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicLong wrongRing = new AtomicLong();
            for (int c = 0; c < chains; c++) {
                MemorySegment buf = a.allocate(BLOCK, BLOCK);
                Completion cb = new Completion() {
                    int step;
                    UringRing first;

                    @Override
                    public void complete(IoOp op, long result) {
                        try {
                            UringRing.RingThread t = (UringRing.RingThread) Thread.currentThread();
                            if (first == null) first = t.ring;
                            if (t.ring != first || op.ring != first) wrongRing.incrementAndGet();
                            assertEquals(BLOCK, result);
                            check(buf, (int) (op.off / BLOCK));
                            if (++step == steps) {
                                done.countDown();
                                return;
                            }
                            e.submit(IoOp.read(fd, buf, (long) (step % BLOCKS) * BLOCK), this);
                        } catch (Throwable x) {
                            failure.compareAndSet(null, x);
                            done.countDown();
                        }
                    }
                };
                e.submit(IoOp.read(fd, buf, 0), cb);
            }
            assertTimeoutPreemptively(HANG, () -> done.await());
            if (failure.get() != null) throw new AssertionError(failure.get());
            assertEquals(0, wrongRing.get(), "callback submissions moved to another ring");
            long[] per = e.requestsPerRing();
            assertEquals(chains / 2 * steps, per[0], Arrays.toString(per));
            assertEquals(chains / 2 * steps, per[1], Arrays.toString(per));
        } finally {
            LibC.close(fd);
        }
    }

    @Test
    void shouldReadIntoRegisteredBuffersOnEveryRing() throws Exception {
        int fd = stampedFile();
        try (UringEngine e = engine(3, false); IoArena arena = IoArena.ofShared()) {
            int bufs = 6;
            MemorySegment slab = arena.allocate((long) bufs * BLOCK, BLOCK);
            e.registerBuffers(slab);
            List<CompletableFuture<Long>> futures = new ArrayList<>();
            for (int round = 0; round < 20; round++) {
                futures.clear();
                for (int i = 0; i < bufs; i++) {
                    MemorySegment b = slab.asSlice((long) i * BLOCK, BLOCK);
                    futures.add(e.submit(IoOp.readFixed(fd, b, (long) ((round * bufs + i) % BLOCKS) * BLOCK, 0)));
                }
                for (int i = 0; i < bufs; i++) {
                    assertEquals(BLOCK, futures.get(i).get(10, TimeUnit.SECONDS));
                    check(slab.asSlice((long) i * BLOCK, BLOCK), (round * bufs + i) % BLOCKS);
                }
            }
            for (long n : e.requestsPerRing()) assertEquals(20L * bufs / 3, n);
            // Replacing the registration replaces it on every ring; an empty call leaves none.
            e.registerBuffers(slab.asSlice(0, BLOCK));
            assertEquals(BLOCK, e.submit(IoOp.readFixed(fd, slab.asSlice(0, BLOCK), 0, 0)).get());
            e.registerBuffers();
            for (int i = 0; i < 3; i++) {
                ExecutionException x = assertThrows(ExecutionException.class,
                        () -> e.submit(IoOp.readFixed(fd, slab.asSlice(0, BLOCK), 0, 0)).get());
                assertTrue(x.getCause() instanceof ErrnoException ee && ee.errno() == Errno.EFAULT, x.toString());
            }
        } finally {
            LibC.close(fd);
        }
    }

    @Test
    void shouldLeaveNoRingWithBuffersWhenTheKernelRefusesARegistration() throws Exception {
        int fd = stampedFile();
        try (UringEngine e = engine(3, false); IoArena arena = IoArena.ofShared()) {
            MemorySegment buf = arena.allocate(BLOCK, BLOCK);
            e.registerBuffers(buf);
            // More buffers than io_uring takes (IORING_MAX_REG_BUFFERS = 16384): every ring refuses with EINVAL.
            MemorySegment[] tooMany = new MemorySegment[16385];
            Arrays.fill(tooMany, buf);
            ErrnoException x = assertThrows(ErrnoException.class, () -> e.registerBuffers(tooMany));
            assertEquals(Errno.EINVAL, x.errno(), x.getMessage());
            for (int i = 0; i < 3; i++) {
                ExecutionException f = assertThrows(ExecutionException.class,
                        () -> e.submit(IoOp.readFixed(fd, buf, 0, 0)).get());
                assertTrue(f.getCause() instanceof ErrnoException ee && ee.errno() == Errno.EFAULT, f.toString());
            }
            e.registerBuffers(buf);
            for (int i = 0; i < 3; i++) {
                assertEquals(BLOCK, e.submit(IoOp.readFixed(fd, buf, (long) i * BLOCK, 0)).get());
                check(buf, i);
            }
            for (long n : e.requestsPerRing()) assertEquals(2, n);
        } finally {
            LibC.close(fd);
        }
    }

    @Test
    void shouldCancelRequestsOnWhicheverRingTheyWent() throws Exception {
        try (UringEngine e = engine(4, false); Pipe pipe = Pipe.open(); Arena a = Arena.ofShared()) {
            List<IoOp> reads = new ArrayList<>();
            List<CompletableFuture<Long>> futures = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                IoOp read = IoOp.read(pipe.readFd(), a.allocate(8), 0);
                reads.add(read);
                futures.add(e.submit(read));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (Arrays.stream(e.requestsPerRing()).sum() < 8 && System.nanoTime() < deadline) Thread.sleep(1);
            for (long n : e.requestsPerRing()) assertEquals(2, n, Arrays.toString(e.requestsPerRing()));
            for (IoOp r : reads) e.cancel(r);
            for (CompletableFuture<Long> f : futures) {
                ExecutionException x = assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
                assertTrue(x.getCause() instanceof ErrnoException ee && ee.errno() == Errno.ECANCELED, x.toString());
            }
        }
    }

    @Test
    void shouldEndEveryRequestWhenClosedUnderLoadOnEveryRing() throws Exception {
        TestSeed ts = TestSeed.pick();
        System.out.println("MultiRingTest " + ts);
        long seed = ts.value();
        int fd = stampedFile();
        try {
            Fds.assertNoLeak("closing a 4-ring engine under load", () -> {
                UringEngine e = engine(4, false);
                Pipe pipe = Pipe.open();
                int threads = 8;
                List<CompletableFuture<Long>> all = java.util.Collections.synchronizedList(new ArrayList<>());
                AtomicReference<Throwable> failure = new AtomicReference<>();
                CountDownLatch running = new CountDownLatch(threads);
                List<Thread> submitters = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int id = t;
                    submitters.add(Thread.ofPlatform().start(() -> {
                        Random rnd = new Random(seed + id);
                        running.countDown();
                        try {
                            while (!e.isClosed()) {
                                MemorySegment buf = Arena.ofAuto().allocate(BLOCK, BLOCK);
                                IoOp op = rnd.nextInt(4) == 0 ? IoOp.read(pipe.readFd(), buf.asSlice(0, 8), 0)
                                        : IoOp.read(fd, buf, (long) rnd.nextInt(BLOCKS) * BLOCK);
                                all.add(e.submit(op));
                                if (all.size() > 20_000) Thread.onSpinWait();
                            }
                        } catch (Throwable x) {
                            failure.compareAndSet(null, x);
                        }
                    }));
                }
                running.await();
                Thread.sleep(50 + new Random(seed).nextInt(100));
                long t0 = System.nanoTime();
                assertTimeoutPreemptively(HANG, e::close);
                long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
                assertTrue(ms < 10_000, "close took " + ms + " ms");
                for (Thread s : submitters) s.join();
                if (failure.get() != null) throw new AssertionError("seed=" + seed, failure.get());
                List<CompletableFuture<Long>> snapshot;
                synchronized (all) {
                    snapshot = new ArrayList<>(all);
                }
                long ok = 0;
                long ended = 0;
                for (CompletableFuture<Long> f : snapshot) {
                    assertTrue(f.isDone(), "a request was left unfinished by close, seed=" + seed);
                    if (!f.isCompletedExceptionally()) {
                        ok++;
                        continue;
                    }
                    Throwable c = assertThrows(ExecutionException.class, f::get).getCause();
                    boolean closedOrCancelled = c instanceof EngineClosedException
                            || c instanceof ErrnoException ee && ee.errno() == Errno.ECANCELED;
                    assertTrue(closedOrCancelled, "seed=" + seed + ": " + c);
                    ended++;
                }
                assertTrue(ok > 0 && ended > 0, "ok=" + ok + " ended=" + ended + " seed=" + seed);
                for (long n : e.requestsPerRing()) assertTrue(n > 0, Arrays.toString(e.requestsPerRing()));
                pipe.close();
            });
        } finally {
            LibC.close(fd);
        }
    }

    @Test
    void shouldCloseFromACompletionCallbackWithoutWaitingForItself() throws Exception {
        UringEngine e = engine(3, false);
        CountDownLatch closed = new CountDownLatch(1);
        e.submit(IoOp.nop(), (op, r) -> {
            e.close();
            closed.countDown();
        });
        assertTrue(closed.await(10, TimeUnit.SECONDS));
        assertTrue(e.isClosed());
        assertTimeoutPreemptively(HANG, e::close); // waits for every ring thread to end
        assertThrows(EngineClosedException.class, () -> e.execute(IoOp.nop()));
    }

    @Test
    void shouldWorkWithOneRing() throws Exception {
        int fd = stampedFile();
        try (UringEngine e = EngineKind.uring(64, 1); Arena a = Arena.ofShared()) {
            assertEquals(1, e.rings());
            MemorySegment buf = a.allocate(BLOCK, BLOCK);
            for (int i = 0; i < 20; i++) {
                assertEquals(BLOCK, e.submit(IoOp.read(fd, buf, (long) i * BLOCK)).get());
                check(buf, i);
            }
            assertEquals(20, e.requestsPerRing()[0]);
        } finally {
            LibC.close(fd);
        }
    }

    @Test
    void shouldServeCachedReadsOfVirtualThreadsWithoutARingAndOthersThroughOne() throws Exception {
        int fd = stampedFile();
        Path direct = dir.resolve("direct");
        Files.write(direct, new byte[BLOCK]);
        int dfd = LibC.openat(Fcntl.AT_FDCWD, direct.toString(), Fcntl.O_RDONLY | Fcntl.O_CLOEXEC | Fcntl.O_DIRECT, 0);
        try (UringEngine e = engine(2, true); Pipe pipe = Pipe.open()) {
            org.junit.jupiter.api.Assumptions.assumeTrue(e.inlineNowait(), "-D" + UringEngine.INLINE_NOWAIT_PROP);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread vt = Thread.ofVirtual().start(() -> {
                try (Arena a = Arena.ofConfined()) {
                    MemorySegment buf = a.allocate(BLOCK, BLOCK);
                    // The file was just written: cached, so these never reach a ring.
                    for (int i = 0; i < BLOCKS; i++) {
                        assertEquals(BLOCK, e.execute(IoOp.read(fd, buf, (long) i * BLOCK)));
                        check(buf, i);
                    }
                    assertEquals(0, e.execute(IoOp.read(fd, buf, (long) BLOCKS * BLOCK)), "end of file");
                    assertEquals(0, Arrays.stream(e.requestsPerRing()).sum(), "cached reads went to a ring");
                    // A pipe (no RWF_NOWAIT with an offset) and an O_DIRECT file go through a ring.
                    MemorySegment one = Arena.ofAuto().allocate(8);
                    one.set(ValueLayout.JAVA_LONG, 0, 42);
                    assertEquals(8, LibC.write(pipe.writeFd(), one, 8));
                    assertEquals(8, e.execute(IoOp.read(pipe.readFd(), buf.asSlice(0, 8), 0)));
                    assertEquals(42, buf.get(ValueLayout.JAVA_LONG, 0));
                    if (dfd >= 0) assertEquals(BLOCK, e.execute(IoOp.read(dfd, buf, 0)));
                    assertEquals(dfd >= 0 ? 2 : 1, Arrays.stream(e.requestsPerRing()).sum());
                } catch (Throwable x) {
                    failure.set(x);
                }
            });
            assertTimeoutPreemptively(HANG, () -> vt.join());
            if (failure.get() != null) throw new AssertionError(failure.get());
        } finally {
            LibC.close(fd);
            if (dfd >= 0) LibC.close(dfd);
        }
    }

    @Test
    void shouldRefuseAnInvalidRingCount() {
        assertThrows(IllegalArgumentException.class, () -> new UringEngine(64, UringEngine.DEFAULT_FLAGS, true, 0));
        String old = System.getProperty(UringEngine.RINGS_PROP);
        System.setProperty(UringEngine.RINGS_PROP, "many");
        try {
            IllegalArgumentException x = assertThrows(IllegalArgumentException.class, UringEngine::configuredRings);
            assertTrue(x.getMessage().contains(UringEngine.RINGS_PROP + "=many"), x.getMessage());
            System.setProperty(UringEngine.RINGS_PROP, "3");
            assertEquals(3, UringEngine.configuredRings());
        } finally {
            if (old == null) {
                System.clearProperty(UringEngine.RINGS_PROP);
            } else {
                System.setProperty(UringEngine.RINGS_PROP, old);
            }
        }
    }
}
