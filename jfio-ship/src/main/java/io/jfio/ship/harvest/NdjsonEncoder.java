package io.jfio.ship.harvest;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;

/**
 * Not thread-safe; owned by the pipeline thread.
 *
 * <p>Encodes records as NDJSON, one object per record and line:
 * <pre>
 * {"message":"...","offset":N,"path":"...","host":"...","device":N,"inode":N,"read_time":"...","input":"...",
 *  "fields":{...}}
 * </pre>
 * {@code message} is the record's bytes without its last newline (a multiline record's inner newlines are
 * {@code \n}), as {@link JsonText} writes them (invalid UTF-8 replaced by U+FFFD); {@code offset} is where the record
 * starts in the file; {@code path} the file's name as the shipper found it (bytes that are not UTF-8 replaced too);
 * {@code device} and {@code inode} its identity; {@code read_time} when the shipper read it (UTC, milliseconds);
 * {@code fields} the input's static fields (left out when there are none). Everything after {@code offset} is the
 * same for a batch's records and is made once per batch.
 */
public final class NdjsonEncoder {
    private static final byte[] OPEN = "{\"message\":\"".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] OFFSET = "\",\"offset\":".getBytes(StandardCharsets.US_ASCII);
    private byte[] shared = new byte[256];
    private int sharedLength;
    private byte[] out = new byte[1 << 16];
    private int length;

    /** Starts a batch: the metadata its records share. */
    public void begin(byte[] path, String host, long device, long inode, boolean identity, String readTime,
                      String input, Map<String, String> fields) {
        length = 0;
        byte[] s = new byte[64 + (path.length + host.length() * 3 + input.length() * 3) * JsonText.MAX_EXPANSION
                + fieldsSize(fields)];
        int o = 0;
        o = name(s, o, ",\"path\":\"");
        o = JsonText.escape(path, 0, path.length, s, o);
        o = name(s, o, "\",\"host\":\"");
        o = string(s, o, host);
        s[o++] = '"';
        if (identity) {
            o = name(s, o, ",\"device\":");
            o = name(s, o, Long.toUnsignedString(device));
            o = name(s, o, ",\"inode\":");
            o = name(s, o, Long.toUnsignedString(inode));
        }
        o = name(s, o, ",\"read_time\":\"");
        o = name(s, o, readTime);
        o = name(s, o, "\",\"input\":\"");
        o = string(s, o, input);
        s[o++] = '"';
        if (!fields.isEmpty()) {
            o = name(s, o, ",\"fields\":{");
            boolean first = true;
            for (Map.Entry<String, String> f : fields.entrySet()) {
                if (!first) s[o++] = ',';
                first = false;
                s[o++] = '"';
                o = string(s, o, f.getKey());
                o = name(s, o, "\":\"");
                o = string(s, o, f.getValue());
                s[o++] = '"';
            }
            s[o++] = '}';
        }
        s[o++] = '}';
        s[o++] = '\n';
        shared = s;
        sharedLength = o;
    }

    private static int fieldsSize(Map<String, String> fields) {
        int n = 16;
        for (Map.Entry<String, String> f : fields.entrySet()) {
            n += 8 + (f.getKey().length() + f.getValue().length()) * 3 * JsonText.MAX_EXPANSION;
        }
        return n;
    }

    private static int name(byte[] s, int o, String ascii) {
        for (int i = 0; i < ascii.length(); i++) s[o++] = (byte) ascii.charAt(i);
        return o;
    }

    private static int string(byte[] s, int o, String text) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        return JsonText.escape(b, 0, b.length, s, o);
    }

    /**
     * Appends the record {@code src[from, to)} (its newline, if any, included: it is left out of the message) that
     * starts at {@code offset} in the file.
     *
     * @return where the record's line ends in the output (after its newline)
     */
    public int record(byte[] src, int from, int to, long offset) {
        int end = to > from && src[to - 1] == '\n' ? to - 1 : to;
        int need = length + OPEN.length + (end - from) * JsonText.MAX_EXPANSION + OFFSET.length + 20 + sharedLength;
        if (need > out.length) out = Arrays.copyOf(out, Math.max(need, out.length * 2));
        byte[] o = out;
        int p = length;
        System.arraycopy(OPEN, 0, o, p, OPEN.length);
        p += OPEN.length;
        p = JsonText.escape(src, from, end, o, p);
        System.arraycopy(OFFSET, 0, o, p, OFFSET.length);
        p += OFFSET.length;
        p = decimal(offset, o, p);
        System.arraycopy(shared, 0, o, p, sharedLength);
        p += sharedLength;
        length = p;
        return p;
    }

    /**
     * Appends the record that starts at {@code src[from]} and ends after the first newline before {@code to} (the
     * newline left out of the message), or at {@code to} when there is none; it starts at {@code offset} in the file.
     * The newline is found by the escaping's own pass over the bytes.
     *
     * @return where the record ends in {@code src} (after its newline); {@link #length()} is where it ends in the
     *         output
     */
    public int line(byte[] src, int from, int to, long offset) {
        int tail = OFFSET.length + 20 + sharedLength + 2;
        int room = OPEN.length + 2 * JsonText.STEP + tail;
        if (out.length - length < room) out = Arrays.copyOf(out, Math.max(length + room, out.length * 2));
        int p = length;
        System.arraycopy(OPEN, 0, out, p, OPEN.length);
        p += OPEN.length;
        int i = from;
        while (true) {
            int before = i;
            long r = JsonText.escapeLine(src, i, to, out, p, out.length - tail);
            i = (int) (r >>> 32);
            p = (int) r;
            if (i >= to || (i > before && src[i - 1] == '\n')) break;
            out = Arrays.copyOf(out, out.length * 2);
        }
        byte[] o = out;
        System.arraycopy(OFFSET, 0, o, p, OFFSET.length);
        p += OFFSET.length;
        p = decimal(offset, o, p);
        System.arraycopy(shared, 0, o, p, sharedLength);
        length = p + sharedLength;
        return i;
    }

    /** Two ASCII digits for each of 0..99, so that an offset takes one division per two digits. */
    private static final byte[] PAIRS = new byte[200];
    /** 10^0 .. 10^18. */
    private static final long[] POW10 = new long[19];

    static {
        for (int i = 0; i < 100; i++) {
            PAIRS[2 * i] = (byte) ('0' + i / 10);
            PAIRS[2 * i + 1] = (byte) ('0' + i % 10);
        }
        POW10[0] = 1;
        for (int i = 1; i < POW10.length; i++) POW10[i] = POW10[i - 1] * 10;
    }

    /**
     * The number of decimal digits of {@code v} (not negative): from its bit length (1233 / 4096 is log10(2) from
     * below), corrected by one comparison, instead of a division per digit.
     */
    static int digits(long v) {
        if (v < 10) return 1;
        int t = ((64 - Long.numberOfLeadingZeros(v)) * 1233) >>> 12;
        return v >= POW10[t] ? t + 1 : t;
    }

    /** Writes {@code v} (not negative) in decimal at {@code p}; returns the index after it. */
    static int decimal(long v, byte[] o, int p) {
        int digits = digits(v);
        int i = p + digits;
        if (v <= Integer.MAX_VALUE) {
            // Most offsets: int division is the cheaper one.
            int w = (int) v;
            while (w >= 100) {
                int q = w / 100;
                int r = w - q * 100;
                w = q;
                o[--i] = PAIRS[2 * r + 1];
                o[--i] = PAIRS[2 * r];
            }
            v = w;
        }
        while (v >= 100) {
            long q = v / 100;
            int r = (int) (v - q * 100);
            v = q;
            o[--i] = PAIRS[2 * r + 1];
            o[--i] = PAIRS[2 * r];
        }
        if (v >= 10) {
            o[--i] = PAIRS[2 * (int) v + 1];
            o[--i] = PAIRS[2 * (int) v];
        } else {
            o[--i] = (byte) ('0' + v);
        }
        return p + digits;
    }

    /** The batch's output so far. */
    public byte[] bytes() {
        return out;
    }

    /** How many bytes of {@link #bytes()} are the batch's output. */
    public int length() {
        return length;
    }
}
