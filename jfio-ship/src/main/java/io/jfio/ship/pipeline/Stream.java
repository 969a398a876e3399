package io.jfio.ship.pipeline;

import io.jfio.ship.harvest.Fingerprint;
import java.util.Arrays;

/**
 * Not thread-safe; owned by the pipeline thread.
 *
 * <p>One content being shipped: the bytes a file holds from its first byte, identified by the fingerprint of its head.
 * The offsets that shipping moves along belong to the content, not to the file: a copy made by copytruncate, or the
 * same inode found again after a restart, holds the same bytes at the same offsets, so it is bound to the same
 * stream and nothing already shipped is shipped again. A truncation ends a file's stream: the file goes on with a new
 * one from 0, while the old one lives on as long as a copy of it is tracked or batches of it are unacknowledged.
 *
 * <p>Of the files bound to a stream, only the primary (the first bound) is read; the others wait. When the primary
 * leaves (truncated, released), the next file becomes primary and reads on from {@link #read}: a copy holds exactly
 * the bytes the old file had when it was copied, so what the old file could not deliver, the copy does.
 */
final class Stream {
    /** How many leading bytes the fingerprint covers; grows with the file up to {@link Fingerprint#SIZE}. */
    int fpLength;
    /** The fingerprint's hash. */
    long fpHash;
    /** Bytes {@code [0, read)} were handed to the sink (or skipped). */
    long read;
    /** Bytes {@code [0, acked)} are durable at the sink (or were skipped); never moves back. */
    long acked;
    /** Batches handed to the sink and not yet acknowledged. */
    int inFlight;
    /** The unread rest is an unterminated line, waiting for its newline (or the partial timeout). */
    boolean partialPending;
    /** The unread rest begins with a multiline record that waits for the line that ends it (or its timeout). */
    boolean recordPending;
    /** Skipping an overlong line up to its newline (on-overlong=drop). */
    boolean skipping;
    /**
     * While {@link #skipping}: where the overlong line being dropped began; -1 otherwise. A checkpoint records no
     * position inside that line ({@link #checkpointOffset}): a run started there would take the line's rest for a
     * line of its own.
     */
    long skipFrom = -1;
    /**
     * The last bytes before {@link #read} ({@code anchorLength} of them, at most {@link #ANCHOR}) hashed, so that a
     * file taken for a copy of this content when no file holds it any more can be checked where it would resume;
     * -1 when unknown (nothing read yet, a skip, a rewind).
     */
    int anchorLength = -1;
    long anchorHash;
    /**
     * Bytes before this offset were read from a file that is no longer the primary (a copytruncate original, before
     * its copy took over): batches of them carry that file's identity, and a sink that stores positions with its
     * data commits them under it. Until they are acknowledged, the primary's own position would be behind what the
     * sink holds of the content, so it is not checkpointed; after a crash the primary is matched by content to the
     * other file's position instead. 0 when no such bytes were read.
     */
    long handedOver;
    /** Whether a file of this content could still turn out to be a copy of another (a new file, nothing shipped). */
    boolean mayBeCopy;
    /** Whether the stream is in the content index (its fingerprint is full). */
    boolean indexed;
    /** When the last file left it (System.nanoTime), or 0 while files are bound. */
    long endedNanos;
    /** The primary: the bound file that reads, or null when none is bound. */
    private TrackedFile first;
    /**
     * The other bound files in the order they were bound (copies waiting), or null: almost every stream has one file,
     * so the rest costs nothing until a second file binds.
     */
    private TrackedFile[] rest;
    private int restCount;

    /** The most bytes an anchor covers. */
    static final int ANCHOR = 256;

    Stream(int fpLength, long fpHash, long offset) {
        this.fpLength = fpLength;
        this.fpHash = fpHash;
        this.read = offset;
        this.acked = offset;
    }

    /** The file that reads this stream, or null when none is bound. */
    TrackedFile primary() {
        return first;
    }

    /** How many files are bound. */
    int fileCount() {
        return first == null ? 0 : 1 + restCount;
    }

    /** Binds {@code t} last: it becomes the primary only when no file is bound. */
    void bind(TrackedFile t) {
        if (first == null) {
            first = t;
            return;
        }
        if (rest == null) {
            rest = new TrackedFile[2];
        } else if (restCount == rest.length) {
            rest = Arrays.copyOf(rest, restCount * 2);
        }
        rest[restCount++] = t;
    }

    /** Unbinds {@code t} if bound; when it was the primary, the next file bound becomes the primary. */
    void unbind(TrackedFile t) {
        if (first == t) {
            first = restCount == 0 ? null : rest[0];
            if (restCount > 0) removeRest(0);
            return;
        }
        for (int i = 0; i < restCount; i++) {
            if (rest[i] == t) {
                removeRest(i);
                return;
            }
        }
    }

    private void removeRest(int i) {
        System.arraycopy(rest, i + 1, rest, i, restCount - i - 1);
        rest[--restCount] = null;
        if (restCount == 0) rest = null;
    }

    /** Whether the fingerprint covers {@link Fingerprint#SIZE} bytes: only then may another file be matched to it. */
    boolean fullFingerprint() {
        return fpLength == Fingerprint.SIZE;
    }

    /** {@code bytes} (a batch's, ending at the new read offset) were read: the anchor is their last bytes. */
    void anchor(java.lang.foreign.MemorySegment bytes) {
        int len = (int) Math.min(ANCHOR, bytes.byteSize());
        if (len == 0) {
            anchorLength = -1;
            return;
        }
        anchorLength = len;
        anchorHash = anchorHash(bytes, bytes.byteSize() - len, len);
    }

    /**
     * The hash of an anchor's bytes {@code [offset, offset + length)} of {@code seg}: kept in memory only (never
     * stored, so it may change between versions), and taken at every read, so eight bytes at a time where the
     * fingerprint's stored FNV-1a goes byte by byte.
     */
    static long anchorHash(java.lang.foreign.MemorySegment seg, long offset, int length) {
        long h = 0x9E3779B97F4A7C15L ^ length;
        int i = 0;
        for (; i + Long.BYTES <= length; i += Long.BYTES) {
            long v = seg.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, offset + i) * 0xC2B2AE3D27D4EB4FL;
            h = Long.rotateLeft(h ^ v, 31) * 0x9E3779B97F4A7C15L;
        }
        for (; i < length; i++) {
            h = (h ^ (seg.get(java.lang.foreign.ValueLayout.JAVA_BYTE, offset + i) & 0xff)) * 0x100000001B3L;
        }
        return h ^ (h >>> 29);
    }

    /** Whether bytes read from a file that is no longer the primary are not acknowledged yet. */
    boolean handOverPending() {
        return acked < handedOver;
    }

    /** Another file becomes the primary: what is read and not acknowledged was read from the one before. */
    void handOver() {
        if (read > acked) handedOver = Math.max(handedOver, read);
    }

    /**
     * Where a checkpoint may say this content resumes: the acknowledged offset, or the start of the overlong line
     * being dropped when that offset lies inside it (read and dropped again after a restart).
     */
    long checkpointOffset() {
        return skipFrom >= 0 ? Math.min(acked, skipFrom) : acked;
    }

    /** Goes back to the acknowledged offset (the sink lost what was in flight). */
    void rewind() {
        if (read != acked) anchorLength = -1;
        read = acked;
        // Still inside the overlong line being dropped: go on dropping up to its newline.
        skipping = skipFrom >= 0 && acked > skipFrom;
        if (!skipping) skipFrom = -1;
        partialPending = false;
        recordPending = false;
    }

    @Override
    public String toString() {
        return "fp=" + fpLength + ":" + Long.toHexString(fpHash) + " read=" + read + " acked=" + acked + " inFlight="
                + inFlight + " files=" + fileCount();
    }
}
