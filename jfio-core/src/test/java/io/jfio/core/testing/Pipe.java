package io.jfio.core.testing;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import io.jfio.core.sys.ErrnoException;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A pipe from pipe2(2): a read from its empty read end blocks until data arrives, which makes it the test's way to
 * hold a request in flight for as long as it likes.
 *
 * <p>Not thread-safe. {@link #close()} first writes to the pipe, so that no reader stays blocked in read(2) on a
 * descriptor that is about to be closed (a read in the kernel keeps its own reference to the pipe).
 */
public final class Pipe implements AutoCloseable {
    private final int readFd;
    private final int writeFd;
    private boolean closed;

    private Pipe(int readFd, int writeFd) {
        this.readFd = readFd;
        this.writeFd = writeFd;
    }

    public static Pipe open() throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment fds = a.allocate(JAVA_INT, 2);
            ErrnoException.check(LibC.pipe2(fds, Fcntl.O_CLOEXEC), "pipe2", -1, null);
            return new Pipe(fds.getAtIndex(JAVA_INT, 0), fds.getAtIndex(JAVA_INT, 1));
        }
    }

    public int readFd() {
        return readFd;
    }

    public int writeFd() {
        return writeFd;
    }

    /** Writes {@code bytes} bytes of value {@code 'x'} into the pipe. */
    public void feed(int bytes) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment buf = a.allocate(bytes);
            buf.fill((byte) 'x');
            ErrnoException.check(LibC.write(writeFd, buf, bytes), "write", writeFd, "pipe");
        }
    }

    @Override
    public void close() throws ErrnoException {
        if (closed) return;
        closed = true;
        try {
            feed(4096);
        } finally {
            LibC.close(writeFd);
            LibC.close(readFd);
        }
    }
}
