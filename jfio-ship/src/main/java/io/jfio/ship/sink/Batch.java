package io.jfio.ship.sink;

import java.lang.foreign.MemorySegment;

/**
 * Not thread-safe: filled by the pipeline thread and read by the sink during {@link Sink#send}.
 *
 * <p>A run of complete records from one source file, handed to a {@link Sink}: bytes {@code [offset, offset + length)}
 * of the file, read into native memory ({@link #bytes()}: the harvester had to scan them for record boundaries). Sinks
 * deliver those bytes (or {@link #payload()}), never the file read again through {@link #fd()} and {@link #offset()}
 * (sendfile, splice, copy_file_range): by the time a sink that waits for its destination moved them, copytruncate may
 * have truncated the file and the application written other lines at the same offsets. The descriptor is there for
 * what does not move the bytes (naming the source in errors, identity checks).
 * Both are valid only during {@link Sink#send}: the harvester reuses the buffer and may close the descriptor as soon
 * as the call returns, so a sink that delivers later copies what it keeps. So is the batch itself: the harvester
 * fills the same object again for its next batch ({@link #set}), so a sink keeps the parts it needs (the identity,
 * the source's name, which are immutable), never the batch.
 *
 * <p>Its parts:
 * <ul>
 *   <li>{@code source}: the source file as the user named it (also the Kafka record key)</li>
 *   <li>{@code input}: the name of the input (config) this file belongs to; used for topic-per-input routing</li>
 *   <li>{@code fd}: the open source file descriptor</li>
 *   <li>{@code offset}: the file offset of the first byte</li>
 *   <li>{@code length}: the number of bytes; in line mode it ends after a newline, except for a split piece of an
 *       overlong line and a partial line shipped after its timeout (or at the end of a rotated file): then the
 *       unterminated tail is one record of its own, never joined to the next batch's first line</li>
 *   <li>{@code records}: the number of records in the batch (lines in line mode; 0 for raw mode)</li>
 *   <li>{@code bytes}: the bytes, {@code length} long, in native memory</li>
 *   <li>{@code id}: the source content's identity, for sinks that commit source positions with the data ({@link
 *       Sink#committed()}); null when the caller has none (the sink then records no position for it)</li>
 *   <li>{@code view}: the records one by one, their metadata and their encoded form, when the sink needs more than the
 *       bytes as they are (multiline records, an encoding other than raw, a line filter); null otherwise. Sinks
 *       deliver {@link #payload()}; {@code offset} and {@code length} stay the source's range, which the checkpoints
 *       advance over</li>
 * </ul>
 */
public final class Batch {
    private String source;
    private String input;
    private int fd;
    private long offset;
    private long length;
    private long records;
    private MemorySegment bytes;
    private SourceId id;
    private RecordView view;
    private long decompressedOffset = -1;
    private long decompressedLength;
    private long decompressedSize;

    /** A batch with every part given (see the class comment for each). */
    public Batch(String source, String input, int fd, long offset, long length, long records, MemorySegment bytes,
                 SourceId id, RecordView view) {
        set(source, input, fd, offset, length, records, bytes, id, view);
    }

    /** A batch of records as they are (no view). */
    public Batch(String source, String input, int fd, long offset, long length, long records, MemorySegment bytes,
                 SourceId id) {
        this(source, input, fd, offset, length, records, bytes, id, null);
    }

    /** A batch without a source identity (tools and tests that ship bytes of their own). */
    public Batch(String source, String input, int fd, long offset, long length, long records, MemorySegment bytes) {
        this(source, input, fd, offset, length, records, bytes, null);
    }

    /**
     * Fills this batch again, with the parts of the next one: the caller's to reuse once {@link Sink#send} returned.
     *
     * @return this batch
     * @throws IllegalArgumentException when the offset or length is negative or {@code bytes} is not {@code length}
     *                                  long
     */
    public Batch set(String source, String input, int fd, long offset, long length, long records,
                     MemorySegment bytes, SourceId id, RecordView view) {
        if (offset < 0 || length < 0 || bytes.byteSize() != length) {
            throw new IllegalArgumentException("batch " + source + " offset " + offset + " length " + length
                    + " bytes " + bytes.byteSize());
        }
        this.source = source;
        this.input = input;
        this.fd = fd;
        this.offset = offset;
        this.length = length;
        this.records = records;
        this.bytes = bytes;
        this.id = id;
        this.view = view;
        this.decompressedOffset = -1;
        this.decompressedLength = 0;
        this.decompressedSize = 0;
        return this;
    }

    /**
     * Marks this batch's records as decompressed bytes of its source (a gzip file), not bytes of the file itself: its
     * view's records are bytes {@code [offset, offset + length)} of the decompressed content (record {@code i} at
     * {@code offset + view().start(i)}), while {@link #offset()} and {@link #length()} stay the file's range (empty:
     * the file's offsets move once it is done). A sink that names what it stores by range (s3) uses this one.
     *
     * @param size the file's whole decompressed size
     * @return this batch
     * @throws IllegalArgumentException when the offset or length is negative, or the range ends after {@code size}
     */
    public Batch decompressed(long offset, long length, long size) {
        if (offset < 0 || length < 0 || offset + length > size) {
            throw new IllegalArgumentException("batch " + source + " decompressed offset " + offset + " length "
                    + length + " size " + size);
        }
        this.decompressedOffset = offset;
        this.decompressedLength = length;
        this.decompressedSize = size;
        return this;
    }

    /** The source's whole decompressed size ({@link #decompressed}); 0 when not decompressed. */
    public long decompressedSize() {
        return decompressedSize;
    }

    /** Whether the records are decompressed bytes of the source ({@link #decompressed}). */
    public boolean isDecompressed() {
        return decompressedOffset >= 0;
    }

    /** The decompressed offset of the records' first byte, or -1 when they are the file's own bytes. */
    public long decompressedOffset() {
        return decompressedOffset;
    }

    /** How many decompressed bytes the records span (those a filter left out included); 0 when not decompressed. */
    public long decompressedLength() {
        return decompressedLength;
    }

    /** The source file as the user named it (also the Kafka record key). */
    public String source() {
        return source;
    }

    /** The name of the input (config) this file belongs to. */
    public String input() {
        return input;
    }

    /** The open source file descriptor. */
    public int fd() {
        return fd;
    }

    /** The file offset of the first byte. */
    public long offset() {
        return offset;
    }

    /** The number of source bytes. */
    public long length() {
        return length;
    }

    /** The number of records in the batch (0 for raw mode). */
    public long records() {
        return records;
    }

    /** The source bytes, {@code length} long, in native memory. */
    public MemorySegment bytes() {
        return bytes;
    }

    /** The source content's identity, or null. */
    public SourceId id() {
        return id;
    }

    /** The records one by one, when the sink needs more than the bytes as they are; else null. */
    public RecordView view() {
        return view;
    }

    /**
     * The bytes to deliver: the view's payload when the records were encoded or filtered, else {@link #bytes()}.
     */
    public MemorySegment payload() {
        return view == null || view.payload() == null ? bytes : view.payload();
    }

    /** Whether {@link #payload()} is the source's bytes as they are. */
    public boolean asRead() {
        return view == null || view.payload() == null;
    }

    /** The file offset just past the last byte: what a checkpoint advances to once the batch is acknowledged. */
    public long end() {
        return offset + length;
    }

    @Override
    public String toString() {
        return "Batch[source=" + source + ", offset=" + offset + ", length=" + length + ", records=" + records + "]";
    }
}
