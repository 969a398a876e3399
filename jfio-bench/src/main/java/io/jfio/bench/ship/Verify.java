package io.jfio.bench.ship;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

import java.util.List;
import java.util.Locale;


/**
 * Checks a delivery byte for byte: what a sink wrote (the dir sink's segments in order, a receiver's file) must be
 * exactly the input.
 *
 * <p>Thread-safe; stateless.
 */
final class Verify {
    private Verify() {
    }

    /**
     * Compares {@code input} with the concatenation of {@code parts}.
     *
     * @return null when they are equal, else where and how they differ ({@code key=value})
     */
    static String compare(Path input, List<Path> parts) throws IOException {
        long total = 0;
        for (Path p : parts) total += Files.size(p);
        long size = Files.size(input);
        byte[] a = new byte[1 << 20];
        byte[] b = new byte[1 << 20];
        long pos = 0;
        try (InputStream in = Files.newInputStream(input)) {
            for (Path p : parts) {
                try (InputStream out = Files.newInputStream(p)) {
                    while (true) {
                        int n = out.readNBytes(b, 0, b.length);
                        if (n == 0) break;
                        int m = in.readNBytes(a, 0, n);
                        for (int i = 0; i < m; i++) {
                            if (a[i] != b[i]) {
                                return String.format(Locale.ROOT, "differs: offset=%d line=%d delivered=%d "
                                        + "input=%d", pos + i, (pos + i) / LogLines.LINE + 1, total, size);
                            }
                        }
                        pos += m;
                        if (m < n) {
                            return "more delivered than written: delivered=" + total + " input=" + size;
                        }
                    }
                }
            }
        }
        if (pos < size) return "incomplete: delivered=" + total + " input=" + size;
        return null;
    }
}
