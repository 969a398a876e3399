package io.jfio.ship.harvest;

/**
 * Thread-safe; stateless.
 *
 * <p>Writes bytes as the contents of a JSON string, checking UTF-8 on the way: valid UTF-8 passes unchanged, {@code "}
 * and {@code \} are escaped, control characters become {@code \n}, {@code \t}, {@code \r}, {@code \b}, {@code \f} or
 * six-byte escapes such as NUL's, and each byte that is not part of a valid UTF-8 sequence (a stray
 * continuation byte, a truncated or overlong sequence, an encoded surrogate, a code point above U+10FFFF) becomes
 * U+FFFD, the replacement character. The output is always valid UTF-8 and valid JSON. JSON libraries escape text they
 * are given as characters; this takes the file's bytes, which may be anything, without decoding them to a String
 * first (one pass, no garbage), which is what makes ndjson fast enough to keep up with reading.
 */
public final class JsonText {
    /** The most bytes one input byte can become (the six of an escaped control character). */
    public static final int MAX_EXPANSION = 6;
    private static final byte[] HEX = "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    /** 0: copy; 1: escape; 2: a byte of a multi-byte sequence (or an invalid one). */
    private static final byte[] CLASS = new byte[256];

    static {
        for (int b = 0; b < 0x20; b++) CLASS[b] = 1;
        CLASS['"'] = 1;
        CLASS['\\'] = 1;
        for (int b = 0x80; b < 0x100; b++) CLASS[b] = 2;
    }

    private JsonText() {
    }

    /**
     * Writes {@code src[from, to)} escaped into {@code out} at {@code o}; {@code out} must have room for
     * {@code (to - from) * MAX_EXPANSION} bytes.
     *
     * @return the index after the last byte written
     */
    public static int escape(byte[] src, int from, int to, byte[] out, int o) {
        return (int) escapeRun(src, from, to, out, o, Integer.MAX_VALUE, false);
    }

    /**
     * Writes {@code src[from, to)} escaped into {@code out} at {@code o} as {@link #escape} does, but stops after the
     * first newline (which is consumed and not written) or when fewer than {@link #STEP} bytes of {@code out} are left
     * before {@code limit}: the newline search and the escaping in one pass over the bytes.
     *
     * @return the index in {@code src} where it stopped (just after the newline when it found one) in the high 32
     *         bits, and the index after the last byte written in {@code out} in the low 32 bits
     */
    public static long escapeLine(byte[] src, int from, int to, byte[] out, int o, int limit) {
        return escapeRun(src, from, to, out, o, limit - STEP, true);
    }

    /**
     * The one escaping loop: eight plain ASCII bytes at a time (most of a log line needs no escape and no UTF-8
     * check), else a byte or a UTF-8 sequence; until {@code to}, or a newline when {@code line} (consumed, not
     * written), or once {@code out}'s index passes {@code stop}.
     *
     * @return the index in {@code src} where it stopped in the high 32 bits, the index after the last byte written in
     *         {@code out} in the low 32 bits
     */
    private static long escapeRun(byte[] src, int from, int to, byte[] out, int o, int stop, boolean line) {
        int i = from;
        while (i < to && o <= stop) {
            if (i + 8 <= to) {
                long x = (long) WORD.get(src, i);
                if (plain(x)) {
                    WORD.set(out, o, x);
                    i += 8;
                    o += 8;
                    continue;
                }
            }
            byte b = src[i];
            int c = CLASS[b & 0xff];
            if (c == 0) {
                out[o++] = b;
                i++;
            } else if (c == 1) {
                i++;
                if (line && b == '\n') break;
                o = control(b, out, o);
            } else {
                int n = sequence(src, i, to);
                o = copySequence(src, i, n, out, o);
                i += Math.max(n, 1);
            }
        }
        return ((long) i << 32) | (o & 0xffffffffL);
    }

    /**
     * Writes the valid UTF-8 sequence of {@code n} bytes at {@code src[i]}, or U+FFFD for the invalid byte there when
     * {@code n} is 0, into {@code out} at {@code o}; the index after the last byte written.
     */
    private static int copySequence(byte[] src, int i, int n, byte[] out, int o) {
        if (n == 0) {
            out[o] = (byte) 0xef;
            out[o + 1] = (byte) 0xbf;
            out[o + 2] = (byte) 0xbd;
            return o + 3;
        }
        for (int k = 0; k < n; k++) out[o + k] = src[i + k];
        return o + n;
    }

    /** The most bytes one step of {@link #escapeLine} writes: a word, or one escaped or replaced byte. */
    public static final int STEP = 8;

    private static final java.lang.invoke.VarHandle WORD = java.lang.invoke.MethodHandles.byteArrayViewVarHandle(
            long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGH = 0x8080808080808080L;

    /**
     * Whether none of the eight bytes needs attention: none is at or above 0x80, below 0x20, {@code "} or {@code \}.
     * The tests are the exact any-byte forms ({@code (x - n * ONES) & ~x & HIGH} is non-zero exactly when some byte is
     * below n, for n up to 0x80, and for n = 1 with {@code x ^ c} when some byte equals c).
     */
    static boolean plain(long x) {
        long quote = x ^ 0x2222222222222222L;
        long backslash = x ^ 0x5c5c5c5c5c5c5c5cL;
        long bad = (x | ((x - 0x20 * ONES) & ~x) | ((quote - ONES) & ~quote) | ((backslash - ONES) & ~backslash))
                & HIGH;
        return bad == 0;
    }

    private static int control(byte b, byte[] out, int o) {
        out[o++] = '\\';
        switch (b) {
            case '"' -> out[o++] = '"';
            case '\\' -> out[o++] = '\\';
            case '\n' -> out[o++] = 'n';
            case '\t' -> out[o++] = 't';
            case '\r' -> out[o++] = 'r';
            case '\b' -> out[o++] = 'b';
            case '\f' -> out[o++] = 'f';
            default -> {
                out[o++] = 'u';
                out[o++] = '0';
                out[o++] = '0';
                out[o++] = HEX[(b >> 4) & 0xf];
                out[o++] = HEX[b & 0xf];
            }
        }
        return o;
    }

    /** The length of the valid UTF-8 sequence that starts at {@code src[i]} (a byte of 0x80 or above), or 0. */
    static int sequence(byte[] src, int i, int to) {
        int b0 = src[i] & 0xff;
        int n;
        int lo = 0x80;
        int hi = 0xbf;
        if (b0 >= 0xc2 && b0 <= 0xdf) {
            n = 2;
        } else if (b0 >= 0xe0 && b0 <= 0xef) {
            n = 3;
            if (b0 == 0xe0) lo = 0xa0;
            if (b0 == 0xed) hi = 0x9f;
        } else if (b0 >= 0xf0 && b0 <= 0xf4) {
            n = 4;
            if (b0 == 0xf0) lo = 0x90;
            if (b0 == 0xf4) hi = 0x8f;
        } else {
            return 0;
        }
        if (i + n > to) return 0;
        int b1 = src[i + 1] & 0xff;
        if (b1 < lo || b1 > hi) return 0;
        for (int k = 2; k < n; k++) {
            int b = src[i + k] & 0xff;
            if (b < 0x80 || b > 0xbf) return 0;
        }
        return n;
    }
}
