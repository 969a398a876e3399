package io.jfio.ship.sink;

import io.jfio.core.sys.Errno;
import io.jfio.core.sys.ErrnoException;
import io.jfio.core.sys.LibC;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;

/**
 * Standard output: each batch is written to descriptor 1 as it is, straight from the batch's native memory (no
 * copy through the heap, no buffering in {@code System.out}). A batch counts as delivered once write(2) took all of
 * it: there is nothing more durable to wait for. A closed pipe (EPIPE) is an error the pipeline retries.
 *
 * <p>Not thread-safe; used by the one pipeline thread.
 */
public final class StdoutSink implements Sink {
    private static final int STDOUT = 1;
    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

    @Override
    public String describe() {
        return "stdout:";
    }

    @Override
    public CompletableFuture<Void> send(Batch batch) throws IOException {
        MemorySegment bytes = batch.payload();
        long length = bytes.byteSize();
        long done = 0;
        while (done < length) {
            long n = LibC.write(STDOUT, bytes.asSlice(done), length - done);
            if (n == -Errno.EINTR || n == -Errno.EAGAIN) continue;
            if (n < 0) {
                throw new ErrnoException("write", (int) -n, STDOUT, "stdout", ErrnoException.NONE, length - done);
            }
            done += n;
        }
        return DONE;
    }

    @Override
    public void flush() {
        // write(2) has handed everything to the kernel already.
    }

    @Override
    public void close() {
        // Descriptor 1 belongs to the process.
    }
}
