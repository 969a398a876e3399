package io.jfio.ship.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jfio.ship.sink.DirSink;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Checks what a dir sink received from {@link Writer}s: every record, per generation (one source file) in order.
 *
 * <p>Not thread-safe.
 */
public final class Records {
    /** How often each record number arrived. */
    public final int[] count;
    /** Records that arrived more than once. */
    public int duplicates;

    private Records(int total) {
        count = new int[total + 1];
    }

    /**
     * Parses the sink's segments.
     *
     * @param inOrder whether each generation's records must be in increasing order (not after a crash, where a
     *                resend goes back)
     */
    public static Records read(Path sinkDir, int total, boolean inOrder) {
        return parse(new String(DirSink.readAll(sinkDir), StandardCharsets.US_ASCII), total, inOrder);
    }

    /** Parses records as {@link #read} does, from text (e.g. what a TCP receiver or a Kafka topic got). */
    public static Records parse(String all, int total, boolean inOrder) {
        Records r = new Records(total);
        Map<Integer, Integer> lastByGen = new HashMap<>();
        int lineNo = 0;
        for (String line : all.split("\n", -1)) {
            lineNo++;
            if (line.isEmpty()) continue;
            String[] f = line.split(" ", 3);
            if (f.length < 2 || !f[0].startsWith("g=") || !f[1].startsWith("n=")) {
                fail("not a record at line " + lineNo + ": '" + line + "'");
            }
            int gen = Integer.parseInt(f[0].substring(2));
            int n = Integer.parseInt(f[1].substring(2));
            String pad = f.length > 2 ? f[2] : "";
            assertEquals("x".repeat(n % 50), pad, "record damaged at line " + lineNo);
            if (r.count[n]++ > 0) r.duplicates++;
            Integer prev = lastByGen.put(gen, n);
            if (inOrder && prev != null && n <= prev && r.count[n] == 1) {
                fail("out of order in generation " + gen + ": " + prev + " then " + n);
            }
        }
        return r;
    }

    /** Records cut short, counted by {@link #parseAllowingTorn}. */
    public int torn;

    /** What may be left of a record cut anywhere: a prefix of {@code g=G n=N xx...}. */
    private static final java.util.regex.Pattern PREFIX = java.util.regex.Pattern.compile(
            "g(=(\\d+( (n(=(\\d+( x*)?)?)?)?)?)?)?");

    /**
     * Parses as {@link #parse} does (not in order), but takes a record cut short for torn, counted in {@link #torn}
     * and otherwise left out: a prefix of a record at the end of a line, or run together with the record after it.
     * logrotate's copytruncate can copy a write it catches halfway, and such a copy ends in part of a record; the
     * files then hold it, and a sink that delivers their bytes as they are holds it as well.
     */
    public static Records parseAllowingTorn(String all, int total) {
        Records r = new Records(total);
        int lineNo = 0;
        for (String line : all.split("\n", -1)) {
            lineNo++;
            if (line.isEmpty()) continue;
            // The pieces of a line: a new record starts at every "g=" (the padding is only 'x').
            int from = 0;
            while (from < line.length()) {
                int next = line.indexOf("g=", from + 1);
                String piece = line.substring(from, next < 0 ? line.length() : next);
                from = next < 0 ? line.length() : next;
                if (!PREFIX.matcher(piece).matches()) {
                    fail("not a record or part of one at line " + lineNo + ": '" + line + "'");
                }
                String[] f = piece.split(" ", 3);
                int pad = f.length == 3 ? f[2].length() : -1;
                int want = f.length == 3 ? Integer.parseInt(f[1].substring(2)) % 50 : 0;
                if (pad > want) fail("record damaged at line " + lineNo + ": '" + line + "'");
                if (next < 0 && pad == want) {
                    int n = Integer.parseInt(f[1].substring(2));
                    if (r.count[n]++ > 0) r.duplicates++;
                } else {
                    r.torn++; // cut short, or whole but run together with the next record (its newline missing)
                }
            }
        }
        return r;
    }

    /** Asserts that every record 1..total arrived at least once. */
    public Records assertComplete() {
        StringBuilder missing = new StringBuilder();
        int m = 0;
        for (int i = 1; i < count.length; i++) {
            if (count[i] == 0) {
                if (m++ < 20) missing.append(i).append(' ');
            }
        }
        assertTrue(m == 0, m + " records missing: " + missing);
        return this;
    }

    /** Asserts that no record arrived twice. */
    public Records assertNoDuplicates() {
        assertEquals(0, duplicates, "duplicates");
        return this;
    }
}
