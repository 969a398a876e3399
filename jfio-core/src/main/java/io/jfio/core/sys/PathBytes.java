package io.jfio.core.sys;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.net.URI;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Paths as the kernel sees them: bytes, not strings. A Linux file name may be any bytes but {@code '/'} and NUL; the
 * JDK keeps a {@link Path}'s bytes but shows them as a string decoded with {@code sun.jnu.encoding}, replacing what
 * does not decode, so {@code path.toString().getBytes(...)} names another file (or none) for such a name. These
 * methods go between the two without that loss.
 *
 * <p>Thread-safe; stateless.
 */
public final class PathBytes {
    /** The charset the JDK turns file names into strings with ({@code sun.jnu.encoding}), so that can be undone. */
    public static final Charset JNU = jnuCharset();

    private PathBytes() {
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
     * The bytes of a path. Where its string shows a replaced byte (U+FFFD), the path's URI form (which
     * percent-encodes the raw bytes) gives them back; a relative path stays relative.
     */
    public static byte[] bytes(Path path) {
        String s = path.toString();
        if (s.indexOf('\uFFFD') < 0) return s.getBytes(JNU);
        byte[] abs = uriBytes(path.toAbsolutePath());
        if (path.isAbsolute()) return abs;
        byte[] cwd = bytes(Path.of("").toAbsolutePath());
        int skip = cwd.length + (cwd[cwd.length - 1] == '/' ? 0 : 1);
        return Arrays.copyOfRange(abs, skip, abs.length);
    }

    private static byte[] uriBytes(Path absolute) {
        String raw = absolute.toUri().getRawPath();
        ByteArrayOutputStream out = new ByteArrayOutputStream(raw.length());
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

    /** The bytes of a path given as a string (one typed by a person: nothing was replaced in it). */
    public static byte[] bytes(String path) {
        return path.getBytes(JNU);
    }

    /**
     * The path with exactly these bytes, which must start with {@code '/'}. The JDK builds a path from a string by
     * encoding it, which cannot give bytes that do not decode; from a {@code file:} URI it takes the percent-encoded
     * bytes as they are.
     */
    public static Path path(byte[] absolute) {
        if (absolute.length == 0 || absolute[0] != '/') {
            throw new IllegalArgumentException("not an absolute path: " + new String(absolute, JNU));
        }
        StringBuilder sb = new StringBuilder(absolute.length + 16).append("file://");
        for (byte b : absolute) {
            int c = b & 0xff;
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '/' || c == '-'
                    || c == '.' || c == '_' || c == '~') {
                sb.append((char) c);
            } else {
                sb.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 15, 16)));
            }
        }
        return Path.of(URI.create(sb.toString()));
    }

    /**
     * {@code dir} joined with a name read from the kernel (a directory entry, an inotify event): {@code dir.resolve}
     * of the decoded name where it decodes, else the exact bytes (the result is then absolute).
     */
    public static Path resolve(Path dir, byte[] name) {
        String s = new String(name, JNU);
        if (s.indexOf('\uFFFD') < 0) return dir.resolve(s);
        return path(join(bytes(dir.toAbsolutePath()), name));
    }

    /**
     * {@code dir + "/" + name} as bytes; no slash is added where {@code dir} ends in one already (the root).
     * Nothing is decoded or checked: {@code name} is taken as one component.
     */
    public static byte[] join(byte[] dir, byte[] name) {
        boolean slash = dir.length > 0 && dir[dir.length - 1] == '/';
        byte[] r = Arrays.copyOf(dir, dir.length + (slash ? 0 : 1) + name.length);
        if (!slash) r[dir.length] = '/';
        System.arraycopy(name, 0, r, r.length - name.length, name.length);
        return r;
    }

    /**
     * The last component of a path as bytes, without trailing slashes: {@code "a/b/"} gives {@code "b"}, {@code "b"}
     * gives {@code "b"}, and {@code "/"} (which names no entry in a directory) gives an empty array.
     */
    public static byte[] lastComponent(byte[] path) {
        int end = path.length;
        while (end > 1 && path[end - 1] == '/') end--;
        int start = end;
        while (start > 0 && path[start - 1] != '/') start--;
        return Arrays.copyOfRange(path, start, end);
    }

    /**
     * Writes {@code path} NUL-terminated into {@code seg} (at least {@link Fcntl#PATH_MAX} bytes).
     *
     * @return 0, or -ENAMETOOLONG if it does not fit PATH_MAX (the kernel's limit, NUL included)
     */
    public static int put(MemorySegment seg, byte[] path) {
        if (path.length >= Fcntl.PATH_MAX) return -Errno.ENAMETOOLONG;
        MemorySegment.copy(path, 0, seg, JAVA_BYTE, 0, path.length);
        seg.set(JAVA_BYTE, path.length, (byte) 0);
        return 0;
    }

    /** {@link #put(MemorySegment, byte[])} of {@link #bytes(Path)}. */
    public static int put(MemorySegment seg, Path path) {
        return put(seg, bytes(path));
    }

    /** The bytes of a NUL-terminated string in {@code seg} from {@code offset}, at most up to {@code limit}. */
    public static byte[] cString(MemorySegment seg, long offset, long limit) {
        long end = offset;
        while (end < limit && seg.get(JAVA_BYTE, end) != 0) end++;
        byte[] b = new byte[(int) (end - offset)];
        MemorySegment.copy(seg, JAVA_BYTE, offset, b, 0, b.length);
        return b;
    }
}
