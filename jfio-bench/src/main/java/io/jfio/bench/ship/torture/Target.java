package io.jfio.bench.ship.torture;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A sink the shipper delivers to, seen from outside: the {@code --to} value, whether a record is there now (for the
 * rotator's truncate decision) and everything it holds (for the {@link Verifier}).
 *
 * <p>Implementations say their own threading; {@link #holds} is called by the rotator thread, the rest by the
 * run's thread.
 */
interface Target extends AutoCloseable {
    /** dir, tcp, kafka or s3. */
    String name();

    /** The shipper's {@code --to}. */
    String to();

    /** More arguments of the shipper for this sink (e.g. {@code --config FILE}). */
    default List<String> args() {
        return List.of();
    }

    /** The process that serves the sink, paused for outages; 0 when the sink has none of its own. */
    default long serverPid() {
        return 0;
    }

    /** True when the sink holds {@code record} (a whole line, newline included) now. */
    boolean holds(byte[] record) throws IOException;

    /** Hands everything the sink holds to {@code v}, stream by stream, in the sink's order. */
    void read(Verifier v) throws IOException;

    @Override
    void close() throws IOException;

    /**
     * True when {@code record} is a whole line in the last {@code maxBytes} of the files (read from the last file
     * backwards). Records arrive roughly in the order they are written, so a record just written is near the end.
     */
    static boolean tailHolds(List<Path> files, byte[] record, long maxBytes) throws IOException {
        return tailHolds(files, record, maxBytes, -1);
    }

    /** {@link #tailHolds(List, byte[], long)} with the last file read only up to {@code lastLength} (-1: whole). */
    static boolean tailHolds(List<Path> files, byte[] record, long maxBytes, long lastLength) throws IOException {
        long budget = maxBytes;
        for (int i = files.size() - 1; i >= 0 && budget > 0; i--) {
            Path f = files.get(i);
            byte[] b;
            long start;
            try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "r")) {
                long len = i == files.size() - 1 && lastLength >= 0 ? Math.min(lastLength, raf.length())
                        : raf.length();
                start = Math.max(0, len - budget);
                b = new byte[(int) (len - start)];
                raf.seek(start);
                raf.readFully(b);
            } catch (java.io.FileNotFoundException | java.nio.file.NoSuchFileException gone) {
                continue;
            }
            budget -= b.length;
            if (indexOfLine(b, start == 0, record) >= 0) return true;
        }
        return false;
    }

    /** Where {@code line} starts in {@code b} at a line start ({@code atStart}: b[0] starts a line), or -1. */
    static int indexOfLine(byte[] b, boolean atStart, byte[] line) {
        outer:
        for (int i = 0; i + line.length <= b.length; i++) {
            if (i == 0 ? !atStart : b[i - 1] != '\n') continue;
            for (int j = 0; j < line.length; j++) {
                if (b[i + j] != line[j]) continue outer;
            }
            return i;
        }
        return -1;
    }

    /** The files of a directory whose names match, sorted by {@code order}. */
    static List<Path> list(Path dir, java.util.function.Predicate<String> names,
                           java.util.Comparator<Path> order) throws IOException {
        if (!Files.isDirectory(dir)) return List.of();
        try (var s = Files.list(dir)) {
            return s.filter(p -> names.test(p.getFileName().toString())).sorted(order).toList();
        }
    }
}
