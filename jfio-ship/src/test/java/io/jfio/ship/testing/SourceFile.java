package io.jfio.ship.testing;

import io.jfio.core.sys.ErrnoException;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import io.jfio.ship.sink.Batch;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A real source file of numbered lines, open, cut into batches at line boundaries the way the harvester cuts them:
 * each batch carries the descriptor and offset and its bytes in native memory.
 *
 * <p>Not thread-safe; one test thread.
 */
public final class SourceFile implements AutoCloseable {
    private final Path path;
    private final String input;
    private final int fd;
    private final byte[] content;
    private final List<long[]> cuts = new ArrayList<>();
    private final Arena arena = Arena.ofShared();
    private final MemorySegment all;

    private SourceFile(Path path, String input, byte[] content, long batchBytes) throws IOException {
        this.path = path;
        this.input = input;
        this.content = content;
        int f = LibC.openat(Fcntl.AT_FDCWD, path.toString(), Fcntl.O_RDONLY | Fcntl.O_CLOEXEC, 0);
        ErrnoException.check(f, "openat", -1, path.toString());
        this.fd = f;
        this.all = arena.allocate(Math.max(1, content.length));
        MemorySegment.copy(MemorySegment.ofArray(content), 0, all, 0, content.length);
        long start = 0;
        long pos = 0;
        while (pos < content.length) {
            if (content[(int) pos] == '\n' && pos + 1 - start >= batchBytes) {
                cuts.add(new long[] {start, pos + 1 - start, lines(start, pos + 1)});
                start = pos + 1;
            }
            pos++;
        }
        if (start < content.length) {
            cuts.add(new long[] {start, content.length - start, lines(start, content.length)});
        }
    }

    private long lines(long from, long to) {
        long n = 0;
        for (long i = from; i < to; i++) {
            if (content[(int) i] == '\n') {
                n++;
            }
        }
        return n;
    }

    /**
     * Writes {@code lines} lines, {@code prefix-<n> <padding>\n} with padding up to about {@code lineBytes}, and
     * opens the file cut into batches of about {@code batchBytes}.
     */
    public static SourceFile create(Path path, String input, String prefix, int lines, int lineBytes,
            long batchBytes) throws IOException {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < lines; i++) {
            int start = sb.length();
            sb.append(prefix).append('-').append(i).append(' ');
            while (sb.length() - start < lineBytes - 1) {
                sb.append((char) ('a' + (i + sb.length()) % 26));
            }
            sb.append('\n');
        }
        byte[] bytes = sb.toString().getBytes(StandardCharsets.US_ASCII);
        Files.write(path, bytes);
        return new SourceFile(path, input, bytes, batchBytes);
    }

    public Path path() {
        return path;
    }

    public byte[] content() {
        return content.clone();
    }

    public int batches() {
        return cuts.size();
    }

    /** Batch {@code i}: valid while this file is open. */
    public Batch batch(int i) {
        long[] c = cuts.get(i);
        return new Batch(path.toString(), input, fd, c[0], c[1], c[2], all.asSlice(c[0], c[1]));
    }

    @Override
    public void close() {
        LibC.close(fd);
        arena.close();
    }
}
