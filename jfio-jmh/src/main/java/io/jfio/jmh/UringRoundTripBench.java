package io.jfio.jmh;

import io.jfio.core.engine.IoOp;
import io.jfio.core.engine.UringEngine;
import io.jfio.core.sys.ErrnoException;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One blocking request from a platform thread, ns per call: an io_uring NOP and a cached 4 KiB read through the
 * ring (UringEngine in ring-only mode: submission, the ring thread, completion, wake-up), the same read on the
 * default engine (which runs a platform thread's blocking call inline as pread) and plain pread through LibC.
 *
 * <p>Not thread-safe: one state per benchmark thread.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class UringRoundTripBench {
    private UringEngine ring;
    private UringEngine inline;
    private Path file;
    private int fd = -1;
    private Arena arena;
    private MemorySegment buf;

    @Setup
    public void setup() throws IOException {
        ring = new UringEngine(UringEngine.DEFAULT_ENTRIES, UringEngine.DEFAULT_FLAGS, false);
        inline = new UringEngine(UringEngine.DEFAULT_ENTRIES, UringEngine.DEFAULT_FLAGS, true);
        file = Files.createTempFile(Path.of(System.getProperty("jfio.jmh.dir", ".")), "jfio-jmh-", ".dat");
        Files.write(file, new byte[64 * 1024]);
        fd = (int) ErrnoException.check(LibC.openat(Fcntl.AT_FDCWD, file.toString(), Fcntl.O_RDONLY
                | Fcntl.O_CLOEXEC, 0), "open", -1, file.toString());
        arena = Arena.ofShared();
        buf = arena.allocate(4096, 4096);
    }

    @TearDown
    public void tearDown() throws IOException {
        ring.close();
        inline.close();
        if (fd >= 0) LibC.close(fd);
        arena.close();
        Files.deleteIfExists(file);
    }

    @Benchmark
    public long ringNop() throws IOException {
        return ring.execute(IoOp.nop());
    }

    @Benchmark
    public long ringRead4k() throws IOException {
        return check(ring.execute(IoOp.read(fd, buf, 4096)));
    }

    @Benchmark
    public long inlineRead4k() throws IOException {
        return check(inline.execute(IoOp.read(fd, buf, 4096)));
    }

    @Benchmark
    public long libcPread4k() throws IOException {
        return check(ErrnoException.check(LibC.pread(fd, buf, 4096, 4096), "pread", fd, ""));
    }

    private static long check(long n) throws IOException {
        if (n != 4096) throw new IOException("short read: " + n);
        return n;
    }
}
