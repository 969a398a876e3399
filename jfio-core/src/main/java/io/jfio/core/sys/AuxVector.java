package io.jfio.core.sys;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The values the kernel passed this process in its auxiliary vector ({@code /proc/self/auxv}): pairs of native
 * words, type then value, ended by {@code AT_NULL}.
 *
 * <p>Thread-safe; stateless.
 */
final class AuxVector {
    /** {@code AT_PAGESZ}: the system page size. */
    static final long AT_PAGESZ = 6;
    private static final Path AUXV = Path.of("/proc/self/auxv");

    private AuxVector() {
    }

    /** The page size from {@code /proc/self/auxv}, or 0 when the file cannot be read or does not hold it. */
    static int pageSize() {
        try {
            return (int) find(Files.readAllBytes(AUXV), AT_PAGESZ);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /**
     * The value of {@code type} in an auxiliary vector of 64-bit words in native byte order, or 0 when it is not
     * there (a truncated vector ends the search).
     */
    static long find(byte[] auxv, long type) {
        ByteBuffer b = ByteBuffer.wrap(auxv).order(ByteOrder.nativeOrder());
        while (b.remaining() >= 16) {
            long t = b.getLong();
            long v = b.getLong();
            if (t == 0) return 0;
            if (t == type) return v;
        }
        return 0;
    }
}
