package io.jfio.core.file;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
import static java.nio.file.StandardOpenOption.CREATE;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.core.engine.IoEngine;
import io.jfio.core.sys.LibC;
import io.jfio.core.sys.Mman;
import io.jfio.core.testing.EngineKind;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link Mapping}: one segment over more than 2 GiB, writes both ways, and safe access after close. */
class MappingTest {
    private static final long SIZE = 3L << 30;
    /** Non-overlapping longs; the third straddles the 2 GiB boundary. */
    private static final long[] MARKERS = {
        0, 4093, (2L << 30) - 4, (2L << 30) + 100, (2L << 30) + 12_345_678, SIZE - 8,
    };

    @TempDir
    Path dir;

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldMapFileLargerThanTwoGibAsOneSegment(EngineKind kind) throws Exception {
        Path p = dir.resolve("big");
        try (IoEngine e = kind.create();
             IoFile f = IoFile.open(e, p, Set.of(READ, WRITE, CREATE), 0644);
             Arena a = Arena.ofConfined()) {
            f.truncate(SIZE); // sparse: no blocks allocated
            MemorySegment marker = a.allocate(8);
            for (long off : MARKERS) {
                marker.set(JAVA_LONG_UNALIGNED, 0, off ^ 0x5a5a5a5a5a5a5a5aL);
                f.writeFully(marker, off);
            }
            assertEquals(SIZE, f.size());
            assertTrue(f.stat().blocks() * 512 < 64L << 20, "file is not sparse");
            Mapping m = Mapping.map(f, 0, SIZE, true, false);
            MemorySegment s = m.segment();
            assertEquals(SIZE, s.byteSize());
            assertEquals(SIZE, m.length());
            assertEquals(SIZE / LibC.pageSize(), m.pages());
            for (long off : MARKERS) {
                assertEquals(off ^ 0x5a5a5a5a5a5a5a5aL, s.get(JAVA_LONG_UNALIGNED, off), "marker at " + off);
            }
            assertEquals(0, s.get(JAVA_BYTE, (2L << 30) + 100_000_000L), "hole reads as zero");

            // A store through the mapping is what the file then holds.
            s.set(JAVA_LONG_UNALIGNED, (5L << 29) + 3, 0x1122334455667788L);
            MemorySegment back = a.allocate(8);
            f.readFully(back, (5L << 29) + 3);
            assertEquals(0x1122334455667788L, back.get(JAVA_LONG_UNALIGNED, 0));
            m.advise(Mman.MADV_RANDOM);
            assertTrue(m.residentPages() >= 1 && m.residentPages() < m.pages() / 2, "resident " + m.residentPages());

            m.close();
            m.close(); // idempotent
            assertThrows(IllegalStateException.class, () -> s.get(JAVA_BYTE, 0));
            assertThrows(IllegalStateException.class, () -> s.get(JAVA_BYTE, SIZE - 1));
            assertThrows(IllegalStateException.class, () -> s.set(JAVA_BYTE, 1, (byte) 1));
        }
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldStayValidAfterFileIsClosed(EngineKind kind) throws Exception {
        Path p = dir.resolve("f");
        Files.write(p, "mapped bytes".getBytes());
        Mapping m;
        try (IoEngine e = kind.create(); IoFile f = IoFile.open(e, p, Set.of(READ), 0)) {
            m = Mapping.map(f, 0, 12, false, true);
        }
        try (m) {
            assertEquals("mapped bytes", new String(m.segment().toArray(JAVA_BYTE)));
        }
    }

    @ParameterizedTest
    @MethodSource("io.jfio.core.testing.EngineKind#all")
    void shouldRejectBadRegions(EngineKind kind) throws Exception {
        Path p = dir.resolve("f");
        Files.write(p, new byte[8192]);
        try (IoEngine e = kind.create(); IoFile f = IoFile.open(e, p, Set.of(READ), 0)) {
            IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
                    () -> Mapping.map(f, 100, 4096, false, false));
            assertTrue(ex.getMessage().contains("offset=100"), ex.getMessage());
            assertThrows(IllegalArgumentException.class, () -> Mapping.map(f, 0, 0, false, false));
            assertThrows(IllegalArgumentException.class, () -> Mapping.map(f, -4096, 4096, false, false));
            // A writable shared mapping of a read-only descriptor: the kernel refuses with EACCES.
            assertThrows(io.jfio.core.sys.ErrnoException.class, () -> Mapping.map(f, 0, 4096, true, false));
        }
    }
}
