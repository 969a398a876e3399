package io.jfio.bench.ship.torture;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Counts what a sink holds against what the writers wrote ({@link Ledger}s): every line of every stream is parsed
 * ({@link TortureRecord}) and counted per writer and record number. A record is <b>lost</b> when it was written and
 * never delivered, <b>duplicated</b> for each delivery beyond the first: a writer wrote it once, and a copy that
 * copytruncate made of it holds the same record, which the shipper must recognise and not deliver again (such
 * duplicates are also counted apart, as <b>copies</b>, to say where they came from), <b>damaged</b> when a line
 * is not a valid record (or a valid record nobody wrote). A stream's last bytes without a newline are <b>torn</b>.
 * <b>Out of order</b> counts the deliveries of a stream that step back behind the previous delivery of the same
 * writer and file generation.
 *
 * <p>Not thread-safe; one verifier per reading of a sink.
 */
public final class Verifier {
    /** How many lost, damaged and torn examples the tally keeps. */
    static final int SAMPLES = 10;

    private final List<Ledger> ledgers;
    private final int[][] counts;
    private final Map<String, Map<Long, Long>> lastInStream = new HashMap<>();
    private long damaged;
    private long torn;
    private long outOfOrder;
    private final List<String> damagedSamples = new ArrayList<>();
    private final List<String> tornSamples = new ArrayList<>();

    public Verifier(List<Ledger> ledgers) {
        this.ledgers = ledgers;
        this.counts = new int[ledgers.size()][];
        for (int i = 0; i < ledgers.size(); i++) {
            if (ledgers.get(i).writer() != i) throw new IllegalArgumentException("ledgers out of order");
            counts[i] = new int[Math.toIntExact(ledgers.get(i).written())];
        }
    }

    /**
     * Adds the bytes of a file (or a part of a stream, e.g. one segment) that continues {@code stream}: lines ending
     * in a newline; what follows the last newline is torn.
     */
    public void addBytes(String stream, String where, byte[] data) {
        int start = 0;
        for (int i = 0; i < data.length; i++) {
            if (data[i] == '\n') {
                line(stream, where, data, start, i - start);
                start = i + 1;
            }
        }
        if (start < data.length) {
            torn++;
            if (tornSamples.size() < SAMPLES) {
                tornSamples.add(where + ": " + (data.length - start) + " bytes \"" + show(data, start,
                        data.length - start) + "\"");
            }
        }
    }

    /** Adds one record of {@code stream} without its newline (a Kafka record's value). */
    public void addRecord(String stream, String where, byte[] value) {
        line(stream, where, value, 0, value.length);
    }

    private void line(String stream, String where, byte[] b, int off, int len) {
        TortureRecord.Id id = TortureRecord.parse(b, off, len);
        if (id == null || id.writer() >= counts.length || id.seq() >= counts[id.writer()].length) {
            damaged++;
            if (damagedSamples.size() < SAMPLES) {
                damagedSamples.add(where + ": " + (id == null ? "" : "never written: ") + "\"" + show(b, off, len)
                        + "\"");
            }
            return;
        }
        counts[id.writer()][(int) id.seq()]++;
        long key = ((long) id.writer() << 32) | ledgers.get(id.writer()).generation(id.seq());
        Long prev = lastInStream.computeIfAbsent(stream, k -> new HashMap<>()).put(key, id.seq());
        if (prev != null && id.seq() < prev) outOfOrder++;
    }

    private static String show(byte[] b, int off, int len) {
        String s = new String(b, off, Math.min(len, 90), StandardCharsets.US_ASCII).replace("\n", "\\n");
        return len > 90 ? s + "..." : s;
    }

    /** Counts of what was added so far. */
    public Counts counts() {
        long written = 0;
        long delivered = 0;
        long lost = 0;
        long duplicated = 0;
        long copies = 0;
        long lostDeleted = 0;
        List<String> lostSamples = new ArrayList<>();
        for (int w = 0; w < counts.length; w++) {
            Ledger l = ledgers.get(w);
            boolean anyCopy = l.files().stream().anyMatch(Ledger.File::copy);
            written += counts[w].length;
            for (int n = 0; n < counts[w].length; n++) {
                int c = counts[w][n];
                delivered += c;
                if (c == 0) {
                    lost++;
                    if (l.deleted(n)) lostDeleted++;
                    if (lostSamples.size() < SAMPLES) lostSamples.add("w=" + w + " n=" + n + " in " + l.whereabouts(n));
                    continue;
                }
                if (c > 1) {
                    duplicated += c - 1;
                    if (anyCopy && l.copies(n) > 1) copies += c - 1;
                }
            }
        }
        return new Counts(written, delivered, lost, lostDeleted, duplicated, copies, damaged, torn, outOfOrder,
                List.copyOf(lostSamples), List.copyOf(damagedSamples), List.copyOf(tornSamples));
    }

    /**
     * What a sink held.
     *
     * @param written        records written
     * @param delivered      records delivered, repeats included
     * @param lost           written, never delivered
     * @param lostDeleted    of those, records that were in a rotated file the rotator deleted
     * @param duplicated     deliveries beyond the first
     * @param copies         of those, deliveries of records that a copytruncate copy also held
     * @param damaged        lines that are not a valid written record
     * @param torn           streams ending in part of a line
     * @param outOfOrder     deliveries stepping back within one writer's file generation in one stream
     * @param lostSamples    the first lost records and the file that held them
     * @param damagedSamples the first damaged lines and where they were
     * @param tornSamples    the first torn stream ends
     */
    public record Counts(long written, long delivered, long lost, long lostDeleted, long duplicated, long copies,
                         long damaged, long torn, long outOfOrder, List<String> lostSamples,
                         List<String> damagedSamples, List<String> tornSamples) {
        /** Bytes of the duplicated deliveries. */
        public long duplicateBytes() {
            return duplicated * TortureRecord.SIZE;
        }
    }
}
