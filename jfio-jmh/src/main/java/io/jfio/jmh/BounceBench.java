package io.jfio.jmh;

import io.jfio.core.engine.IoArena;
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
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the engine's handling of caller memory costs, ns per blocking request through the io_uring ring (ring-only
 * engine, a platform thread): a cached read and a write to /dev/null (no page cache or writeback to wait for) of
 * {@code size} bytes on memory of an {@link IoArena}, which the kernel uses directly, and of a shared {@link Arena},
 * which goes through a bounce buffer (copied at completion for a read, at submission for a write).
 *
 * <p>Not thread-safe: one state per benchmark thread.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class BounceBench {
    /** Bytes per request. */
    @Param({"4096", "65536"})
    public int size;

    /** {@code ioarena}: used by the kernel directly; {@code shared}: an Arena.ofShared() segment, bounced. */
    @Param({"ioarena", "shared"})
    public String memory;

    private UringEngine ring;
    private Path file;
    private int fd = -1;
    private int devNull = -1;
    private Arena arena;
    private MemorySegment buf;

    @Setup
    public void setup() throws IOException {
        ring = new UringEngine(UringEngine.DEFAULT_ENTRIES, UringEngine.DEFAULT_FLAGS, false);
        file = Files.createTempFile(Path.of(System.getProperty("jfio.jmh.dir", ".")), "jfio-jmh-", ".dat");
        Files.write(file, new byte[2 * size]);
        fd = (int) ErrnoException.check(LibC.openat(Fcntl.AT_FDCWD, file.toString(), Fcntl.O_RDWR
                | Fcntl.O_CLOEXEC, 0), "open", -1, file.toString());
        devNull = (int) ErrnoException.check(LibC.openat(Fcntl.AT_FDCWD, "/dev/null", Fcntl.O_WRONLY
                | Fcntl.O_CLOEXEC, 0), "open", -1, "/dev/null");
        arena = switch (memory) {
            case "ioarena" -> IoArena.ofShared();
            case "shared" -> Arena.ofShared();
            default -> throw new IllegalArgumentException("memory must be ioarena or shared: " + memory);
        };
        buf = arena.allocate(size, 4096);
    }

    @TearDown
    public void tearDown() throws IOException {
        ring.close();
        if (fd >= 0) LibC.close(fd);
        if (devNull >= 0) LibC.close(devNull);
        arena.close();
        Files.deleteIfExists(file);
    }

    @Benchmark
    public long read() throws IOException {
        return check(ring.execute(IoOp.read(fd, buf, 0)));
    }

    @Benchmark
    public long write() throws IOException {
        return check(ring.execute(IoOp.write(devNull, buf, 0)));
    }

    private long check(long n) {
        if (n != size) throw new IllegalStateException("short transfer: " + n + " of " + size);
        return n;
    }
}
