package io.jfio.core.engine;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.core.file.IoFile;
import io.jfio.core.sys.Errno;
import io.jfio.core.sys.ErrnoException;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import io.jfio.core.sys.Statx;
import io.jfio.core.testing.EngineKind;
import io.jfio.core.testing.Pipe;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Who owns a request's memory while it is in flight, on both engines: closing the caller's arena mid-request never
 * lets the kernel write into freed (and reused) memory nor write another allocation's bytes to a file, an
 * {@link IoArena} stays allocated until its requests complete and while its memory is registered, memory that could
 * be freed under a registration is refused, and read-only destinations are refused before submission.
 */
class InFlightMemoryTest {
    private static final byte CANARY = (byte) 0x5a;

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

    private static void awaitInFlight(IoOp op) throws InterruptedException {
        EngineTest.awaitInFlight(op);
    }

    private int openFile(String name, byte[] content) throws IOException {
        Path p = dir.resolve(name);
        Files.write(p, content);
        int fd = LibC.openat(Fcntl.AT_FDCWD, p.toString(), Fcntl.O_RDWR | Fcntl.O_CLOEXEC, 0);
        ErrnoException.check(fd, "open", -1, p.toString());
        cleanup.add(() -> LibC.close(fd));
        return fd;
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldNotWriteIntoReusedMemoryWhenArenaIsClosedDuringRead(EngineKind kind) throws Exception {
        IoEngine e = closeLater(kind.create());
        Pipe pipe = closeLater(Pipe.open());
        Arena a = Arena.ofShared();
        MemorySegment buf = a.allocate(64);
        long freedAddress = buf.address();
        IoOp read = IoOp.read(pipe.readFd(), buf, 0);
        CompletableFuture<Long> f = e.submit(read);
        awaitInFlight(read);
        a.close();
        // Memory allocated after the close; malloc hands the freed block straight back.
        List<MemorySegment> canaries = new ArrayList<>();
        boolean reused = false;
        for (int i = 0; i < 8; i++) {
            MemorySegment c = closeLater(Arena.ofShared()).allocate(64);
            c.fill(CANARY);
            canaries.add(c);
            reused |= c.address() == freedAddress;
        }
        pipe.feed(64);
        Object outcome;
        try {
            outcome = f.get(10, TimeUnit.SECONDS);
        } catch (ExecutionException x) {
            outcome = x.getCause();
        }
        for (MemorySegment c : canaries) {
            for (long i = 0; i < c.byteSize(); i++) {
                assertEquals(CANARY, c.get(JAVA_BYTE, i), "byte " + i + " of memory allocated after the close was"
                        + " written (freed block reused: " + reused + ")");
            }
        }
        ErrnoException errno = assertInstanceOf(ErrnoException.class, outcome, "outcome: " + outcome);
        assertEquals(Errno.EFAULT, errno.errno(), errno.getMessage());
    }

    /**
     * A request that starts only once {@code gate}'s pipe gets a byte: a one-byte read into IoArena memory (never
     * bounced, so it may head a chain) linked before {@code op}. Returns {@code op}'s future.
     */
    private CompletableFuture<Long> behindGate(IoEngine e, Pipe gate, IoOp op) throws InterruptedException {
        IoOp read = IoOp.read(gate.readFd(), closeLater(IoArena.ofShared()).allocate(1), 0);
        read.link(op);
        e.submit(read);
        awaitInFlight(read);
        return op.future();
    }

    /** Allocates memory of {@code size} bytes filled with the canary, where malloc puts the block freed last. */
    private List<MemorySegment> canaries(long size) {
        List<MemorySegment> canaries = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            MemorySegment c = closeLater(Arena.ofShared()).allocate(size);
            c.fill(CANARY);
            canaries.add(c);
        }
        return canaries;
    }

    private static void assertIntact(List<MemorySegment> canaries) {
        for (MemorySegment c : canaries) {
            for (long i = 0; i < c.byteSize(); i++) {
                assertEquals(CANARY, c.get(JAVA_BYTE, i), "byte " + i + " of memory allocated after the close was"
                        + " written");
            }
        }
    }

    private static Object outcome(CompletableFuture<Long> f) throws Exception {
        try {
            return f.get(10, TimeUnit.SECONDS);
        } catch (ExecutionException x) {
            return x.getCause();
        }
    }

    private static void assertEfault(Object outcome) {
        ErrnoException errno = assertInstanceOf(ErrnoException.class, outcome, "outcome: " + outcome);
        assertEquals(Errno.EFAULT, errno.errno(), errno.getMessage());
    }

    private static byte[] pattern(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) b[i] = (byte) ('a' + i % 26);
        return b;
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldWriteTheOriginalBytesWhenArenaIsClosedDuringWrite(EngineKind kind) throws Exception {
        IoEngine e = closeLater(kind.create());
        Pipe gate = closeLater(Pipe.open());
        int fd = openFile("out", new byte[0]);
        Arena a = Arena.ofShared();
        MemorySegment src = a.allocate(64);
        src.copyFrom(MemorySegment.ofArray(pattern(64)));
        CompletableFuture<Long> f = behindGate(e, gate, IoOp.write(fd, src, 0));
        a.close();
        List<MemorySegment> canaries = canaries(64);
        gate.feed(1);
        assertEquals(64L, outcome(f));
        assertArrayEquals(pattern(64), Files.readAllBytes(dir.resolve("out")), "bytes of another allocation were"
                + " written to the file");
        assertIntact(canaries);
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldWriteTheOriginalBytesWhenArenaIsClosedDuringWritev(EngineKind kind) throws Exception {
        IoEngine e = closeLater(kind.create());
        Pipe gate = closeLater(Pipe.open());
        int fd = openFile("out", new byte[0]);
        Arena a = Arena.ofShared();
        MemorySegment one = a.allocate(64);
        MemorySegment two = a.allocate(64);
        one.copyFrom(MemorySegment.ofArray(pattern(64)));
        two.copyFrom(MemorySegment.ofArray(pattern(64)));
        CompletableFuture<Long> f = behindGate(e, gate, IoOp.writev(fd, new MemorySegment[] {one, two}, 0));
        a.close();
        canaries(64);
        gate.feed(1);
        assertEquals(128L, outcome(f));
        byte[] expected = new byte[128];
        System.arraycopy(pattern(64), 0, expected, 0, 64);
        System.arraycopy(pattern(64), 0, expected, 64, 64);
        assertArrayEquals(expected, Files.readAllBytes(dir.resolve("out")), "bytes of another allocation were"
                + " written to the file");
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldNotWriteIntoReusedMemoryWhenArenaIsClosedDuringReadv(EngineKind kind) throws Exception {
        IoEngine e = closeLater(kind.create());
        Pipe gate = closeLater(Pipe.open());
        int fd = openFile("in", pattern(256));
        Arena a = Arena.ofShared();
        MemorySegment[] dsts = {a.allocate(64), a.allocate(64)};
        CompletableFuture<Long> f = behindGate(e, gate, IoOp.readv(fd, dsts, 0));
        a.close();
        List<MemorySegment> canaries = canaries(64);
        gate.feed(1);
        Object outcome = outcome(f);
        assertIntact(canaries);
        assertEfault(outcome);
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldNotWriteIntoReusedMemoryWhenArenaIsClosedDuringStatx(EngineKind kind) throws Exception {
        IoEngine e = closeLater(kind.create());
        Pipe gate = closeLater(Pipe.open());
        int fd = openFile("f", pattern(100));
        Arena a = Arena.ofShared();
        MemorySegment path = a.allocateFrom("");
        MemorySegment statx = a.allocate(Statx.LAYOUT);
        CompletableFuture<Long> f = behindGate(e, gate, IoOp.statx(fd, path, Fcntl.AT_EMPTY_PATH,
                Statx.STATX_BASIC_STATS, statx));
        a.close();
        List<MemorySegment> canaries = canaries(Statx.LAYOUT.byteSize());
        gate.feed(1);
        Object outcome = outcome(f);
        assertIntact(canaries);
        assertEfault(outcome);
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldOpenTheNameGivenWhenArenaOfThePathIsClosedDuringOpenat(EngineKind kind) throws Exception {
        IoEngine e = closeLater(kind.create());
        Pipe gate = closeLater(Pipe.open());
        int dirFd = LibC.openat(Fcntl.AT_FDCWD, dir.toString(), Fcntl.O_RDONLY | Fcntl.O_DIRECTORY
                | Fcntl.O_CLOEXEC, 0);
        ErrnoException.check(dirFd, "open", -1, dir.toString());
        cleanup.add(() -> LibC.close(dirFd));
        Arena a = Arena.ofShared();
        MemorySegment name = a.allocateFrom("created-by-openat");
        CompletableFuture<Long> f = behindGate(e, gate, IoOp.openat(dirFd, name, "created-by-openat",
                Fcntl.O_WRONLY | Fcntl.O_CREAT | Fcntl.O_EXCL | Fcntl.O_CLOEXEC, 0600));
        a.close();
        canaries(name.byteSize());
        gate.feed(1);
        Object outcome = outcome(f);
        if (outcome instanceof Long fd) LibC.close(fd.intValue());
        try (var names = Files.list(dir)) {
            assertEquals(List.of("created-by-openat"), names.map(p -> p.getFileName().toString()).toList(),
                    "outcome: " + outcome);
        }
        assertInstanceOf(Long.class, outcome);
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldRefuseToRegisterMemoryThatMayBeFreedWhileRegistered(EngineKind kind) throws Exception {
        IoEngine e = closeLater(kind.create());
        MemorySegment shared = closeLater(Arena.ofShared()).allocate(4096);
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> e.registerBuffers(shared));
        assertTrue(ex.getMessage().contains("IoArena"), ex.getMessage());
        int fd = openFile("f", pattern(4096));
        assertThrows(IllegalArgumentException.class, () -> IoOp.readFixed(fd, shared, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> IoOp.writeFixed(fd, shared, 0, 0));
        e.registerBuffers(Arena.ofAuto().allocate(4096));
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldKeepRegisteredIoArenaMemoryAllocatedUntilUnregistered(EngineKind kind) throws Exception {
        IoEngine e = closeLater(kind.create());
        int fd = openFile("f", pattern(4096));
        IoArena a = IoArena.ofShared();
        MemorySegment slab = a.allocate(4096, 4096);
        e.registerBuffers(slab);
        assertEquals(4096L, e.execute(IoOp.readFixed(fd, slab, 0, 0)));
        a.close();
        assertTrue(slab.scope().isAlive(), "registered memory freed while the kernel may still use it");
        IllegalStateException ex = assertThrows(IllegalStateException.class,
                () -> e.execute(IoOp.readFixed(fd, slab, 0, 0)));
        assertTrue(ex.getMessage().contains("closed"), ex.getMessage());
        e.registerBuffers();
        assertFalse(slab.scope().isAlive(), "unregistering lets go of the closed arena's memory");
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldLetGoOfRegisteredIoArenaMemoryWhenTheEngineCloses(EngineKind kind) throws Exception {
        IoEngine e = kind.create();
        IoArena a = IoArena.ofShared();
        MemorySegment slab = a.allocate(4096, 4096);
        e.registerBuffers(slab);
        a.close();
        assertTrue(slab.scope().isAlive(), "registered memory freed while the kernel may still use it");
        e.close();
        assertFalse(slab.scope().isAlive(), "closing the engine lets go of its registered buffers");
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldKeepIoArenaAllocatedUntilReadInFlightCompletes(EngineKind kind) throws Exception {
        IoEngine e = closeLater(kind.create());
        Pipe pipe = closeLater(Pipe.open());
        IoArena a = IoArena.ofShared();
        MemorySegment buf = a.allocate(64);
        IoOp read = IoOp.read(pipe.readFd(), buf, 0);
        CompletableFuture<Long> f = e.submit(read);
        awaitInFlight(read);
        assertEquals(1, a.inFlight());
        a.close();
        assertTrue(buf.scope().isAlive(), "memory freed under a request in flight");
        assertThrows(IllegalStateException.class, () -> a.allocate(8));
        pipe.feed(64);
        assertEquals(64L, f.get(10, TimeUnit.SECONDS));
        assertFalse(buf.scope().isAlive(), "the last completion frees a closed IoArena");
        assertEquals(0, a.inFlight());
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldRefuseRequestOnClosedIoArena(EngineKind kind) throws Exception {
        IoEngine e = closeLater(kind.create());
        int fd = openFile("f", new byte[16]);
        IoArena a = IoArena.ofShared();
        IoOp op = IoOp.read(fd, a.allocate(16), 0);
        a.close();
        IllegalStateException ex = assertThrows(IllegalStateException.class, () -> e.execute(op));
        assertTrue(ex.getMessage().contains("closed"), ex.getMessage());
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldCopyBouncedReadIntoSharedArenaSegment(EngineKind kind) throws Exception {
        IoEngine e = closeLater(kind.create());
        int fd = openFile("f", "bounced read".getBytes());
        MemorySegment buf = closeLater(Arena.ofShared()).allocate(12);
        assertEquals(12L, e.submit(IoOp.read(fd, buf, 0)).get(10, TimeUnit.SECONDS));
        assertEquals("bounced read", new String(buf.toArray(JAVA_BYTE)));
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldRefuseAsynchronousReadIntoConfinedSegment(EngineKind kind) throws Exception {
        IoEngine e = closeLater(kind.create());
        int fd = openFile("f", new byte[16]);
        try (Arena confined = Arena.ofConfined()) {
            IoOp op = IoOp.read(fd, confined.allocate(16), 0);
            IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> e.submit(op));
            assertTrue(ex.getMessage().contains("confined"), ex.getMessage());
            assertEquals(16L, e.execute(IoOp.read(fd, confined.allocate(16), 0)), "a blocking read may use it");
        }
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldRefuseLinkAfterBouncedRead(EngineKind kind) throws Exception {
        int fd = openFile("f", new byte[16]);
        MemorySegment buf = closeLater(Arena.ofShared()).allocate(16);
        IoOp read = IoOp.read(fd, buf, 0);
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
                () -> read.link(IoOp.write(fd, buf, 16)));
        assertTrue(ex.getMessage().contains("bounce"), ex.getMessage());
        IoArena io = closeLater(IoArena.ofShared());
        MemorySegment direct = io.allocate(16);
        IoOp chain = IoOp.read(fd, direct, 0);
        chain.link(IoOp.write(fd, direct, 16));
        assertEquals(16L, closeLater(kind.create()).execute(chain));
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldRefuseReadOnlyDestinationsOfRequests(EngineKind kind) throws Exception {
        IoEngine e = closeLater(kind.create());
        int fd = openFile("f", new byte[16]);
        MemorySegment ro = closeLater(Arena.ofShared()).allocate(4096).asReadOnly();
        MemorySegment roAuto = Arena.ofAuto().allocate(4096).asReadOnly();
        for (MemorySegment s : List.of(ro, roAuto)) {
            IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> IoOp.read(fd, s, 0));
            assertTrue(ex.getMessage().contains("read-only"), ex.getMessage());
            assertThrows(IllegalArgumentException.class, () -> IoOp.readFixed(fd, s, 0, 0));
            MemorySegment path = Arena.ofAuto().allocateFrom("");
            assertThrows(IllegalArgumentException.class, () -> IoOp.statx(fd, path, Fcntl.AT_EMPTY_PATH,
                    Statx.STATX_BASIC_STATS, s.asSlice(0, Statx.LAYOUT.byteSize())));
        }
        assertEquals(0L, e.execute(IoOp.nop()));
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldRefuseReadOnlyDestinationsOfIoFile(EngineKind kind) throws Exception {
        IoEngine e = closeLater(kind.create());
        Path p = dir.resolve("g");
        Files.write(p, "0123456789abcdef".getBytes());
        IoFile file = closeLater(IoFile.open(e, p, Set.of(StandardOpenOption.READ), 0644));
        MemorySegment ro = closeLater(Arena.ofShared()).allocate(16).asReadOnly();
        assertThrows(IllegalArgumentException.class, () -> file.read(ro, 0));
        assertThrows(IllegalArgumentException.class, () -> file.read(ro.asSlice(0, 0), 0));
        assertThrows(IllegalArgumentException.class, () -> file.readAsync(ro, 0));
        ByteBuffer roBuffer = ByteBuffer.allocateDirect(16).asReadOnlyBuffer();
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> file.read(roBuffer, 0));
        assertTrue(ex.getMessage().contains("read-only"), ex.getMessage());
        assertEquals(0, roBuffer.position());
        MemorySegment rw = closeLater(Arena.ofShared()).allocate(16);
        assertEquals(16, file.read(rw, 0), "a writable segment still reads");
    }
}
