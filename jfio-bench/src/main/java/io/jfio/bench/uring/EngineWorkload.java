package io.jfio.bench.uring;

import io.jfio.bench.BenchFile;
import io.jfio.bench.Offsets;
import io.jfio.bench.Stats;
import io.jfio.core.engine.Completion;
import io.jfio.core.engine.IoEngine;
import io.jfio.core.engine.IoOp;
import io.jfio.core.sys.Errno;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.HdrHistogram.Histogram;

/**
 * Keeps {@code depth} reads in flight on a jfio engine with completion callbacks: each completion checks its block
 * and submits the next read from the completion thread. On the io_uring engine that thread is the ring thread, so
 * the next read goes straight into the ring with no queue hand-off or wake-up; one thread drives the whole depth.
 *
 * <p>Not thread-safe; one repetition at a time. Each of the {@code depth} slots is a chain of requests, one after
 * another, so its state needs no locking: a completion happens-after the submission that caused it.
 */
final class EngineWorkload implements Workload {
    static final ValueLayout.OfLong STAMP = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final IoEngine engine;
    private final int fd;
    private final MemorySegment[] buffers;
    private final boolean fixed;
    private final AutoCloseable onClose;

    /**
     * @param engine  the engine; not closed by this workload unless it is {@code onClose}
     * @param fd      the open benchmark file
     * @param buffers one 4 KiB buffer per slot (the depth); slices of registered buffer 0 when {@code fixed}
     * @param fixed   use IoOp.readFixed with buffer index 0
     * @param onClose closed by {@link #close()}, may be null
     */
    EngineWorkload(IoEngine engine, int fd, MemorySegment[] buffers, boolean fixed, AutoCloseable onClose) {
        this.engine = engine;
        this.fd = fd;
        this.buffers = buffers.clone();
        this.fixed = fixed;
        this.onClose = onClose;
    }

    @Override
    public Rep run(Offsets.Cursor cursor, long nanos) throws IOException, InterruptedException {
        Run r = new Run(cursor, nanos);
        return r.go();
    }

    @Override
    public void close() throws IOException {
        if (onClose == null) return;
        try {
            onClose.close();
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException(e);
        }
    }

    private final class Run {
        private final Offsets.Cursor cursor;
        private final long nanos;
        private final Slot[] slots;
        private final AtomicInteger active;
        private final CountDownLatch done = new CountDownLatch(1);
        private long deadline;
        private volatile Throwable failure;

        Run(Offsets.Cursor cursor, long nanos) {
            this.cursor = cursor;
            this.nanos = nanos;
            this.slots = new Slot[buffers.length];
            for (int i = 0; i < slots.length; i++) slots[i] = new Slot(buffers[i]);
            this.active = new AtomicInteger(slots.length);
        }

        Rep go() throws IOException, InterruptedException {
            long start = System.nanoTime();
            deadline = start + nanos; // published to the completion threads by the engine's submission hand-off
            for (Slot s : slots) s.next(start);
            long limit = nanos + TimeUnit.SECONDS.toNanos(60);
            if (!done.await(limit, TimeUnit.NANOSECONDS)) {
                throw new IOException("reads did not complete within " + limit / 1_000_000 + " ms of a "
                        + nanos / 1_000_000 + " ms run: engine=" + engine);
            }
            Throwable f = failure;
            if (f != null) throw new IOException("submission failed: " + f, f);
            Histogram h = Stats.newLatencyHistogram();
            long ops = 0;
            long errors = 0;
            long last = start;
            String first = null;
            for (Slot s : slots) {
                h.add(s.histogram);
                ops += s.ops;
                errors += s.errors;
                last = Math.max(last, s.last);
                if (first == null) first = s.firstError;
            }
            return new Rep(ops, last - start, h, errors, first);
        }

        private final class Slot implements Completion {
            private final MemorySegment buf;
            private final Histogram histogram = Stats.newLatencyHistogram();
            private long offset;
            private long submitted;
            private long ops;
            private long errors;
            private long last;
            private String firstError;

            Slot(MemorySegment buf) {
                this.buf = buf;
            }

            void next(long now) {
                long off = now < deadline ? cursor.next() : -1;
                if (off < 0) {
                    retire();
                    return;
                }
                offset = off;
                submitted = now;
                IoOp op = fixed ? IoOp.readFixed(fd, buf, off, 0) : IoOp.read(fd, buf, off);
                try {
                    engine.submit(op, this);
                } catch (RuntimeException e) {
                    failure = e;
                    retire();
                }
            }

            private void retire() {
                if (active.decrementAndGet() == 0) done.countDown();
            }

            @Override
            public void complete(IoOp op, long result) {
                long now = System.nanoTime();
                if (result != BenchFile.BLOCK || buf.get(STAMP, 0) != BenchFile.stamp(offset)) {
                    errors++;
                    if (firstError == null) {
                        firstError = result < 0 ? op.name() + " failed: errno=" + Errno.name((int) -result)
                                + " offset=" + offset : "wrong data: offset=" + offset + " result=" + result;
                    }
                }
                histogram.recordValue(Math.max(1, now - submitted));
                ops++;
                last = now;
                next(now);
            }
        }
    }
}
