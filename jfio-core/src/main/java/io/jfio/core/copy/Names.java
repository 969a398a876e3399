package io.jfio.core.copy;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import io.jfio.core.sys.Errno;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.FileNames;
import io.jfio.core.sys.PathBytes;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/**
 * File names and paths as the kernel sees them: bytes, not strings. A Linux file name may be any bytes but
 * {@code '/'} and NUL, so names read from a directory are kept as bytes end to end, and decoded only for messages.
 * Going between a {@link Path} and its bytes, joining, last components and writing a path into native memory are
 * {@link PathBytes}'s, called directly (the watchers use it too); this adds only what the copy needs on top: paths
 * for messages, writing {@code dir + "/" + name} without building the joined array, and ASCII strings.
 *
 * <p>Thread-safe; stateless.
 */
final class Names {
    private Names() {
    }

    /**
     * A path for messages and events: UTF-8, with each byte that is not valid UTF-8 kept as {@link FileNames}' escape,
     * so that whoever shows it can say which byte it was ({@code -v} prints it as cp does, {@code $'\377'}).
     */
    static String show(byte[] path) {
        return FileNames.decode(path);
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
}
