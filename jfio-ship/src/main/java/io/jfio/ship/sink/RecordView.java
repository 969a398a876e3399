package io.jfio.ship.sink;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Map;

/**
 * Not thread-safe; filled by the pipeline thread, read by the sink during {@link Sink#send} only (the harvester reuses
 * it for the next batch).
 *
 * <p>A batch's records, for the batches whose sink needs more than the source's bytes as they are: where each record
 * lies in {@link Batch#bytes()}, the metadata shared by its records, and, when the sink's encoding is not {@code raw}
 * or a line filter left records out, the bytes to deliver instead ({@link #payload()}: each record's encoded form,
 * one after the other, {@code [outStart(i), outEnd(i))}). Records a filter left out are not in the view. A record's
 * source bytes include its newline, except for a piece of an overlong line or a last line shipped without one.
 */
public final class RecordView {
    /** How records are delivered. */
    public enum Encoding {
        /** The source's bytes as they are. */
        RAW,
        /** One JSON object per record and line: the message, its metadata and the input's fields. */
        NDJSON,
        /** Kafka only: the record's bytes as the value, its metadata and fields as record headers. */
        HEADERS
    }

    private Encoding encoding = Encoding.RAW;
    private int count;
    private long[] starts = new long[64];
    private long[] ends = new long[64];
    private long[] outStarts = new long[64];
    private long[] outEnds = new long[64];
    private MemorySegment payload;
    private long readTimeMillis;
    private String host = "";
    private Map<String, String> fields = Map.of();

    /** Empties the view for the next batch. */
    public void reset(Encoding encoding, long readTimeMillis, String host, Map<String, String> fields) {
        this.encoding = encoding;
        this.readTimeMillis = readTimeMillis;
        this.host = host;
        this.fields = fields;
        this.count = 0;
        this.payload = null;
    }

    /** Adds record {@code [start, end)} of the batch's bytes, delivered as {@code [outStart, outEnd)}. */
    public void add(long start, long end, long outStart, long outEnd) {
        if (count == starts.length) {
            int n = count * 2;
            starts = Arrays.copyOf(starts, n);
            ends = Arrays.copyOf(ends, n);
            outStarts = Arrays.copyOf(outStarts, n);
            outEnds = Arrays.copyOf(outEnds, n);
        }
        starts[count] = start;
        ends[count] = end;
        outStarts[count] = outStart;
        outEnds[count] = outEnd;
        count++;
    }

    /**
     * Sets the bytes to deliver instead of the batch's own; null: the batch's bytes. Native memory, except for the
     * dir sink, which copies every payload before writing it and so takes a heap segment too.
     */
    public void payload(MemorySegment bytes) {
        this.payload = bytes;
    }

    /** The bytes to deliver instead of the batch's own, or null when they are the batch's own. */
    public MemorySegment payload() {
        return payload;
    }

    public Encoding encoding() {
        return encoding;
    }

    /** The records in the view. */
    public int count() {
        return count;
    }

    /** Where record {@code i} starts in the batch's bytes (its source offset minus the batch's offset). */
    public long start(int i) {
        return starts[i];
    }

    /** Where record {@code i} ends in the batch's bytes (after its newline, when it has one). */
    public long end(int i) {
        return ends[i];
    }

    /** Where record {@code i}'s delivered form starts in the payload (or the batch's bytes, without a payload). */
    public long outStart(int i) {
        return outStarts[i];
    }

    /** Where record {@code i}'s delivered form ends (after its newline, when it has one). */
    public long outEnd(int i) {
        return outEnds[i];
    }

    /** When the shipper read the batch, in milliseconds since the epoch. */
    public long readTimeMillis() {
        return readTimeMillis;
    }

    /** The host name the records are labelled with. */
    public String host() {
        return host;
    }

    /** The static fields of the batch's input. */
    public Map<String, String> fields() {
        return fields;
    }
}
