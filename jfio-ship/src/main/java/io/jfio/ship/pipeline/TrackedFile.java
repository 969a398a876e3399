package io.jfio.ship.pipeline;

import io.jfio.ship.config.InputConfig;

/**
 * What the pipeline knows about one source file: its identity (device, inode, fingerprint), the name it was last
 * seen under, its descriptor (or -1 while closed to stay under the cap), and three offsets: read (handed to the
 * sink), acknowledged (durable at the destination; what checkpoints store) and the last size seen.
 *
 * <p>Not thread-safe; owned by the pipeline thread.
 */
final class TrackedFile {
    /** Where the file stands with respect to its path. */
    enum State {
        /** A path of an input names it. */
        ACTIVE,
        /** No input path names it any more, but it still has a name somewhere: drained, then let go. */
        ROTATED,
        /** Deleted (no links left): drained from the open descriptor, then closed. */
        DELETED
    }

    final InputConfig input;
    final long device;
    final long inode;
    String path;
    int fd = -1;
    State state = State.ACTIVE;
    int fpLength;
    long fpHash;
    long readOffset;
    long ackedOffset;
    long lastSize;
    /** Incremented on truncation: acknowledgements of batches from before it do not move the acknowledged offset. */
    int epoch;
    int inFlight;
    boolean readable;
    boolean atEof;
    /** The unread rest is an unterminated line, waiting for its newline (or the partial timeout). */
    boolean partialPending;
    /** Skipping an overlong line up to its newline (on-overlong=drop). */
    boolean skipping;
    long lastGrowthNanos;
    long lastUseNanos;
    long releaseAtNanos;
    long scanGen;
    boolean released;
    /** This file's path, watched itself because no directory watch reports its writes (a symlink), or null. */
    java.nio.file.Path watchedLink;

    TrackedFile(InputConfig input, String path, long device, long inode) {
        this.input = input;
        this.path = path;
        this.device = device;
        this.inode = inode;
    }

    /** A file's identity as a map key. */
    record Id(long device, long inode) {
    }

    Id id() {
        return new Id(device, inode);
    }

    boolean sameFile(long dev, long ino) {
        return device == dev && inode == ino;
    }

    @Override
    public String toString() {
        return "path=" + path + " dev=" + device + " ino=" + inode + " state=" + state + " read=" + readOffset
                + " acked=" + ackedOffset;
    }
}
