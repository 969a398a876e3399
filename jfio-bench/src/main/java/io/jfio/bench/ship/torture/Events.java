package io.jfio.bench.ship.torture;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The run's event log ({@code events.log} in the sink's work directory): every rotation, deletion, shipper start,
 * kill and stop, one line each, stamped with the seconds since the run began, so that a lost or duplicated record
 * can be matched with what happened around it.
 *
 * <p>Thread-safe: writers, the rotator and the killer append concurrently; each line is written whole.
 */
final class Events implements AutoCloseable {
    private final Writer out;
    private final long origin = System.nanoTime();

    Events(Path file) throws IOException {
        this.out = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
    }

    /** Seconds since this log was opened. */
    double now() {
        return (System.nanoTime() - origin) / 1e9;
    }

    /** Appends {@code t=SECONDS event=WHAT ...} and flushes, so the file is complete even if the run dies. */
    synchronized void log(String event, String details) {
        try {
            out.write(String.format(Locale.ROOT, "t=%.3f event=%s %s%n", now(), event, details));
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public synchronized void close() throws IOException {
        out.close();
    }
}
