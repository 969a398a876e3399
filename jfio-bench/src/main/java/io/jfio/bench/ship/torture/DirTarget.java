package io.jfio.bench.ship.torture;

import io.jfio.ship.sink.DirSink;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The dir sink ({@code dir:OUT}): its segment files in order, read as one stream.
 *
 * <p>Thread-safe: it only reads files.
 */
final class DirTarget implements Target {
    /** How much of the sink's end a {@link #holds} reads. */
    private static final long TAIL = 8L << 20;

    private final Path out;

    DirTarget(Path out) {
        this.out = out;
    }

    @Override
    public String name() {
        return "dir";
    }

    @Override
    public String to() {
        return "dir:" + out;
    }

    @Override
    public boolean holds(byte[] record) throws IOException {
        return Target.tailHolds(DirSink.segments(out), record, TAIL);
    }

    @Override
    public void read(Verifier v) throws IOException {
        // One stream: the segments are the sink's order, and a record may not straddle two of them.
        List<Path> segments = DirSink.segments(out);
        for (Path p : segments) v.addBytes("dir", p.getFileName().toString(), Files.readAllBytes(p));
    }

    @Override
    public void close() {
    }
}
