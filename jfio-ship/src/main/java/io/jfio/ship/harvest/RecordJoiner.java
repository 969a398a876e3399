package io.jfio.ship.harvest;

import io.jfio.ship.config.Multiline;
import java.lang.foreign.MemorySegment;

/**
 * Not thread-safe: its matcher keeps state; one instance per input per pipeline thread.
 *
 * <p>Cuts complete lines into multiline records ({@link Multiline}). The bytes handed in begin with a record's first
 * line (a batch always ends at a record boundary, so the next read starts at one); the joiner finds the boundaries
 * after it. The last record found is still open, because the line that would end it has not been read, unless a limit
 * ({@code max-lines}, {@code max-bytes}) ended it: only the records before it can ship, and the read offset, hence
 * every checkpoint, stays at the start of a record.
 */
public final class RecordJoiner {
    private final LineMatcher matcher;
    private final boolean startMode;
    private final int maxLines;
    private final long maxBytes;

    /** The result of a cut, written into a reusable holder. Not thread-safe. */
    public static final class Cut {
        /** Where the last complete record ends (the open record's start); 0 when no record is complete. */
        public long end;
        /** The complete records in {@code [0, end)}. */
        public long records;
        /** Where each complete record ends, {@code records} of them (the last is {@code end}). */
        public long[] ends = new long[64];

        void add(long at) {
            if (records == ends.length) ends = java.util.Arrays.copyOf(ends, ends.length * 2);
            ends[(int) records++] = at;
        }
    }

    public RecordJoiner(Multiline m) {
        this.matcher = LineMatcher.of(m);
        this.startMode = m.mode() == Multiline.Mode.START;
        this.maxLines = m.maxLines();
        this.maxBytes = m.maxBytes();
    }

    /**
     * Finds the record boundaries in {@code [0, linesEnd)} of {@code seg}, which holds complete lines only (it ends
     * just after a newline) and begins with a record's first line.
     */
    public Cut cut(MemorySegment seg, long linesEnd, Cut out) {
        out.records = 0;
        long boundary = 0;
        long recordStart = 0;
        int lines = 0;
        long pos = 0;
        while (pos < linesEnd) {
            long nl = Framer.indexOfNewline(seg, pos, linesEnd);
            long lineEnd = nl < 0 ? linesEnd : nl + 1;
            if (lines > 0) {
                boolean starts = matcher.matches(seg, pos, nl < 0 ? linesEnd : nl) == startMode;
                if (starts || lineEnd - recordStart > maxBytes) {
                    out.add(pos);
                    boundary = pos;
                    recordStart = pos;
                    lines = 0;
                }
            }
            lines++;
            if (lines >= maxLines || lineEnd - recordStart >= maxBytes) {
                out.add(lineEnd);
                boundary = lineEnd;
                recordStart = lineEnd;
                lines = 0;
            }
            pos = lineEnd;
        }
        out.end = boundary;
        return out;
    }
}
