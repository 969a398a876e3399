package io.jfio.core.sys;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * File names as Java strings without loss. A Linux name may be any bytes but {@code '/'} and NUL; decoded as UTF-8,
 * each byte that is not part of a valid sequence becomes the lone surrogate {@code U+DC80..U+DCFF} of the same low
 * byte (the "surrogateescape" of Python's PEP 383). Valid UTF-8 never decodes to a lone surrogate, so every name has
 * exactly one string and {@link #encode} gives its bytes back: a string can stand for a file name in maps, logs and
 * state files, and still name the same file in a system call.
 *
 * <p>Thread-safe; stateless.
 */
public final class FileNames {
    private static final boolean JNU_IS_UTF8 = PathBytes.JNU.equals(StandardCharsets.UTF_8);

    private FileNames() {
    }

    /** The string of a name's bytes: UTF-8, with every byte that is not valid UTF-8 escaped. */
    public static String decode(byte[] bytes) {
        return decode(bytes, 0, bytes.length);
    }

    /** {@link #decode(byte[])} of {@code length} bytes from {@code offset}. */
    public static String decode(byte[] bytes, int offset, int length) {
        int end = offset + length;
        boolean ascii = true;
        for (int i = offset; i < end && ascii; i++) ascii = bytes[i] >= 0;
        if (ascii) return new String(bytes, offset, length, StandardCharsets.ISO_8859_1);
        CharsetDecoder d = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes, offset, length);
        CharBuffer out = CharBuffer.allocate(length); // one char per byte at most: UTF-8 never expands
        while (true) {
            CoderResult r = d.decode(in, out, true);
            if (r.isUnderflow()) break;
            if (!r.isError()) throw new IllegalStateException(r.toString()); // no overflow: out is large enough
            for (int i = 0; i < r.length(); i++) out.put(escape(in.get()));
        }
        d.flush(out);
        return out.flip().toString();
    }

    /** The bytes a string of {@link #decode} stands for; any other string gives its UTF-8 encoding. */
    public static byte[] encode(String name) {
        if (!escaped(name)) return name.getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[name.length() * 3];
        int n = 0;
        int run = 0; // start of the chars not yet encoded
        for (int i = 0; i < name.length(); i++) {
            if (!isEscape(name, i)) continue;
            byte[] b = name.substring(run, i).getBytes(StandardCharsets.UTF_8);
            System.arraycopy(b, 0, out, n, b.length);
            n += b.length;
            out[n++] = (byte) name.charAt(i);
            run = i + 1;
        }
        byte[] b = name.substring(run).getBytes(StandardCharsets.UTF_8);
        System.arraycopy(b, 0, out, n, b.length);
        return Arrays.copyOf(out, n + b.length);
    }

    /** Whether the name holds an escaped byte (it is not valid UTF-8 as bytes). */
    public static boolean escaped(String name) {
        for (int i = 0; i < name.length(); i++) {
            if (isEscape(name, i)) return true;
        }
        return false;
    }

    /**
     * Whether the char at {@code i} is an escaped byte: a low surrogate {@code U+DC80..U+DCFF} that does not end a
     * surrogate pair.
     */
    public static boolean isEscape(String name, int i) {
        char c = name.charAt(i);
        return c >= 0xDC80 && c <= 0xDCFF && (i == 0 || !Character.isHighSurrogate(name.charAt(i - 1)));
    }

    /** The string of a path, without loss (see {@link #decode}). */
    public static String of(Path path) {
        String s = path.toString();
        if (JNU_IS_UTF8 && s.indexOf('\uFFFD') < 0) return s;
        return decode(PathBytes.bytes(path));
    }

    /**
     * The path a string of {@link #of} or {@link #decode} names, with exactly its bytes. A relative name with
     * escaped bytes is resolved against the working directory.
     */
    public static Path path(String name) {
        if (JNU_IS_UTF8 ? !escaped(name) : ascii(name)) return Path.of(name);
        byte[] b = encode(name);
        if (b.length > 0 && b[0] == '/') return PathBytes.path(b);
        return PathBytes.path(PathBytes.join(PathBytes.bytes(Path.of("").toAbsolutePath()), b));
    }

    /** {@code dir} joined with a name of {@link #decode}, with exactly the name's bytes. */
    public static Path resolve(Path dir, String name) {
        if (JNU_IS_UTF8 ? !escaped(name) : ascii(name)) return dir.resolve(name);
        return PathBytes.resolve(dir, encode(name));
    }

    /** The name for people: each escaped byte shown as {@code \xNN}, everything else as it is. */
    public static String show(String name) {
        if (!escaped(name)) return name;
        StringBuilder b = new StringBuilder(name.length() + 16);
        for (int i = 0; i < name.length(); i++) {
            if (isEscape(name, i)) {
                b.append(String.format("\\x%02x", name.charAt(i) & 0xff));
            } else {
                b.append(name.charAt(i));
            }
        }
        return b.toString();
    }

    private static boolean ascii(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) >= 0x80) return false;
        }
        return true;
    }

    private static char escape(byte b) {
        return (char) (0xDC00 | (b & 0xff));
    }
}
