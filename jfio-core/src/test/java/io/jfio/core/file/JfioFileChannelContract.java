package io.jfio.core.file;

import static java.nio.file.StandardOpenOption.APPEND;
import static java.nio.file.StandardOpenOption.CREATE;
import static java.nio.file.StandardOpenOption.CREATE_NEW;
import static java.nio.file.StandardOpenOption.DELETE_ON_CLOSE;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.SPARSE;
import static java.nio.file.StandardOpenOption.TRUNCATE_EXISTING;
import static java.nio.file.StandardOpenOption.WRITE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jfio.core.engine.IoEngine;
import io.jfio.core.testing.EngineKind;
import io.jfio.core.testing.Fds;
import io.jfio.core.testing.TestSeed;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.FileLockInterruptionException;
import java.nio.channels.NonReadableChannelException;
import java.nio.channels.NonWritableChannelException;
import java.nio.channels.OverlappingFileLockException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@link java.nio.channels.FileChannel} contract for {@link JfioFileChannel}, run once per engine by the
 * subclasses, each with a fresh engine for the class ({@code -Djfio.test.engine} picks one, as for the other
 * engine tests). The differential test replays a seeded random sequence of operations against a plain JDK channel
 * on a twin file; {@code -Djfio.test.seed=N} replays a failure.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class JfioFileChannelContract {
    private IoEngine engine;

    /** The engine kind the subclass tests. */
    protected abstract EngineKind kind();

    /** A new engine for this class's tests; closed after them. */
    protected abstract IoEngine newEngine() throws Exception;

    @BeforeAll
    void startEngine() throws Exception {
        assumeTrue(EngineKind.all().anyMatch(k -> k == kind()), "engine not selected by -D" + EngineKind.ENGINE_PROP);
        engine = newEngine();
    }

    @AfterAll
    void stopEngine() {
        if (engine != null) engine.close();
    }

    private JfioFileChannel open(Path p, OpenOption... options) throws IOException {
        return JfioFileChannel.open(engine, p, Set.of(options));
    }

    private static byte[] randomBytes(RandomGenerator rnd, int n) {
        byte[] b = new byte[n];
        rnd.nextBytes(b);
        return b;
    }

    private static RandomGenerator random(long seed) {
        return RandomGeneratorFactory.of("L64X128MixRandom").create(seed);
    }

    private static Path file(Path dir, String name, byte[] content) throws IOException {
        Path p = dir.resolve(name);
        Files.write(p, content);
        return p;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    // ------------------------------------------------------------------ differential

    /** The buffer shapes FileChannel accepts. */
    private enum Kind { HEAP, HEAP_OFFSET, DIRECT, DIRECT_MISALIGNED, SEGMENT, READ_ONLY_HEAP, READ_ONLY_DIRECT }

    private static final Kind[] KINDS = Kind.values();

    /** Two identical buffers, one per channel: same kind, capacity, content, position and limit. */
    private static ByteBuffer[] pair(RandomGenerator rnd, Kind kind, int capacity) {
        byte[] content = randomBytes(rnd, capacity);
        int pos = capacity == 0 || rnd.nextInt(4) != 0 ? 0 : rnd.nextInt(capacity + 1);
        int lim = capacity == 0 || rnd.nextInt(4) != 0 ? capacity : pos + rnd.nextInt(capacity - pos + 1);
        ByteBuffer[] out = new ByteBuffer[2];
        for (int i = 0; i < 2; i++) {
            ByteBuffer b = switch (kind) {
                case HEAP, READ_ONLY_HEAP -> ByteBuffer.allocate(capacity);
                case HEAP_OFFSET -> ByteBuffer.allocate(capacity + 7).position(7).slice();
                case DIRECT, READ_ONLY_DIRECT -> ByteBuffer.allocateDirect(capacity);
                case DIRECT_MISALIGNED -> ByteBuffer.allocateDirect(capacity + 3).position(3).slice();
                case SEGMENT -> Arena.ofAuto().allocate(Math.max(1, capacity)).asByteBuffer().limit(capacity).slice();
            };
            b.put(content).clear().position(pos).limit(lim);
            if (kind == Kind.READ_ONLY_HEAP || kind == Kind.READ_ONLY_DIRECT) b = b.asReadOnlyBuffer();
            out[i] = b;
        }
        return out;
    }

    private static int capacity(RandomGenerator rnd) {
        int r = rnd.nextInt(200);
        if (r == 0) return 1_000_000 + rnd.nextInt(2_500_000); // crosses the 1 MiB copy chunk of heap buffers
        if (r < 10) return 0;
        return rnd.nextInt(r < 100 ? 300 : 9000);
    }

    private static byte[] contentOf(ByteBuffer b) {
        ByteBuffer d = b.duplicate().clear();
        byte[] out = new byte[d.remaining()];
        d.get(out);
        return out;
    }

    private static void assertSameBuffers(ByteBuffer expected, ByteBuffer actual, String what) {
        assertEquals(expected.position(), actual.position(), what + ": buffer position");
        assertEquals(expected.limit(), actual.limit(), what + ": buffer limit");
        assertArrayEquals(contentOf(expected), contentOf(actual), what + ": buffer content");
    }

    /** An operation applied to one side: {@code side} 0 is the JfioFileChannel's, 1 the JDK channel's. */
    private interface SideOp {
        Object apply(FileChannel ch, int side) throws IOException;
    }

    /** Runs {@code op} on both sides and asserts the same result, or the same exception type. */
    private static void same(String what, FileChannel jfio, FileChannel jdk, SideOp op) throws IOException {
        Object expected;
        Object actual;
        try {
            expected = op.apply(jdk, 1);
        } catch (IOException | RuntimeException e) {
            expected = e.getClass();
        }
        try {
            actual = op.apply(jfio, 0);
        } catch (IOException | RuntimeException e) {
            if (!e.getClass().equals(expected)) throw new AssertionError(what + ": jfio threw", e);
            actual = e.getClass();
        }
        assertEquals(expected, actual, what);
    }

    /** The channels of one differential run: the pair under test and the scratch pairs for transfers. */
    private record Twins(FileChannel jfio, FileChannel jdk, FileChannel jfioPeer, FileChannel jfioPeerPlain,
                         FileChannel jdkPeer) {
    }

    @Test
    void randomOperationsMatchPlainFileChannel(@TempDir Path dir) throws Exception {
        // Runs use consecutive seeds from one base, so each run's seed replays just that run.
        long base = TestSeed.pick().value();
        int runs = System.getProperty(TestSeed.SEED_PROP) != null ? 1 : 4;
        for (int run = 0; run < runs; run++) {
            long seed = base + run;
            Path runDir = Files.createDirectories(dir.resolve("run" + run));
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Runnable body = () -> {
                try {
                    differential(runDir, seed, 1500);
                } catch (Throwable t) {
                    failure.set(t);
                }
            };
            // Every other run on a virtual thread: the shared temporary-buffer pool and the engines' hand-off.
            Thread t = run % 2 == 0 ? Thread.ofPlatform().start(body) : Thread.ofVirtual().start(body);
            t.join();
            if (failure.get() != null) {
                throw new AssertionError("differential run failed: seed=" + seed + " (replay with -D"
                        + TestSeed.SEED_PROP + "=" + seed + ")", failure.get());
            }
        }
    }

    private void differential(Path dir, long seed, int ops) throws Exception {
        RandomGenerator rnd = random(seed);
        byte[] initial = randomBytes(rnd, rnd.nextInt(65536));
        byte[] peerContent = randomBytes(rnd, rnd.nextInt(40000));
        Path a = file(dir, "jfio", initial);
        Path b = file(dir, "jdk", initial);
        Path pa = file(dir, "jfio-peer", peerContent);
        Path pb = file(dir, "jdk-peer", peerContent);
        List<String> log = new ArrayList<>();
        try (FileChannel jfio = open(a, READ, WRITE);
             FileChannel jdk = FileChannel.open(b, READ, WRITE);
             FileChannel jfioPeer = open(pa, READ, WRITE);
             FileChannel jfioPeerPlain = FileChannel.open(pa, READ, WRITE);
             FileChannel jdkPeer = FileChannel.open(pb, READ, WRITE)) {
            Twins t = new Twins(jfio, jdk, jfioPeer, jfioPeerPlain, jdkPeer);
            for (int i = 0; i < ops; i++) {
                String what = "op#" + i;
                try {
                    String desc = step(rnd, t, what);
                    log.add(desc);
                    same(what + " size", jfio, jdk, (ch, s) -> ch.size());
                    same(what + " position", jfio, jdk, (ch, s) -> ch.position());
                } catch (AssertionError e) {
                    List<String> recent = log.subList(Math.max(0, log.size() - 8), log.size());
                    throw new AssertionError(what + " failed; recent operations: " + recent, e);
                }
            }
        }
        assertArrayEquals(Files.readAllBytes(b), Files.readAllBytes(a), "final file content");
        assertArrayEquals(Files.readAllBytes(pb), Files.readAllBytes(pa), "final peer file content");
    }

    /**
     * Files are cut back above this size. Transfers copy whole files into each other, so without a bound the twins
     * grow geometrically into gigabytes of holes (and the JDK's single copy_file_range call then returns at 2 GiB
     * where jfio's loop goes on: both valid, but no longer comparable).
     */
    private static final long MAX_FILE = 4L << 20;

    private String step(RandomGenerator rnd, Twins t, String what) throws IOException {
        FileChannel jfio = t.jfio();
        FileChannel jdk = t.jdk();
        long size = jdk.size();
        if (size > MAX_FILE) {
            long to = rnd.nextLong(MAX_FILE / 4);
            same(what, jfio, jdk, (ch, s) -> ch.truncate(to) == ch);
            return "truncate(" + to + ") to bound the size";
        }
        if (t.jdkPeer().size() > MAX_FILE) {
            long to = rnd.nextLong(MAX_FILE / 4);
            t.jdkPeer().truncate(to);
            t.jfioPeer().truncate(to);
            return "truncate peers(" + to + ") to bound their size";
        }
        int op = rnd.nextInt(100);
        if (op < 16) {
            ByteBuffer[] bufs = pair(rnd, KINDS[rnd.nextInt(KINDS.length)], capacity(rnd));
            same(what, jfio, jdk, (ch, s) -> ch.read(bufs[s]));
            assertSameBuffers(bufs[1], bufs[0], what);
            return "read(" + bufs[0] + ")";
        } else if (op < 30) {
            ByteBuffer[] bufs = pair(rnd, KINDS[rnd.nextInt(KINDS.length)], capacity(rnd));
            long pos = rnd.nextInt(20) == 0 ? (1L << 40) + rnd.nextInt(100) : rnd.nextLong(size + 9000);
            same(what, jfio, jdk, (ch, s) -> ch.read(bufs[s], pos));
            assertSameBuffers(bufs[1], bufs[0], what);
            return "read(" + bufs[0] + ", " + pos + ")";
        } else if (op < 44) {
            ByteBuffer[] bufs = pair(rnd, KINDS[rnd.nextInt(KINDS.length)], capacity(rnd));
            same(what, jfio, jdk, (ch, s) -> ch.write(bufs[s]));
            assertSameBuffers(bufs[1], bufs[0], what);
            return "write(" + bufs[0] + ")";
        } else if (op < 56) {
            ByteBuffer[] bufs = pair(rnd, KINDS[rnd.nextInt(KINDS.length)], capacity(rnd));
            long pos = rnd.nextLong(size + 9000);
            same(what, jfio, jdk, (ch, s) -> ch.write(bufs[s], pos));
            assertSameBuffers(bufs[1], bufs[0], what);
            return "write(" + bufs[0] + ", " + pos + ")";
        } else if (op < 64) {
            long pos = rnd.nextLong(size + 9000);
            same(what, jfio, jdk, (ch, s) -> ch.position(pos) == ch);
            return "position(" + pos + ")";
        } else if (op < 68) {
            long newSize = rnd.nextInt(3) == 0 ? size + rnd.nextInt(2000) : rnd.nextLong(size + 1);
            same(what, jfio, jdk, (ch, s) -> ch.truncate(newSize) == ch);
            return "truncate(" + newSize + ")";
        } else if (op < 70) {
            boolean meta = rnd.nextBoolean();
            same(what, jfio, jdk, (ch, s) -> {
                ch.force(meta);
                return null;
            });
            return "force(" + meta + ")";
        } else if (op < 78) {
            return vectored(rnd, jfio, jdk, what, true);
        } else if (op < 86) {
            return vectored(rnd, jfio, jdk, what, false);
        } else if (op < 93) {
            return transferTo(rnd, t, what, size);
        } else {
            return transferFrom(rnd, t, what, size);
        }
    }

    private static String vectored(RandomGenerator rnd, FileChannel jfio, FileChannel jdk, String what,
                                   boolean read) throws IOException {
        int n = rnd.nextInt(7);
        ByteBuffer[][] sides = new ByteBuffer[2][n];
        for (int i = 0; i < n; i++) {
            Kind kind = KINDS[rnd.nextInt(KINDS.length)];
            if (read && rnd.nextInt(10) != 0) {
                // Mostly writable buffers: one read-only buffer fails the whole call.
                while (kind == Kind.READ_ONLY_HEAP || kind == Kind.READ_ONLY_DIRECT) kind = KINDS[rnd.nextInt(5)];
            }
            ByteBuffer[] p = pair(rnd, kind, capacity(rnd) / (rnd.nextBoolean() ? 1 : 8));
            sides[0][i] = p[0];
            sides[1][i] = p[1];
        }
        int offset = n == 0 ? 0 : rnd.nextInt(n + 1);
        int length = rnd.nextInt(n - offset + 1);
        if (read) {
            same(what, jfio, jdk, (ch, s) -> ch.read(sides[s], offset, length));
        } else {
            same(what, jfio, jdk, (ch, s) -> ch.write(sides[s], offset, length));
        }
        for (int i = 0; i < n; i++) assertSameBuffers(sides[1][i], sides[0][i], what + " buffer " + i);
        return (read ? "scatter" : "gather") + "(" + Arrays.toString(sides[0]) + ", " + offset + ", " + length + ")";
    }

    private static long transferCount(RandomGenerator rnd, long size) {
        return switch (rnd.nextInt(5)) {
            case 0 -> Long.MAX_VALUE;
            case 1 -> 0;
            default -> rnd.nextLong(size + 100);
        };
    }

    private String transferTo(RandomGenerator rnd, Twins t, String what, long size) throws IOException {
        long pos = rnd.nextInt(10) == 0 ? size + rnd.nextInt(50) : rnd.nextLong(size + 1);
        long count = transferCount(rnd, size);
        // The jfio side's target is a JfioFileChannel (copy_file_range) or a plain one (buffer loop) on the same
        // file; both start at the JDK target's position.
        boolean plainTarget = rnd.nextBoolean();
        FileChannel target = plainTarget ? t.jfioPeerPlain() : t.jfioPeer();
        target.position(t.jdkPeer().position());
        same(what, t.jfio(), t.jdk(), (ch, s) -> ch.transferTo(pos, count, s == 0 ? target : t.jdkPeer()));
        assertEquals(t.jdkPeer().position(), target.position(), what + ": target position");
        return "transferTo(" + pos + ", " + count + ", " + (plainTarget ? "plain" : "jfio") + ")";
    }

    private String transferFrom(RandomGenerator rnd, Twins t, String what, long size) throws IOException {
        long pos = rnd.nextInt(10) == 0 ? size + rnd.nextInt(3000) : rnd.nextLong(size + 1);
        long count = transferCount(rnd, t.jdkPeer().size());
        boolean plainSource = rnd.nextBoolean();
        FileChannel source = plainSource ? t.jfioPeerPlain() : t.jfioPeer();
        long srcPos = rnd.nextLong(t.jdkPeer().size() + 100);
        source.position(srcPos);
        t.jdkPeer().position(srcPos);
        same(what, t.jfio(), t.jdk(), (ch, s) -> ch.transferFrom(s == 0 ? source : t.jdkPeer(), pos, count));
        assertEquals(t.jdkPeer().position(), source.position(), what + ": source position");
        return "transferFrom(" + (plainSource ? "plain" : "jfio") + "@" + srcPos + ", " + pos + ", " + count + ")";
    }

    // ------------------------------------------------------------------ buffers

    @Test
    void heapBuffersLargerThanTheCopyChunkRoundTrip(@TempDir Path dir) throws IOException {
        byte[] data = randomBytes(random(1), 3 * TempBuffers.MAX_CACHED + 12345);
        try (FileChannel ch = open(dir.resolve("f"), READ, WRITE, CREATE)) {
            assertEquals(data.length, ch.write(ByteBuffer.wrap(data)));
            assertEquals(data.length, ch.position());
            ByteBuffer back = ByteBuffer.allocate(data.length + 10);
            assertEquals(data.length, ch.read(back, 0));
            assertArrayEquals(data, Arrays.copyOf(back.array(), data.length));
            assertEquals(-1, ch.read(back.clear(), data.length));
        }
    }

    @Test
    void readIntoReadOnlyBufferThrowsLikeTheJdk(@TempDir Path dir) throws IOException {
        try (FileChannel ch = open(file(dir, "f", bytes("hello")), READ)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> ch.read(ByteBuffer.allocate(4).asReadOnlyBuffer()));
            assertEquals("Read-only buffer", e.getMessage());
            assertThrows(IllegalArgumentException.class,
                    () -> ch.read(ByteBuffer.allocateDirect(4).asReadOnlyBuffer(), 0));
            assertThrows(IllegalArgumentException.class,
                    () -> ch.read(new ByteBuffer[] {ByteBuffer.allocate(1),
                        ByteBuffer.allocate(2).asReadOnlyBuffer()}));
            assertEquals(0, ch.position());
        }
    }

    @Test
    void writesFromReadOnlyBuffersWork(@TempDir Path dir) throws IOException {
        Path p = dir.resolve("f");
        try (FileChannel ch = open(p, WRITE, CREATE_NEW)) {
            assertEquals(3, ch.write(ByteBuffer.wrap(bytes("abc")).asReadOnlyBuffer()));
            ByteBuffer d = ByteBuffer.allocateDirect(3).put(bytes("def")).flip().asReadOnlyBuffer();
            assertEquals(3, ch.write(d));
            assertEquals(2, ch.write(new ByteBuffer[] {ByteBuffer.wrap(bytes("g")).asReadOnlyBuffer(),
                ByteBuffer.allocateDirect(1).put((byte) 'h').flip().asReadOnlyBuffer()}));
        }
        assertEquals("abcdefgh", Files.readString(p));
    }

    @Test
    void directBuffersOfAConfinedArenaWorkFromVirtualThreads(@TempDir Path dir) throws Exception {
        // The thread engine hands a virtual thread's request to a pool thread, which may not touch a segment of the
        // virtual thread's confined arena: the request must go by address, and never hang.
        Path p = file(dir, "f", bytes("0123456789"));
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicReference<String> got = new AtomicReference<>();
        Thread t = Thread.ofVirtual().start(() -> {
            try (FileChannel ch = open(p, READ, WRITE); Arena arena = Arena.ofConfined()) {
                ByteBuffer b = arena.allocate(4).asByteBuffer();
                assertEquals(4, ch.read(b, 2));
                b.flip();
                assertEquals(4, ch.write(b, 10));
                ByteBuffer[] two = {arena.allocate(2).asByteBuffer(), arena.allocate(3).asByteBuffer()};
                assertEquals(5, ch.read(two));
                got.set(new String(contentOf(two[0].flip()), StandardCharsets.US_ASCII)
                        + new String(contentOf(two[1].flip()), StandardCharsets.US_ASCII));
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        t.join(10_000);
        assertFalse(t.isAlive(), "a request on a confined segment hung");
        if (failure.get() != null) throw new AssertionError(failure.get());
        assertEquals("01234", got.get());
        assertEquals("01234567892345", Files.readString(p));
    }

    @Test
    void vectoredOperationsSpanMoreThanIovMaxBuffersAndTheCopyChunk(@TempDir Path dir) throws IOException {
        RandomGenerator rnd = random(7);
        // 1500 direct buffers (two preadv/pwritev rounds of IOV_MAX) and heap ones whose total exceeds 1 MiB.
        List<ByteBuffer> srcs = new ArrayList<>();
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        for (int i = 0; i < 1500; i++) {
            byte[] b = randomBytes(rnd, 1 + rnd.nextInt(20));
            expected.writeBytes(b);
            srcs.add(ByteBuffer.allocateDirect(b.length).put(b).flip());
        }
        for (int i = 0; i < 3; i++) {
            byte[] b = randomBytes(rnd, 700_000);
            expected.writeBytes(b);
            srcs.add(ByteBuffer.wrap(b));
        }
        byte[] all = expected.toByteArray();
        try (FileChannel ch = open(dir.resolve("f"), READ, WRITE, CREATE_NEW)) {
            assertEquals(all.length, ch.write(srcs.toArray(ByteBuffer[]::new)));
            assertEquals(all.length, ch.position());
            ByteBuffer[] dsts = srcs.stream().map(b -> b.isDirect() ? ByteBuffer.allocateDirect(b.capacity())
                    : ByteBuffer.allocate(b.capacity())).toArray(ByteBuffer[]::new);
            ch.position(0);
            assertEquals(all.length, ch.read(dsts));
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            for (ByteBuffer d : dsts) got.writeBytes(contentOf(d));
            assertArrayEquals(all, got.toByteArray());
            assertEquals(-1, ch.read(new ByteBuffer[] {ByteBuffer.allocate(3)}));
            assertEquals(0, ch.read(new ByteBuffer[] {ByteBuffer.allocate(0)}));
        }
    }

    // ------------------------------------------------------------------ transfers

    @Test
    void transferToAnotherJfioChannelCopiesInKernelAndAdvancesTheTarget(@TempDir Path dir) throws IOException {
        // 12 MiB: more than one copy_file_range chunk of 8 MiB.
        byte[] data = randomBytes(random(3), 12 << 20);
        try (FileChannel src = open(file(dir, "src", data), READ);
             FileChannel dst = open(dir.resolve("dst"), WRITE, CREATE_NEW)) {
            dst.position(5);
            assertEquals(data.length - 10, src.transferTo(10, Long.MAX_VALUE, dst), "count beyond EOF");
            assertEquals(5 + data.length - 10, dst.position());
            assertEquals(0, src.position(), "transferTo leaves the source position alone");
            assertEquals(0, src.transferTo(data.length, 10, dst), "position at size");
            assertEquals(0, src.transferTo(data.length + 100, 10, dst), "position beyond size");
            assertEquals(3, src.transferTo(0, 3, dst));
        }
        byte[] out = Files.readAllBytes(dir.resolve("dst"));
        assertEquals(5 + data.length - 10 + 3, out.length);
        assertArrayEquals(Arrays.copyOfRange(data, 10, data.length), Arrays.copyOfRange(out, 5, 5 + data.length - 10));
        assertArrayEquals(Arrays.copyOf(data, 3), Arrays.copyOfRange(out, out.length - 3, out.length));
    }

    @Test
    void transferFromAnotherJfioChannelAdvancesTheSource(@TempDir Path dir) throws IOException {
        byte[] data = randomBytes(random(4), 100_000);
        try (FileChannel src = open(file(dir, "src", data), READ);
             FileChannel dst = open(file(dir, "dst", bytes("0123456789")), READ, WRITE)) {
            src.position(1000);
            assertEquals(data.length - 1000, dst.transferFrom(src, 4, Long.MAX_VALUE));
            assertEquals(data.length, src.position());
            assertEquals(0, dst.position(), "transferFrom leaves the target position alone");
            assertEquals(0, dst.transferFrom(src, 0, 100), "source at end of file");
            src.position(0);
            // Beyond the end the file grows, as the current FileChannel specification says.
            long end = dst.size();
            assertEquals(10, dst.transferFrom(src, end + 50, 10));
            assertEquals(end + 60, dst.size());
        }
        byte[] out = Files.readAllBytes(dir.resolve("dst"));
        assertArrayEquals(bytes("0123"), Arrays.copyOf(out, 4));
        assertArrayEquals(Arrays.copyOfRange(data, 1000, data.length),
                Arrays.copyOfRange(out, 4, 4 + data.length - 1000));
    }

    @Test
    void transferBetweenFileSystemsFallsBackToCopying(@TempDir Path dir) throws IOException {
        Path shm = Path.of("/dev/shm");
        assumeTrue(Files.isDirectory(shm) && Files.isWritable(shm), "needs a tmpfs at /dev/shm");
        byte[] data = randomBytes(random(5), 300_000);
        Path other = Files.createTempFile(shm, "jfio-channel-test", ".bin");
        try {
            Files.write(other, data);
            try (FileChannel src = open(other, READ); FileChannel dst = open(dir.resolve("dst"), WRITE, CREATE_NEW)) {
                // copy_file_range between tmpfs and ext4 says EXDEV: the buffer loop takes over.
                assertEquals(data.length, src.transferTo(0, Long.MAX_VALUE, dst));
                assertEquals(data.length, dst.position());
            }
            assertArrayEquals(data, Files.readAllBytes(dir.resolve("dst")));
            try (FileChannel src = open(dir.resolve("dst"), READ); FileChannel dst = open(other, WRITE)) {
                src.position(100);
                assertEquals(data.length - 100, dst.transferFrom(src, 0, Long.MAX_VALUE));
            }
            assertArrayEquals(Arrays.copyOfRange(data, 100, data.length),
                    Arrays.copyOf(Files.readAllBytes(other), data.length - 100));
        } finally {
            Files.deleteIfExists(other);
        }
    }

    @Test
    void transferToSocketSendsTheWholeRange(@TempDir Path dir) throws Exception {
        byte[] data = randomBytes(random(6), 2_000_000);
        try (ServerSocketChannel server = ServerSocketChannel.open()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             FileChannel ch = open(file(dir, "f", data), READ)) {
            ByteArrayOutputStream received = new ByteArrayOutputStream();
            Thread reader = Thread.ofPlatform().start(() -> {
                try (SocketChannel peer = server.accept()) {
                    ByteBuffer b = ByteBuffer.allocate(65536);
                    while (peer.read(b.clear()) >= 0) received.write(b.array(), 0, b.position());
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            try (SocketChannel client = SocketChannel.open(server.getLocalAddress())) {
                long sent = 0;
                long from = 1000;
                while (sent < data.length - from) {
                    // Count beyond EOF: each call stops at the end of the file.
                    long n = ch.transferTo(from + sent, Long.MAX_VALUE, client);
                    assertTrue(n > 0);
                    sent += n;
                }
                assertEquals(data.length - from, sent);
                assertEquals(0, ch.transferTo(data.length, 10, client));
                assertEquals(0, ch.transferTo(data.length + 1, 10, client));
                assertEquals(0, ch.position());
            }
            reader.join(10_000);
            assertArrayEquals(Arrays.copyOfRange(data, 1000, data.length), received.toByteArray());
        }
    }

    @Test
    void transferFromSocketReadsToEndOfStream(@TempDir Path dir) throws Exception {
        byte[] data = randomBytes(random(8), 700_000);
        try (ServerSocketChannel server = ServerSocketChannel.open()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             FileChannel ch = open(dir.resolve("f"), READ, WRITE, CREATE_NEW)) {
            Thread writer = Thread.ofPlatform().start(() -> {
                try (SocketChannel peer = server.accept()) {
                    ByteBuffer b = ByteBuffer.wrap(data);
                    while (b.hasRemaining()) peer.write(b);
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            try (SocketChannel client = SocketChannel.open(server.getLocalAddress())) {
                assertEquals(data.length, ch.transferFrom(client, 100, Long.MAX_VALUE));
                assertEquals(0, ch.transferFrom(client, 0, 10), "end of stream");
            }
            writer.join(10_000);
            assertEquals(data.length + 100, ch.size());
            ByteBuffer back = ByteBuffer.allocate(data.length);
            ch.read(back, 100);
            assertArrayEquals(data, back.array());
        }
    }

    @Test
    void transferToPlainFileChannelAndFromPlainFileChannel(@TempDir Path dir) throws IOException {
        byte[] data = randomBytes(random(9), 500_000);
        try (FileChannel src = open(file(dir, "src", data), READ);
             FileChannel plain = FileChannel.open(dir.resolve("plain"), READ, WRITE, CREATE_NEW)) {
            plain.position(7);
            assertEquals(data.length - 3, src.transferTo(3, data.length, plain), "count beyond EOF");
            assertEquals(7 + data.length - 3, plain.position());
            try (FileChannel back = open(dir.resolve("back"), READ, WRITE, CREATE_NEW)) {
                plain.position(7);
                assertEquals(data.length - 3, back.transferFrom(plain, 0, Long.MAX_VALUE));
                assertEquals(7 + data.length - 3, plain.position(), "the source position advanced");
                ByteBuffer got = ByteBuffer.allocate(data.length - 3);
                back.read(got, 0);
                assertArrayEquals(Arrays.copyOfRange(data, 3, data.length), got.array());
            }
        }
    }

    @Test
    void transferIntoAnAppendModeChannelAppends(@TempDir Path dir) throws IOException {
        try (FileChannel src = open(file(dir, "src", bytes("0123456789")), READ);
             FileChannel dst = open(file(dir, "dst", bytes("abc")), APPEND)) {
            dst.position(0);
            assertEquals(4, src.transferTo(2, 4, dst));
            assertEquals(7, dst.position());
            assertEquals(2, dst.transferFrom(src, 0, 2));
        }
        assertEquals("abc234501", Files.readString(dir.resolve("dst")));
    }

    // ------------------------------------------------------------------ append mode

    @Test
    void appendModeBehavesLikeTheJdkChannel(@TempDir Path dir) throws IOException {
        Path a = file(dir, "jfio", bytes("abc"));
        Path b = file(dir, "jdk", bytes("abc"));
        try (FileChannel jfio = open(a, APPEND); FileChannel jdk = FileChannel.open(b, APPEND)) {
            for (FileChannel ch : List.of(jfio, jdk)) {
                assertEquals(3, ch.position(), "append mode reports the size as position");
                assertEquals(2, ch.write(ByteBuffer.wrap(bytes("de"))));
                assertEquals(5, ch.position());
                ch.position(0);
                assertEquals(1, ch.write(ByteBuffer.allocateDirect(1).put((byte) 'f').flip()));
                assertEquals(2, ch.write(new ByteBuffer[] {ByteBuffer.wrap(bytes("g")), ByteBuffer.wrap(bytes("h"))}));
                // Unspecified by FileChannel; on Linux the JDK's pwrite appends too, and so does jfio's.
                assertEquals(1, ch.write(ByteBuffer.wrap(bytes("i")), 0));
                assertThrows(NonReadableChannelException.class, () -> ch.read(ByteBuffer.allocate(1)));
            }
        }
        assertEquals(Files.readString(b), Files.readString(a));
        assertEquals("abcdefghi", Files.readString(a));
    }

    @Test
    void appendModeRejectsTheOptionsTheJdkRejects(@TempDir Path dir) throws IOException {
        Path p = file(dir, "f", bytes("x"));
        assertThrows(IllegalArgumentException.class, () -> open(p, READ, APPEND));
        assertThrows(IllegalArgumentException.class, () -> open(p, APPEND, TRUNCATE_EXISTING));
        try (FileChannel ch = open(p, WRITE, APPEND)) {
            ch.write(ByteBuffer.wrap(bytes("y")));
        }
        assertEquals("xy", Files.readString(p));
    }

    @Test
    void concurrentAppendsFromTwoChannelsNeverTearOrLoseRecords(@TempDir Path dir) throws Exception {
        Path p = dir.resolve("log");
        int threads = 4;
        int records = 300;
        int len = 100;
        try (FileChannel one = open(p, APPEND, CREATE_NEW); FileChannel two = open(p, APPEND)) {
            List<Thread> ts = new ArrayList<>();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                FileChannel ch = t % 2 == 0 ? one : two;
                ts.add(Thread.ofPlatform().start(() -> {
                    try {
                        for (int r = 0; r < records; r++) {
                            byte[] rec = new byte[len];
                            Arrays.fill(rec, (byte) ('A' + id));
                            byte[] tag = bytes(String.format("%03d", r));
                            System.arraycopy(tag, 0, rec, 0, 3);
                            ByteBuffer b = r % 2 == 0 ? ByteBuffer.wrap(rec)
                                    : ByteBuffer.allocateDirect(len).put(rec).flip();
                            assertEquals(len, ch.write(b));
                        }
                    } catch (Throwable e) {
                        failure.set(e);
                    }
                }));
            }
            for (Thread t : ts) t.join();
            if (failure.get() != null) throw new AssertionError(failure.get());
        }
        byte[] all = Files.readAllBytes(p);
        assertEquals(threads * records * len, all.length);
        int[] next = new int[threads];
        for (int off = 0; off < all.length; off += len) {
            int id = all[off + len - 1] - 'A';
            for (int i = 3; i < len; i++) assertEquals('A' + id, all[off + i], "torn record at " + off);
            assertEquals(next[id]++, Integer.parseInt(new String(all, off, 3, StandardCharsets.US_ASCII)));
        }
    }

    // ------------------------------------------------------------------ concurrency of relative operations

    @Test
    void relativeWritesFromManyThreadsTakeDistinctPositions(@TempDir Path dir) throws Exception {
        int threads = 6;
        int records = 200;
        int len = 64;
        try (FileChannel ch = open(dir.resolve("f"), READ, WRITE, CREATE_NEW)) {
            List<Thread> ts = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                ts.add((id % 2 == 0 ? Thread.ofPlatform() : Thread.ofVirtual()).start(() -> {
                    byte[] rec = new byte[len];
                    Arrays.fill(rec, (byte) id);
                    for (int r = 0; r < records; r++) {
                        try {
                            ch.write(id % 3 == 0 ? ByteBuffer.allocateDirect(len).put(rec).flip()
                                    : ByteBuffer.wrap(rec));
                        } catch (IOException e) {
                            throw new RuntimeException(e);
                        }
                    }
                }));
            }
            for (Thread t : ts) t.join();
            assertEquals((long) threads * records * len, ch.position());
            assertEquals((long) threads * records * len, ch.size());
            ByteBuffer rec = ByteBuffer.allocate(len);
            int[] counts = new int[threads];
            ch.position(0);
            while (ch.read(rec.clear()) > 0) {
                byte id = rec.get(0);
                for (int i = 0; i < len; i++) assertEquals(id, rec.get(i));
                counts[id]++;
            }
            for (int c : counts) assertEquals(records, c);
        }
    }

    // ------------------------------------------------------------------ closed, non-readable, non-writable

    /**
     * Every operation of a channel, for the closed and interrupt tests; transfers go to and from a plain channel on
     * {@code peer}, opened and closed by the operation.
     */
    private static List<SideOp> everyOperation(Path peer) {
        return List.of(
                (ch, s) -> ch.read(ByteBuffer.allocate(8)),
                (ch, s) -> ch.read(ByteBuffer.allocateDirect(8), 0),
                (ch, s) -> ch.read(new ByteBuffer[] {ByteBuffer.allocate(4), ByteBuffer.allocateDirect(4)}),
                (ch, s) -> ch.write(ByteBuffer.allocate(8)),
                (ch, s) -> ch.write(ByteBuffer.allocateDirect(8), 3),
                (ch, s) -> ch.write(new ByteBuffer[] {ByteBuffer.allocate(4), ByteBuffer.allocateDirect(4)}),
                (ch, s) -> ch.position(),
                (ch, s) -> ch.position(3),
                (ch, s) -> ch.size(),
                (ch, s) -> ch.truncate(1),
                (ch, s) -> {
                    ch.force(true);
                    return null;
                },
                (ch, s) -> {
                    try (FileChannel target = FileChannel.open(peer, WRITE)) {
                        return ch.transferTo(0, 10, target);
                    }
                },
                (ch, s) -> {
                    try (FileChannel source = FileChannel.open(peer, READ)) {
                        return ch.transferFrom(source, 0, 10);
                    }
                },
                (ch, s) -> ch.map(FileChannel.MapMode.READ_ONLY, 0, 1),
                (ch, s) -> ch.lock(),
                (ch, s) -> ch.tryLock());
    }

    /** How many of {@link #everyOperation} do I/O (the rest are map and lock, tested on their own). */
    private static final int IO_OPERATIONS = 13;

    @Test
    void everyOperationOnAClosedChannelThrowsClosedChannelException(@TempDir Path dir) throws IOException {
        FileChannel ch = open(file(dir, "f", bytes("0123456789")), READ, WRITE);
        ch.close();
        ch.close(); // idempotent
        assertFalse(ch.isOpen());
        List<SideOp> ops = everyOperation(file(dir, "peer", bytes("abcdefghij")));
        for (int i = 0; i < ops.size(); i++) {
            SideOp op = ops.get(i);
            assertThrows(ClosedChannelException.class, () -> op.apply(ch, 0), "operation " + i);
        }
    }

    @Test
    void readOnlyAndWriteOnlyChannelsRejectTheOtherDirection(@TempDir Path dir) throws IOException {
        Path p = file(dir, "f", bytes("0123456789"));
        try (FileChannel ro = open(p, READ); FileChannel wo = open(p, WRITE); FileChannel rw = open(p, READ, WRITE)) {
            assertThrows(NonWritableChannelException.class, () -> ro.write(ByteBuffer.allocate(1)));
            assertThrows(NonWritableChannelException.class, () -> ro.write(ByteBuffer.allocate(1), 0));
            assertThrows(NonWritableChannelException.class, () -> ro.write(new ByteBuffer[] {ByteBuffer.allocate(1)}));
            assertThrows(NonWritableChannelException.class, () -> ro.truncate(0));
            assertThrows(NonWritableChannelException.class, () -> ro.transferFrom(rw, 0, 1));
            assertThrows(NonWritableChannelException.class, () -> ro.lock(0, 1, false));
            assertThrows(NonWritableChannelException.class, () -> ro.map(FileChannel.MapMode.READ_WRITE, 0, 1));
            assertThrows(NonWritableChannelException.class, () -> rw.transferTo(0, 1, ro));
            assertThrows(NonReadableChannelException.class, () -> wo.read(ByteBuffer.allocate(1)));
            assertThrows(NonReadableChannelException.class, () -> wo.read(ByteBuffer.allocate(1), 0));
            assertThrows(NonReadableChannelException.class, () -> wo.read(new ByteBuffer[] {ByteBuffer.allocate(1)}));
            assertThrows(NonReadableChannelException.class, () -> wo.transferTo(0, 1, rw));
            assertThrows(NonReadableChannelException.class, () -> rw.transferFrom(wo, 0, 1));
            assertThrows(NonReadableChannelException.class, () -> wo.lock(0, 1, true));
            assertThrows(NonReadableChannelException.class, () -> wo.map(FileChannel.MapMode.READ_ONLY, 0, 1));
            assertThrows(IllegalArgumentException.class, () -> rw.read(ByteBuffer.allocate(1), -1));
            assertThrows(IllegalArgumentException.class, () -> rw.write(ByteBuffer.allocate(1), -1));
            assertThrows(IllegalArgumentException.class, () -> rw.position(-1));
            assertThrows(IllegalArgumentException.class, () -> rw.truncate(-1));
            assertThrows(IllegalArgumentException.class, () -> rw.transferTo(-1, 1, wo));
            assertThrows(IndexOutOfBoundsException.class, () -> rw.read(new ByteBuffer[2], 1, 2));
            assertThrows(IndexOutOfBoundsException.class, () -> rw.write(new ByteBuffer[2], -1, 1));
        }
    }

    // ------------------------------------------------------------------ interruption and asynchronous close

    @Test
    void anOperationByAnInterruptedThreadClosesTheChannel(@TempDir Path dir) throws IOException {
        Path p = file(dir, "f", bytes("0123456789"));
        List<SideOp> ops = everyOperation(file(dir, "peer", bytes("abcdefghij"))).subList(0, IO_OPERATIONS);
        for (int i = 0; i < ops.size(); i++) {
            FileChannel ch = open(p, READ, WRITE);
            SideOp op = ops.get(i);
            Thread.currentThread().interrupt();
            try {
                assertThrows(ClosedByInterruptException.class, () -> op.apply(ch, 0), "operation " + i);
                assertTrue(Thread.currentThread().isInterrupted(), "interrupt status kept: operation " + i);
                assertFalse(ch.isOpen(), "operation " + i);
            } finally {
                Thread.interrupted();
                ch.close();
            }
        }
    }

    @Test
    void interruptingAThreadInTheMiddleOfReadsClosesTheChannel(@TempDir Path dir) throws Exception {
        Path p = file(dir, "f", randomBytes(random(10), 4 << 20));
        for (boolean virtual : new boolean[] {false, true}) {
            for (boolean heap : new boolean[] {false, true}) {
                FileChannel ch = open(p, READ);
                AtomicReference<Throwable> thrown = new AtomicReference<>();
                AtomicBoolean interruptKept = new AtomicBoolean();
                CountDownLatch running = new CountDownLatch(1);
                Runnable reader = () -> {
                    ByteBuffer b = heap ? ByteBuffer.allocate(1 << 20) : ByteBuffer.allocateDirect(1 << 20);
                    try {
                        while (true) {
                            ch.read(b.clear(), 0);
                            running.countDown();
                        }
                    } catch (Throwable e) {
                        thrown.set(e);
                        interruptKept.set(Thread.currentThread().isInterrupted());
                    }
                };
                Thread t = virtual ? Thread.ofVirtual().start(reader) : Thread.ofPlatform().start(reader);
                assertTrue(running.await(10, TimeUnit.SECONDS));
                Thread.sleep(10);
                t.interrupt();
                t.join(10_000);
                assertFalse(t.isAlive());
                assertInstanceOf(ClosedByInterruptException.class, thrown.get(), "virtual=" + virtual);
                assertTrue(interruptKept.get());
                assertFalse(ch.isOpen());
            }
        }
    }

    @Test
    void closingFromAnotherThreadFailsTheReaderWithClosedChannelException(@TempDir Path dir) throws Exception {
        Path p = file(dir, "f", randomBytes(random(11), 1 << 20));
        FileChannel ch = open(p, READ);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        CountDownLatch running = new CountDownLatch(1);
        Thread t = Thread.ofPlatform().start(() -> {
            ByteBuffer b = ByteBuffer.allocateDirect(1 << 20);
            try {
                while (true) {
                    ch.read(b.clear(), 0);
                    running.countDown();
                }
            } catch (Throwable e) {
                thrown.set(e);
            }
        });
        assertTrue(running.await(10, TimeUnit.SECONDS));
        ch.close();
        t.join(10_000);
        // AsynchronousCloseException if the close landed during a read, ClosedChannelException if between two.
        assertInstanceOf(ClosedChannelException.class, thrown.get());
        assertFalse(thrown.get() instanceof ClosedByInterruptException);
    }

    @Test
    void interruptWhileWaitingForALockClosesTheChannel(@TempDir Path dir) throws Exception {
        Path p = file(dir, "f", bytes("0123456789"));
        String java = ProcessHandle.current().info().command().orElse(null);
        assumeTrue(java != null, "cannot find the java launcher of this JVM");
        Process holder = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                LockHolder.class.getName(), p.toString()).redirectErrorStream(true).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(),
                    StandardCharsets.US_ASCII));
            assertEquals("locked", out.readLine());
            FileChannel ch = open(p, READ, WRITE);
            assertNull(ch.tryLock(), "another process holds the lock");
            assertNull(ch.tryLock(0, 1, true));
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread t = Thread.ofPlatform().start(() -> {
                try {
                    ch.lock();
                } catch (Throwable e) {
                    thrown.set(e);
                }
            });
            Thread.sleep(100);
            t.interrupt();
            t.join(10_000);
            assertInstanceOf(FileLockInterruptionException.class, thrown.get());
            assertFalse(ch.isOpen());
        } finally {
            holder.getOutputStream().close();
            assertTrue(holder.waitFor(10, TimeUnit.SECONDS));
        }
    }

    // ------------------------------------------------------------------ map and lock

    @Test
    void mapSharesTheFileWithTheChannel(@TempDir Path dir) throws IOException {
        Path p = file(dir, "f", bytes("0123456789"));
        try (FileChannel ch = open(p, READ, WRITE)) {
            MappedByteBuffer m = ch.map(FileChannel.MapMode.READ_WRITE, 0, 10);
            m.put(0, (byte) 'X');
            ByteBuffer b = ByteBuffer.allocate(1);
            ch.read(b, 0);
            assertEquals('X', b.get(0));
            ch.write(ByteBuffer.wrap(bytes("Y")), 1);
            assertEquals('Y', m.get(1));
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment s = ch.map(FileChannel.MapMode.READ_ONLY, 2, 3, arena);
                assertEquals('2', s.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0));
            }
        }
        try (FileChannel ro = open(p, READ)) {
            assertEquals('X', ro.map(FileChannel.MapMode.READ_ONLY, 0, 1).get(0));
        }
    }

    @Test
    void mapAndLockFollowTheOpenFileAfterItsPathIsGone(@TempDir Path dir) throws IOException {
        Path p = file(dir, "f", bytes("0123456789"));
        try (FileChannel ch = open(p, READ, WRITE)) {
            Files.move(p, dir.resolve("g"));
            Files.write(p, bytes("another file"));
            assertEquals('0', ch.map(FileChannel.MapMode.READ_ONLY, 0, 1).get(0));
            assertNotNull(ch.tryLock());
        }
        try (FileChannel ch = open(dir.resolve("h"), READ, WRITE, CREATE_NEW, DELETE_ON_CLOSE)) {
            assertFalse(Files.exists(dir.resolve("h")), "DELETE_ON_CLOSE unlinks at once, as the JDK does");
            ch.write(ByteBuffer.wrap(bytes("abc")));
            assertEquals('b', ch.map(FileChannel.MapMode.READ_ONLY, 0, 3).get(1));
        }
    }

    @Test
    void locksBelongToThisChannelAndJoinTheJvmLockTable(@TempDir Path dir) throws IOException {
        Path p = file(dir, "f", bytes("0123456789"));
        FileLock kept;
        try (FileChannel ch = open(p, READ, WRITE); FileChannel plain = FileChannel.open(p, READ, WRITE)) {
            FileLock l = ch.lock(0, 5, false);
            assertSame(ch, l.channel());
            assertTrue(l.isValid());
            assertFalse(l.isShared());
            assertEquals(5, l.size());
            assertThrows(OverlappingFileLockException.class, () -> plain.tryLock(2, 2, false));
            l.release();
            assertFalse(l.isValid());
            FileLock other = plain.tryLock(2, 2, false);
            assertNotNull(other);
            other.release();
            FileLock shared = ch.tryLock(0, 0, true);
            assertTrue(shared.isShared());
            shared.close();
            kept = ch.lock();
            assertTrue(kept.isValid());
        }
        assertFalse(kept.isValid(), "closing the channel releases its locks");
    }

    // ------------------------------------------------------------------ opening

    @Test
    void openFailuresUseTheJavaNioFileExceptions(@TempDir Path dir) throws IOException {
        Path missing = dir.resolve("missing");
        assertThrows(NoSuchFileException.class, () -> open(missing, READ));
        // The JDK ignores CREATE on a channel that cannot write.
        assertThrows(NoSuchFileException.class, () -> open(missing, READ, CREATE));
        assertFalse(Files.exists(missing));
        Path p = file(dir, "f", bytes("x"));
        assertThrows(FileAlreadyExistsException.class, () -> open(p, WRITE, CREATE_NEW));
        assertThrows(FileAlreadyExistsException.class, () -> open(dir, WRITE, CREATE_NEW));
        assertThrows(UnsupportedOperationException.class, () -> JfioFileChannel.open(engine, p,
                Set.of(READ, java.nio.file.LinkOption.NOFOLLOW_LINKS, new OpenOption() { })));
        assertThrows(NullPointerException.class, () -> JfioFileChannel.open(p, READ, null));
    }

    @Test
    void openHonoursPermissionsAttributeAndSparseHint(@TempDir Path dir) throws IOException {
        Path p = dir.resolve("f");
        try (FileChannel ch = JfioFileChannel.open(engine, p, Set.of(WRITE, CREATE_NEW, SPARSE),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
            ch.write(ByteBuffer.wrap(bytes("a")));
        }
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(p)));
    }

    @Test
    void sharedEngineOverloadsOpenLikeFileChannel(@TempDir Path dir) throws IOException {
        Path p = dir.resolve("f");
        try (FileChannel ch = JfioFileChannel.open(p, WRITE, CREATE, WRITE)) {
            ch.write(ByteBuffer.wrap(bytes("hi")));
        }
        try (FileChannel ch = JfioFileChannel.open(p, Set.of(READ))) {
            assertEquals(2, ch.size());
        }
    }

    @Test
    void wrapTakesOwnershipOfTheFile(@TempDir Path dir) throws IOException {
        Path p = file(dir, "f", bytes("abc"));
        IoFile f = IoFile.open(engine, p, Set.of(READ), 0644);
        FileChannel ch = JfioFileChannel.wrap(f);
        ByteBuffer b = ByteBuffer.allocate(3);
        assertEquals(3, ch.read(b));
        assertEquals(-1, ch.read(b.clear()));
        assertThrows(NonWritableChannelException.class, () -> ch.write(ByteBuffer.allocate(1)));
        ch.close();
        assertFalse(f.isOpen());
        assertThrows(IllegalArgumentException.class, () -> JfioFileChannel.wrap(f));
    }

    // ------------------------------------------------------------------ O_DIRECT

    @Test
    void directChannelsCopyHeapBuffersIntoAlignedMemoryButCheckPositionsAndLengths(@TempDir Path dir)
            throws IOException {
        Path p = dir.resolve("f");
        FileChannel ch;
        try {
            ch = open(p, READ, WRITE, CREATE_NEW, JfioOpenOption.DIRECT);
        } catch (IOException e) {
            assumeTrue(false, "O_DIRECT not supported here: " + e);
            return;
        }
        try (ch) {
            byte[] data = randomBytes(random(12), 3 * 4096);
            assertEquals(data.length, ch.write(ByteBuffer.wrap(data)));
            ByteBuffer heap = ByteBuffer.allocate(8192);
            assertEquals(8192, ch.read(heap, 4096));
            assertArrayEquals(Arrays.copyOfRange(data, 4096, data.length), heap.array());
            ByteBuffer aligned = ByteBuffer.allocateDirect(3 * 4096).alignedSlice(4096).limit(4096);
            assertEquals(4096, ch.read(aligned, 0));
            assertEquals(-1, ch.read(aligned.clear(), data.length));
            assertThrows(IllegalArgumentException.class, () -> ch.read(ByteBuffer.allocate(100), 0), "length");
            assertThrows(IllegalArgumentException.class, () -> ch.read(ByteBuffer.allocate(4096), 100), "position");
            ByteBuffer misaligned = ByteBuffer.allocateDirect(3 * 4096).alignedSlice(4096).position(1).slice()
                    .limit(4096);
            assertThrows(IllegalArgumentException.class, () -> ch.read(misaligned, 0), "address");
        }
        // The JDK's own O_DIRECT option is accepted too.
        try (FileChannel jdkOption = open(p, READ, com.sun.nio.file.ExtendedOpenOption.DIRECT)) {
            assertThrows(IllegalArgumentException.class, () -> jdkOption.read(ByteBuffer.allocate(100), 0));
        }
    }

    // ------------------------------------------------------------------ descriptors

    /** Exercises every path that opens a descriptor: channels, delegates, transfers, interrupts, failures. */
    private void descriptorWorkload(Path dir, int round) throws Exception {
        Path a = file(dir, "a" + round, randomBytes(random(round), 200_000));
        Path b = dir.resolve("b" + round);
        try (FileChannel src = open(a, READ, WRITE); FileChannel dst = open(b, READ, WRITE, CREATE_NEW);
             FileChannel plain = FileChannel.open(b, READ, WRITE)) {
            src.read(ByteBuffer.allocate(1000));
            src.read(ByteBuffer.allocateDirect(1000), 5);
            src.transferTo(0, Long.MAX_VALUE, dst);
            src.transferTo(0, 1000, plain);
            dst.transferFrom(plain, 0, 1000);
            src.map(FileChannel.MapMode.READ_ONLY, 0, 100);
            src.lock().release();
        }
        FileChannel interrupted = open(a, READ);
        Thread.currentThread().interrupt();
        try {
            interrupted.read(ByteBuffer.allocate(10));
        } catch (ClosedByInterruptException expected) {
            // the channel is closed by the interrupt
        } finally {
            Thread.interrupted();
        }
        assertThrows(NoSuchFileException.class, () -> open(dir.resolve("nothing"), READ));
        try (FileChannel doc = open(dir.resolve("d" + round), WRITE, CREATE_NEW, DELETE_ON_CLOSE)) {
            doc.write(ByteBuffer.wrap(bytes("x")));
            doc.tryLock();
        }
        JfioFileChannel.wrap(IoFile.open(engine, a, Set.of(READ), 0644)).close();
    }

    @Test
    void closesEveryDescriptorItOpens(@TempDir Path dir) throws Exception {
        AtomicInteger round = new AtomicInteger();
        // The first run loads classes and lets the JDK open what it keeps open (jars, for instance).
        Fds.assertNoLeak("JfioFileChannel", () -> {
            for (int i = 0; i < 2; i++) descriptorWorkload(dir, round.getAndIncrement());
        });
    }

    @Test
    void asynchronousCloseDuringTransferIsReportedAsSuch(@TempDir Path dir) throws Exception {
        // A source that closes the channel under the transfer: the next write finds it closed.
        Path p = dir.resolve("f");
        FileChannel ch = open(p, READ, WRITE, CREATE_NEW);
        java.nio.channels.ReadableByteChannel closing = new java.nio.channels.ReadableByteChannel() {
            private boolean open = true;

            @Override
            public int read(ByteBuffer dst) throws IOException {
                ch.close();
                dst.put((byte) 1);
                return 1;
            }

            @Override
            public boolean isOpen() {
                return open;
            }

            @Override
            public void close() {
                open = false;
            }
        };
        assertThrows(AsynchronousCloseException.class, () -> ch.transferFrom(closing, 0, 10));
    }
}
