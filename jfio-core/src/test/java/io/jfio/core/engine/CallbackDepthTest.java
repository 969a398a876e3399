package io.jfio.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * One thread keeping many reads in flight through completion callbacks that submit the next read (the ring thread
 * submits from inside its own reap loop), with every submit-early batch size: each read must return its own block.
 */
class CallbackDepthTest {
    private static final int BLOCK = 4096;
    private static final int BLOCKS = 512;
    private static final long SEED = 42;

    private static Path stampedFile(Path dir) throws Exception {
        Path p = dir.resolve("data");
        ByteBuffer b = ByteBuffer.allocate(BLOCK * BLOCKS).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < BLOCKS; i++) b.putLong(i * BLOCK, i * 7919L + 1);
        Files.write(p, b.array());
        return p;
    }

    /** One chain of reads: each completion checks its block and submits the next read, from the ring thread. */
    private static final class Slot implements Completion {
        private final IoEngine engine;
        private final int fd;
        private final MemorySegment buf;
        private final SplittableRandom rnd;
        private final CountDownLatch done;
        private final AtomicLong wrong;
        private int left;
        private long block;

        Slot(IoEngine engine, int fd, MemorySegment buf, SplittableRandom rnd, int reads, CountDownLatch done,
             AtomicLong wrong) {
            this.engine = engine;
            this.fd = fd;
            this.buf = buf;
            this.rnd = rnd;
            this.left = reads;
            this.done = done;
            this.wrong = wrong;
        }

        void next() {
            block = rnd.nextInt(BLOCKS);
            engine.submit(IoOp.read(fd, buf, block * BLOCK), this);
        }

        @Override
        public void complete(IoOp op, long result) {
            long stamp = buf.get(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 0);
            if (result != BLOCK || stamp != block * 7919L + 1) wrong.incrementAndGet();
            if (--left == 0) {
                done.countDown();
            } else {
                next();
            }
        }
    }

    @ParameterizedTest(name = "submitBatch={0}")
    @ValueSource(strings = {"1", "3", "8", "1000"})
    void everyReadOfADeepCallbackDrivenQueueReturnsItsBlock(String batch, @TempDir Path dir) throws Exception {
        Path p = stampedFile(dir);
        String old = System.getProperty(UringEngine.SUBMIT_BATCH_PROP);
        System.setProperty(UringEngine.SUBMIT_BATCH_PROP, batch);
        int fd = LibC.openat(Fcntl.AT_FDCWD, p.toString(), Fcntl.O_RDONLY | Fcntl.O_CLOEXEC, 0);
        try (UringEngine e = new UringEngine(64, Ring.DEFAULT_FLAGS); Arena a = Arena.ofShared()) {
            int depth = 48;
            int perSlot = 200;
            CountDownLatch done = new CountDownLatch(depth);
            AtomicLong wrong = new AtomicLong();
            for (int s = 0; s < depth; s++) {
                new Slot(e, fd, a.allocate(BLOCK, BLOCK), new SplittableRandom(SEED + s), perSlot, done, wrong)
                        .next();
            }
            assertTrue(done.await(60, TimeUnit.SECONDS), "reads did not finish, seed=" + SEED);
            assertEquals(0, wrong.get(), "wrong or failed reads, seed=" + SEED + " batch=" + batch);
        } finally {
            LibC.close(fd);
            if (old == null) {
                System.clearProperty(UringEngine.SUBMIT_BATCH_PROP);
            } else {
                System.setProperty(UringEngine.SUBMIT_BATCH_PROP, old);
            }
        }
    }

    @Test
    void rejectsANonPositiveSubmitBatch() {
        String old = System.getProperty(UringEngine.SUBMIT_BATCH_PROP);
        System.setProperty(UringEngine.SUBMIT_BATCH_PROP, "0");
        try {
            IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
                    () -> new UringEngine(64, Ring.DEFAULT_FLAGS).close());
            assertTrue(ex.getMessage().contains(UringEngine.SUBMIT_BATCH_PROP), ex.getMessage());
        } finally {
            if (old == null) {
                System.clearProperty(UringEngine.SUBMIT_BATCH_PROP);
            } else {
                System.setProperty(UringEngine.SUBMIT_BATCH_PROP, old);
            }
        }
    }
}
