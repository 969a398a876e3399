package io.jfio.core.file;

import static java.nio.file.StandardOpenOption.CREATE;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.jfio.core.engine.IoEngine;
import io.jfio.core.engine.IoOp;
import io.jfio.core.sys.Errno;
import io.jfio.core.sys.ErrnoException;
import io.jfio.core.testing.EngineKind;
import io.jfio.core.testing.Fds;
import io.jfio.core.testing.Pipe;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * No descriptor may leak: each test counts the entries of {@code /proc/self/fd} before and after running its body
 * many times (after one warm-up run) and asserts they are the same.
 */
class DescriptorLeakTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldNotLeakAcrossEngineCreateCloseCycles(EngineKind kind) throws Exception {
        Fds.assertNoLeak("50 engine create/close cycles", () -> {
            for (int i = 0; i < 50; i++) {
                try (IoEngine e = kind.create()) {
                    assertEquals(0, e.execute(IoOp.nop()));
                }
            }
        });
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldNotLeakAcrossEngineClosedWithRequestsInFlight(EngineKind kind) throws Exception {
        Fds.assertNoLeak("engines closed with pipe reads in flight", () -> {
            for (int i = 0; i < 5; i++) {
                try (Pipe pipe = Pipe.open(); Arena a = Arena.ofShared()) {
                    IoEngine e = kind.create();
                    List<CompletableFuture<Long>> reads = new ArrayList<>();
                    for (int j = 0; j < 3; j++) reads.add(e.submit(IoOp.read(pipe.readFd(), a.allocate(8), 0)));
                    Thread.sleep(20);
                    e.close();
                    for (CompletableFuture<Long> r : reads) assertEquals(true, r.isDone());
                }
            }
        });
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldNotLeakAcrossIoFileOpenClose(EngineKind kind) throws Exception {
        Path p = dir.resolve("f");
        Files.write(p, new byte[100]);
        try (IoEngine e = kind.create(); Arena a = Arena.ofShared()) {
            MemorySegment buf = a.allocate(100);
            Fds.assertNoLeak("1000 IoFile open/read/close", () -> {
                for (int i = 0; i < 1000; i++) {
                    try (IoFile f = IoFile.open(e, p, Set.of(READ, WRITE, CREATE), 0644)) {
                        assertEquals(100, f.read(buf, 0));
                        if (i % 10 == 0) assertEquals(100L, f.readAsync(buf, 0).get(10, TimeUnit.SECONDS));
                    }
                }
            });
            Fds.assertNoLeak("IoFile closed with async requests in flight", () -> {
                for (int i = 0; i < 100; i++) {
                    IoFile f = IoFile.open(e, p, Set.of(READ), 0);
                    List<CompletableFuture<Long>> reads = new ArrayList<>();
                    for (int j = 0; j < 8; j++) reads.add(f.readAsync(a.allocate(100), 0));
                    f.close();
                    for (CompletableFuture<Long> r : reads) assertEquals(100L, r.get(10, TimeUnit.SECONDS));
                }
            });
        }
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldNotLeakOnFailedOpens(EngineKind kind) throws Exception {
        Path missing = dir.resolve("missing");
        Path directory = Files.createDirectory(dir.resolve("d"));
        try (IoEngine e = kind.create()) {
            Fds.assertNoLeak("failed opens", () -> {
                for (int i = 0; i < 200; i++) {
                    ErrnoException ex = assertThrows(ErrnoException.class,
                            () -> IoFile.open(e, missing, Set.of(READ), 0));
                    assertEquals(Errno.ENOENT, ex.errno());
                    ErrnoException dirEx = assertThrows(ErrnoException.class,
                            () -> IoFile.open(e, directory, Set.of(WRITE), 0));
                    assertEquals(Errno.EISDIR, dirEx.errno());
                    assertThrows(ErrnoException.class, () -> PageCache.residency(missing));
                    assertThrows(ErrnoException.class, () -> PageCache.evict(missing));
                }
            });
        }
    }

    @Test
    void shouldNotLeakAcrossMappingsAndPageCacheQueries() throws Exception {
        Path p = dir.resolve("f");
        Files.write(p, new byte[1 << 20]);
        try (IoEngine e = EngineKind.THREADS.create()) {
            Fds.assertNoLeak("mappings and page cache queries", () -> {
                for (int i = 0; i < 100; i++) {
                    try (IoFile f = IoFile.open(e, p, Set.of(READ), 0);
                         Mapping m = Mapping.map(f, 0, 1 << 20, false, i % 2 == 0)) {
                        assertEquals(1 << 20, m.segment().byteSize());
                        m.residentPages();
                    }
                    PageCache.residency(p);
                    if (i % 20 == 0) {
                        PageCache.evict(p);
                        PageCache.warm(p);
                    }
                    PageCache.directAlignment(p);
                }
            });
        }
    }
}
