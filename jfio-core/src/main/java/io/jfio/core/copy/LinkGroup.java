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
    private Entry leader;
    private boolean failed;
    private boolean done;
    private List<Entry> waiting = new ArrayList<>();

    /**
     * A follower arrives: returns the leader (whose copy is in place) when the leader is done, or null after
     * queueing {@code e} to be handed back by {@link #complete}. When the leader failed, returns {@code e} itself:
     * copy it on its own.
     */
    synchronized Entry join(Entry e) {
        if (done) return failed ? e : leader;
        waiting.add(e);
        return null;
    }

    /** The leader finished (its copy is in place) or failed (null); returns the followers that waited. */
    synchronized List<Entry> complete(Entry finished) {
        done = true;
        failed = finished == null;
        leader = finished;
        List<Entry> w = waiting;
        waiting = List.of();
        return w;
    }
}
