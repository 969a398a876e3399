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

    /**
     * Only committed bytes count: the sink acknowledges what its commit log covers, and a crash cuts the rest of the
     * segment away (a record seen there may never be delivered, and its file must not be truncated for it).
     */
    @Override
    public boolean holds(byte[] record) throws IOException {
        long[] end = DirSink.readCommittedEnd(out);
        List<Path> committed = new java.util.ArrayList<>();
        for (Path p : DirSink.segments(out)) {
            if (p.getFileName().toString().equals(DirSink.segmentName(end[0]))) {
                committed.add(p);
                break;
            }
            committed.add(p);
        }
        if (end[0] == 0 || committed.isEmpty()) return false;
        return Target.tailHolds(committed, record, TAIL, end[1]);
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
