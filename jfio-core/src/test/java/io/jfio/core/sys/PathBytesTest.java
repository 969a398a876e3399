package io.jfio.core.sys;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Paths and their bytes, with names the JDK cannot show as strings, against real files. */
class PathBytesTest {
    /** Not UTF-8 (0xff never is), not ASCII; '%' and a space, which a URI escapes too. */
    private static final byte[] BAD = {'a', (byte) 0xff, '%', ' ', 'b', (byte) 0xc3};

    @Test
    void shouldKeepTheBytesOfNamesThatDoNotDecode(@TempDir Path tmp) throws Exception {
        byte[] full = PathBytes.join(PathBytes.bytes(tmp), BAD);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment seg = a.allocate(Fcntl.PATH_MAX + 1);
            assertEquals(0, PathBytes.put(seg, full));
            assertEquals(0, LibC.mkdirat(Fcntl.AT_FDCWD, seg, 0755));
        }
        List<Path> listed;
        try (var s = Files.list(tmp)) {
            listed = s.toList();
        }
        assertEquals(1, listed.size(), listed.toString());
        Path real = listed.get(0);
        assertTrue(real.toString().contains("\uFFFD"), real.toString()); // what the lossy way started from
        assertArrayEquals(full, PathBytes.bytes(real));
        assertArrayEquals(BAD, PathBytes.lastComponent(PathBytes.bytes(real)));
        assertEquals(real, PathBytes.path(full));
        assertEquals(real, PathBytes.resolve(tmp, BAD));
        assertEquals(tmp.resolve("plain"), PathBytes.resolve(tmp, "plain".getBytes(PathBytes.JNU)));
        // The path built from the bytes names the directory: it can be listed and filled through the JDK.
        Files.writeString(PathBytes.resolve(tmp, BAD).resolve("f"), "x");
        assertTrue(Files.isRegularFile(real.resolve("f")));
        byte[] inside = Arrays.copyOf(full, full.length + 2);
        inside[full.length] = '/';
        inside[full.length + 1] = 'f';
        assertArrayEquals(inside, PathBytes.bytes(real.resolve("f")));
        assertThrows(IllegalArgumentException.class, () -> PathBytes.path("relative".getBytes(PathBytes.JNU)));
    }

    @Test
    void shouldJoinAndTakeLastComponentsAsBytes() {
        assertArrayEquals(b("/a/b"), PathBytes.join(b("/a"), b("b")));
        assertArrayEquals(b("/b"), PathBytes.join(b("/"), b("b"))); // the root ends in its slash already
        assertArrayEquals(b("a/"), PathBytes.join(b("a"), b("")));
        assertArrayEquals(b("b"), PathBytes.lastComponent(b("/a/b")));
        assertArrayEquals(b("b"), PathBytes.lastComponent(b("a/b//")));
        assertArrayEquals(b("b"), PathBytes.lastComponent(b("b")));
        assertArrayEquals(b(".."), PathBytes.lastComponent(b("a/..")));
        assertArrayEquals(b(""), PathBytes.lastComponent(b("/")));
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    @Test
    void shouldPutWithinPathMaxAndReadCStrings() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment seg = a.allocate(Fcntl.PATH_MAX + 1);
            assertEquals(-Errno.ENAMETOOLONG, PathBytes.put(seg, new byte[Fcntl.PATH_MAX]));
            byte[] longest = new byte[Fcntl.PATH_MAX - 1];
            Arrays.fill(longest, (byte) 'x');
            assertEquals(0, PathBytes.put(seg, longest));
            assertEquals(0, seg.get(JAVA_BYTE, Fcntl.PATH_MAX - 1));
            assertEquals(0, PathBytes.put(seg, BAD));
            assertArrayEquals(BAD, PathBytes.cString(seg, 0, Fcntl.PATH_MAX + 1));
            assertArrayEquals(Arrays.copyOf(BAD, 3), PathBytes.cString(seg, 0, 3)); // bounded by the limit
        }
    }
}
