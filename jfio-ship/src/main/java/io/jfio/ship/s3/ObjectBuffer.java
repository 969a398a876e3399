package io.jfio.ship.s3;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import com.github.luben.zstd.ZstdOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPOutputStream;

/**
 * Not thread-safe: filled by the thread that owns the open object; the {@link Body bodies} it hands out are read
 * by the upload threads.
 *
 * <p>One object's bytes, compressed as they arrive, in native memory chunks (outside the Java heap): an object of
 * 16 MiB costs 16 MiB of memory once, never a heap array the collector copies. The chunks grow from {@link
 * #FIRST_CHUNK} to {@link #CHUNK} bytes, so that the objects of many sources that each hold a few lines do not cost
 * a megabyte each. The largest chunk is small too: each open object's last chunk is resident whether it is filled
 * or not (its memory is zeroed when allocated), and with many sources many objects are open at once. {@link #take}
 * hands the bytes stored so far over as a {@link Body} (a part of a multipart upload, or after {@link #finish} the
 * rest, or the whole object) with its own memory, freed when the body is closed, and the buffer goes on in new
 * chunks.
 */
final class ObjectBuffer implements AutoCloseable {
    static final int CHUNK = 64 << 10;
    static final int FIRST_CHUNK = 16 << 10;
    private static final int SCRATCH = 64 << 10;

    private final OutputStream compressor;
    private final String contentType;
    private byte[] scratch;
    /** The memory of the bytes not yet taken. */
    private Arena arena = Arena.ofShared();
    private List<MemorySegment> chunks = new ArrayList<>();
    /** Stored (compressed) bytes not yet taken. */
    private long pending;
    /** Bytes used of the last chunk. */
    private long lastUsed;
    /** Source bytes taken. */
    private long raw;
    private boolean finished;
    private boolean closed;

    /** A buffer of plain text compressing with {@code codec} (none, gzip, zstd). */
    ObjectBuffer(String codec) throws IOException {
        this(codec, "text/plain");
    }

    /** A buffer of {@code contentType} (what the object holds before compression) compressing with {@code codec}. */
    ObjectBuffer(String codec, String contentType) throws IOException {
        this.contentType = contentType;
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

    /**
     * The stored bytes not yet taken, as a body of their own (possibly empty); the buffer goes on in new memory.
     * Before {@link #finish} a compressor may still hold bytes that belong before the next ones: they come out in the
     * next body.
     */
    Body take() {
        if (closed) throw new IllegalStateException("object buffer closed");
        List<MemorySegment> used = new ArrayList<>(chunks.size());
        for (int i = 0; i < chunks.size(); i++) {
            MemorySegment c = chunks.get(i);
            used.add(i == chunks.size() - 1 ? c.asSlice(0, lastUsed) : c);
        }
        Body b = new Body(arena, used, pending, contentType);
        arena = Arena.ofShared();
        chunks = new ArrayList<>();
        pending = 0;
        lastUsed = 0;
        return b;
    }

    /** Stored bytes not yet taken. */
    long pending() {
        return pending;
    }

    /** Source bytes taken. */
    long raw() {
        return raw;
    }

    private void put(MemorySegment src, long offset, long length) {
        long done = 0;
        while (done < length) {
            MemorySegment c = room();
            long n = Math.min(c.byteSize() - lastUsed, length - done);
            MemorySegment.copy(src, offset + done, c, lastUsed, n);
            done += n;
            lastUsed += n;
            pending += n;
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
            pending += n;
        }
    }

    /** The last chunk, with room in it. */
    private MemorySegment room() {
        if (chunks.isEmpty() || lastUsed == chunks.get(chunks.size() - 1).byteSize()) {
            long next = chunks.isEmpty() ? FIRST_CHUNK
                    : Math.min(CHUNK, chunks.get(chunks.size() - 1).byteSize() * 2);
            chunks.add(arena.allocate(next));
            lastUsed = 0;
        }
        return chunks.get(chunks.size() - 1);
    }

    /** Frees the bytes not taken (the bodies taken are freed on their own). */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        chunks = List.of();
        arena.close();
    }

    /**
     * Thread-safe once handed out: read by any number of requests one after the other (a retry sends it again),
     * then closed by its owner; its subscriptions are thread-safe as the Flow contract asks.
     *
     * <p>Stored bytes of an object or of a part, in native memory of their own, with their CRC32C (computed once,
     * sent with the request so that the server checks what it received).
     */
    static final class Body implements AutoCloseable {
        private final Arena arena;
        private final List<MemorySegment> chunks;
        private final long size;
        private final String contentType;
        /** Bodies closed while a write still held them, freed by a later close. */
        private static final List<Body> BUSY = new ArrayList<>();
        private int crc;
        private boolean crcDone;
        private boolean closing;

        Body(Arena arena, List<MemorySegment> chunks, long size, String contentType) {
            this.arena = arena;
            this.chunks = chunks;
            this.size = size;
            this.contentType = contentType;
        }

        /** What its bytes are before compression, as the object's Content-Type. */
        String contentType() {
            return contentType;
        }

        /** Its bytes. */
        long size() {
            return size;
        }

        /**
         * Its bytes for an HTTP request: read-only direct buffers over its chunks, handed to each subscriber as it
         * asks.
         * A request that still writes one after its body was closed (a client thread after a failed request) gets an
         * {@link IllegalStateException} from the channel, never freed memory: the buffers belong to this body's
         * arena, whose closing waits for no one and is refused while a write holds it ({@link #close}).
         */
        java.util.concurrent.Flow.Publisher<java.nio.ByteBuffer> publisher() {
            return subscriber -> subscriber.onSubscribe(new java.util.concurrent.Flow.Subscription() {
                private int next;
                private long demand;
                private boolean emitting;
                private boolean done;

                @Override
                public void request(long n) {
                    if (n <= 0) {
                        cancel();
                        subscriber.onError(new IllegalArgumentException("non-positive request: " + n));
                        return;
                    }
                    synchronized (this) {
                        demand = demand + n < 0 ? Long.MAX_VALUE : demand + n;
                        if (emitting) return; // the loop below, further up the stack, takes the new demand
                        emitting = true;
                    }
                    while (true) {
                        java.nio.ByteBuffer item;
                        boolean complete = false;
                        synchronized (this) {
                            if (done || demand == 0) {
                                emitting = false;
                                return;
                            }
                            if (next == chunks.size()) {
                                done = true;
                                complete = true;
                                item = null;
                            } else {
                                try {
                                    item = chunks.get(next++).asByteBuffer().asReadOnlyBuffer();
                                } catch (IllegalStateException closed) {
                                    done = true;
                                    emitting = false;
                                    subscriber.onError(closed);
                                    return;
                                }
                                demand--;
                            }
                        }
                        if (complete) {
                            subscriber.onComplete();
                            return;
                        }
                        subscriber.onNext(item);
                    }
                }

                @Override
                public synchronized void cancel() {
                    done = true;
                }
            });
        }

        /** The CRC32C of its bytes. */
        private synchronized int crc32c() {
            if (!crcDone) {
                java.util.zip.CRC32C c = new java.util.zip.CRC32C();
                for (MemorySegment s : chunks) c.update(s.asByteBuffer());
                crc = (int) c.getValue();
                crcDone = true;
            }
            return crc;
        }

        /** The CRC32C as S3's checksum headers carry it: base64 of its four big-endian bytes. */
        String crc32cBase64() {
            int v = crc32c();
            return java.util.Base64.getEncoder().encodeToString(new byte[] {(byte) (v >>> 24), (byte) (v >>> 16),
                (byte) (v >>> 8), (byte) v});
        }

        /**
         * Frees its memory; when a request still writes from it (after that request failed), as soon as a later close
         * of any body finds it free.
         */
        @Override
        public void close() {
            synchronized (this) {
                if (closing) return;
                closing = true;
            }
            free(this);
            List<Body> left;
            synchronized (BUSY) {
                left = new ArrayList<>(BUSY);
            }
            for (Body b : left) free(b);
        }

        private static void free(Body b) {
            try {
                if (b.arena.scope().isAlive()) b.arena.close();
                synchronized (BUSY) {
                    BUSY.remove(b);
                }
            } catch (IllegalStateException held) {
                synchronized (BUSY) {
                    if (!BUSY.contains(b)) BUSY.add(b);
                }
            }
        }
    }
}
