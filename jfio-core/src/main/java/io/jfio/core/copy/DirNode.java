package io.jfio.core.copy;

import io.jfio.core.sys.PathBytes;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One directory of the copy: its source and target paths, the source's metadata (applied to the target once
 * everything inside is done), and what new entries in the target will look like.
 *
 * <p>Thread-safe: fields set before the node's children are submitted are read by them afterwards (the scheduler's
 * lock orders the two); {@link #pending} counts what is still to do inside.
 */
final class DirNode {
    final DirNode parent;
    /** The stand-in this directory descends from (itself for a stand-in): the directory {@link #dstRel} is under. */
    final DirNode root;
    final byte[] src;
    final byte[] dst;
    /** The target's path below {@link #root}'s target directory ("name/sub"); empty for a stand-in. */
    final byte[] dstRel;
    /**
     * The top-level source directory this one is in or is (the child of a stand-in); null for a stand-in. Its
     * {@link #srcTopFd} is where {@link #srcRel} is opened from.
     */
    final DirNode srcTop;
    /** The source's path below {@link #srcTop} ("sub/deeper"); empty for a top-level directory and a stand-in. */
    final byte[] srcRel;
    /** The source directory's metadata; null for the stand-in parent of a top-level entry. */
    final Meta meta;
    /** Entries not yet finished, plus one for the listing itself (or for the top-level entry of a stand-in). */
    final AtomicInteger pending = new AtomicInteger(1);

    /** We created the target directory in this run: nothing in it can exist yet, so no target needs a stat. */
    boolean fresh;
    /** The target directory's device: where new files go. */
    long dstDev;
    /**
     * The target directory's inode, recorded when it was created or adopted: a directory opened later by its path
     * must be this one, or another user replaced it.
     */
    long dstIno;
    /** The target directory's owner: a directory created in it that another user owns was not made by us. */
    int dstUid;
    /** For a stand-in: the target directory, opened when the copy starts ({@code O_PATH}); -1 for others. */
    int rootFd = -1;
    /**
     * For a top-level source directory: the directory itself, opened when the copy starts ({@code O_PATH}) and
     * checked to be the one statx saw; every source directory below it is opened beneath it. -1 for others.
     */
    int srcTopFd = -1;
    /** Group a new entry in the target gets (the directory's if it is setgid, else ours). */
    int newGid;
    /** Whether new subdirectories inherit setgid. */
    boolean setgid;
    /** The target has a default ACL, so new files' modes are not "requested mode less umask". */
    boolean defaultAcl;
    /** A top-level directory whose target holds a {@link ResumeMarker} to remove once it is complete. */
    volatile boolean marked;
    /**
     * The target is (inside) one that an interrupted run of this copy left (a matching {@link ResumeMarker}, or a
     * directory built aside and adopted): a file there with the source's type, size and modification time is what
     * that run finished, and is skipped. Anywhere else a target is replaced, as cp replaces it. Set before the
     * directory is listed, and inherited by its subdirectories at construction.
     */
    boolean resumed;
    /** The target directory could not be created or used: nothing inside is attempted, nothing finalized. */
    volatile boolean broken;
    /**
     * The directory built aside that this one is or is inside: created under a temporary name next to its final
     * name ({@link #tempName}) and renamed into place once everything inside is done. Null when the target is
     * visible under its final name (a directory that existed, or one created directly). Set for the aside
     * directory itself before its children are listed, and inherited by them at construction.
     */
    DirNode aside;
    /** For the directory built aside: its temporary name, next to its final name. */
    byte[] tempName;
    /** For the directory built aside: it has its final name now (set under this node's lock). */
    volatile boolean renamed;
    /** For the directory built aside: the rename was tried (and reported, if it failed). */
    volatile boolean renameTried;
    /** For a stand-in: the top-level source and target as given, for events (null: as joined). */
    byte[] topSrc;
    byte[] topDst;

    /** Marks the directory unusable; true for the one caller that marked it first (and reports why). */
    synchronized boolean breakOnce() {
        if (broken) return false;
        broken = true;
        return true;
    }

    DirNode(DirNode parent, byte[] src, byte[] dst, Meta meta) {
        this.parent = parent;
        this.root = parent == null ? this : parent.root;
        this.src = src;
        this.dst = dst;
        this.dstRel = parent == null ? new byte[0] : parent.dstRel.length == 0 ? PathBytes.lastComponent(dst)
                : PathBytes.join(parent.dstRel, PathBytes.lastComponent(dst));
        this.meta = meta;
        this.aside = parent == null ? null : parent.aside;
        this.resumed = parent != null && parent.resumed;
        this.srcTop = parent == null ? null : parent.isStandIn() ? this : parent.srcTop;
        this.srcRel = parent == null || parent.isStandIn() ? new byte[0] : parent.srcRel.length == 0
                ? PathBytes.lastComponent(src) : PathBytes.join(parent.srcRel, PathBytes.lastComponent(src));
    }

    /**
     * The target's path below {@link #root}'s target directory as it is now: beneath the temporary name of the
     * directory it is built in while that one is not renamed yet. Call with the aside directory's lock held.
     */
    byte[] dstRelNow() {
        DirNode t = aside;
        if (t == null || t.renamed) return dstRel;
        int prefix = t.dstRel.length - PathBytes.lastComponent(t.dst).length;
        byte[] rel = new byte[prefix + t.tempName.length + dstRel.length - t.dstRel.length];
        System.arraycopy(dstRel, 0, rel, 0, prefix);
        System.arraycopy(t.tempName, 0, rel, prefix, t.tempName.length);
        System.arraycopy(dstRel, t.dstRel.length, rel, prefix + t.tempName.length, dstRel.length - t.dstRel.length);
        return rel;
    }

    /** True for the stand-in parent of a top-level source, which is not itself copied or finalized. */
    boolean isStandIn() {
        return meta == null;
    }

    /** True when {@code dev/ino} is this directory or one of its ancestors in the source (a symlink loop). */
    boolean hasAncestor(long dev, long ino) {
        for (DirNode n = this; n != null; n = n.parent) {
            if (n.meta != null && n.meta.dev() == dev && n.meta.ino() == ino) return true;
        }
        return false;
    }
}
