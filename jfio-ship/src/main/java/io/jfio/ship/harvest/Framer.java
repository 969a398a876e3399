package io.jfio.ship.harvest;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Finds newline-terminated records in native memory, eight bytes at a time (SWAR): a word is XORed with
 * {@code 0x0a0a...} so that newlines become zero bytes, and an exact zero-byte test ({@code ~(((x & 0x7f..) +
 * 0x7f..) | x | 0x7f..)}, no carries between bytes, so no false positives) marks them in the high bit of each
 * byte. Words without a newline cost five operations; a word with newlines adds a popcount and two bit scans. This
 * runs at several GB/s, so framing is not what limits shipping.
 *
 * <p>Thread-safe; stateless.
 */
public final class Framer {
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final long NEWLINES = 0x0a0a0a0a0a0a0a0aL;
    private static final long LOW7 = 0x7f7f7f7f7f7f7f7fL;

    private Framer() {
    }

    /**
     * The result of a scan, written into a reusable holder (the pipeline scans millions of times; no garbage).
     * Not thread-safe.
     */
    public static final class Scan {
        /** Complete records found, all no longer than the limit. */
        public long records;
        /** The index just after the last accepted record's newline; 0 when there is none. */
        public long end;
        /** The start of the first record longer than the limit (terminated or not), or -1. */
        public long overlong = -1;
    }

    /**
     * Scans {@code [0, length)} of {@code seg}: records are counted up to the last newline, stopping before the first
     * record longer than {@code maxRecord} bytes (its newline not counted). An unterminated tail longer than
     * {@code maxRecord} is reported as overlong too.
     */
    public static Scan scan(MemorySegment seg, long length, long maxRecord, Scan out) {
        long records = 0;
        long lineStart = 0;
        long i = 0;
        long words = length & ~7L;
        for (; i < words; i += 8) {
            long x = seg.get(WORD, i) ^ NEWLINES;
            long m = ~(((x & LOW7) + LOW7) | x | LOW7);
            if (m == 0) continue;
            long first = i + (Long.numberOfTrailingZeros(m) >>> 3);
            if (first - lineStart > maxRecord) return done(out, records, lineStart, lineStart);
            // Gaps inside one word are below 8 bytes, and the limit is at least 64.
            records += Long.bitCount(m);
            lineStart = i + ((63 - Long.numberOfLeadingZeros(m)) >>> 3) + 1;
        }
        for (; i < length; i++) {
            if (seg.get(ValueLayout.JAVA_BYTE, i) == '\n') {
                if (i - lineStart > maxRecord) return done(out, records, lineStart, lineStart);
                records++;
                lineStart = i + 1;
            }
        }
        if (length - lineStart > maxRecord) return done(out, records, lineStart, lineStart);
        return done(out, records, lineStart, -1);
    }

    private static Scan done(Scan out, long records, long end, long overlong) {
        out.records = records;
        out.end = end;
        out.overlong = overlong;
        return out;
    }

    /** The index of the first newline in {@code [from, length)}, or -1. */
    public static long indexOfNewline(MemorySegment seg, long from, long length) {
        long i = from;
        for (; i < length && (i & 7) != 0; i++) {
            if (seg.get(ValueLayout.JAVA_BYTE, i) == '\n') return i;
        }
        for (; i + 8 <= length; i += 8) {
            long x = seg.get(WORD, i) ^ NEWLINES;
            long m = ~(((x & LOW7) + LOW7) | x | LOW7);
            if (m != 0) return i + (Long.numberOfTrailingZeros(m) >>> 3);
        }
        for (; i < length; i++) {
            if (seg.get(ValueLayout.JAVA_BYTE, i) == '\n') return i;
        }
        return -1;
    }
}
