package io.jfio.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SmokeTest {
    @Test
    void uringReadsWhatWasWritten(@TempDir Path dir) throws Exception {
        Path p = dir.resolve("f");
        Files.write(p, "hello world".getBytes());
        int fd = LibC.openat(Fcntl.AT_FDCWD, p.toString(), Fcntl.O_RDWR | Fcntl.O_CLOEXEC, 0);
        try (UringEngine e = new UringEngine(); Arena a = Arena.ofConfined()) {
            System.out.println(e);
            MemorySegment buf = a.allocate(64);
            long n = e.execute(IoOp.read(fd, buf, 6));
            assertEquals(5, n);
            assertEquals("world", new String(buf.asSlice(0, 5).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)));
            long t0 = System.nanoTime();
            int N = 200_000;
            for (int i = 0; i < N; i++) e.execute(IoOp.read(fd, buf, 0));
            System.out.println("blocking read ns/op " + (System.nanoTime() - t0) / N);
        } finally {
            LibC.close(fd);
        }
    }
}
