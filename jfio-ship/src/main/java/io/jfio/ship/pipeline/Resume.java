package io.jfio.ship.pipeline;

import io.jfio.ship.harvest.Fingerprint;
import io.jfio.ship.state.Checkpoint;
import java.util.Collection;
import java.util.List;

/**
 * Thread-safe; stateless.
 *
 * <p>Where a file starts shipping: the one rule that a run and {@code --dry-run} share. A file is matched, in this
 * order:
 * <ol>
 *   <li>by identity: an entry for its (device, inode) whose fingerprint equals the file's first
 *       {@code fpLength} bytes is the same content; it resumes at the entry's offset (the largest, when the sink's
 *       commit record and the checkpoint both have one; no further than the fingerprint covers when it covers less
 *       than that offset and less than {@link Fingerprint#SIZE}), unless the file is now shorter than that offset
 *       (truncated while the shipper was stopped: from 0). An entry whose fingerprint differs is another content on
 *       a reused inode, or the file truncated and rewritten: no offset of its own, and on to the next rule. An entry
 *       at offset 0 (nothing of it shipped) goes on to the next rule too: the file may have been filled as a copy
 *       since;</li>
 *   <li>by content: a file with no entry of its own, or whose entries describe another content (its inode reused,
 *       so that a copy can land on the inode of a file deleted before) or nothing shipped of it, whose first
 *       {@link Fingerprint#SIZE} bytes equal those of a content shipped before, whose own file is gone or holds
 *       something else now (an orphan: the original of a copytruncate, truncated since; a file deleted after a copy
 *       was made), is a copy of it and resumes at the shipped offset, or at its own end when it is shorter
 *       (everything in it was shipped). Only full fingerprints match: a file shorter than {@link Fingerprint#SIZE}
 *       bytes is never taken for a copy;</li>
 *   <li>otherwise it is new: from 0, or from its end with {@code start = end} on a first run, or when its last
 *       modification is older than the input's {@code ignore-older} (what is appended later is shipped).</li>
 * </ol>
 */
final class Resume {
    private Resume() {
    }

    /** The first bytes of the file being decided: the hash of its first {@code length} bytes, or MIN_VALUE. */
    interface Head {
        long hash(int length);
    }

    /**
     * A decision.
     *
     * @param offset  where to start
     * @param why     for the log and the dry run: resumed, copy-of-shipped, new, new-at-end, ignored-older,
     *                new-file-same-inode, truncated-while-stopped
     * @param entry   the entry the offset comes from, or null
     * @param orphans entries of this inode that do not describe its content any more
     */
    record Decision(long offset, String why, Checkpoint entry, List<Checkpoint> orphans) {
    }

    /**
     * Whether a decision by identity leaves the file to be matched by content too: none was made (no entry), its
     * entries describe another content ({@code new-file-same-inode}), or its entry says nothing of it was shipped (a
     * file taken for a new one while it was empty or short, such as a copy that cp had only begun: it may hold a
     * copy of a shipped content now).
     */
    static boolean byContentToo(Decision own) {
        return own == null || own.entry() == null && own.why().equals("new-file-same-inode") || nothingShipped(own);
    }

    /** Whether {@code own} resumes a file of which nothing was shipped: it is still a new file, that may be a copy. */
    static boolean nothingShipped(Decision own) {
        return own != null && own.offset() == 0 && own.why().equals("resumed");
    }

    /** By identity, from the entries of the file's (device, inode); null when there are none. */
    static Decision own(long size, Head head, List<Checkpoint> entries) {
        if (entries == null || entries.isEmpty()) return null;
        Checkpoint best = null;
        for (Checkpoint c : entries) {
            if (size < c.fpLength() || head.hash(c.fpLength()) != c.fpHash()) continue;
            if (best == null || c.offset() > best.offset()
                    || c.offset() == best.offset() && c.fpLength() > best.fpLength()) {
                best = c;
            }
        }
        if (best == null) return new Decision(0, "new-file-same-inode", null, entries);
        if (size < best.offset()) return new Decision(0, "truncated-while-stopped", null, entries);
        // Entries of the content the file still holds (stale ones, or from while its fingerprint grew) are not
        // orphans: a copy of that content must not resume at their older offsets.
        java.util.ArrayList<Checkpoint> rest = new java.util.ArrayList<>();
        for (Checkpoint c : entries) {
            if (size < c.fpLength() || head.hash(c.fpLength()) != c.fpHash()) rest.add(c);
        }
        // A position whose fingerprint covers less than it claims (as earlier versions could store) says only that
        // what the fingerprint covers is this content: the rest is shipped again rather than taken for shipped.
        long offset = best.offset();
        if (best.fpLength() < Math.min(offset, Fingerprint.SIZE)) offset = best.fpLength();
        return new Decision(offset, "resumed", best, rest);
    }

    /** By content, among orphaned entries; null when no full fingerprint matches. */
    static Decision copy(long size, Head head, Collection<Checkpoint> orphans) {
        if (size < Fingerprint.SIZE || orphans.isEmpty()) return null;
        long h = head.hash(Fingerprint.SIZE);
        if (h == Long.MIN_VALUE) return null;
        Checkpoint best = null;
        for (Checkpoint c : orphans) {
            if (c.fpLength() == Fingerprint.SIZE && c.fpHash() == h && (best == null || c.offset() > best.offset())) {
                best = c;
            }
        }
        if (best == null) return null;
        return new Decision(Math.min(best.offset(), size), "copy-of-shipped", best, List.of());
    }

    /** A file seen for the first time. */
    static Decision fresh(long size, boolean startAtEnd) {
        return fresh(size, startAtEnd, false);
    }

    /** A file seen for the first time, {@code older} when it was last modified before its input's ignore-older. */
    static Decision fresh(long size, boolean startAtEnd, boolean older) {
        if (startAtEnd) return new Decision(size, "new-at-end", null, List.of());
        if (older) return new Decision(size, "ignored-older", null, List.of());
        return new Decision(0, "new", null, List.of());
    }
}
