package io.jfio.core.engine;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
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
 * Who owns a read's memory while it is in flight, on both engines: closing the caller's arena mid-request never lets
 * the kernel write into freed (and reused) memory, an {@link IoArena} stays allocated until its requests complete,
 * and read-only destinations are refused before submission.
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
