package io.jfio.ship.s3;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import com.github.luben.zstd.ZstdOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPOutputStream;

/**
 * Not thread-safe: filled by the thread that owns the open object, then read (any number of times, one stream at a
 * time) by the upload thread after {@link #finish}.
 *
 * <p>One object's bytes, compressed as they arrive, in native memory chunks (outside the Java heap, freed together
 * by {@link #close}): an object of 16 MiB costs 16 MiB of memory once, never a heap array the collector copies. The
 * chunks grow from {@link #FIRST_CHUNK} to {@link #CHUNK} bytes, so that the objects of many sources that each hold
 * a few lines do not cost a megabyte each. The upload reads it through {@link #stream()}, which the SDK may call
 * twice (once to sign the payload, once to send it).
 */
final class ObjectBuffer implements AutoCloseable {
    static final int CHUNK = 256 << 10;
    static final int FIRST_CHUNK = 16 << 10;
    private static final int SCRATCH = 64 << 10;

    private final Arena arena = Arena.ofShared();
    private final List<MemorySegment> chunks = new ArrayList<>();
    private final OutputStream compressor;
    private byte[] scratch;
    /** Stored (compressed) bytes. */
    private long size;
    /** Bytes used of the last chunk. */
    private long lastUsed;
    /** Bytes of all the chunks. */
    private long memory;
    /** Source bytes taken. */
    private long raw;
    private boolean finished;

    /** A buffer compressing with {@code codec} (none, gzip, zstd). */
    ObjectBuffer(String codec) throws IOException {
        OutputStream sink = new OutputStream() {
            @Override
            public void write(int b) {
                put(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                put(b, off, len);
            }
        };
        this.compressor = switch (codec) {
            case "gzip" -> new GZIPOutputStream(sink, SCRATCH);
            // Level 3, zstd's default: about gzip -6's ratio on log lines at several times its speed.
            case "zstd" -> new ZstdOutputStream(sink, 3);
            default -> null;
        };
    }

    /** Appends {@code length} bytes of {@code src} from {@code offset}, compressed. */
    void write(MemorySegment src, long offset, long length) throws IOException {
        if (finished) throw new IllegalStateException("object buffer finished");
        raw += length;
        if (compressor == null) {
            put(src, offset, length);
            return;
        }
        if (scratch == null) scratch = new byte[SCRATCH];
        long done = 0;
        while (done < length) {
            int n = (int) Math.min(scratch.length, length - done);
            MemorySegment.copy(src, JAVA_BYTE, offset + done, scratch, 0, n);
            compressor.write(scratch, 0, n);
            done += n;
        }
    }

    /** Ends the compressed stream; nothing may be written after. */
    void finish() throws IOException {
        if (finished) return;
        finished = true;
        if (compressor != null) compressor.close();
        scratch = null;
    }

    /** Stored bytes (compressed, once {@link #finish finished}). */
    long size() {
        return size;
    }

    /** Source bytes taken. */
    long raw() {
        return raw;
    }

    /** Native memory held. */
    long memory() {
        return memory;
    }

    private void put(MemorySegment src, long offset, long length) {
        long done = 0;
        while (done < length) {
            MemorySegment c = room();
            long n = Math.min(c.byteSize() - lastUsed, length - done);
            MemorySegment.copy(src, offset + done, c, lastUsed, n);
            done += n;
            lastUsed += n;
            size += n;
        }
    }

    private void put(byte[] b, int off, int len) {
        int done = 0;
        while (done < len) {
            MemorySegment c = room();
            int n = (int) Math.min(c.byteSize() - lastUsed, len - done);
            MemorySegment.copy(b, off + done, c, JAVA_BYTE, lastUsed, n);
            done += n;
            lastUsed += n;
            size += n;
        }
    }

    /** The last chunk, with room in it. */
    private MemorySegment room() {
        if (chunks.isEmpty() || lastUsed == chunks.get(chunks.size() - 1).byteSize()) {
            long next = chunks.isEmpty() ? FIRST_CHUNK
                    : Math.min(CHUNK, chunks.get(chunks.size() - 1).byteSize() * 2);
            chunks.add(arena.allocate(next, 4096));
            memory += next;
            lastUsed = 0;
        }
        return chunks.get(chunks.size() - 1);
    }

    /** A new stream over the stored bytes. */
    InputStream stream() {
        return new InputStream() {
            private long pos;
            private int chunk;
            private long at;

            /** Moves past a chunk read to its end; false at the end of the bytes. */
            private boolean more() {
                if (pos >= size) return false;
                if (at == chunks.get(chunk).byteSize()) {
                    chunk++;
                    at = 0;
                }
                return true;
            }

            @Override
            public int read() {
                if (!more()) return -1;
                byte b = chunks.get(chunk).get(JAVA_BYTE, at);
                at++;
                pos++;
                return b & 0xFF;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (len == 0) return 0;
                if (!more()) return -1;
                MemorySegment c = chunks.get(chunk);
                int n = (int) Math.min(Math.min(len, c.byteSize() - at), size - pos);
                MemorySegment.copy(c, JAVA_BYTE, at, b, off, n);
                at += n;
                pos += n;
                return n;
            }

            @Override
            public int available() {
                return (int) Math.min(Integer.MAX_VALUE, size - pos);
            }
        };
    }

    /** Frees the memory. */
    @Override
    public void close() {
        chunks.clear();
        arena.close();
    }
}
