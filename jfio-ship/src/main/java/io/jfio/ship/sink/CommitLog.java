package io.jfio.ship.sink;

import io.jfio.core.sys.Errno;
import io.jfio.core.sys.ErrnoException;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import io.jfio.core.sys.Stat;
import io.jfio.ship.log.ShipLog;
import io.jfio.ship.state.Checkpoint;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.zip.CRC32C;

/**
 * Not thread-safe: read and opened by the thread that opens the {@link DirSink}, then used by its sync thread only.
 *
 * <p>The dir sink's commit log {@code ship.commit}: which segment holds how many committed bytes, and for every
 * source the position just past its last committed byte, stored with one write so that the two never disagree. The
 * file is a 16-byte header (magic {@code JFIOSCL1}, int version 1, int 0) followed by records; each record (all
 * big-endian) is int marker {@code 0x4A464352} ("JFCR"), int body length, the body, and an int CRC32C of marker,
 * length and body. A body is long segment, long committed length, long written-at (epoch ms), int entry count and
 * the entries, each long device, long inode, int fingerprint length, long fingerprint hash, long offset, long
 * seen-at (epoch ms), unsigned short path length and the path (UTF-8).
 *
 * <p>A commit appends one record holding only the sources whose position changed since the previous commit, then
 * fdatasyncs: the cost of a commit grows with the sources it touched, not with those tracked. Replaying the records
 * in order (later entries for a (device, inode) replace earlier ones) gives the state. Compaction rewrites the
 * whole state as a single record into {@code ship.commit.tmp} (created O_EXCL|O_NOFOLLOW, mode 0600), fdatasyncs
 * it, renames it over {@code ship.commit} and fsyncs the directory; it runs at every open, at a segment roll and
 * when the appended records outgrow the last snapshot (and 1 MiB), and drops entries not seen for 7 days.
 *
 * <p>Why a log and not a rewritten file: one pwrite and one fdatasync of a few dozen bytes per commit, where rewriting
 * every position (thousands of files) would cost a file's worth of writing and three device flushes per commit. The
 * positions are not kept in memory between commits: compaction replays the file as far as the last successful commit,
 * so a shipper watching many files that rarely change holds nothing per file here. A torn tail (the record a crash
 * interrupted) fails its CRC and is ignored, which is right: its futures never completed, and recovery cuts the data
 * back to the previous record's length.
 */
final class CommitLog implements AutoCloseable {
    static final String NAME = "ship.commit";
    static final String TEMP = "ship.commit.tmp";
    static final byte[] MAGIC = "JFIOSCL1".getBytes(StandardCharsets.US_ASCII);
    static final int VERSION = 1;
    static final int HEADER = 16;
    static final int MARKER = 0x4A464352;
    /** marker, body length, CRC. */
    static final int RECORD_OVERHEAD = 12;
    /** segment, length, written-at, count. */
    static final int BODY_HEADER = 28;
    /** device, inode, fingerprint length and hash, offset, seen-at, path length. */
    static final int ENTRY_FIXED = 46;
    /** Entries whose source was not seen (committed a batch) for this long are dropped at compaction. */
    static final long EXPIRE_MS = TimeUnit.DAYS.toMillis(7);
    /** The largest record buffers kept between commits. */
    static final int KEEP_BUFFER = 64 * 1024;
    /** The legacy {@code ship.commit}: long segment, long length, int CRC32C of both, int 0. */
    static final int LEGACY_SIZE = 24;

    /** A source's identity in the log. */
    record Key(long device, long inode, long content) {
        /**
         * The key of a source's position: its inode, and its content once the fingerprint is full. A file truncated
         * and rewritten gets a new key, so the old content's position stays beside the new one: a copy of the old
         * content (copytruncate's) found at the next start resumes there, and the file itself by the entry whose
         * fingerprint it matches. While the fingerprint grows (the first KiB), the entry is replaced.
         */
        static Key of(long device, long inode, int fpLength, long fpHash) {
            return new Key(device, inode, fpLength >= io.jfio.ship.harvest.Fingerprint.SIZE ? fpHash : 0);
        }
    }

    /** A source's committed position; immutable once stored. */
    record Entry(long device, long inode, int fpLength, long fpHash, long offset, long seenAt, String path) {
        Checkpoint checkpoint() {
            return new Checkpoint(device, inode, fpLength, fpHash, offset, seenAt, path);
        }
    }

    /**
     * What reading {@code ship.commit} at open found.
     *
     * @param exists    whether the file existed
     * @param found     whether it held a commit (a valid record, the legacy record, or the legacy empty file)
     * @param trustTail whether the last commit found is the last one written (nothing after it but a torn record),
     *                  so that data after its length was never acknowledged and may be cut
     * @param segment   the last commit's segment (0: none)
     * @param length    the last commit's length
     * @param entries   the positions
     * @param legacy    whether it was the 24-byte format of earlier versions
     * @param problem   what was damaged, for the log; null when nothing was
     */
    record Parsed(boolean exists, boolean found, boolean trustTail, long segment, long length,
                  Map<Key, Entry> entries, boolean legacy, String problem) {
    }

    private final int dirFd;
    private final Path dir;
    private final ShipLog log;
    private final LongSupplier clock;
    private final long compactMin;
    private final MemorySegment name;
    private final MemorySegment tempName;
    /** The changes of the commit being made; discarded when it fails. */
    private final Map<Key, Entry> staged = new HashMap<>();
    private final CRC32C crc = new CRC32C();
    private final Arena names = Arena.ofShared();
    private Arena bufArena;
    private MemorySegment nbuf;
    private ByteBuffer hbuf = ByteBuffer.allocate(4096);
    private int fd = -1;
    private long size;
    private long snapshotSize;
    /**
     * False after an append whose undo failed: the file may hold a record of a commit that was reported failed, so
     * the next commit must replace the file (and poisoned segments are not cut, see {@link #consistent()}).
     */
    private boolean consistent = true;

    /**
     * Opens the log with the state {@code p} recovered to the commit ({@code segment}, {@code length}): writes it as
     * a snapshot (upgrading a legacy file, dropping a torn tail, replacing a damaged file after keeping a copy
     * {@code ship.commit.corrupt-TIMESTAMP}).
     */
    CommitLog(int dirFd, Path dir, ShipLog log, LongSupplier clock, long compactMin, Parsed p, long segment,
              long length) throws IOException {
        this.dirFd = dirFd;
        this.dir = dir;
        this.log = log;
        this.clock = clock;
        this.compactMin = compactMin;
        this.name = names.allocateFrom(NAME);
        this.tempName = names.allocateFrom(TEMP);
        try {
            if (p.problem() != null && p.exists()) {
                String aside = NAME + ".corrupt-" + clock.getAsLong();
                int r = LibC.linkat(dirFd, name, dirFd, names.allocateFrom(aside), 0);
                if (r < 0) {
                    log.warn("dir-sink-commit-log-not-kept", "dir", dir, "error", Errno.name(-r),
                            "consequence", "the damaged file is replaced without a copy");
                } else {
                    log.info("dir-sink-commit-log-kept", "copy", dir.resolve(aside));
                }
            }
            try {
                writeSnapshot(segment, length, clock.getAsLong(), p.entries());
            } catch (SnapshotNotTaken e) {
                throw e.io;
            }
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    /** The positions of {@code p}, for {@link Sink#committed()}. */
    static List<Checkpoint> checkpoints(Parsed p) {
        List<Checkpoint> out = new ArrayList<>(p.entries().size());
        for (Entry e : p.entries().values()) out.add(e.checkpoint());
        return out;
    }

    /** Whether the file holds no record of a failed commit (see {@link #consistent}). */
    boolean consistent() {
        return consistent;
    }

    /** Stages the position {@code end} of {@code id} for the next {@link #commit}; a later stage replaces it. */
    void stage(SourceId id, long end, long now) {
        Key k = Key.of(id.device(), id.inode(), id.fpLength(), id.fpHash());
        staged.put(k, new Entry(id.device(), id.inode(), id.fpLength(), id.fpHash(), end, now, id.path()));
    }

    /** Forgets the staged positions: their commit failed, so their batches are sent again. */
    void discard() {
        staged.clear();
    }

    /**
     * Makes the commit ({@code segment}, {@code length}) with the staged positions durable: an appended record, or a
     * snapshot when {@code roll} or the log has outgrown its bound. On success the staged positions become the
     * state; on failure they are discarded and nothing in the file claims the commit (or {@link #consistent()} is
     * false).
     */
    void commit(long segment, long length, boolean roll, long now) throws IOException {
        try {
            boolean snapshot = !consistent || roll || size - snapshotSize > Math.max(compactMin, snapshotSize);
            if (snapshot) {
                try {
                    writeSnapshot(segment, length, now, replay());
                    return;
                } catch (SnapshotNotTaken e) {
                    if (!consistent) throw e.io;
                    // The log is intact; the commit is appended instead and compaction tried at the next bound.
                    snapshotSize = size;
                    log.error("dir-sink-compaction-failed", "dir", dir, "error", e.io.getMessage(),
                            "consequence", "commit appended to " + NAME + " instead; compaction is tried again later");
                }
            }
            append(segment, length, now);
        } finally {
            staged.clear();
        }
    }

    /** A snapshot that failed before it replaced anything: the old file stands unchanged. */
    private static final class SnapshotNotTaken extends IOException {
        private static final long serialVersionUID = 1L;
        final transient IOException io;

        SnapshotNotTaken(IOException io) {
            super(io);
            this.io = io;
        }
    }

    private void append(long segment, long length, long now) throws IOException {
        int n = encodeRecord(segment, length, now, staged.values(), false);
        int r = writeFully(fd, n, size);
        trimBuffers();
        if (r == 0) r = LibC.fdatasync(fd);
        if (r < 0) {
            // Take the record back: a record that survived would claim bytes that the sink cuts from a poisoned
            // segment. If that fails too, the file is replaced before the next commit counts.
            int t = LibC.ftruncate(fd, size);
            if (t == 0) t = LibC.fdatasync(fd);
            if (t < 0) consistent = false;
            throw new ErrnoException("write commit record", -r, fd,
                    dir.resolve(NAME).toString(), size, n);
        }
        size += n;
    }

    /**
     * The positions as of the last successful commit: the file replayed up to {@link #size}, which ends at that
     * commit's record (a record whose commit failed, left because taking it back failed too, lies beyond). Throws
     * {@link SnapshotNotTaken} when the file cannot be read back or no longer holds what was written.
     */
    private Map<Key, Entry> replay() throws SnapshotNotTaken {
        byte[] b = new byte[(int) size];
        MemorySegment into = MemorySegment.ofArray(b);
        long done = 0;
        while (done < size) {
            // A heap segment cannot go to a system call: read through the native buffer, one piece at a time.
            if (nbuf == null) {
                bufArena = Arena.ofShared();
                nbuf = bufArena.allocate(KEEP_BUFFER);
            }
            long want = Math.min(nbuf.byteSize(), size - done);
            long n = LibC.pread(fd, nbuf, want, done);
            if (n == -Errno.EINTR) continue;
            if (n <= 0) {
                throw new SnapshotNotTaken(n < 0 ? new ErrnoException("pread", (int) -n, fd,
                        dir.resolve(NAME).toString(), done, want) : new IOException(NAME + " is shorter than written: "
                        + done + " of " + size + " bytes, dir=" + dir));
            }
            MemorySegment.copy(nbuf, 0, into, done, n);
            done += n;
        }
        Parsed p = parse(b);
        if (p.problem() != null || !p.found()) {
            throw new SnapshotNotTaken(new IOException(NAME + " no longer holds what was written: "
                    + (p.problem() != null ? p.problem() : "no commit") + ", dir=" + dir));
        }
        return p.entries();
    }

    /**
     * Writes {@code state} with the staged positions (less expired entries) as one record to the temporary file and
     * renames it over the log. Throws {@link SnapshotNotTaken} when the old file was not replaced.
     */
    private void writeSnapshot(long segment, long length, long now, Map<Key, Entry> state) throws IOException {
        List<Entry> all = new ArrayList<>(state.size() + staged.size());
        for (Map.Entry<Key, Entry> e : state.entrySet()) {
            if (!staged.containsKey(e.getKey()) && e.getValue().seenAt() >= now - EXPIRE_MS) all.add(e.getValue());
        }
        all.addAll(staged.values());
        int n = encodeRecord(segment, length, now, all, true);
        int t = LibC.openat(dirFd, tempName, Fcntl.O_RDWR | Fcntl.O_CREAT | Fcntl.O_EXCL | Fcntl.O_NOFOLLOW
                | Fcntl.O_CLOEXEC, 0600);
        if (t < 0) {
            String why = t == -Errno.EEXIST ? " (it exists: left by someone else, perhaps a planted link; it is "
                    + "neither followed nor removed)" : "";
            throw new SnapshotNotTaken(new IOException("cannot create " + TEMP + ": errno=" + Errno.name(-t) + why
                    + " dir=" + dir));
        }
        int r = writeFully(t, n, 0);
        trimBuffers();
        if (r == 0) r = LibC.fdatasync(t);
        if (r == 0) r = LibC.renameat2(dirFd, tempName, dirFd, name, 0);
        if (r < 0) {
            LibC.close(t);
            LibC.unlinkat(dirFd, tempName, 0);
            throw new SnapshotNotTaken(new ErrnoException("write " + TEMP, -r, -1, dir.resolve(TEMP).toString(),
                    ErrnoException.NONE, n));
        }
        // Renamed: the new file is the log from now on, whether or not the directory sync below succeeds.
        if (fd >= 0) LibC.close(fd);
        fd = t;
        size = n;
        snapshotSize = n;
        r = LibC.fsync(dirFd);
        if (r < 0) {
            // The rename may not survive a crash: the old file would then still hold the previous commit, which is
            // older and so never ahead of the data. Report the commit failed; the next one writes a snapshot again.
            consistent = false;
            throw new ErrnoException("fsync", -r, dir.toString());
        }
        consistent = true;
    }

    /**
     * Lets go of buffers a large record grew: a snapshot of thousands of positions needs a megabyte once in a while,
     * the appends between snapshots a few hundred bytes.
     */
    private void trimBuffers() {
        if (hbuf.capacity() > KEEP_BUFFER) hbuf = ByteBuffer.allocate(4096);
        if (nbuf != null && nbuf.byteSize() > KEEP_BUFFER) {
            bufArena.close();
            bufArena = null;
            nbuf = null;
        }
    }

    /** Writes {@code n} bytes of the native buffer at {@code offset}; 0 or -errno. */
    private int writeFully(int fd, int n, long offset) {
        long done = 0;
        while (done < n) {
            long w = LibC.pwrite(fd, nbuf.asSlice(done), n - done, offset + done);
            if (w == -Errno.EINTR) continue;
            if (w < 0) return (int) w;
            if (w == 0) return -Errno.EIO;
            done += w;
        }
        return 0;
    }

    /** Encodes one record (after the file header when {@code header}) into the native buffer; returns its size. */
    private int encodeRecord(long segment, long length, long now, Iterable<Entry> list, boolean header) {
        // Paths are encoded here rather than kept encoded: an entry per tracked file lives as long as the run.
        ByteBuffer b = room(hbuf.clear(), HEADER + RECORD_OVERHEAD + BODY_HEADER);
        if (header) b.put(MAGIC).putInt(VERSION).putInt(0);
        int start = b.position();
        b.putInt(MARKER).putInt(0).putLong(segment).putLong(length).putLong(now).putInt(0);
        int count = 0;
        for (Entry e : list) {
            byte[] path = pathBytes(e.path());
            b = room(b, ENTRY_FIXED + path.length + 4);
            b.putLong(e.device()).putLong(e.inode()).putInt(e.fpLength()).putLong(e.fpHash()).putLong(e.offset())
                    .putLong(e.seenAt()).putShort((short) path.length).put(path);
            count++;
        }
        b.putInt(start + 4, b.position() - start - 8).putInt(start + 8 + BODY_HEADER - 4, count);
        crc.reset();
        crc.update(b.array(), start, b.position() - start);
        b.putInt((int) crc.getValue());
        int n = b.position();
        if (nbuf == null || nbuf.byteSize() < n) {
            if (bufArena != null) bufArena.close();
            bufArena = Arena.ofShared();
            nbuf = bufArena.allocate(Math.max(n, nbuf == null ? 4096 : nbuf.byteSize() * 2));
        }
        MemorySegment.copy(b.array(), 0, nbuf, ValueLayout.JAVA_BYTE, 0, n);
        return n;
    }

    /** {@code b}, or a copy of it twice as large, with at least {@code more} bytes after its position. */
    private ByteBuffer room(ByteBuffer b, int more) {
        if (b.remaining() >= more) return b;
        long want = Math.max((long) b.position() + more, b.capacity() * 2L);
        if (want > Integer.MAX_VALUE - 64) throw new IllegalStateException("commit record too large: " + want);
        ByteBuffer bigger = ByteBuffer.allocate((int) want);
        bigger.put(b.flip());
        hbuf = bigger;
        return bigger;
    }

    private static byte[] pathBytes(String path) {
        byte[] b = path.getBytes(StandardCharsets.UTF_8);
        return b.length > 65_535 ? Arrays.copyOf(b, 65_535) : b;
    }

    @Override
    public void close() {
        if (fd >= 0) {
            LibC.close(fd);
            fd = -1;
        }
        if (bufArena != null) {
            bufArena.close();
            bufArena = null;
            nbuf = null;
        }
        names.close();
    }

    // ---- reading at open ----

    /**
     * Reads {@code ship.commit} of the directory {@code dirFd} without following a symlink at its name.
     *
     * @throws IOException when it cannot be read, or is a symlink or not a regular file (refused: jfio runs as root
     *                     and must not be made to read or write through a planted link)
     */
    static Parsed read(int dirFd, Path dir) throws IOException {
        byte[] b;
        try (Arena a = Arena.ofConfined()) {
            int fd = LibC.openat(dirFd, a.allocateFrom(NAME), Fcntl.O_RDONLY | Fcntl.O_NOFOLLOW | Fcntl.O_NONBLOCK
                    | Fcntl.O_CLOEXEC, 0);
            if (fd == -Errno.ENOENT) return new Parsed(false, false, false, 0, 0, Map.of(), false, null);
            if (fd == -Errno.ELOOP) throw refused(dir, NAME);
            ErrnoException.check(fd, "open", -1, dir.resolve(NAME).toString());
            try {
                MemorySegment st = a.allocate(Stat.LAYOUT);
                ErrnoException.check(LibC.fstat(fd, st), "fstat", fd, dir.resolve(NAME).toString());
                if ((Stat.mode(st) & Fcntl.S_IFMT) != Fcntl.S_IFREG) {
                    throw new IOException("dir sink refuses " + NAME + ": not a regular file: path="
                            + dir.resolve(NAME));
                }
                long len = Stat.size(st);
                if (len > Integer.MAX_VALUE - 64) throw new IOException(NAME + " too large: bytes=" + len);
                MemorySegment buf = a.allocate(Math.max(1, len));
                long done = 0;
                while (done < len) {
                    long n = LibC.pread(fd, buf.asSlice(done), len - done, done);
                    if (n == -Errno.EINTR) continue;
                    ErrnoException.check(n, "pread", fd, dir.resolve(NAME).toString(), done, len - done);
                    if (n == 0) break;
                    done += n;
                }
                b = buf.asSlice(0, done).toArray(ValueLayout.JAVA_BYTE);
            } finally {
                LibC.close(fd);
            }
        }
        return parse(b);
    }

    /** The error for a symlink planted at one of the sink's state files. */
    static IOException refused(Path dir, String file) {
        return new IOException("dir sink refuses to start: " + file + " is a symbolic link (jfio does not write "
                + "through links in its sink directory; remove it if it is not yours): path=" + dir.resolve(file));
    }

    /** Parses the bytes of {@code ship.commit} (either format). */
    static Parsed parse(byte[] b) {
        if (b.length == 0) {
            // Legacy: created at open, never written, so nothing in any segment was ever acknowledged.
            return new Parsed(true, true, true, 0, 0, Map.of(), true, null);
        }
        if (b.length == LEGACY_SIZE && !startsWithMagic(b)) {
            ByteBuffer buf = ByteBuffer.wrap(b);
            CRC32C c = new CRC32C();
            c.update(b, 0, 16);
            if ((int) c.getValue() != buf.getInt(16)) {
                return new Parsed(true, false, false, 0, 0, Map.of(), true, "legacy commit record: checksum mismatch");
            }
            return new Parsed(true, true, true, buf.getLong(0), buf.getLong(8), Map.of(), true, null);
        }
        Map<Key, Entry> entries = new HashMap<>();
        List<String> problems = new ArrayList<>();
        long[] commit = {0, 0};
        boolean found = false;
        int pos = HEADER;
        if (b.length < HEADER || !startsWithMagic(b) || ByteBuffer.wrap(b).getInt(8) != VERSION) {
            problems.add("bad header (magic or version)");
            pos = 0;
        }
        boolean trustTail = true;
        while (pos < b.length) {
            int end = record(b, pos, entries, commit);
            if (end > 0) {
                found = true;
                pos = end;
                continue;
            }
            if (problems.isEmpty() && torn(b, pos)) {
                // The record a crash interrupted: its futures never completed.
                break;
            }
            int next = pos + 1;
            while (next < b.length && record(b, next, null, null) < 0) next++;
            if (next >= b.length) {
                if (torn(b, pos) && found) {
                    problems.add("bad record at offset " + pos + " (torn tail after damage)");
                } else {
                    problems.add("bad bytes from offset " + pos + " to the end (" + (b.length - pos) + " bytes)");
                    trustTail = false;
                }
                break;
            }
            problems.add("bad bytes at offset " + pos + " (" + (next - pos) + " bytes skipped)");
            pos = next;
        }
        return new Parsed(true, found, found && trustTail, commit[0], commit[1], entries, false,
                problems.isEmpty() ? null : String.join("; ", problems));
    }

    private static boolean startsWithMagic(byte[] b) {
        return b.length >= MAGIC.length && Arrays.equals(b, 0, MAGIC.length, MAGIC, 0, MAGIC.length);
    }

    /**
     * Whether the bytes from {@code pos} are what an interrupted append leaves: too short for a record header, all
     * zero, or one record whose length reaches to or past the end of the file.
     */
    private static boolean torn(byte[] b, int pos) {
        int left = b.length - pos;
        if (left < 8) return true;
        boolean zero = true;
        for (int i = pos; i < b.length && zero; i++) zero = b[i] == 0;
        if (zero) return true;
        ByteBuffer buf = ByteBuffer.wrap(b);
        int bodyLen = buf.getInt(pos + 4);
        return buf.getInt(pos) == MARKER && bodyLen >= BODY_HEADER
                && (long) pos + RECORD_OVERHEAD + bodyLen >= b.length;
    }

    /**
     * Checks the record at {@code pos}; when valid, applies it to {@code entries} and {@code commit} (unless null)
     * and returns its end, else -1.
     */
    private static int record(byte[] b, int pos, Map<Key, Entry> entries, long[] commit) {
        if (b.length - pos < RECORD_OVERHEAD + BODY_HEADER) return -1;
        ByteBuffer buf = ByteBuffer.wrap(b);
        if (buf.getInt(pos) != MARKER) return -1;
        int bodyLen = buf.getInt(pos + 4);
        if (bodyLen < BODY_HEADER || bodyLen > b.length - pos - RECORD_OVERHEAD) return -1;
        CRC32C c = new CRC32C();
        c.update(b, pos, 8 + bodyLen);
        if ((int) c.getValue() != buf.getInt(pos + 8 + bodyLen)) return -1;
        buf.position(pos + 8);
        long segment = buf.getLong();
        long length = buf.getLong();
        buf.getLong();
        int count = buf.getInt();
        int bodyEnd = pos + 8 + bodyLen;
        List<Entry> list = new ArrayList<>(Math.max(0, Math.min(count, bodyLen / ENTRY_FIXED)));
        for (int i = 0; i < count; i++) {
            if (bodyEnd - buf.position() < ENTRY_FIXED) return -1;
            long dev = buf.getLong();
            long ino = buf.getLong();
            int fpLen = buf.getInt();
            long fpHash = buf.getLong();
            long offset = buf.getLong();
            long seen = buf.getLong();
            int pathLen = Short.toUnsignedInt(buf.getShort());
            if (bodyEnd - buf.position() < pathLen) return -1;
            byte[] path = new byte[pathLen];
            buf.get(path);
            list.add(new Entry(dev, ino, fpLen, fpHash, offset, seen, new String(path, StandardCharsets.UTF_8)));
        }
        if (buf.position() != bodyEnd || count < 0 || segment < 0 || length < 0) return -1;
        if (entries != null) {
            for (Entry e : list) entries.put(Key.of(e.device(), e.inode(), e.fpLength(), e.fpHash()), e);
            commit[0] = segment;
            commit[1] = length;
        }
        return bodyEnd + 4;
    }

}
