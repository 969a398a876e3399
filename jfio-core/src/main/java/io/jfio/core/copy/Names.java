package io.jfio.core.copy;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import io.jfio.core.sys.Errno;
import io.jfio.core.sys.Fcntl;
import java.lang.foreign.MemorySegment;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * File names and paths as the kernel sees them: bytes, not strings. A Linux file name may be any bytes but
 * {@code '/'} and NUL, so names read from a directory are kept as bytes end to end, and decoded only for messages.
 *
 * <p>Thread-safe; stateless.
 */
final class Names {
    /** The charset the JDK used to turn command-line paths into strings, so {@link #bytes(Path)} undoes it. */
    private static final Charset JNU = jnuCharset();

    private Names() {
    }

    private static Charset jnuCharset() {
        String name = System.getProperty("sun.jnu.encoding");
        try {
            return name != null ? Charset.forName(name) : StandardCharsets.UTF_8;
        } catch (RuntimeException e) {
            return StandardCharsets.UTF_8;
        }
    }

    /**
     * The bytes of a path. The JDK keeps a path's bytes but shows them as a string decoded with the platform's
     * charset, replacing what does not decode; where that happened, the path's URI form (which percent-encodes
     * the raw bytes) gives them back, as an absolute path.
     */
    static byte[] bytes(Path path) {
        String s = path.toString();
        if (s.indexOf('\uFFFD') < 0) return s.getBytes(JNU);
        String raw = path.toAbsolutePath().toUri().getRawPath();
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(raw.length());
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '%' && i + 2 < raw.length()) {
                out.write(Integer.parseInt(raw.substring(i + 1, i + 3), 16));
                i += 2;
            } else {
                out.write((byte) c);
            }
        }
        byte[] b = out.toByteArray();
        int end = b.length;
        while (end > 1 && b[end - 1] == '/') end--; // toUri adds a slash to directories
        return Arrays.copyOf(b, end);
    }

    /** The bytes of a path given as a string. */
    static byte[] bytes(String path) {
        return path.getBytes(JNU);
    }

    /** A path for people: UTF-8, with bytes that are not UTF-8 shown as U+FFFD. */
    static String show(byte[] path) {
        return new String(path, StandardCharsets.UTF_8);
    }

    /** {@code dir + "/" + name}; {@code dir} may end in a slash already. */
    static byte[] join(byte[] dir, byte[] name) {
        boolean slash = dir.length > 0 && dir[dir.length - 1] == '/';
        byte[] r = Arrays.copyOf(dir, dir.length + (slash ? 0 : 1) + name.length);
        if (!slash) r[dir.length] = '/';
        System.arraycopy(name, 0, r, r.length - name.length, name.length);
        return r;
    }

    /** The last component of a path, without trailing slashes ({@code "a/b/"} gives {@code "b"}; "/" gives "/"). */
    static byte[] lastComponent(byte[] path) {
        int end = path.length;
        while (end > 1 && path[end - 1] == '/') end--;
        int start = end;
        while (start > 0 && path[start - 1] != '/') start--;
        return Arrays.copyOfRange(path, start, end);
    }

    /**
     * Writes {@code path} NUL-terminated into {@code seg}.
     *
     * @return 0, or -ENAMETOOLONG if it does not fit PATH_MAX
     */
    static int put(MemorySegment seg, byte[] path) {
        if (path.length >= Fcntl.PATH_MAX) return -Errno.ENAMETOOLONG;
        MemorySegment.copy(path, 0, seg, JAVA_BYTE, 0, path.length);
        seg.set(JAVA_BYTE, path.length, (byte) 0);
        return 0;
    }

    /**
     * Writes {@code dir + "/" + name} NUL-terminated into {@code seg} without building the joined array.
     *
     * @return 0, or -ENAMETOOLONG if it does not fit PATH_MAX
     */
    static int put(MemorySegment seg, byte[] dir, byte[] name) {
        boolean slash = dir.length > 0 && dir[dir.length - 1] == '/';
        int len = dir.length + (slash ? 0 : 1) + name.length;
        if (len >= Fcntl.PATH_MAX) return -Errno.ENAMETOOLONG;
        MemorySegment.copy(dir, 0, seg, JAVA_BYTE, 0, dir.length);
        int at = dir.length;
        if (!slash) seg.set(JAVA_BYTE, at++, (byte) '/');
        MemorySegment.copy(name, 0, seg, JAVA_BYTE, at, name.length);
        seg.set(JAVA_BYTE, len, (byte) 0);
        return 0;
    }

    /** Writes an ASCII string NUL-terminated into {@code seg}. */
    static void putAscii(MemorySegment seg, String s) {
        for (int i = 0; i < s.length(); i++) seg.set(JAVA_BYTE, i, (byte) s.charAt(i));
        seg.set(JAVA_BYTE, s.length(), (byte) 0);
    }

    /** The bytes of a NUL-terminated string in {@code seg} starting at {@code offset}. */
    static byte[] cString(MemorySegment seg, long offset, long limit) {
        long end = offset;
        while (end < limit && seg.get(JAVA_BYTE, end) != 0) end++;
        byte[] b = new byte[(int) (end - offset)];
        MemorySegment.copy(seg, JAVA_BYTE, offset, b, 0, b.length);
        return b;
    }
}
