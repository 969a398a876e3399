package io.jfio.core.copy;

import java.util.ArrayList;
import java.util.List;

/**
 * The names one source inode has in the tree: the first one found (the leader) is copied, the others (followers)
 * become hard links to the leader's copy once it is in place.
 *
 * <p>Thread-safe (synchronized). Followers that arrive before the leader is done wait here, holding their
 * directory's pending count, so no directory is finished before its links exist.
 */
final class LinkGroup {
    private byte[] target;
    private boolean failed;
    private boolean done;
    private List<Entry> waiting = new ArrayList<>();

    /**
     * A follower arrives: returns the leader's target path when the leader is done, or null after queueing
     * {@code e} to be handed back by {@link #complete}. When the leader failed, returns an empty array: copy it on
     * its own.
     */
    synchronized byte[] join(Entry e) {
        if (done) return failed ? new byte[0] : target;
        waiting.add(e);
        return null;
    }

    /** The leader finished (target is its final path) or failed (null); returns the followers that waited. */
    synchronized List<Entry> complete(byte[] leaderTarget) {
        done = true;
        failed = leaderTarget == null;
        target = leaderTarget;
        List<Entry> w = waiting;
        waiting = List.of();
        return w;
    }
}
