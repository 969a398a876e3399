package io.jfio.bench.ship;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * The benchmark's log lines: 92 bytes each (91 + newline), shaped like an application log line, with a sequence
 * number, the source file's number and the append time, all at fixed offsets so a receiver can read them back
 * without searching.
 *
 * <pre>
 * 2026-11-21T11:29:33.123Z host-01 app: seq=0000000042 t=0000001234567890 src=007 msg=payload
 * </pre>
 *
 * <p>{@code t} is {@link System#nanoTime()} minus the run's origin at the moment of the append, in nanoseconds:
 * writer and receiver live in the same (benchmark) JVM, so one monotonic clock serves both. Thread-safe; stateless.
 */
public final class LogLines {
    /** Bytes per line, newline included. */
    public static final int LINE = 92;
    private static final String TEMPLATE =
            "2026-11-21T11:29:33.123Z host-01 app: seq=0000000000 t=0000000000000000 src=000 msg=payload\n";
    static final int TS_OFF = 0;
    static final int TS_LEN = 24;
    static final int SEQ_OFF = TEMPLATE.indexOf("seq=") + 4;
    static final int SEQ_LEN = 10;
    static final int T_OFF = TEMPLATE.indexOf(" t=") + 3;
    static final int T_LEN = 16;
    static final int SRC_OFF = TEMPLATE.indexOf("src=") + 4;
    static final int SRC_LEN = 3;

    static {
        if (TEMPLATE.length() != LINE) throw new AssertionError("template length " + TEMPLATE.length());
    }

    private LogLines() {
    }

    /** A fresh line buffer holding the template; patch it with {@link #fill}. */
    static byte[] template() {
        return TEMPLATE.getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Writes the variable fields of line {@code seq} of source {@code src}, appended at {@code t} ns, into the
     * template already at {@code off} of {@code b}.
     */
    static void fill(byte[] b, int off, long seq, long t, int src, byte[] timestamp) {
        System.arraycopy(timestamp, 0, b, off + TS_OFF, TS_LEN);
        digits(b, off + SEQ_OFF, SEQ_LEN, seq);
        digits(b, off + T_OFF, T_LEN, t);
        digits(b, off + SRC_OFF, SRC_LEN, src);
    }

    /** The wall-clock time as the line's 24-character ISO timestamp. */
    static byte[] timestamp(Instant now) {
        String s = now.truncatedTo(ChronoUnit.MILLIS).toString();
        // Instant.toString drops ".000" on whole seconds; the line format keeps its width.
        if (s.length() == 20) s = s.substring(0, 19) + ".000Z";
        byte[] b = s.getBytes(StandardCharsets.US_ASCII);
        if (b.length != TS_LEN) throw new IllegalStateException("timestamp width: " + s);
        return b;
    }

    private static void digits(byte[] b, int off, int len, long v) {
        for (int i = off + len - 1; i >= off; i--) {
            b[i] = (byte) ('0' + v % 10);
            v /= 10;
        }
    }

    /** The number at {@code off} of a line starting at {@code line}, or -1 if those bytes are not digits. */
    static long number(byte[] b, int line, int off, int len) {
        long v = 0;
        for (int i = line + off; i < line + off + len; i++) {
            int d = b[i] - '0';
            if (d < 0 || d > 9) return -1;
            v = v * 10 + d;
        }
        return v;
    }

    /**
     * Writes {@code lines} lines (sequence 0.., t = 0, source 0) to a new file, in 4 MiB writes, and returns its
     * size.
     */
    static long writeFile(Path file, long lines) throws IOException {
        int perChunk = (4 << 20) / LINE;
        byte[] chunk = new byte[perChunk * LINE];
        byte[] template = template();
        for (int i = 0; i < perChunk; i++) System.arraycopy(template, 0, chunk, i * LINE, LINE);
        long written = 0;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            long seq = 0;
            while (seq < lines) {
                int n = (int) Math.min(perChunk, lines - seq);
                // A new timestamp every chunk, about every 45,000 lines: it looks like a log and costs nothing.
                byte[] ts = timestamp(Instant.now());
                for (int i = 0; i < n; i++) fill(chunk, i * LINE, seq + i, 0, 0, ts);
                ByteBuffer bb = ByteBuffer.wrap(chunk, 0, n * LINE);
                while (bb.hasRemaining()) written += ch.write(bb);
                seq += n;
            }
        }
        return written;
    }
}
