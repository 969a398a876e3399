package io.jfio.bench.uring;

import io.jfio.bench.BenchFile;
import io.jfio.bench.Offsets;
import io.jfio.bench.Stats;
import io.jfio.core.engine.IoEngine;
import io.jfio.core.engine.IoOp;
import io.jfio.core.file.Mapping;
import io.jfio.core.sys.ErrnoException;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import io.jfio.core.sys.Mman;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.HdrHistogram.Histogram;

/**
 * Synchronous reads on platform threads, one read at a time per thread: FileChannel (one thread or many sharing the
 * channel), RandomAccessFile and mmap. The queue depth is the number of threads.
 *
 * <p>Not thread-safe; one repetition at a time.
 */
final class ThreadedWorkload implements Workload {

    /** Reads one block; returns its first 8 bytes (the stamp), little-endian. One instance per thread. */
    interface BlockReader {
        long read(long offset) throws IOException;
    }

    /** Creates a thread's reader; {@link #close()} releases what the factory holds. */
    interface ReaderSource extends AutoCloseable {
        BlockReader newReader();

        /** Called before each repetition (mmap maps afresh here). */
        default void beforeRep() throws IOException {
        }

        /** Called after each repetition (mmap unmaps here so the cache can be evicted). */
        default void afterRep() {
        }

        @Override
        void close() throws IOException;
    }

    private final int threads;
    private final ReaderSource source;
    private final String name;
    private final boolean virtual;

    ThreadedWorkload(String name, int threads, ReaderSource source) {
        this(name, threads, source, false);
    }

    /** With {@code virtual}, the readers run on virtual threads instead of platform threads. */
    ThreadedWorkload(String name, int threads, ReaderSource source, boolean virtual) {
        this.name = name;
        this.threads = threads;
        this.source = source;
        this.virtual = virtual;
    }

    @Override
    public Rep run(Offsets.Cursor cursor, long nanos) throws IOException, InterruptedException {
        source.beforeRep();
        try {
            return runThreads(cursor, nanos);
        } finally {
            source.afterRep();
        }
    }

    private Rep runThreads(Offsets.Cursor cursor, long nanos) throws IOException, InterruptedException {
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch go = new CountDownLatch(1);
        long[] startHolder = new long[1];
        List<Worker> workers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Worker w = new Worker(source.newReader(), cursor, ready, go, startHolder, nanos);
            workers.add(w);
            Thread t = virtual ? Thread.ofVirtual().name("jfio-bench-" + name + "-" + i).unstarted(w)
                    : new Thread(w, "jfio-bench-" + name + "-" + i);
            if (!virtual) t.setDaemon(true);
            w.thread = t;
            t.start();
        }
        ready.await();
        long start = System.nanoTime();
        startHolder[0] = start; // published by go.countDown()
        go.countDown();
        for (Worker w : workers) w.thread.join();
        Histogram h = Stats.newLatencyHistogram();
        long ops = 0;
        long errors = 0;
        long last = start;
        String first = null;
        for (Worker w : workers) {
            h.add(w.histogram);
            ops += w.ops;
            errors += w.errors;
            last = Math.max(last, w.last);
            if (first == null) first = w.firstError;
        }
        return new Rep(ops, last - start, h, errors, first);
    }

    @Override
    public void close() throws IOException {
        source.close();
    }

    private static final class Worker implements Runnable {
        private final BlockReader reader;
        private final Offsets.Cursor cursor;
        private final CountDownLatch ready;
        private final CountDownLatch go;
        private final long[] startHolder;
        private final long nanos;
        private final Histogram histogram = Stats.newLatencyHistogram();
        private Thread thread;
        private long ops;
        private long errors;
        private long last;
        private String firstError;

        Worker(BlockReader reader, Offsets.Cursor cursor, CountDownLatch ready, CountDownLatch go, long[] startHolder,
               long nanos) {
            this.reader = reader;
            this.cursor = cursor;
            this.ready = ready;
            this.go = go;
            this.startHolder = startHolder;
            this.nanos = nanos;
        }

        @Override
        public void run() {
            ready.countDown();
            try {
                go.await();
            } catch (InterruptedException e) {
                return;
            }
            long deadline = startHolder[0] + nanos;
            long t = System.nanoTime();
            while (t < deadline) {
                long off = cursor.next();
                if (off < 0) break;
                long stamp;
                try {
                    stamp = reader.read(off);
                } catch (IOException | RuntimeException e) {
                    stamp = 0;
                    if (firstError == null) firstError = "read failed: offset=" + off + " " + e;
                }
                long now = System.nanoTime();
                if (stamp != BenchFile.stamp(off)) {
                    errors++;
                    if (firstError == null) firstError = "wrong data: offset=" + off;
                }
                histogram.recordValue(Math.max(1, now - t));
                ops++;
                t = now;
            }
            last = t;
        }
    }

    // ------------------------------------------------------------------ the sources

    /**
     * A blocking {@code IoOp.read} through {@code engine} per block, into a 4 KiB buffer of each reader's own; the
     * engine and the descriptor stay the caller's.
     */
    static ReaderSource engineReads(IoEngine engine, int fd) {
        return new ReaderSource() {
            @Override
            public BlockReader newReader() {
                MemorySegment buf = Arena.ofAuto().allocate(BenchFile.BLOCK, BenchFile.BLOCK);
                return offset -> {
                    long n = engine.execute(IoOp.read(fd, buf, offset));
                    if (n != BenchFile.BLOCK) throw new IOException("short read: offset=" + offset + " n=" + n);
                    return buf.get(EngineWorkload.STAMP, 0);
                };
            }

            @Override
            public void close() {
            }
        };
    }

    /** FileChannel.read(direct ByteBuffer, position), optionally opened with O_DIRECT (buffers 4 KiB-aligned). */
    static ReaderSource fileChannel(Path file, boolean direct) throws IOException {
        List<OpenOption> opts = new ArrayList<>(List.of(StandardOpenOption.READ));
        if (direct) opts.add(directOption());
        FileChannel ch = FileChannel.open(file, opts.toArray(new OpenOption[0]));
        return new ReaderSource() {
            @Override
            public BlockReader newReader() {
                ByteBuffer buf = ByteBuffer.allocateDirect(2 * BenchFile.BLOCK).alignedSlice(BenchFile.BLOCK)
                        .limit(BenchFile.BLOCK).slice().order(ByteOrder.LITTLE_ENDIAN);
                return offset -> {
                    buf.clear();
                    while (buf.hasRemaining()) {
                        int n = ch.read(buf, offset + buf.position());
                        if (n < 0) throw new IOException("unexpected end of file at offset=" + offset);
                    }
                    return buf.getLong(0);
                };
            }

            @Override
            public void close() throws IOException {
                ch.close();
            }
        };
    }

    /**
     * The JDK's O_DIRECT open option, com.sun.nio.file.ExtendedOpenOption.DIRECT (module jdk.unsupported), looked up
     * by name: referring to it in code draws an "internal proprietary API" warning on every build.
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static OpenOption directOption() throws IOException {
        try {
            Class<?> c = Class.forName("com.sun.nio.file.ExtendedOpenOption");
            return (OpenOption) Enum.valueOf((Class) c, "DIRECT");
        } catch (ClassNotFoundException | IllegalArgumentException e) {
            throw new IOException("this JDK has no ExtendedOpenOption.DIRECT: FileChannel cannot use O_DIRECT", e);
        }
    }

    private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class,
            ByteOrder.LITTLE_ENDIAN);

    /** RandomAccessFile: seek then readFully into a heap array (the JDK copies through a native buffer). */
    static ReaderSource randomAccessFile(Path file) throws IOException {
        RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r");
        return new ReaderSource() {
            @Override
            public BlockReader newReader() {
                byte[] a = new byte[BenchFile.BLOCK];
                return offset -> {
                    raf.seek(offset);
                    raf.readFully(a);
                    return (long) LONG_LE.get(a, 0);
                };
            }

            @Override
            public void close() throws IOException {
                raf.close();
            }
        };
    }

    /**
     * mmap: each repetition maps the file afresh (no MAP_POPULATE) with MADV_RANDOM, and each read copies one 4 KiB
     * page out of the mapping. MADV_RANDOM turns off fault read-ahead, which would otherwise read up to read_ahead_kb
     * around every cold fault, and makes cold touches comparable with 4 KiB reads. Unmapped after each repetition:
     * mapped pages cannot be evicted.
     */
    static ReaderSource mmap(Path file, long size) throws IOException {
        int fd = LibC.openat(Fcntl.AT_FDCWD, file.toString(), Fcntl.O_RDONLY | Fcntl.O_CLOEXEC, 0);
        ErrnoException.check(fd, "open", -1, file.toString());
        Arena arena = Arena.ofShared();
        return new ReaderSource() {
            private Mapping mapping;

            @Override
            public void beforeRep() throws IOException {
                mapping = Mapping.map(fd, file.toString(), 0, size, false, false);
                mapping.advise(Mman.MADV_RANDOM);
            }

            @Override
            public void afterRep() {
                if (mapping != null) mapping.close();
                mapping = null;
            }

            @Override
            public BlockReader newReader() {
                MemorySegment dst = arena.allocate(BenchFile.BLOCK, BenchFile.BLOCK);
                MemorySegment src = mapping.segment();
                return offset -> {
                    MemorySegment.copy(src, offset, dst, 0, BenchFile.BLOCK);
                    return dst.get(EngineWorkload.STAMP, 0);
                };
            }

            @Override
            public void close() throws IOException {
                afterRep();
                arena.close();
                LibC.close(fd);
            }
        };
    }
}
