package io.jfio.ship.harvest;

import io.jfio.core.sys.Errno;
import io.jfio.core.sys.LibC;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A file's fingerprint: a 64-bit FNV-1a hash of its first {@link #SIZE} bytes (of all of them when the file is
 * shorter). Together with (device, inode) it tells a file from another that got the same inode after a delete, and
 * a file truncated and rewritten while the shipper was stopped from one that only grew.
 *
 * <p>Thread-safe; stateless.
 */
public final class Fingerprint {
    /** How many leading bytes a full fingerprint covers. */
    public static final int SIZE = 1024;

    private Fingerprint() {
    }

    /**
     * Hashes the first {@code length} bytes of the file (pread into {@code scratch}, at least {@link #SIZE} long).
     *
     * @return the hash, or {@link Long#MIN_VALUE} when fewer than {@code length} bytes could be read (the file is
     *         shorter now, or unreadable)
     */
    public static long of(int fd, int length, MemorySegment scratch) {
        long got = 0;
        while (got < length) {
            long n = LibC.pread(fd, scratch.asSlice(got), length - got, got);
            if (n == -Errno.EINTR) continue;
            if (n <= 0) return Long.MIN_VALUE;
            got += n;
        }
        return hash(scratch, length);
    }

    /** FNV-1a over {@code [0, length)} of {@code seg}. */
    public static long hash(MemorySegment seg, int length) {
        return hash(seg, 0, length);
    }

    /** FNV-1a over {@code [offset, offset + length)} of {@code seg} (no slice made: a batch's anchor is hashed so). */
    public static long hash(MemorySegment seg, long offset, int length) {
        return extend(0xcbf29ce484222325L, seg, offset, length);
    }

    /**
     * The fingerprint of a file's first bytes followed by {@code [offset, offset + length)} of {@code seg}, from the
     * fingerprint {@code h} of those first bytes (FNV-1a goes byte by byte, so the bytes hashed before need not be
     * read again); exact unless {@code h} is {@link #ADJUSTED}, which callers hash again from the file.
     */
    public static long extend(long h, MemorySegment seg, long offset, int length) {
        for (int i = 0; i < length; i++) {
            h ^= seg.get(ValueLayout.JAVA_BYTE, offset + i) & 0xff;
            h *= 0x100000001b3L;
        }
        // Never the "unreadable" marker.
        return h == Long.MIN_VALUE ? ADJUSTED : h;
    }

    /** What a hash that came out as the "unreadable" marker is stored as instead: it cannot be extended. */
    public static final long ADJUSTED = Long.MIN_VALUE + 1;
}
