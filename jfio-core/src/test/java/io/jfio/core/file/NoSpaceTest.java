package io.jfio.core.file;

import static java.nio.file.StandardOpenOption.CREATE;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jfio.core.engine.IoEngine;
import io.jfio.core.sys.Errno;
import io.jfio.core.sys.ErrnoException;
import io.jfio.core.testing.EngineKind;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * ENOSPC on a real, full file system: a 1 MiB tmpfs mounted for the test (needs root and permission to mount;
 * skipped otherwise). Every way of writing must fail with an {@link ErrnoException} for ENOSPC that names the call
 * and the path, never hang or crash, and leave the file usable.
 */
class NoSpaceTest {
    private static final int FS_SIZE = 1 << 20;

    @TempDir
    Path tmp;

    private Path mount;

    private static String run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return null;
        }
        return p.exitValue() == 0 ? out : null;
    }

    @BeforeEach
    void mountSmallFileSystem() throws Exception {
        String uid = run("id", "-u");
        assumeTrue("0".equals(uid), "ENOSPC test needs root to mount a small tmpfs (id -u: " + uid + ")");
        mount = Files.createDirectory(tmp.resolve("small"));
        String r = run("mount", "-t", "tmpfs", "-o", "size=" + FS_SIZE + ",mode=0700", "tmpfs", mount.toString());
        if (r == null) mount = null;
        assumeTrue(r != null, "cannot mount a tmpfs here (no CAP_SYS_ADMIN?): ENOSPC not testable");
    }

    @AfterEach
    void unmount() throws Exception {
        if (mount == null) return;
        if (run("umount", mount.toString()) == null) run("umount", "-l", mount.toString());
    }

    private static String assertNoSpace(ErrnoException e, Path file, String call) {
        assertEquals(Errno.ENOSPC, e.errno(), e.getMessage());
        assertEquals(call, e.call(), e.getMessage());
        assertTrue(e.getMessage().contains("errno=ENOSPC") && e.getMessage().contains("path=" + file),
                e.getMessage());
        return e.getMessage();
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldFailWithEnospcNamingCallAndPath(EngineKind kind) throws Exception {
        Path file = mount.resolve("fill");
        try (IoEngine engine = kind.create();
             IoFile f = IoFile.open(engine, file, Set.of(READ, WRITE, CREATE), 0644);
             Arena arena = Arena.ofShared()) {
            MemorySegment chunk = arena.allocate(64 << 10);
            chunk.fill((byte) 'a');
            long pos = 0;
            ErrnoException full = null;
            while (pos < 4L * FS_SIZE) {
                try {
                    f.writeFully(chunk, pos);
                    pos += chunk.byteSize();
                } catch (ErrnoException e) {
                    full = e;
                    break;
                }
            }
            assertTrue(full != null, "wrote " + pos + " bytes to a " + FS_SIZE + "-byte file system");
            assertNoSpace(full, file, "write");
            assertTrue(full.offset() >= pos && full.offset() <= 2L * FS_SIZE, "offset=" + full.offset());
            long size = f.size();
            assertTrue(size > FS_SIZE / 2 && size <= FS_SIZE, "size " + size);

            // Single writes, async writes and durable writes past the end all say the same.
            assertNoSpace(assertThrows(ErrnoException.class, () -> f.write(chunk, size)), file, "write");
            CompletionException async = assertThrows(CompletionException.class,
                    () -> f.writeAsync(chunk, size).join());
            assertNoSpace(assertInstanceOf(ErrnoException.class, async.getCause()), file, "write");
            assertNoSpace(assertThrows(ErrnoException.class, () -> f.writeDurably(chunk, size)), file, "write");
            assertEquals(Errno.ENOSPC, assertThrows(ErrnoException.class, () -> f.allocate(size, FS_SIZE)).errno());

            // The file is still usable: what was written reads back, and freed space can be written again.
            MemorySegment back = arena.allocate(4096);
            assertEquals(4096, f.read(back, 0));
            assertEquals(-1L, back.mismatch(chunk.asSlice(0, 4096)));
            f.truncate(0);
            f.writeDurably(chunk, 0);
            assertEquals(chunk.byteSize(), f.size());
        }
    }

    /**
     * A durable write that only partly fits: the write comes back short, which cancels the linked fdatasync; the
     * caller must see the real cause, ENOSPC, not the cancellation.
     */
    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldReportEnospcWhenDurableWriteOnlyPartlyFits(EngineKind kind) throws Exception {
        Path file = mount.resolve("fill");
        try (IoEngine engine = kind.create();
             IoFile f = IoFile.open(engine, file, Set.of(READ, WRITE, CREATE), 0644);
             Arena arena = Arena.ofShared()) {
            MemorySegment chunk = arena.allocate(64 << 10);
            chunk.fill((byte) 'b');
            long pos = 0;
            try {
                while (true) {
                    f.writeFully(chunk, pos);
                    pos += chunk.byteSize();
                }
            } catch (ErrnoException e) {
                assertEquals(Errno.ENOSPC, e.errno());
            }
            long size = f.size();
            f.truncate(size - 8192); // two free pages: a 64 KiB write now writes 8 KiB and stops
            ErrnoException e = assertThrows(ErrnoException.class, () -> f.writeDurably(chunk, size - 8192));
            assertNoSpace(e, file, "write");
            assertEquals(size, f.size(), "the part that fitted was written");
        }
    }
}
