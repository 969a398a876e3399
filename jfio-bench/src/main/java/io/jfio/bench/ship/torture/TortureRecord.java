package io.jfio.bench.ship.torture;

import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * The torture run's record: one line of exactly {@link #SIZE} bytes, {@code w=2 n=0000012345 c=1a2b3c4d } followed by
 * padding and a newline. {@code w} is the writer, {@code n} its sequence number (from 0), {@code c} the CRC32C of
 * {@code "w=2 n=0000012345"}, and the padding a pattern that depends on both, so that a line torn, merged or mixed
 * with another one does not parse.
 *
 * <p>Thread-safe; stateless.
 */
public final class TortureRecord {
    /** Bytes per record, the newline included. */
    public static final int SIZE = 75;
    /** The highest writer number the format holds. */
    public static final int MAX_WRITER = 999;
    /** The highest sequence number the format holds (ten digits). */
    public static final long MAX_SEQ = 9_999_999_999L;

    private TortureRecord() {
    }

    /** A parsed record: writer and sequence number. */
    public record Id(int writer, long seq) {
        @Override
        public String toString() {
            return "w=" + writer + " n=" + seq;
        }
    }

    /** The record of writer {@code w}, number {@code n}, newline included. */
    public static byte[] format(int w, long n) {
        if (w < 0 || w > MAX_WRITER || n < 0 || n > MAX_SEQ) {
            throw new IllegalArgumentException("record out of range: w=" + w + " n=" + n);
        }
        String head = head(w, n);
        StringBuilder sb = new StringBuilder(SIZE).append(head).append(" c=").append(crcHex(head)).append(' ');
        int fill = SIZE - 1 - sb.length();
        for (int i = 0; i < fill; i++) sb.append(pad(w, n, i));
        sb.append('\n');
        return sb.toString().getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Parses one line ({@code len} bytes at {@code off}, without its newline: a Kafka record or a line of a file).
     *
     * @return the record's identity, or null when the bytes are not exactly a valid record
     */
    public static Id parse(byte[] b, int off, int len) {
        if (len != SIZE - 1) return null;
        String s = new String(b, off, len, StandardCharsets.US_ASCII);
        if (!s.startsWith("w=")) return null;
        int sp = s.indexOf(' ');
        if (sp < 3 || sp > 5 || !s.startsWith(" n=", sp)) return null;
        int w;
        long n;
        try {
            w = Integer.parseInt(s.substring(2, sp));
            String num = s.substring(sp + 3, sp + 13);
            for (int i = 0; i < num.length(); i++) {
                if (num.charAt(i) < '0' || num.charAt(i) > '9') return null;
            }
            n = Long.parseLong(num);
        } catch (NumberFormatException | IndexOutOfBoundsException e) {
            return null;
        }
        if (w < 0 || w > MAX_WRITER) return null;
        // The rest must be exactly what format writes for (w, n): checksum and padding included.
        byte[] expected = format(w, n);
        for (int i = 0; i < len; i++) {
            if (b[off + i] != expected[i]) return null;
        }
        return new Id(w, n);
    }

    private static String head(int w, long n) {
        return "w=" + w + " n=" + String.format("%010d", n);
    }

    private static String crcHex(String head) {
        CRC32C c = new CRC32C();
        c.update(head.getBytes(StandardCharsets.US_ASCII));
        return String.format("%08x", c.getValue());
    }

    /** The padding's i-th character: letters that shift with the writer and the number. */
    private static char pad(int w, long n, int i) {
        return (char) ('a' + (int) ((n + 7L * w + i) % 26));
    }
}
