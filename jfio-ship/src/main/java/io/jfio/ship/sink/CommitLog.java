package io.jfio.ship.sink;

import io.jfio.core.sys.Errno;
import io.jfio.core.sys.ErrnoException;
import io.jfio.core.sys.FileNames;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import io.jfio.core.sys.Stat;
import io.jfio.ship.harvest.Fingerprint;
import io.jfio.ship.log.ShipLog;
import io.jfio.ship.state.Checkpoint;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.CharBuffer;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CodingErrorAction;
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
 * whole state as a single record into {@code ship.commit.tmp} (created O_EXCL|O_NOFOLLOW with the segments' mode, so
 * that whoever may read the segments may read how far they are committed), fdatasyncs
 * it, renames it over {@code ship.commit} and fsyncs the directory; it runs at every open, at a segment roll and
 * when the appended records outgrow the last snapshot (and 1 MiB), and drops entries not seen for 7 days.
 *
 * <p>Why a log and not a rewritten file: one pwrite and one fdatasync of a few dozen bytes per commit, where rewriting
 * every position (thousands of files) would cost a file's worth of writing and three device flushes per commit. The
 * positions are not kept in memory between commits: compaction replays the file as far as the last successful commit,
 * so a shipper watching many files that rarely change holds nothing per file here. A torn tail (the record a crash
 * interrupted) fails its CRC and is ignored, which is right: its futures never completed, and recovery cuts the data
 * back to the previous record's length.
 *
 * <p>A commit makes no object per source. The staged positions are slots of three arrays (the batch's {@link
 * SourceId}, referenced, the position and the time), one slot per key, found through an open-addressing index of
 * ints ({@link KeyIndex}): a key staged again takes its slot over, so a busy source that sent many batches still
 * gets one entry. The record is encoded straight into a native piece of {@link #KEEP_BUFFER} bytes, written each
 * time it fills, so no buffer grows with the number of sources. Compaction reads the file into native memory,
 * indexes the latest entry of every key by its offset and copies those entries' bytes into the snapshot. A start-up
 * that ships thousands of files in one commit would otherwise make megabytes of medium-lived objects and buffers,
 * which the serial collector promotes.
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
    /** The longest path stored, in bytes (its length is an unsigned short); longer ones are cut. */
    static final int MAX_PATH = 65_535;
    /** Entries whose source was not seen (committed a batch) for this long are dropped at compaction. */
    static final long EXPIRE_MS = TimeUnit.DAYS.toMillis(7);
    /**
     * The piece a record is written in, and the most the buffers, staging arrays and index tables keep between
     * commits.
     */
    static final int KEEP_BUFFER = 64 * 1024;
    /** The entry buffer kept between commits: a path of up to 1,000 ASCII bytes. */
    private static final int ENTRY_BUFFER = 1024 + ENTRY_FIXED;
    /** The legacy {@code ship.commit}: long segment, long length, int CRC32C of both, int 0. */
    static final int LEGACY_SIZE = 24;

    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfShort SHORT =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    // An entry's fields, from its start.
    private static final int E_DEVICE = 0;
    private static final int E_INODE = 8;
    private static final int E_FP_LENGTH = 16;
    private static final int E_FP_HASH = 20;
    private static final int E_OFFSET = 28;
    private static final int E_SEEN_AT = 36;
    private static final int E_PATH_LENGTH = 44;
    // A record's fields, from its marker.
    private static final int R_BODY_LENGTH = 4;
    private static final int R_SEGMENT = 8;
    private static final int R_LENGTH = 16;
    private static final int R_WRITTEN_AT = 24;
    private static final int R_COUNT = 32;
    private static final int R_ENTRIES = 8 + BODY_HEADER;
    /** The staging arrays' smallest (and trimmed) size. */
    private static final int MIN_SLOTS = 16;
    /** Bytes a staging slot takes in the arrays: a (compressed) reference and two longs. */
    private static final int SLOT_BYTES = Integer.BYTES + 2 * Long.BYTES;

    /**
     * The content part of a source's key in the log: its fingerprint hash once the fingerprint is full, else 0. A
     * file truncated and rewritten gets a new key, so the old content's position stays beside the new one: a copy
     * of the old content (copytruncate's) found at the next start resumes there, and the file itself by the entry
     * whose fingerprint it matches. While the fingerprint grows (the first KiB), the entry is replaced.
     */
    static long content(int fpLength, long fpHash) {
        return fpLength >= Fingerprint.SIZE ? fpHash : 0;
    }

    /** A source's identity in the log: (device, inode, {@link #content}). */
    record Key(long device, long inode, long content) {
        static Key of(long device, long inode, int fpLength, long fpHash) {
            return new Key(device, inode, CommitLog.content(fpLength, fpHash));
        }
    }

    /** A source's committed position, as read at open; immutable. */
    record Entry(long device, long inode, int fpLength, long fpHash, long offset, long seenAt, String path) {
        Checkpoint checkpoint() {
            return new Checkpoint(device, inode, fpLength, fpHash, offset, seenAt, path);
        }
    }

    /**
     * What reading {@code ship.commit} at open found.
     *
     * @param exists    whether the file existed
     * @param found     whether it held a commit (a valid record or the legacy record; an empty file holds none)
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
    /** The mode the log is created with: the segments' ({@code output-mode}). */
    private final int fileMode;
    private final Path dir;
    private final ShipLog log;
    private final LongSupplier clock;
    private final long compactMin;
    private final MemorySegment name;
    private final MemorySegment tempName;
    /**
     * The changes of the commit being made (discarded when it fails), one slot per key: the source's identity (the
     * batch's, referenced, not copied), its position and when it was staged. A key staged again takes its slot over.
     */
    private SourceId[] ids = new SourceId[MIN_SLOTS];
    private long[] ends = new long[MIN_SLOTS];
    private long[] seen = new long[MIN_SLOTS];
    private int staged;
    /** The slot of every key staged. */
    private final KeyIndex slots = new KeyIndex(new StagedKeys(), KEEP_BUFFER);
    /** A piece of the record being written, in native memory (pwrite's source); see {@link #begin}. */
    private final NativeBuffer out = new NativeBuffer();
    private int outFd;
    private long outOffset;
    private int outPos;
    private int outCrcFrom;
    private int outError;
    /** Where the record being written starts in its file and how long it is: checked at {@link #end}. */
    private long outStart;
    private long outLength;
    /** The log read back for a compaction. */
    private final NativeBuffer in = new NativeBuffer();
    /** For a compaction: the offset in {@link #in} of the latest entry of every key. */
    private final KeyIndex latest = new KeyIndex(new EntryKeys(in), KEEP_BUFFER);
    private final CRC32C crc = new CRC32C();
    /** One entry being encoded (big-endian, as in the file); grown for a long path, trimmed after the commit. */
    private ByteBuffer entry = ByteBuffer.allocate(ENTRY_BUFFER);
    private final CharsetEncoder utf8 = newUtf8();
    private final Arena names = Arena.ofShared();
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
    CommitLog(int dirFd, Path dir, int fileMode, ShipLog log, LongSupplier clock, long compactMin, Parsed p,
              long segment, long length) throws IOException {
        this.dirFd = dirFd;
        this.fileMode = fileMode;
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
            } finally {
                trimBuffers();
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
        if (staged == ids.length) {
            ids = Arrays.copyOf(ids, 2 * staged);
            ends = Arrays.copyOf(ends, 2 * staged);
            seen = Arrays.copyOf(seen, 2 * staged);
        }
        int k = slots.putIfAbsent(id.device(), id.inode(), content(id.fpLength(), id.fpHash()), staged);
        if (k < 0) k = staged++;
        ids[k] = id;
        ends[k] = end;
        seen[k] = now;
    }

    /** Forgets the staged positions: their commit failed, so their batches are sent again. */
    void discard() {
        Arrays.fill(ids, 0, staged, null);
        staged = 0;
        slots.clear();
        if (ids.length * SLOT_BYTES > KEEP_BUFFER) {
            ids = new SourceId[MIN_SLOTS];
            ends = new long[MIN_SLOTS];
            seen = new long[MIN_SLOTS];
        }
    }

    /** The keys of the staged slots. */
    private final class StagedKeys implements KeyIndex.Keys {
        @Override
        public long device(int k) {
            return ids[k].device();
        }

        @Override
        public long inode(int k) {
            return ids[k].inode();
        }

        @Override
        public long content(int k) {
            return CommitLog.content(ids[k].fpLength(), ids[k].fpHash());
        }
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
                    replay();
                    writeSnapshot(segment, length, now, null);
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
            discard();
            latest.clear();
            trimBuffers();
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
        long body = body(stagedBytes());
        long n = RECORD_OVERHEAD + body;
        begin(fd, size, false, segment, length, now, body, staged);
        putStaged();
        int r = end();
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
     * Reads the file as of the last successful commit into {@link #in} (up to {@link #size}, which ends at that
     * commit's record: a record whose commit failed, left because taking it back failed too, lies beyond) and
     * indexes the latest entry of every key in {@link #latest}. Throws {@link SnapshotNotTaken} when the file cannot
     * be read back or no longer holds what was written.
     */
    private void replay() throws SnapshotNotTaken {
        MemorySegment b = in.ensure(size);
        long done = 0;
        while (done < size) {
            long n = LibC.pread(fd, b.asSlice(done), size - done, done);
            if (n == -Errno.EINTR) continue;
            if (n <= 0) {
                throw new SnapshotNotTaken(n < 0 ? new ErrnoException("pread", (int) -n, fd,
                        dir.resolve(NAME).toString(), done, size - done) : new IOException(NAME
                        + " is shorter than written: " + done + " of " + size + " bytes, dir=" + dir));
            }
            done += n;
        }
        Walk w = walk(b.asSlice(0, size), (s, at) -> latest.put(s.get(LONG, at + E_DEVICE),
                s.get(LONG, at + E_INODE), contentAt(s, at), (int) at));
        if (w.problem() != null || !w.found()) {
            throw new SnapshotNotTaken(new IOException(NAME + " no longer holds what was written: "
                    + (w.problem() != null ? w.problem() : "no commit") + ", dir=" + dir));
        }
    }

    /**
     * Writes the state with the staged positions (less expired entries) as one record to the temporary file and
     * renames it over the log. The state is {@code opened} at open, else the entries {@link #replay} indexed. Throws
     * {@link SnapshotNotTaken} when the old file was not replaced.
     */
    private void writeSnapshot(long segment, long length, long now, Map<Key, Entry> opened) throws IOException {
        // What the record holds, counted first: its header comes before the entries.
        long expired = now - EXPIRE_MS;
        long bytes = stagedBytes();
        int count = staged;
        if (opened != null) {
            for (Entry e : opened.values()) {
                if (e.seenAt() < expired) continue;
                bytes += ENTRY_FIXED + encodePath(e.path());
                count++;
            }
        } else {
            for (int slot = 0; slot < latest.capacity(); slot++) {
                int at = latest.idAt(slot);
                if (kept(at, expired)) {
                    bytes += entryLength(in.segment(), at);
                    count++;
                }
            }
        }
        long body = body(bytes);
        long n = HEADER + RECORD_OVERHEAD + body;
        int t = LibC.openat(dirFd, tempName, Fcntl.O_RDWR | Fcntl.O_CREAT | Fcntl.O_EXCL | Fcntl.O_NOFOLLOW
                | Fcntl.O_CLOEXEC, fileMode);
        if (t < 0) {
            String why = t == -Errno.EEXIST ? " (it exists: left by someone else, perhaps a planted link; it is "
                    + "neither followed nor removed)" : "";
            throw new SnapshotNotTaken(new IOException("cannot create " + TEMP + ": errno=" + Errno.name(-t) + why
                    + " dir=" + dir));
        }
        begin(t, 0, true, segment, length, now, body, count);
        if (opened != null) {
            for (Entry e : opened.values()) {
                if (e.seenAt() < expired) continue;
                putEntry(e.device(), e.inode(), e.fpLength(), e.fpHash(), e.offset(), e.seenAt(), e.path());
            }
        } else {
            for (int slot = 0; slot < latest.capacity(); slot++) {
                int at = latest.idAt(slot);
                if (kept(at, expired)) putBytes(in.segment(), at, entryLength(in.segment(), at));
            }
        }
        putStaged();
        int r = end();
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
     * Whether the entry at {@code at} of the log read back goes into the snapshot: in {@link #latest}, seen within
     * the expiry and not staged again in this commit.
     */
    private boolean kept(int at, long expired) {
        MemorySegment b = in.segment();
        return at >= 0 && b.get(LONG, at + E_SEEN_AT) >= expired
                && slots.get(b.get(LONG, at + E_DEVICE), b.get(LONG, at + E_INODE), contentAt(b, at)) < 0;
    }

    /**
     * Lets go of buffers a large record grew: the log read back for a compaction, a piece grown for a long path.
     */
    private void trimBuffers() {
        out.trim(KEEP_BUFFER);
        in.trim(KEEP_BUFFER);
        if (entry.capacity() > ENTRY_BUFFER) entry = ByteBuffer.allocate(ENTRY_BUFFER);
    }

    /** The body length of a record whose entries take {@code entries} bytes (its field is an int). */
    private static long body(long entries) {
        long body = BODY_HEADER + entries;
        if (body > Integer.MAX_VALUE - 64) throw new IllegalStateException("commit record too large: bytes=" + body);
        return body;
    }

    /** The bytes the staged entries take in a record. */
    private long stagedBytes() {
        long n = 0;
        for (int k = 0; k < staged; k++) n += ENTRY_FIXED + encodePath(ids[k].path());
        return n;
    }

    private void putStaged() {
        for (int k = 0; k < staged; k++) {
            SourceId id = ids[k];
            putEntry(id.device(), id.inode(), id.fpLength(), id.fpHash(), ends[k], seen[k], id.path());
        }
    }

    /**
     * Starts writing a record to {@code fd} at {@code offset} (after a file header when {@code header}): its marker
     * and body header, the entries to follow with {@link #putEntry} and {@link #putBytes}, then {@link #end}. The
     * record goes out in pieces of {@link #KEEP_BUFFER} bytes, each written as it fills, whatever the number of
     * sources: a commit needs no buffer the size of its record. A torn record is no worse than one torn pwrite: its
     * CRC fails, and it is taken back or never renamed into place.
     */
    private void begin(int fd, long offset, boolean header, long segment, long length, long now, long bodyLength,
                       int count) {
        MemorySegment b = out.ensure(KEEP_BUFFER);
        outFd = fd;
        outOffset = offset;
        outStart = offset;
        outLength = (header ? HEADER : 0) + RECORD_OVERHEAD + bodyLength;
        outPos = 0;
        outError = 0;
        if (header) {
            MemorySegment.copy(MAGIC, 0, b, ValueLayout.JAVA_BYTE, 0, MAGIC.length);
            b.set(INT, 8, VERSION);
            b.set(INT, 12, 0);
            outPos = HEADER;
        }
        crc.reset();
        outCrcFrom = outPos;
        b.set(INT, outPos, MARKER);
        b.set(INT, outPos + R_BODY_LENGTH, (int) bodyLength);
        b.set(LONG, outPos + R_SEGMENT, segment);
        b.set(LONG, outPos + R_LENGTH, length);
        b.set(LONG, outPos + R_WRITTEN_AT, now);
        b.set(INT, outPos + R_COUNT, count);
        outPos += R_ENTRIES;
    }

    /** Room for {@code n} more bytes in the piece: the full piece is written first. */
    private MemorySegment room(int n) {
        if (outPos + n > out.segment().byteSize()) {
            flush();
            // Only an entry with a path of tens of kilobytes needs more; trimmed after the commit.
            if (n > out.segment().byteSize()) out.ensure(n);
        }
        return out.segment();
    }

    /** Checksums and writes the piece (the first write error is kept for {@link #end}); the next one starts empty. */
    private void flush() {
        MemorySegment b = out.segment();
        crc.update(b.asSlice(outCrcFrom, outPos - outCrcFrom).asByteBuffer());
        if (outError == 0) outError = writeFully(outFd, b, outPos, outOffset);
        outOffset += outPos;
        outPos = 0;
        outCrcFrom = 0;
    }

    /** Puts the CRC after the entries and writes the rest; 0 or -errno. */
    private int end() {
        if (outPos + 4 > out.segment().byteSize()) flush();
        MemorySegment b = out.segment();
        crc.update(b.asSlice(outCrcFrom, outPos - outCrcFrom).asByteBuffer());
        b.set(INT, outPos, (int) crc.getValue());
        outPos += 4;
        if (outError == 0) outError = writeFully(outFd, b, outPos, outOffset);
        long written = outOffset + outPos - outStart;
        if (outError == 0 && written != outLength) {
            // The lengths counted before do not match the entries put: the record is unreadable, so it is treated
            // as a failed write (taken back, or the temporary file removed).
            log.error("dir-sink-commit-record-length", "dir", dir, "counted", outLength, "written", written);
            outError = -Errno.EIO;
        }
        return outError;
    }

    /** Writes the first {@code n} bytes of {@code b} at {@code offset}; 0 or -errno. */
    private static int writeFully(int fd, MemorySegment b, int n, long offset) {
        long done = 0;
        while (done < n) {
            long w = LibC.pwrite(fd, b.asSlice(done), n - done, offset + done);
            if (w == -Errno.EINTR) continue;
            if (w < 0) return (int) w;
            if (w == 0) return -Errno.EIO;
            done += w;
        }
        return 0;
    }

    /** Puts the {@code n} bytes of an entry of {@code from} at {@code at} into the record. */
    private void putBytes(MemorySegment from, long at, int n) {
        MemorySegment.copy(from, at, room(n), outPos, n);
        outPos += n;
    }

    /**
     * Encodes {@code path} as UTF-8 into {@link #entry} after the fixed fields, cut at {@link #MAX_PATH} bytes (after
     * a whole character); returns its length (counting a record's size uses the same code as writing it). The
     * encoder is reused and writes into the reused buffer: a path is encoded without an array of its own.
     */
    private int encodePath(String path) {
        // At most 3 bytes a char: a surrogate pair (2 chars) takes 4.
        int room = ENTRY_FIXED + (int) Math.min(3L * path.length(), MAX_PATH);
        if (entry.capacity() < room) entry = ByteBuffer.allocate(Math.max(room, 2 * entry.capacity()));
        ByteBuffer b = entry.clear().position(ENTRY_FIXED).limit(room);
        if (FileNames.escaped(path)) {
            // A name that is not valid UTF-8: its bytes as they are (rare, so the array is no concern).
            byte[] raw = FileNames.encode(path);
            b.put(raw, 0, Math.min(raw.length, b.remaining()));
            int n = b.position() - ENTRY_FIXED;
            entry.clear();
            return n;
        }
        // ASCII (most paths): the chars are the bytes. The encoder needs a CharBuffer per path, and the sync thread
        // encodes every source of a commit twice (its size, then the entry).
        byte[] a = entry.array();
        int max = room - ENTRY_FIXED;
        int len = Math.min(path.length(), max);
        boolean ascii = true;
        for (int i = 0; i < len; i++) {
            char ch = path.charAt(i);
            if (ch >= 0x80) {
                ascii = false;
                break;
            }
            a[ENTRY_FIXED + i] = (byte) ch;
        }
        if (ascii) {
            entry.clear();
            return len;
        }
        utf8.reset();
        utf8.encode(CharBuffer.wrap(path), b, true);
        utf8.flush(b);
        int n = b.position() - ENTRY_FIXED;
        entry.clear();
        return n;
    }

    /**
     * Puts one entry into the record. It is put together in {@link #entry} and copied over in one piece: a shipper
     * starting with thousands of files encodes them before this code is compiled, and the interpreter runs a byte
     * array's stores many times faster than memory-segment accesses.
     */
    private void putEntry(long device, long inode, int fpLength, long fpHash, long offset, long seenAt, String path) {
        int n = encodePath(path);
        entry.putLong(E_DEVICE, device).putLong(E_INODE, inode).putInt(E_FP_LENGTH, fpLength)
                .putLong(E_FP_HASH, fpHash).putLong(E_OFFSET, offset).putLong(E_SEEN_AT, seenAt)
                .putShort(E_PATH_LENGTH, (short) n);
        MemorySegment.copy(entry.array(), 0, room(ENTRY_FIXED + n), ValueLayout.JAVA_BYTE, outPos, ENTRY_FIXED + n);
        outPos += ENTRY_FIXED + n;
    }

    private static CharsetEncoder newUtf8() {
        return StandardCharsets.UTF_8.newEncoder().onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE);
    }

    private static long contentAt(MemorySegment b, long at) {
        return content(b.get(INT, at + E_FP_LENGTH), b.get(LONG, at + E_FP_HASH));
    }

    private static int entryLength(MemorySegment b, long at) {
        return ENTRY_FIXED + Short.toUnsignedInt(b.get(SHORT, at + E_PATH_LENGTH));
    }

    /** The keys of the entries in a buffer, by their offsets. */
    private record EntryKeys(NativeBuffer buffer) implements KeyIndex.Keys {
        @Override
        public long device(int at) {
            return buffer.segment().get(LONG, at + E_DEVICE);
        }

        @Override
        public long inode(int at) {
            return buffer.segment().get(LONG, at + E_INODE);
        }

        @Override
        public long content(int at) {
            return contentAt(buffer.segment(), at);
        }
    }

    @Override
    public void close() {
        if (fd >= 0) {
            LibC.close(fd);
            fd = -1;
        }
        out.close();
        in.close();
        names.close();
    }

    /**
     * Not thread-safe. Native memory replaced by a larger one when a use needs more; the sync thread uses it after
     * the opening thread, so it comes from a shared arena.
     */
    private static final class NativeBuffer implements AutoCloseable {
        private Arena arena;
        private MemorySegment segment;

        /** The buffer, at least {@code need} bytes; a new one (its contents not kept) when it was smaller. */
        MemorySegment ensure(long need) {
            if (segment != null && segment.byteSize() >= need) return segment;
            close();
            arena = Arena.ofShared();
            segment = arena.allocate(need);
            return segment;
        }

        MemorySegment segment() {
            return segment;
        }

        /** Lets the buffer go when it is larger than {@code keep} bytes. */
        void trim(long keep) {
            if (segment != null && segment.byteSize() > keep) close();
        }

        @Override
        public void close() {
            if (arena != null) {
                arena.close();
                arena = null;
                segment = null;
            }
        }
    }

    // ---- reading: at open, and for a compaction ----

    /**
     * Reads {@code ship.commit} of the directory {@code dirFd} without following a symlink at its name.
     *
     * @throws IOException when it cannot be read, or is a symlink or not a regular file (refused: jfio runs as root
     *                     and must not be made to read or write through a planted link)
     */
    static Parsed read(int dirFd, Path dir) throws IOException {
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
                return parse(buf.asSlice(0, done));
            } finally {
                LibC.close(fd);
            }
        }
    }

    /** The error for a symlink planted at one of the sink's state files. */
    static IOException refused(Path dir, String file) {
        return new IOException("dir sink refuses to start: " + file + " is a symbolic link (jfio does not write "
                + "through links in its sink directory; remove it if it is not yours): path=" + dir.resolve(file));
    }

    /** Parses the bytes of {@code ship.commit} (either format). */
    static Parsed parse(MemorySegment b) {
        long len = b.byteSize();
        if (len == 0) {
            // This version never leaves the file empty (it is always replaced whole, through a temporary file); an
            // empty one is damage, or one of an earlier version created at open. Neither says what was
            // acknowledged, so nothing is cut: at worst bytes are shipped twice, never lost.
            return new Parsed(true, false, false, 0, 0, Map.of(), false, "empty (0 bytes)");
        }
        if (len == LEGACY_SIZE && !startsWithMagic(b)) {
            CRC32C c = new CRC32C();
            c.update(b.asSlice(0, 16).asByteBuffer());
            if ((int) c.getValue() != b.get(INT, 16)) {
                return new Parsed(true, false, false, 0, 0, Map.of(), true, "legacy commit record: checksum mismatch");
            }
            return new Parsed(true, true, true, b.get(LONG, 0), b.get(LONG, 8), Map.of(), true, null);
        }
        Map<Key, Entry> entries = new HashMap<>();
        Walk w = walk(b, (s, at) -> {
            byte[] path = new byte[Short.toUnsignedInt(s.get(SHORT, at + E_PATH_LENGTH))];
            MemorySegment.copy(s, ValueLayout.JAVA_BYTE, at + ENTRY_FIXED, path, 0, path.length);
            Entry e = new Entry(s.get(LONG, at + E_DEVICE), s.get(LONG, at + E_INODE), s.get(INT, at + E_FP_LENGTH),
                    s.get(LONG, at + E_FP_HASH), s.get(LONG, at + E_OFFSET), s.get(LONG, at + E_SEEN_AT),
                    FileNames.decode(path));
            entries.put(Key.of(e.device(), e.inode(), e.fpLength(), e.fpHash()), e);
        });
        return new Parsed(true, w.found(), w.trustTail(), w.segment(), w.length(), entries, false, w.problem());
    }

    /** Receives the entries of the valid records of a walk, in file order (later entries replace earlier ones). */
    @FunctionalInterface
    private interface EntryVisitor {
        /** The entry at offset {@code at} of {@code b} (its bounds checked). */
        void entry(MemorySegment b, long at);
    }

    /**
     * What a {@link #walk} found.
     *
     * @param found     whether a valid record was found
     * @param trustTail whether one was and nothing follows the last one but a torn record
     * @param segment   the last valid record's segment
     * @param length    the last valid record's length
     * @param problem   what was damaged; null when nothing was
     */
    private record Walk(boolean found, boolean trustTail, long segment, long length, String problem) {
    }

    /**
     * Walks the header and records of the current format in {@code b}, handing the entries of every valid record to
     * {@code v} in order: what {@link #parse} reads at open and what a compaction replays. A bad record is skipped
     * up to the next valid one and reported, except a torn last one (what an interrupted append leaves).
     */
    private static Walk walk(MemorySegment b, EntryVisitor v) {
        Records r = new Records(b);
        long len = b.byteSize();
        List<String> problems = new ArrayList<>();
        long segment = 0;
        long length = 0;
        boolean found = false;
        long pos = HEADER;
        if (len < HEADER || !startsWithMagic(b) || b.get(INT, 8) != VERSION) {
            problems.add("bad header (magic or version)");
            pos = 0;
        }
        boolean trustTail = true;
        while (pos < len) {
            long end = r.record(pos, v);
            if (end > 0) {
                found = true;
                segment = b.get(LONG, pos + R_SEGMENT);
                length = b.get(LONG, pos + R_LENGTH);
                pos = end;
                continue;
            }
            if (problems.isEmpty() && r.torn(pos)) {
                // The record a crash interrupted: its futures never completed.
                break;
            }
            long next = pos + 1;
            while (next < len && r.record(next, null) < 0) next++;
            if (next >= len) {
                if (r.torn(pos) && found) {
                    problems.add("bad record at offset " + pos + " (torn tail after damage)");
                } else {
                    problems.add("bad bytes from offset " + pos + " to the end (" + (len - pos) + " bytes)");
                    trustTail = false;
                }
                break;
            }
            problems.add("bad bytes at offset " + pos + " (" + (next - pos) + " bytes skipped)");
            pos = next;
        }
        return new Walk(found, found && trustTail, segment, length,
                problems.isEmpty() ? null : String.join("; ", problems));
    }

    private static boolean startsWithMagic(MemorySegment b) {
        return b.byteSize() >= MAGIC.length
                && MemorySegment.mismatch(b, 0, MAGIC.length, MemorySegment.ofArray(MAGIC), 0, MAGIC.length) < 0;
    }

    /** The checks of one walk's records over its bytes, with one CRC32C and one buffer view for all of them. */
    private static final class Records {
        private final MemorySegment b;
        private final long len;
        private final ByteBuffer view;
        private final CRC32C crc = new CRC32C();

        Records(MemorySegment b) {
            this.b = b;
            this.len = b.byteSize();
            this.view = b.asByteBuffer();
        }

        /**
         * Whether the bytes from {@code pos} are what an interrupted append leaves: too short for a record header,
         * all zero, or one record whose length reaches to or past the end of the file.
         */
        boolean torn(long pos) {
            long left = len - pos;
            if (left < 8) return true;
            boolean zero = true;
            for (long i = pos; i < len && zero; i++) zero = b.get(ValueLayout.JAVA_BYTE, i) == 0;
            if (zero) return true;
            int bodyLen = b.get(INT, pos + R_BODY_LENGTH);
            return b.get(INT, pos) == MARKER && bodyLen >= BODY_HEADER && pos + RECORD_OVERHEAD + bodyLen >= len;
        }

        /**
         * Checks the record at {@code pos}; when valid, hands its entries to {@code v} (unless null) and returns its
         * end, else -1.
         */
        long record(long pos, EntryVisitor v) {
            if (len - pos < RECORD_OVERHEAD + BODY_HEADER) return -1;
            if (b.get(INT, pos) != MARKER) return -1;
            int bodyLen = b.get(INT, pos + R_BODY_LENGTH);
            if (bodyLen < BODY_HEADER || bodyLen > len - pos - RECORD_OVERHEAD) return -1;
            long bodyEnd = pos + 8 + bodyLen;
            crc.reset();
            crc.update(view.limit((int) bodyEnd).position((int) pos));
            if ((int) crc.getValue() != b.get(INT, bodyEnd)) return -1;
            int count = b.get(INT, pos + R_COUNT);
            long p = pos + R_ENTRIES;
            for (int i = 0; i < count; i++) {
                if (bodyEnd - p < ENTRY_FIXED) return -1;
                int pathLen = Short.toUnsignedInt(b.get(SHORT, p + E_PATH_LENGTH));
                if (bodyEnd - p - ENTRY_FIXED < pathLen) return -1;
                p += ENTRY_FIXED + pathLen;
            }
            if (p != bodyEnd || count < 0 || b.get(LONG, pos + R_SEGMENT) < 0 || b.get(LONG, pos + R_LENGTH) < 0) {
                return -1;
            }
            if (v != null) {
                p = pos + R_ENTRIES;
                for (int i = 0; i < count; i++) {
                    v.entry(b, p);
                    p += entryLength(b, p);
                }
            }
            return bodyEnd + 4;
        }
    }
}
