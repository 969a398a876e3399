package io.jfio.core.sys;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** File names as strings without loss: every byte sequence round-trips, and the strings name the real files. */
class FileNamesTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    @Test
    void shouldGiveEveryByteSequenceBackAndNoTwoTheSameString() {
        Map<String, byte[]> seen = new HashMap<>();
        for (long seed = 1; seed <= 5; seed++) {
            SplittableRandom r = new SplittableRandom(seed);
            for (int i = 0; i < 20_000; i++) {
                byte[] name = new byte[r.nextInt(1, 12)];
                for (int k = 0; k < name.length; k++) {
                    // Mostly bytes around the UTF-8 lead and continuation ranges, where decoding is hard.
                    name[k] = (byte) (r.nextInt(4) == 0 ? r.nextInt(256) : 0x80 + r.nextInt(0x78));
                }
                String s = FileNames.decode(name);
                assertArrayEquals(name, FileNames.encode(s), () -> "seed " + s);
                byte[] before = seen.putIfAbsent(s, name);
                if (before != null) assertArrayEquals(before, name, "two names gave one string");
            }
        }
    }

    @Test
    void shouldLeaveValidUtf8AsTheJdkDecodesIt() {
        for (String s : List.of("app.log", "café.log", "日志.log", "emoji-😀.log", "")) {
            byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
            assertEquals(s, FileNames.decode(utf8));
            assertArrayEquals(utf8, FileNames.encode(s));
            assertFalse(FileNames.escaped(s), s);
            assertEquals(s, FileNames.show(s));
        }
    }

    @Test
    void shouldEscapeEachByteThatIsNotUtf8() {
        // 0xff never appears in UTF-8; 0xe9 is Latin-1's é; ED A0 80 would encode a surrogate; C0 AF is overlong.
        assertEquals("bad\uDCFFx.log", FileNames.decode(b("bad\u00ffx.log")));
        assertEquals("caf\uDCE9.log", FileNames.decode(b("caf\u00e9.log")));
        assertEquals("\uDCED\uDCA0\uDC80", FileNames.decode(b("\u00ed\u00a0\u0080")));
        assertEquals("\uDCC0\uDCAF", FileNames.decode(b("\u00c0\u00af")));
        assertNotEquals(FileNames.decode(b("bad\u00ffx.log")), FileNames.decode(b("bad\u00fex.log")));
        assertEquals("bad\\xffx.log", FileNames.show(FileNames.decode(b("bad\u00ffx.log"))));
        // A valid supplementary character whose low half lies in the escape range is not an escape.
        String pair = new String(Character.toChars(0x1F480)); // its low half is U+DC80
        assertFalse(FileNames.escaped(pair));
        assertArrayEquals(pair.getBytes(StandardCharsets.UTF_8), FileNames.encode(pair));
    }

    @Test
    void shouldNameTheRealFileWhateverItsBytes(@TempDir Path tmp) throws Exception {
        byte[][] names = {b("bad\u00ffx.log"), b("bad\u00fex.log"), "café.log".getBytes(StandardCharsets.UTF_8)};
        for (int i = 0; i < names.length; i++) Files.writeString(PathBytes.resolve(tmp, names[i]), "file " + i);
        List<Path> listed;
        try (Stream<Path> s = Files.list(tmp)) {
            listed = s.toList();
        }
        assertEquals(3, listed.size());
        for (Path p : listed) {
            String s = FileNames.of(p);
            assertEquals(p, FileNames.path(s));
            assertEquals(p, FileNames.resolve(tmp, FileNames.of(p.getFileName())));
            assertEquals(FileNames.of(p.getFileName()), FileNames.of(tmp.relativize(p)), "a relative path stays so");
            int fd = LibC.openat(Fcntl.AT_FDCWD, s, Fcntl.O_RDONLY | Fcntl.O_CLOEXEC, 0);
            assertTrue(fd >= 0, () -> "openat " + FileNames.show(s) + ": " + Errno.name(-fd));
            LibC.close(fd);
            assertEquals(Files.readString(p), Files.readString(FileNames.path(s)));
        }
    }
}
