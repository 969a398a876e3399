package io.jfio.bench.ship.torture;

import java.util.List;

/**
 * What one writer wrote: records {@code 0 .. written-1}, the first record of each file generation after the first,
 * and every rotated file with the records it held.
 *
 * <p>Immutable.
 *
 * @param writer    the writer's number
 * @param written   records written
 * @param genStarts first record of generation 1, 2, ... (generation 0 starts at 0), ascending
 * @param files     the rotated files
 */
public record Ledger(int writer, long written, List<Long> genStarts, List<File> files) {
    /**
     * A rotated file.
     *
     * @param name    its name
     * @param first   its first record
     * @param end     one past its last record
     * @param copy    made by copytruncate (a second copy of records the live file also held)
     * @param deleted the rotator deleted it
     */
    public record File(String name, long first, long end, boolean copy, boolean deleted) {
        boolean holds(long n) {
            return n >= first && n < end;
        }
    }

    /** The generation record {@code n} was written in. */
    public int generation(long n) {
        int g = 0;
        while (g < genStarts.size() && genStarts.get(g) <= n) g++;
        return g;
    }

    /** How many files held record {@code n}: 1 plus the copytruncate copies of it. */
    public int copies(long n) {
        int c = 1;
        for (File f : files) {
            if (f.copy && f.holds(n)) c++;
        }
        return c;
    }

    /** True when record {@code n} was in a rotated file that was deleted. */
    public boolean deleted(long n) {
        for (File f : files) {
            if (f.deleted && f.holds(n)) return true;
        }
        return false;
    }

    /** Where record {@code n} was when the run ended: the rotated file's name (and "deleted"), or the live file. */
    public String whereabouts(long n) {
        StringBuilder sb = new StringBuilder();
        for (File f : files) {
            if (f.holds(n)) {
                if (!sb.isEmpty()) sb.append(", ");
                sb.append(f.name).append(f.copy ? " (copy" : " (renamed").append(f.deleted ? ", deleted)" : ")");
            }
        }
        return sb.isEmpty() ? "w" + writer + ".log (generation " + generation(n) + ")" : sb.toString();
    }
}
