package io.jfio.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.core.sys.PathBytes;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Arguments whose bytes the JVM cannot decode: a child JVM started by a shell, which passes the bytes as they are
 * ({@code $(printf '\377')}), as a user's shell would.
 */
class RawArgsTest {
    private record Result(int exit, String out) {
    }

    /**
     * Runs {@code jfio} in {@code cwd} with the arguments {@code words}, shell words (they may use printf), and the
     * environment changes {@code env}.
     */
    private static Result jfio(Path cwd, Map<String, String> env, String words) throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> cmd = new ArrayList<>(List.of("/bin/sh", "-c", "exec \"$@\" " + words, "sh", java.toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                Main.class.getName()));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(cwd.toFile()).redirectErrorStream(true);
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "timed out: " + words);
        return new Result(p.exitValue(), out);
    }

    private static Path named(Path dir, int... bytes) {
        byte[] name = new byte[bytes.length];
        for (int i = 0; i < bytes.length; i++) name[i] = (byte) bytes[i];
        return PathBytes.path(PathBytes.join(PathBytes.bytes(dir.toAbsolutePath()), name));
    }

    @Test
    void copyOpensANameThatIsNotUtf8ByItsBytes(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("\uFFFD"), "OTHER");
        Files.writeString(named(dir, 0xff), "mine");
        Result r = jfio(dir, Map.of(), "copy --progress=none \"$(printf '\\377')\" out");
        assertEquals(ExitCodes.OK, r.exit(), r.out());
        assertEquals("mine", Files.readString(dir.resolve("out")));

        Files.writeString(dir.resolve("new"), "new");
        r = jfio(dir, Map.of(), "copy --progress=none new \"$(printf '\\376')\"");
        assertEquals(ExitCodes.OK, r.exit(), r.out());
        assertEquals("new", Files.readString(named(dir, 0xfe)));
        assertEquals("OTHER", Files.readString(dir.resolve("\uFFFD")), "the file named U+FFFD is left alone");

        Files.createDirectory(named(dir, 0xfd));
        r = jfio(dir, Map.of(), "copy --progress=none -t \"$(printf '\\375')\" new");
        assertEquals(ExitCodes.OK, r.exit(), r.out());
        assertEquals("new", Files.readString(named(dir, 0xfd, '/', 'n', 'e', 'w')));
    }

    @Test
    void copyOpensAUtf8NameUnderTheCLocale(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("\u00e9.txt"), "e");
        Result r = jfio(dir, Map.of("LC_ALL", "C", "LANG", "C"),
                "copy --progress=none \"$(printf '\\303\\251.txt')\" \"$(printf 'x\\303\\251')\"");
        assertEquals(ExitCodes.OK, r.exit(), r.out());
        assertEquals("e", Files.readString(dir.resolve("x\u00e9")));
    }

    @Test
    void otherCommandsRefuseANameThatIsNotUtf8(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("\uFFFD"), "OTHER");
        Result r = jfio(dir, Map.of(), "info \"$(printf '\\377')\"");
        assertEquals(ExitCodes.USAGE, r.exit(), r.out());
        assertTrue(r.out().contains("$'\\377'"), r.out());
        assertFalse(r.out().contains("\uFFFD"), r.out());
    }

    @Test
    void quotesBytesThatAreNotUtf8AsCpDoes() {
        assertEquals("$'\\377'", Quote.name(new byte[] {(byte) 0xff}));
        assertEquals("'a'$'\\377''b'", Quote.name(new byte[] {'a', (byte) 0xff, 'b'}));
        assertEquals("'\u00e9'", Quote.name("\u00e9".getBytes(StandardCharsets.UTF_8)));
        assertEquals("'a'$'\\n''b'", Quote.name("a\nb"));
        // A run of escapes is one piece; a name held as a string with escaped bytes is quoted as its bytes.
        assertEquals("'a'$'\\376\\n''b'", Quote.name(new byte[] {'a', (byte) 0xfe, '\n', 'b'}));
        assertEquals("$'\\376\\377'", Quote.name(io.jfio.core.sys.FileNames.decode(new byte[] {(byte) 0xfe,
            (byte) 0xff})));
        assertEquals("cannot open path='x'$'\\377' (gone: \\376)", Quote.message("cannot open path="
                + io.jfio.core.sys.FileNames.decode(new byte[] {'x', (byte) 0xff}) + " (gone: "
                + io.jfio.core.sys.FileNames.decode(new byte[] {(byte) 0xfe}) + ")",
                io.jfio.core.sys.FileNames.decode(new byte[] {'x', (byte) 0xff})));
    }
}
