package io.jfio.ship.pipeline;

import io.jfio.ship.config.InputConfig;
import io.jfio.ship.sink.SourceId;

/**
 * Not thread-safe; owned by the pipeline thread.
 *
 * <p>What the pipeline knows about one source file: its identity (device, inode), the name it was last seen under, its
 * descriptor (or -1 while closed to stay under the cap), the last size seen, and the {@link Stream} (the content) it
 * is bound to, which holds the offsets. A file reads only while it is its stream's primary.
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
    Stream stream;
    long lastSize;
    boolean readable;
    boolean atEof;
    long lastGrowthNanos;
    long lastUseNanos;
    long releaseAtNanos;
    long scanGen;
    boolean released;
    /**
     * While this file is a copy candidate (it holds the bytes of a file that still reads them): when it stops being
     * one unless that file is truncated first; 0 otherwise.
     */
    long copyDeadlineNanos;
    /** When this file became a copy candidate. */
    long copySinceNanos;
    /** In the attention list (a flag rather than a set: the rounds over it allocate nothing). */
    boolean attended;
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

    /** Whether this file is the one its stream reads from. */
    boolean primary() {
        return stream.primary() == this;
    }

    /** Where the next read starts. */
    long readOffset() {
        return stream.read;
    }

    /**
     * This file's acknowledged offset: its stream's while it reads it; 0 for a copy candidate, which has shipped
     * nothing of its own (should it turn out to be a file of its own, nothing of it may be taken for shipped).
     */
    long ackedOffset() {
        return primary() ? stream.acked : 0;
    }

    /** The last identity {@link #sourceId} made: batches of the same content under the same name share it. */
    private SourceId id;

    /**
     * The identity handed to the sink with a batch: made when the stream's fingerprint or the file's name changed
     * since the last one, else the same (immutable) object again, so that a line read alone costs no identity of its
     * own. A file that never reads holds none.
     */
    SourceId sourceId() {
        SourceId i = id;
        Stream s = stream;
        if (i == null || i.fpLength() != s.fpLength || i.fpHash() != s.fpHash || !i.path().equals(path)) {
            i = new SourceId(device, inode, s.fpLength, s.fpHash, path);
            id = i;
        }
        return i;
    }

    @Override
    public String toString() {
        return "path=" + path + " dev=" + device + " ino=" + inode + " state=" + state + " stream=" + stream;
    }
}
