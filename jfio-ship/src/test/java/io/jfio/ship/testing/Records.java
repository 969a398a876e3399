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
