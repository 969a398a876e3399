package io.jfio.bench.suite.experiments;

import io.jfio.core.engine.Completion;
import io.jfio.core.engine.IoEngine;
import io.jfio.core.engine.IoOp;
import io.jfio.core.sys.Errno;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Reads or writes one block at each of a list of offsets through an engine with {@code depth} requests in flight,
 * driven by completion callbacks: each slot (one buffer each) submits its next request from its completion, so
 * io_uring sees a queue of {@code depth} without a thread per request. A failed or short request fails the run.
 *
 * <p>Thread-safe; stateless: each {@link #run} owns its state.
 */
final class DepthIo {
    private DepthIo() {
    }

    /**
     * Submits {@code offsets.length} requests of {@code bufs[i].byteSize()} bytes, {@code bufs.length} at a time.
     *
     * @return bytes moved (the sum of the results)
     * @throws IOException naming the first failed or short request
     */
    static long run(IoEngine engine, int fd, boolean write, long[] offsets, MemorySegment[] bufs)
            throws IOException, InterruptedException {
        Run r = new Run(engine, fd, write, offsets, bufs.length);
        for (MemorySegment b : bufs) r.new Slot(b).next();
        if (!r.done.await(300, TimeUnit.SECONDS)) throw new IOException("requests did not finish within 300 s");
        if (r.failure != null) throw new IOException(r.failure);
        return r.bytes.get();
    }

    private static final class Run {
        final IoEngine engine;
        final int fd;
        final boolean write;
        final long[] offsets;
        final AtomicInteger next = new AtomicInteger();
        final AtomicInteger active;
        final AtomicLong bytes = new AtomicLong();
        final CountDownLatch done = new CountDownLatch(1);
        volatile String failure;

        Run(IoEngine engine, int fd, boolean write, long[] offsets, int depth) {
            this.engine = engine;
            this.fd = fd;
            this.write = write;
            this.offsets = offsets;
            this.active = new AtomicInteger(depth);
        }

        void retire() {
            if (active.decrementAndGet() == 0) done.countDown();
        }

        final class Slot implements Completion {
            private final MemorySegment buf;

            Slot(MemorySegment buf) {
                this.buf = buf;
            }

            void next() {
                int i = next.getAndIncrement();
                if (i >= offsets.length || failure != null) {
                    retire();
                    return;
                }
                IoOp op = write ? IoOp.write(fd, buf, offsets[i]) : IoOp.read(fd, buf, offsets[i]);
                try {
                    engine.submit(op, this);
                } catch (RuntimeException e) {
                    if (failure == null) failure = "submit failed: " + e;
                    retire();
                }
            }

            @Override
            public void complete(IoOp op, long result) {
                if (result != buf.byteSize()) {
                    if (failure == null) {
                        failure = op.name() + (result < 0 ? " failed: errno=" + Errno.name((int) -result)
                                : " short: " + result + " of " + buf.byteSize() + " bytes") + " fd=" + fd
                                + " offset=" + op.offset();
                    }
                    retire();
                    return;
                }
                bytes.addAndGet(result);
                next();
            }
        }
    }
}
