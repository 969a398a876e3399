package io.jfio.jmh;

import io.jfio.core.sys.ErrnoException;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import io.jfio.core.sys.Stat;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
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
 * Metadata and tiny reads on a hot 64 KiB file: the JDK's stat (Files.readAttributes), fstat, open+fstat+close and
 * 8 B / 8 KiB preads through jfio's LibC, ns per call. The file goes in {@code -Djfio.jmh.dir} (default: the
 * current directory) and is removed at tear-down.
 *
 * <p>Not thread-safe: one state per benchmark thread.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class MetadataBench {
    private Path file;
    private int fd = -1;
    private Arena arena;
    private MemorySegment statBuf;
    private MemorySegment path;
    private MemorySegment buf8;
    private MemorySegment buf8k;

    @Setup
    public void setup() throws IOException {
        Path dir = Path.of(System.getProperty("jfio.jmh.dir", "."));
        file = Files.createTempFile(dir, "jfio-jmh-", ".dat");
        Files.write(file, new byte[64 * 1024]);
        arena = Arena.ofConfined();
        statBuf = arena.allocate(Stat.LAYOUT);
        path = arena.allocateFrom(file.toString());
        buf8 = arena.allocate(8, 8);
        buf8k = arena.allocate(8192, 4096);
        fd = (int) ErrnoException.check(LibC.openat(Fcntl.AT_FDCWD, path, Fcntl.O_RDONLY | Fcntl.O_CLOEXEC, 0),
                "open", -1, file.toString());
    }

    @TearDown
    public void tearDown() throws IOException {
        if (fd >= 0) LibC.close(fd);
        arena.close();
        Files.deleteIfExists(file);
    }

    @Benchmark
    public Object jdkReadAttributes() throws IOException {
        return Files.readAttributes(file, BasicFileAttributes.class);
    }

    @Benchmark
    public long fstat() throws ErrnoException {
        ErrnoException.check(LibC.fstat(fd, statBuf), "fstat", fd, "");
        return Stat.size(statBuf);
    }

    @Benchmark
    public long openFstatClose() throws ErrnoException {
        int f = (int) ErrnoException.check(LibC.openat(Fcntl.AT_FDCWD, path, Fcntl.O_RDONLY | Fcntl.O_CLOEXEC, 0),
                "open", -1, "");
        try {
            ErrnoException.check(LibC.fstat(f, statBuf), "fstat", f, "");
            return Stat.size(statBuf);
        } finally {
            LibC.close(f);
        }
    }

    @Benchmark
    public long pread8() throws ErrnoException {
        return ErrnoException.check(LibC.pread(fd, buf8, 8, 4096), "pread", fd, "");
    }

    @Benchmark
    public long pread8k() throws ErrnoException {
        return ErrnoException.check(LibC.pread(fd, buf8k, 8192, 8192), "pread", fd, "");
    }
}
