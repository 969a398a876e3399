package io.jfio.core.file;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.nio.file.StandardOpenOption.CREATE;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.abort;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jfio.core.engine.EngineClosedException;
import io.jfio.core.engine.IoEngine;
import io.jfio.core.sys.Errno;
import io.jfio.core.sys.ErrnoException;
import io.jfio.core.testing.EngineKind;
import io.jfio.core.testing.Fds;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.NonWritableChannelException;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link IoFile} on both engines: positional I/O, errors, O_DIRECT, space management, metadata and closing. */
class IoFileTest {
    private static final Set<OpenOption> RW = Set.of(READ, WRITE, CREATE);
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

    private IoFile open(IoEngine e, String name, Set<? extends OpenOption> options) throws IOException {
        return closeLater(IoFile.open(e, dir.resolve(name), options, 0644));
    }

    private MemorySegment segment(long size) {
        return closeLater(Arena.ofShared()).allocate(size, 4096);
    }

    private static MemorySegment pattern(MemorySegment s, int seed) {
        for (long i = 0; i < s.byteSize(); i++) s.set(JAVA_BYTE, i, (byte) (i * 7 + seed));
        return s;
    }

    private static byte[] bytes(MemorySegment s) {
        return s.toArray(JAVA_BYTE);
    }

    private static Throwable cause(CompletableFuture<?> f) {
        return assertThrows(CompletionException.class, f::join).getCause();
    }

    // ------------------------------------------------------------------ reads and writes

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldReadBackWhatWasWritten(EngineKind kind) throws Exception {
        IoFile f = open(engine(kind), "f", RW);
        MemorySegment src = pattern(segment(100_000), 1);
        f.writeFully(src, 12_345);
        assertEquals(112_345, f.size());
        MemorySegment dst = segment(100_000);
        assertEquals(100_000, f.readFully(dst, 12_345));
        assertArrayEquals(bytes(src), bytes(dst));
        byte[] onDisk = Files.readAllBytes(dir.resolve("f"));
        assertArrayEquals(new byte[12_345], java.util.Arrays.copyOf(onDisk, 12_345));

        assertEquals(5, f.write(src.asSlice(0, 5), 0));
        MemorySegment five = segment(5);
        assertEquals(5, f.read(five, 0));
        assertArrayEquals(bytes(src.asSlice(0, 5)), bytes(five));
        assertEquals(0, f.read(segment(0), 0));
        assertEquals(0, f.write(segment(0), 0));
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldReadAndWriteDirectByteBuffersAdvancingPosition(EngineKind kind) throws Exception {
        IoFile f = open(engine(kind), "f", RW);
        ByteBuffer out = ByteBuffer.allocateDirect(10);
        out.put(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}).flip().position(2);
        assertEquals(8, f.write(out, 100));
        assertEquals(10, out.position());
        ByteBuffer in = ByteBuffer.allocateDirect(20);
        assertEquals(8, f.read(in, 100));
        assertEquals(8, in.position());
        assertEquals(3, in.get(0));
        assertEquals(10, in.get(7));
        assertThrows(IllegalArgumentException.class, () -> f.read(ByteBuffer.allocate(4), 0));
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldReturnZeroOrShortCountAtEndOfFile(EngineKind kind) throws Exception {
        Files.write(dir.resolve("f"), new byte[1000]);
        IoFile f = open(engine(kind), "f", Set.of(READ));
        MemorySegment buf = segment(4096);
        assertEquals(1000, f.read(buf, 0));
        assertEquals(0, f.read(buf, 1000));
        assertEquals(0, f.read(buf, 1L << 50));
        assertEquals(500, f.readFully(buf, 500));
        assertEquals(0, f.readFully(buf, 2000));
        assertEquals(0L, f.readAsync(buf, 1000).get(10, TimeUnit.SECONDS));
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldCompleteAsyncReadsAndWrites(EngineKind kind) throws Exception {
        IoFile f = open(engine(kind), "f", RW);
        List<CompletableFuture<Long>> writes = new ArrayList<>();
        for (int i = 0; i < 64; i++) writes.add(f.writeAsync(pattern(segment(4096), i), i * 4096L));
        for (CompletableFuture<Long> w : writes) assertEquals(4096L, w.get(10, TimeUnit.SECONDS));
        for (int i = 0; i < 64; i++) {
            MemorySegment dst = segment(4096);
            assertEquals(4096L, f.readAsync(dst, i * 4096L).get(10, TimeUnit.SECONDS));
            assertArrayEquals(bytes(pattern(segment(4096), i)), bytes(dst), "block " + i);
        }
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldWriteDurablyAndSync(EngineKind kind) throws Exception {
        IoFile f = open(engine(kind), "f", RW);
        MemorySegment src = pattern(segment(8192), 3);
        f.writeDurably(src, 4096);
        f.writeDurably(segment(0), 0);
        f.sync();
        f.datasync();
        assertEquals(12288, Files.size(dir.resolve("f")));
        byte[] disk = Files.readAllBytes(dir.resolve("f"));
        assertArrayEquals(bytes(src), java.util.Arrays.copyOfRange(disk, 4096, 12288));
    }

    // ------------------------------------------------------------------ argument errors

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldRejectNegativePositionsAndSizes(EngineKind kind) throws Exception {
        IoFile f = open(engine(kind), "f", RW);
        MemorySegment buf = segment(16);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> f.read(buf, -1));
        assertTrue(e.getMessage().contains("position=-1"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> f.write(buf, -1));
        assertThrows(IllegalArgumentException.class, () -> f.readFully(buf, -4096));
        assertThrows(IllegalArgumentException.class, () -> f.writeFully(buf, Long.MIN_VALUE));
        assertThrows(IllegalArgumentException.class, () -> f.readAsync(buf, -1));
        assertThrows(IllegalArgumentException.class, () -> f.writeAsync(buf, -1));
        assertThrows(IllegalArgumentException.class, () -> f.writeDurably(buf, -1));
        assertThrows(IllegalArgumentException.class, () -> f.truncate(-1));
        assertThrows(IllegalArgumentException.class, () -> f.allocate(0, -1));
        assertThrows(IllegalArgumentException.class, () -> f.allocate(-1, 10));
        assertThrows(IllegalArgumentException.class, () -> f.punchHole(-1, 10));
        assertThrows(IllegalArgumentException.class, () -> f.advise(-1, 0, IoFile.Advice.NORMAL));
        assertThrows(IllegalArgumentException.class, () -> f.read(MemorySegment.ofArray(new byte[4]), 0));
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldRefuseWritesToReadOnlyFile(EngineKind kind) throws Exception {
        Files.write(dir.resolve("f"), new byte[10]);
        IoFile f = open(engine(kind), "f", Set.of(READ));
        assertThrows(NonWritableChannelException.class, () -> f.write(segment(4), 0));
        assertThrows(NonWritableChannelException.class, () -> f.truncate(0));
        assertEquals(10, f.read(segment(10), 0));
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldNotCreateAFileOpenedOnlyForReadingAndTreatSparseAsAHint(EngineKind kind) throws Exception {
        IoEngine e = engine(kind);
        Path missing = dir.resolve("never-created");
        ErrnoException ex = assertThrows(ErrnoException.class,
                () -> IoFile.open(e, missing, Set.of(READ, StandardOpenOption.CREATE), 0644));
        assertEquals(Errno.ENOENT, ex.errno());
        assertFalse(Files.exists(missing));
        try (IoFile f = IoFile.open(e, missing, Set.of(WRITE, StandardOpenOption.CREATE, StandardOpenOption.SPARSE),
                0644)) {
            assertTrue(f.isOpen());
        }
        assertTrue(Files.exists(missing));
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldFailOpenOfMissingFileWithEnoent(EngineKind kind) throws Exception {
        IoEngine e = engine(kind);
        Path missing = dir.resolve("missing");
        ErrnoException ex = assertThrows(ErrnoException.class, () -> IoFile.open(e, missing, Set.of(READ), 0));
        assertEquals(Errno.ENOENT, ex.errno());
        assertTrue(ex.getMessage().contains("path=" + missing), ex.getMessage());
        Files.write(missing, new byte[1]);
        ErrnoException exists = assertThrows(ErrnoException.class,
                () -> IoFile.open(e, missing, Set.of(WRITE, StandardOpenOption.CREATE_NEW), 0644));
        assertEquals(Errno.EEXIST, exists.errno());
        assertThrows(UnsupportedOperationException.class,
                () -> IoFile.open(e, missing, Set.of(WRITE, StandardOpenOption.APPEND), 0644));
    }

    // ------------------------------------------------------------------ closing

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldThrowClosedChannelExceptionAfterClose(EngineKind kind) throws Exception {
        IoFile f = IoFile.open(engine(kind), dir.resolve("f"), RW, 0644);
        int fd = f.fd();
        f.close();
        f.close(); // idempotent
        assertFalse(f.isOpen());
        assertFalse(Fds.isOpen(fd) && Files.isSameFile(Path.of("/proc/self/fd/" + fd), dir.resolve("f")),
                "descriptor still open after close");
        MemorySegment buf = segment(16);
        assertThrows(ClosedChannelException.class, () -> f.read(buf, 0));
        assertThrows(ClosedChannelException.class, () -> f.write(buf, 0));
        assertThrows(ClosedChannelException.class, () -> f.readFully(buf, 0));
        assertThrows(ClosedChannelException.class, () -> f.writeDurably(buf, 0));
        assertThrows(ClosedChannelException.class, f::sync);
        assertThrows(ClosedChannelException.class, f::datasync);
        assertThrows(ClosedChannelException.class, f::stat);
        assertThrows(ClosedChannelException.class, f::identity);
        assertThrows(ClosedChannelException.class, () -> f.truncate(0));
        assertThrows(ClosedChannelException.class, () -> f.advise(0, 0, IoFile.Advice.RANDOM));
        assertInstanceOf(ClosedChannelException.class, cause(f.readAsync(buf, 0)));
        assertInstanceOf(ClosedChannelException.class, cause(f.writeAsync(buf, 0)));
    }

    /** close() with a request in flight: the descriptor stays open (so its number cannot be reused) until it ends. */
    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldKeepDescriptorOpenUntilRequestInFlightCompletes(EngineKind kind) throws Exception {
        Path fifo = dir.resolve("fifo");
        Process mk = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
        assumeTrue(mk.waitFor() == 0, "mkfifo failed: cannot hold a request in flight");
        // O_RDWR on a FIFO does not wait for a peer on Linux; a read of it waits for data.
        IoFile f = IoFile.open(engine(kind), fifo, Set.of(READ, WRITE), 0);
        int fd = f.fd();
        MemorySegment buf = segment(64);
        CompletableFuture<Long> read = f.readAsync(buf, 0);
        Thread.sleep(100);
        assertFalse(read.isDone(), "read of an empty FIFO completed");
        f.close();
        assertFalse(f.isOpen());
        assertTrue(Fds.isOpen(fd), "descriptor closed under a request in flight");
        assertThrows(ClosedChannelException.class, () -> f.read(buf, 0));
        try (OutputStream out = Files.newOutputStream(fifo, WRITE)) {
            out.write("hello".getBytes());
        }
        assertEquals(5L, read.get(10, TimeUnit.SECONDS));
        assertEquals("hello", new String(bytes(buf.asSlice(0, 5))));
        assertTimeoutPreemptively(HANG, () -> {
            while (Fds.isOpen(fd) && Files.isSameFile(Path.of("/proc/self/fd/" + fd), fifo)) Thread.sleep(1);
        }, "descriptor not closed after its last request completed");
    }

    /** A request refused by a closed engine must not keep the file's descriptor open forever. */
    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldReleaseDescriptorWhenClosedEngineRefusesAsyncRequest(EngineKind kind) throws Exception {
        IoEngine e = kind.create();
        Files.write(dir.resolve("f"), new byte[100]);
        IoFile f = IoFile.open(e, dir.resolve("f"), Set.of(READ), 0);
        int fd = f.fd();
        e.close();
        assertInstanceOf(EngineClosedException.class, cause(f.readAsync(segment(10), 0)));
        assertThrows(EngineClosedException.class, () -> f.read(segment(10), 0));
        f.close();
        assertFalse(Fds.isOpen(fd) && Files.isSameFile(Path.of("/proc/self/fd/" + fd), dir.resolve("f")),
                "descriptor leaked by a refused request");
    }

    // ------------------------------------------------------------------ space and metadata

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldAllocatePunchHolesAndTruncate(EngineKind kind) throws Exception {
        IoFile f = open(engine(kind), "f", RW);
        f.allocate(0, 1 << 20);
        assertEquals(1 << 20, f.size());
        f.writeFully(pattern(segment(1 << 20), 9), 0);
        f.datasync();
        long blocksBefore = f.stat().blocks();
        f.punchHole(65536, 262144);
        assertEquals(1 << 20, f.size(), "punching a hole keeps the size");
        assertTrue(f.stat().blocks() < blocksBefore, "no space freed by the hole");
        MemorySegment hole = segment(262144);
        f.readFully(hole, 65536);
        assertArrayEquals(new byte[262144], bytes(hole));
        MemorySegment after = segment(100);
        f.readFully(after, 65536 + 262144);
        assertArrayEquals(bytes(pattern(segment(1 << 20), 9).asSlice(65536 + 262144, 100)), bytes(after));
        f.truncate(1000);
        assertEquals(1000, f.size());
        f.truncate(5000);
        assertEquals(5000, Files.size(dir.resolve("f")));
        for (IoFile.Advice a : IoFile.Advice.values()) f.advise(0, 0, a);
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldReportStatAndIdentityOfOpenFile(EngineKind kind) throws Exception {
        Path p = dir.resolve("f");
        Files.write(p, new byte[777]);
        IoFile f = open(engine(kind), "f", Set.of(READ));
        FileStat st = f.stat();
        assertEquals(777, st.size());
        assertTrue(st.isRegularFile());
        assertFalse(st.isDirectory());
        assertEquals(1, st.nlink());
        assertEquals(Files.getLastModifiedTime(p).toMillis(), st.mtimeNanos() / 1_000_000);
        FileIdentity id = f.identity();
        assertEquals((Long) Files.getAttribute(p, "unix:ino"), id.inode());
        assertEquals((Long) Files.getAttribute(p, "unix:dev"), id.device());
        assertEquals(id, st.identity());
        // The identity follows the open file, not the name.
        Files.move(p, dir.resolve("g"));
        Files.write(p, new byte[1]);
        assertEquals(id, f.identity());
        assertEquals(777, f.size());
    }

    // ------------------------------------------------------------------ O_DIRECT

    private IoFile openDirect(IoEngine e, String name) throws IOException {
        try {
            return open(e, name, Set.of(READ, WRITE, CREATE, JfioOpenOption.DIRECT));
        } catch (ErrnoException ex) {
            if (ex.errno() == Errno.EINVAL) return abort("O_DIRECT unsupported by the file system of " + dir);
            throw ex;
        }
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldRoundTripAlignedDirectIo(EngineKind kind) throws Exception {
        IoFile f = openDirect(engine(kind), "d");
        assertTrue(f.isDirect());
        int[] align = f.directAlignment();
        assertTrue(align[0] >= 1 && align[1] >= 512, "alignment " + align[0] + "/" + align[1]);
        BufferPool pool = closeLater(new BufferPool(2, 65536, 4096));
        MemorySegment out = pattern(pool.acquire(), 5);
        MemorySegment in = pool.acquire();
        f.writeFully(out, 8192);
        f.writeDurably(out.asSlice(0, 4096), 0);
        assertEquals(65536, f.readFully(in, 8192));
        assertArrayEquals(bytes(out), bytes(in));
        assertEquals(65536L, f.readAsync(in, 8192).get(10, TimeUnit.SECONDS));
        assertEquals(65536 + 8192, f.size());
        pool.release(out);
        pool.release(in);
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldRejectUnalignedDirectIoNamingTheAlignment(EngineKind kind) throws Exception {
        IoFile f = openDirect(engine(kind), "d");
        int memAlign = f.directAlignment()[0];
        int offAlign = f.directAlignment()[1];
        MemorySegment aligned = segment(8192);
        IllegalArgumentException e;
        if (memAlign > 1) {
            e = assertThrows(IllegalArgumentException.class, () -> f.read(aligned.asSlice(1, 4096), 0));
            assertTrue(e.getMessage().contains("required_memory_alignment=" + memAlign), e.getMessage());
        }
        e = assertThrows(IllegalArgumentException.class, () -> f.write(aligned.asSlice(0, 4096), 100));
        assertTrue(e.getMessage().contains("required_offset_alignment=" + offAlign), e.getMessage());
        assertTrue(e.getMessage().contains("offset=100"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> f.write(aligned.asSlice(0, 100), 0));
        assertTrue(e.getMessage().contains("length=100"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> f.readAsync(aligned.asSlice(0, 100), 0));
        assertThrows(IllegalArgumentException.class, () -> f.writeDurably(aligned.asSlice(0, 100), 0));
        assertEquals(0, f.size(), "nothing may reach the file");
    }

    /** A file whose size is not a multiple of the alignment: readFully stops at end of file, like a plain read. */
    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldReadFullyToUnalignedEndOfFileWithDirectIo(EngineKind kind) throws Exception {
        byte[] content = new byte[4096 + 100];
        for (int i = 0; i < content.length; i++) content[i] = (byte) i;
        Files.write(dir.resolve("d"), content);
        IoFile f = openDirect(engine(kind), "d");
        MemorySegment buf = segment(16384);
        assertEquals(content.length, f.readFully(buf, 0));
        assertArrayEquals(content, bytes(buf.asSlice(0, content.length)));
        assertEquals(100, f.read(buf, 4096));
    }
}
