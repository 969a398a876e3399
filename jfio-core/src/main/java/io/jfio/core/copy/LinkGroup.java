package io.jfio.core.copy;

import java.util.ArrayList;
import java.util.List;

/**
 * The names one source inode has in the tree: the first one found (the leader) is copied, the others (followers)
 * become hard links to the leader's copy once it is in place. When the leader fails, or {@code -n} keeps a target
 * that is no copy of it, the next name leads instead, as cp links the later names to the first one it copied.
 *
 * <p>Thread-safe (synchronized). Followers that arrive before the leader is done wait here, holding their
 * directory's pending count, so no directory is finished before its links exist.
 */
final class LinkGroup {
    private Entry leader;
    private boolean done;
    /** The leader gave no copy to link to: the next name to arrive leads. */
    private boolean leaderless;
    private List<Entry> waiting = new ArrayList<>();

    /**
     * A follower arrives: returns the leader (whose copy is in place) when the leader is done, or null after
     * queueing {@code e} to be handed back by {@link #complete}. Returns {@code e} itself when the names before it
     * gave no copy: {@code e} leads now, and calls {@link #complete} when done.
     */
    synchronized Entry join(Entry e) {
        if (done) return leader;
        if (leaderless) {
            leaderless = false;
            return e;
        }
        waiting.add(e);
        return null;
    }

    /**
     * The leader's copy is in place ({@code finished}), or there is none to link to (null): returns the followers
     * to hand back, all of them, or in the second case the first, which then leads.
     */
    synchronized List<Entry> complete(Entry finished) {
        if (finished == null) {
            leaderless = true;
            return waiting.isEmpty() ? List.of() : List.of(waiting.removeFirst());
        }
        done = true;
        leader = finished;
        List<Entry> w = waiting;
        waiting = List.of();
        return w;
    }
}
