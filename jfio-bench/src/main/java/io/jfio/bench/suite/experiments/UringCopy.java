package io.jfio.bench.suite.experiments;

import io.jfio.core.engine.Completion;
import io.jfio.core.engine.IoEngine;
import io.jfio.core.engine.IoOp;
import io.jfio.core.sys.Errno;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A copy driven by io_uring completions: {@code depth} slots, each with its own buffer of {@code block} bytes, each
 * alternating read then write; a completion submits the slot's next request from the engine's completion thread,
 * so up to {@code depth} requests are in flight with no thread per request. Short reads and writes continue from
 * where they stopped.
 *
 * <p>Not thread-safe; one copy at a time per instance. The slots' state is handed between the submitting thread
 * and the completion thread by the engine's submission queue.
 */
final class UringCopy {
    /** One piece of work: copy bytes [pos, end) from descriptor in to descriptor out at the same offsets. */
    record Unit(int in, int out, long pos, long end) {
    }

    private final IoEngine engine;
    private final List<Unit> units;
    private final AtomicInteger nextUnit = new AtomicInteger();
    private final AtomicLong written = new AtomicLong();
    private final AtomicInteger active;
    private final CountDownLatch done = new CountDownLatch(1);
    private final MemorySegment[] buffers;
    private volatile String failure;

    /**
     * @param units   the work: chunks of one file (one unit per chunk) or whole files (one unit per file)
     * @param buffers one buffer per slot; the depth is their number, the block size their size
     */
    UringCopy(IoEngine engine, List<Unit> units, MemorySegment[] buffers) {
        this.engine = engine;
        this.units = units;
        this.buffers = buffers.clone();
        this.active = new AtomicInteger(buffers.length);
    }

    /** Runs the copy; returns the bytes written. */
    long run() throws IOException, InterruptedException {
        for (MemorySegment b : buffers) new Slot(b).nextUnit();
        if (!done.await(300, TimeUnit.SECONDS)) throw new IOException("copy did not finish within 300 s");
        if (failure != null) throw new IOException("copy failed: " + failure);
        return written.get();
    }

    /** Chunks of {@code [0, size)} of one file of {@code block} bytes each. */
    static List<Unit> chunks(int in, int out, long size, long block) {
        List<Unit> u = new java.util.ArrayList<>();
        for (long off = 0; off < size; off += block) u.add(new Unit(in, out, off, Math.min(size, off + block)));
        return u;
    }

    private final class Slot implements Completion {
        private final MemorySegment buf;
        private Unit unit;
        private long pos;
        private long readBytes;
        private boolean writing;

        Slot(MemorySegment buf) {
            this.buf = buf;
        }

        void nextUnit() {
            int i = nextUnit.getAndIncrement();
            if (i >= units.size() || failure != null) {
                if (active.decrementAndGet() == 0) done.countDown();
                return;
            }
            unit = units.get(i);
            pos = unit.pos();
            read();
        }

        private void read() {
            if (pos >= unit.end()) {
                nextUnit();
                return;
            }
            writing = false;
            long len = Math.min(buf.byteSize(), unit.end() - pos);
            submit(IoOp.read(unit.in(), buf.asSlice(0, len), pos));
        }

        private void submit(IoOp op) {
            try {
                engine.submit(op, this);
            } catch (RuntimeException e) {
                fail("submit failed: " + e);
            }
        }

        private void fail(String why) {
            if (failure == null) failure = why;
            if (active.decrementAndGet() == 0) done.countDown();
        }

        @Override
        public void complete(IoOp op, long result) {
            if (result < 0) {
                fail(op.name() + " failed: errno=" + Errno.name((int) -result) + " offset=" + op.offset());
                return;
            }
            if (!writing) {
                if (result == 0) {
                    fail("unexpected end of file: fd=" + unit.in() + " offset=" + pos);
                    return;
                }
                readBytes = result;
                writing = true;
                submit(IoOp.write(unit.out(), buf.asSlice(0, readBytes), pos));
                return;
            }
            if (result == 0) {
                fail("write made no progress: fd=" + unit.out() + " offset=" + pos);
                return;
            }
            // A short write continues with a fresh read from where it stopped.
            written.addAndGet(result);
            pos += result;
            read();
        }
    }
}
