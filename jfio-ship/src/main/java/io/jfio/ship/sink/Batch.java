package io.jfio.ship.sink;

import java.lang.foreign.MemorySegment;

/**
 * A run of complete records from one source file, handed to a {@link Sink}: bytes {@code [offset, offset + length)}
 * of the file. The bytes are available in two forms so that each sink can take the cheaper one:
 * <ul>
 *   <li>{@link #fd()} and {@link #offset()}: the open source file, for sinks that move bytes inside the kernel
 *       (copy_file_range to a directory sink, sendfile or splice to a socket);</li>
 *   <li>{@link #bytes()}: the same bytes already read into native memory (the harvester had to scan them for record
 *       boundaries), for sinks that need them in user space.</li>
 * </ul>
 * Both are valid only during {@link Sink#send}: the harvester reuses the buffer and may close the descriptor as soon
 * as the call returns, so a sink that delivers later copies what it keeps.
 *
 * @param source  the source file as the user named it (also the Kafka record key)
 * @param input   the name of the input (config) this file belongs to; used for topic-per-input routing
 * @param fd      the open source file descriptor
 * @param offset  the file offset of the first byte
 * @param length  the number of bytes; in line mode it ends after a newline, except for a split piece of an
 *                overlong line and a partial line shipped after its timeout (or at the end of a rotated file):
 *                then the unterminated tail is one record of its own, never joined to the next batch's first line
 * @param records the number of records in the batch (lines in line mode; 0 for raw mode)
 * @param bytes   the bytes, {@code length} long, in native memory
 * @param id      the source content's identity, for sinks that commit source positions with the data ({@link
 *                Sink#committed()}); null when the caller has none (the sink then records no position for it)
 * @param view    the records one by one, their metadata and their encoded form, when the sink needs more than the
 *                bytes as they are (multiline records, an encoding other than raw, a line filter); null otherwise.
 *                Sinks deliver {@link #payload()}; {@code offset} and {@code length} stay the source's range, which
 *                the checkpoints advance over
 */
public record Batch(String source, String input, int fd, long offset, long length, long records, MemorySegment bytes,
                    SourceId id, RecordView view) {

    public Batch {
        if (offset < 0 || length < 0 || bytes.byteSize() != length) {
            throw new IllegalArgumentException("batch " + source + " offset " + offset + " length " + length
                    + " bytes " + bytes.byteSize());
        }
    }

    /** A batch of records as they are (no view). */
    public Batch(String source, String input, int fd, long offset, long length, long records, MemorySegment bytes,
                 SourceId id) {
        this(source, input, fd, offset, length, records, bytes, id, null);
    }

    /**
     * The bytes to deliver: the view's payload when the records were encoded or filtered, else {@link #bytes()}. Only
     * when this is {@link #bytes()} may a sink move the source's bytes itself (sendfile from {@link #fd()}).
     */
    public MemorySegment payload() {
        return view == null || view.payload() == null ? bytes : view.payload();
    }

    /** Whether {@link #payload()} is the source's bytes as they are. */
    public boolean asRead() {
        return view == null || view.payload() == null;
    }

    /** A batch without a source identity (tools and tests that ship bytes of their own). */
    public Batch(String source, String input, int fd, long offset, long length, long records, MemorySegment bytes) {
        this(source, input, fd, offset, length, records, bytes, null);
    }

    /** The file offset just past the last byte: what a checkpoint advances to once the batch is acknowledged. */
    public long end() {
        return offset + length;
    }
}
