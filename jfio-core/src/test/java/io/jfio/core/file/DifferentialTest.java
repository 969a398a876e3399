package io.jfio.core.file;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.nio.file.StandardOpenOption.CREATE;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.core.engine.IoEngine;
import io.jfio.core.testing.EngineKind;
import io.jfio.core.testing.TestSeed;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Randomized differential test: many virtual threads at once apply random reads, writes and syncs through
 * {@link IoFile} on the engine under test and the same operations through {@link FileChannel} on a twin file, and
 * every read must agree byte for byte with the twin and with an in-memory model; at the end both files must be
 * identical.
 *
 * <p>Concurrent writes cannot race to different outcomes: virtual thread {@code t} owns the region
 * {@code [t*REGION, (t+1)*REGION)} and is the only one to write or read there, so its region's content depends only
 * on its own ops, which it applies in order to both files. What other threads do can only move the end of file, so
 * a read may return fewer bytes than asked only past the highest byte its owner wrote. Reads past everything
 * anyone writes must return 0. Replay a failure with {@code -Djfio.test.seed=N}; {@code -Djfio.test.ops=N} sets
 * the number of operations per engine (default 100,000).
 */
class DifferentialTest {
    private static final int THREADS = 64;
    private static final int REGION = 1 << 20;
    private static final int MAX_IO = 256 << 10;
    private static final long BEYOND = (long) (THREADS + 1) * REGION;
    private static final int OPS = Integer.getInteger("jfio.test.ops", 100_000);

    @TempDir
    Path dir;

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldMatchFileChannelUnderConcurrentRandomOperations(EngineKind kind) throws Exception {
        TestSeed seed = TestSeed.pick();
        seed.run(s -> {
            try (IoEngine engine = kind.create()) {
                run(engine, s.random(), OPS);
            }
        });
    }

    private void run(IoEngine engine, SplittableRandom root, int ops) throws Exception {
        Path realPath = dir.resolve("real");
        Path twinPath = dir.resolve("twin");
        AtomicLong fsyncs = new AtomicLong();
        AtomicLong pastEof = new AtomicLong();
        try (IoFile real = IoFile.open(engine, realPath, Set.of(READ, WRITE, CREATE), 0644);
             FileChannel twin = FileChannel.open(twinPath, READ, WRITE, CREATE)) {
            List<Thread> threads = new ArrayList<>();
            List<Throwable> failures = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                Worker w = new Worker(t, root.split(), ops / THREADS + (t < ops % THREADS ? 1 : 0), real, twin,
                        fsyncs, pastEof);
                threads.add(Thread.ofVirtual().name("differential-" + t).start(() -> {
                    try {
                        w.run();
                    } catch (Throwable e) {
                        synchronized (failures) {
                            failures.add(e);
                        }
                    }
                }));
            }
            for (Thread t : threads) {
                assertTrue(t.join(java.time.Duration.ofMinutes(2)), "worker hung: " + t);
            }
            if (!failures.isEmpty()) {
                AssertionError e = new AssertionError(failures.size() + " workers failed; first: " + failures.get(0),
                        failures.get(0));
                failures.stream().skip(1).limit(5).forEach(e::addSuppressed);
                throw e;
            }
        }
        assertEquals(Files.size(twinPath), Files.size(realPath), "file sizes differ");
        assertEquals(-1L, Files.mismatch(realPath, twinPath), "files differ at the byte given");
        assertTrue(fsyncs.get() > 0 && pastEof.get() > 0, "no fsync or no read past end of file was made");
    }

    /** One virtual thread: owns region {@code [base, base+REGION)} and applies its ops to both files in order. */
    private static final class Worker {
        private final int id;
        private final SplittableRandom rnd;
        private final int ops;
        private final IoFile real;
        private final FileChannel twin;
        private final AtomicLong fsyncs;
        private final AtomicLong pastEof;
        private final long base;
        /** What the region holds; zeros where never written. */
        private final byte[] model = new byte[REGION];
        /** One past the highest byte of the region written so far (relative to base). */
        private int highWater;
        /** Random bytes that writes copy from. */
        private final byte[] noise = new byte[2 * MAX_IO];

        Worker(int id, SplittableRandom rnd, int ops, IoFile real, FileChannel twin, AtomicLong fsyncs,
               AtomicLong pastEof) {
            this.id = id;
            this.rnd = rnd;
            this.ops = ops;
            this.real = real;
            this.twin = twin;
            this.fsyncs = fsyncs;
            this.pastEof = pastEof;
            this.base = (long) id * REGION;
            rnd.nextBytes(noise);
        }

        /** 0..256 KiB, skewed to small: most requests are a few hundred bytes, a few are large. */
        private int size() {
            double p = rnd.nextDouble();
            if (p < 0.03) return 0;
            if (p < 0.55) return 1 + rnd.nextInt(512);
            if (p < 0.85) return 513 + rnd.nextInt(16 << 10);
            if (p < 0.97) return (16 << 10) + rnd.nextInt(48 << 10);
            return (64 << 10) + rnd.nextInt((MAX_IO - (64 << 10)) + 1);
        }

        void run() throws Exception {
            // Shared: an asynchronous read copies into the buffer on the engine's completion thread (IoEngine).
            try (Arena arena = Arena.ofShared()) {
                MemorySegment buf = arena.allocate(MAX_IO, 4096);
                MemorySegment twinBuf = arena.allocate(MAX_IO, 4096);
                for (int i = 0; i < ops; i++) {
                    try {
                        step(buf, twinBuf);
                    } catch (Throwable e) {
                        throw new AssertionError("worker " + id + " op " + i + ": " + e, e);
                    }
                }
            }
        }

        private void step(MemorySegment buf, MemorySegment twinBuf) throws Exception {
            double p = rnd.nextDouble();
            int size = size();
            boolean aligned = rnd.nextInt(3) == 0;
            if (aligned) size = Math.min(MAX_IO, (size + 511) & ~511);
            int off = rnd.nextInt(REGION - size + 1);
            if (aligned) off &= ~4095;
            if (p < 0.44) {
                write(buf.asSlice(0, size), off, rnd.nextInt(4) == 0);
            } else if (p < 0.94) {
                read(buf.asSlice(0, size), twinBuf.asSlice(0, size), off, rnd.nextInt(4) == 0);
            } else if (p < 0.99) {
                readPastEverything(buf.asSlice(0, size), twinBuf.asSlice(0, size));
            } else if (p < 0.995) {
                write(buf.asSlice(0, size), off, false);
                readFully(buf.asSlice(0, size), twinBuf.asSlice(0, size), off);
            } else if (p < 0.998) {
                sync(rnd.nextBoolean());
            } else {
                writeDurably(buf.asSlice(0, size), off);
            }
        }

        /** Fills {@code src} with a random slice of this worker's random bytes (a byte loop would dominate). */
        private void fill(MemorySegment src) {
            int from = rnd.nextInt(noise.length - (int) src.byteSize() + 1);
            MemorySegment.copy(noise, from, src, JAVA_BYTE, 0, (int) src.byteSize());
        }

        private void write(MemorySegment src, int off, boolean async) throws Exception {
            fill(src);
            int n = async ? (int) (long) real.writeAsync(src, base + off).get(60, TimeUnit.SECONDS)
                    : real.write(src, base + off);
            assertTrue(n >= 0 && n <= src.byteSize(), "write returned " + n);
            applyToTwinAndModel(src.asSlice(0, n), off);
        }

        private void writeDurably(MemorySegment src, int off) throws Exception {
            fill(src);
            real.writeDurably(src, base + off);
            applyToTwinAndModel(src, off);
            twin.force(false);
            fsyncs.incrementAndGet();
        }

        private void applyToTwinAndModel(MemorySegment written, int off) throws IOException {
            ByteBuffer bb = written.asByteBuffer();
            long pos = base + off;
            while (bb.hasRemaining()) pos += twin.write(bb, pos);
            MemorySegment.copy(written, JAVA_BYTE, 0, model, off, (int) written.byteSize());
            // A write of 0 bytes does not extend the file, so it does not raise the high-water mark either.
            if (written.byteSize() > 0) highWater = Math.max(highWater, off + (int) written.byteSize());
        }

        private void sync(boolean dataOnly) throws IOException {
            if (dataOnly) {
                real.datasync();
            } else {
                real.sync();
            }
            twin.force(!dataOnly);
            fsyncs.incrementAndGet();
        }

        private int twinRead(MemorySegment dst, long pos) throws IOException {
            int n = twin.read(dst.asByteBuffer(), pos);
            return Math.max(n, 0); // FileChannel says -1 at end of file where pread says 0
        }

        private void read(MemorySegment dst, MemorySegment twinDst, int off, boolean async) throws Exception {
            dst.fill((byte) 0x55);
            int n = async ? (int) (long) real.readAsync(dst, base + off).get(60, TimeUnit.SECONDS)
                    : real.read(dst, base + off);
            int m = twinRead(twinDst, base + off);
            check(dst, twinDst, off, n, m);
        }

        private void readFully(MemorySegment dst, MemorySegment twinDst, int off) throws Exception {
            dst.fill((byte) 0x55);
            int n = (int) real.readFully(dst, base + off);
            int m = 0;
            while (m < twinDst.byteSize()) {
                int k = twinRead(twinDst.asSlice(m), base + off + m);
                if (k == 0) break;
                m += k;
            }
            assertEquals(dst.byteSize(), n, "readFully of written bytes came back short");
            check(dst, twinDst, off, n, m);
        }

        /**
         * Both reads agree on the bytes they both returned, match the model, and return at least what the owner
         * wrote: bytes past the region's high-water mark may be missing (end of file moved by other threads).
         */
        private void check(MemorySegment dst, MemorySegment twinDst, int off, int n, int m) {
            int len = (int) dst.byteSize();
            int atLeast = Math.clamp(highWater - off, 0, len);
            String where = "region " + id + " offset=" + off + " length=" + len + " high_water=" + highWater;
            assertTrue(n >= atLeast && n <= len, "IoFile read returned " + n + ": " + where);
            assertTrue(m >= atLeast && m <= len, "FileChannel read returned " + m + ": " + where);
            byte[] got = dst.asSlice(0, n).toArray(JAVA_BYTE);
            byte[] expected = Arrays.copyOfRange(model, off, off + n);
            int bad = Arrays.mismatch(expected, got);
            assertEquals(-1, bad, "IoFile read differs from model at +" + bad + ": " + where);
            int common = Math.min(n, m);
            long vsTwin = MemorySegment.mismatch(dst, 0, common, twinDst, 0, common);
            assertEquals(-1L, vsTwin, "IoFile read differs from FileChannel at +" + vsTwin + ": " + where);
        }

        private void readPastEverything(MemorySegment dst, MemorySegment twinDst) throws Exception {
            long pos = BEYOND + rnd.nextLong(1L << 40);
            assertEquals(0, real.read(dst, pos), "read past end of file at " + pos);
            assertEquals(0, twinRead(twinDst, pos));
            assertEquals(0, real.readFully(dst, pos));
            pastEof.incrementAndGet();
        }
    }
}
