package io.jfio.ship.sink;

import io.jfio.core.sys.Errno;
import io.jfio.core.sys.ErrnoException;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import io.jfio.core.sys.Stat;
import io.jfio.ship.log.ShipLog;
import io.jfio.ship.state.Checkpoint;
import io.jfio.ship.state.StateLock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Threads: one pipeline thread calls {@code send}/{@code flush}/{@code close}; the sync thread ({@code
 * jfio-ship-dirsync}) syncs, commits and completes the futures; the writer thread ({@code jfio-ship-dirwrite}, only
 * once an encoded batch came) writes encoded batches; {@link #committed()} may be called from any thread.
 *
 * <p>The directory sink: batches appended to segment files {@code ship-000000000001.log}, {@code ship-...2.log}, ...,
 * rolled when a segment would pass the segment size. Records are written exactly as read, no headers: one source file's
 * bytes appear in the order read, and batches of several sources interleave at batch granularity (whole records).
 *
 * <p>Durability: {@link #send} writes (pwrite from the batch's native memory, no heap copy) and returns a pending
 * future. An encoded batch (NDJSON, filtered: not the source's bytes; its payload may be on the heap) is copied to a
 * buffer of the {@link SegmentWriter}'s instead and written by its thread while the pipeline encodes the next; a write
 * or a sync of the pipeline's own waits for the writer's writes before it, and a sync task handed over while the writer
 * has writes queued follows them through its queue, so the order is the same either way. {@link #flush} hands a sync to
 * the sink's sync thread, which fdatasyncs the segment and then appends a commit record to {@code ship.commit} (see
 * {@link CommitLog} for the format) and fdatasyncs it before it completes the futures, in order. The record holds the
 * segment, its committed length and, for every source ({@link SourceId}: device, inode) whose batches the commit
 * covers, the fingerprint, path and the end of its last batch in the committed bytes. So the data and the source
 * positions are committed by one write: {@link #committed()} (read from the file) is exactly where every source's bytes
 * in the segments end, which makes shipping into this sink exactly once. Tasks queued while an fdatasync runs share the
 * next one (group commit).
 *
 * <p>Recovery at open: {@code ship.commit} is replayed to its last good record (a torn last record is ignored: its
 * futures never completed); the committed segment is cut back to the committed length and newer segments (never
 * committed) are removed, so a batch torn by a kill never leaves a partial record and no byte is there twice; then the
 * state is rewritten as one snapshot. A legacy 24-byte {@code ship.commit} (segment, length, CRC32C) is a commit
 * without positions. A damaged log (bad header, a bad record followed by good ones) is logged with what was skipped;
 * what is valid is kept, a copy is kept as {@code ship.commit.corrupt-TIMESTAMP}, and when the damage reaches the end
 * of the file (so the last commit is unknown) no segment is cut: data is never dropped for a damaged log, at the price
 * of a possible partial batch at the newest segment's end and positions that may lag (bytes sent twice).
 *
 * <p>A new segment's name is made durable with a directory fsync before any byte in it is acknowledged. After a failed
 * fsync or commit, or a failed write on the writer thread, the segment is poisoned: its pending and later tasks fail
 * (their positions are never committed), it is cut back to its last committed length when it is closed, and the resend
 * goes to a new segment. State files are opened relative to the directory with O_NOFOLLOW (temporaries O_EXCL), the
 * commit log with the segments' mode and the lock 0600: a symlink planted at {@code ship.commit} or
 * {@code ship.commit.tmp} is refused, never written through. The
 * directory is locked ({@code .jfio-sink.lock}) so that two shippers never write the same segments.
 */
public final class DirSink implements Sink {
    private static final Pattern SEGMENT = Pattern.compile("ship-(\\d{12})\\.log");
    /** Ends the sync thread; compared by identity. */
    private static final SyncTask STOP = new SyncTask(null, 0, List.of(), null, false);
    /** The log is compacted when its appended records pass this and the last snapshot's size. */
    static final long COMPACT_MIN = 1 << 20;

    /** Mode of the segments it creates. */
    private final int fileMode;
    private final Path dir;
    private final long segmentSize;
    private final ShipLog log;
    private final StateLock lock;
    private final int dirFd;
    private final LongSupplier clock;
    private final CommitLog commitLog;
    private final LinkedBlockingQueue<SyncTask> syncQueue = new LinkedBlockingQueue<>();
    private final Thread syncer;

    /** Batches up to this size are staged and written with the others of their round in one pwrite. */
    static final long STAGE_MAX_BATCH = 64 << 10;
    private static final long STAGE_BYTES = 256 << 10;
    /**
     * While nobody waits for acknowledgements (no drain or finish) and a flush brings little (less than {@link
     * #SYNC_GATHER_MAX_BYTES}), the sync thread lets the flushes of this long gather behind the first before it
     * syncs: a pipeline that flushes after every round of a few lines would else cost two fdatasyncs per round.
     * Acknowledgements come that much later; the bytes are in the segment at once.
     */
    private static final long SYNC_GATHER_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    /** A flush of this many new bytes or more is synced at once: a fast stream gains nothing by waiting. */
    private static final long SYNC_GATHER_MAX_BYTES = 1 << 20;

    // Pipeline thread only.
    private final Arena stageArena = Arena.ofAuto();
    private MemorySegment stageBuffer;
    private long staged;
    private final Changes stagedBatches = new Changes(true);
    /**
     * The staged batches' future, one for all of them: they are written with one pwrite and join the same sync task,
     * so they are acknowledged together (one future per round rather than per batch). Null while nothing is staged.
     */
    private CompletableFuture<Void> stagedFuture;
    /** pwrite calls of batch bytes: the pipeline's and the writer's. */
    private final java.util.concurrent.atomic.LongAdder writeCalls = new java.util.concurrent.atomic.LongAdder();
    /** Writes encoded batches off the pipeline thread (see {@link SegmentWriter}). */
    private final SegmentWriter writer;
    /** Pipeline thread: whether an encoded batch went to the writer (else the raw path does not even ask it). */
    private boolean writerUsed;
    /** Set by drain and finish: the sync thread syncs each flush at once. */
    private volatile boolean promptSync;
    /** The caller waits for acknowledgements ({@link #acknowledgeSoon}; until it says otherwise): no gathering. */
    private volatile boolean syncSoon = true;
    private long nextSeq;
    private Segment current;
    private List<CompletableFuture<Void>> unsynced = new ArrayList<>();
    private Changes changes = new Changes();
    private volatile boolean poisoned;
    private boolean closed;

    /** An open segment. Its descriptor is closed by the sync thread after its last fsync. */
    private static final class Segment {
        final long seq;
        final int fd;
        /** Pipeline thread: bytes written. */
        long size;
        /** Sync thread: bytes committed. */
        long committedLength;
        /** Sync and writer threads: why the segment was abandoned; null while it is good. */
        volatile IOException failure;

        Segment(long seq, int fd) {
            this.seq = seq;
            this.fd = fd;
        }
    }

    /**
     * The source positions of the batches written since the last sync task, in order (appending costs no
     * allocation but the arrays' growth; consecutive batches of one source share a slot).
     */
    private static final class Changes {
        SourceId[] ids = new SourceId[8];
        long[] ends = new long[8];
        int n;
        /** Whether every batch keeps its own slot, null ids too (the staged batches, replayed in order). */
        private final boolean each;

        Changes() {
            this(false);
        }

        Changes(boolean each) {
            this.each = each;
        }

        /** Empties it for reuse (no identity kept alive by a spare). */
        void clear() {
            java.util.Arrays.fill(ids, 0, n, null);
            n = 0;
        }

        void add(SourceId id, long end) {
            if (!each && n > 0 && ids[n - 1] == id) {
                ends[n - 1] = end;
                return;
            }
            if (n == ids.length) {
                ids = java.util.Arrays.copyOf(ids, n * 2);
                ends = java.util.Arrays.copyOf(ends, n * 2);
            }
            ids[n] = id;
            ends[n++] = end;
        }
    }

    /**
     * Thread-safe. The future lists and position sets of sync tasks the sync thread is done with, kept for the
     * pipeline's next tasks: a flush per round would otherwise make a list and a position set each time. At most
     * {@link #MAX} of each are kept.
     */
    private static final class Spares {
        static final int MAX = 64;
        private final java.util.ArrayDeque<ArrayList<CompletableFuture<Void>>> lists = new java.util.ArrayDeque<>(MAX);
        private final java.util.ArrayDeque<Changes> changes = new java.util.ArrayDeque<>(MAX);

        synchronized ArrayList<CompletableFuture<Void>> list() {
            ArrayList<CompletableFuture<Void>> l = lists.pollLast();
            return l != null ? l : new ArrayList<>();
        }

        synchronized Changes changes() {
            Changes c = changes.pollLast();
            return c != null ? c : new Changes();
        }

        /** Takes back what a task no longer needs: its futures are completed and its positions committed. */
        synchronized void give(List<CompletableFuture<Void>> waiting, Changes c) {
            if (waiting instanceof ArrayList<CompletableFuture<Void>> l && lists.size() < MAX) {
                l.clear();
                lists.addLast(l);
            }
            if (c != null && changes.size() < MAX) {
                c.clear();
                changes.addLast(c);
            }
        }
    }

    private final Spares spares = new Spares();

    /**
     * Opens (creating it if needed) the sink directory, repairs what a crash left, and starts the sync thread.
     *
     * @param dir         the directory
     * @param segmentSize a segment is rolled before it would pass this size
     * @param log         where repairs and failures are logged
     */
    public DirSink(Path dir, long segmentSize, ShipLog log) throws IOException {
        this(dir, segmentSize, 0600, log);
    }

    /**
     * Opens (creating it, mode {@code fileMode} plus x where r is set, if it does not exist) the sink directory
     * {@code dir}, whose segments are created with mode {@code fileMode}.
     */
    public DirSink(Path dir, long segmentSize, int fileMode, ShipLog log) throws IOException {
        this(dir, segmentSize, fileMode, log, System::currentTimeMillis, COMPACT_MIN);
    }

    /** As above with the clock (epoch ms, for seen-at times) and the compaction bound given: for tests. */
    DirSink(Path dir, long segmentSize, ShipLog log, LongSupplier clock, long compactMin) throws IOException {
        this(dir, segmentSize, 0600, log, clock, compactMin);
    }

    private DirSink(Path dir, long segmentSize, int fileMode, ShipLog log, LongSupplier clock, long compactMin)
            throws IOException {
        this.fileMode = fileMode;
        this.dir = dir.toAbsolutePath().normalize();
        this.segmentSize = segmentSize;
        this.log = log;
        this.writer = new SegmentWriter(e -> log.error("dir-sink-writer-thread", "error", e.toString()));
        this.clock = clock;
        PrivateDirs.create(this.dir, PrivateDirs.dirMode(fileMode));
        this.lock = StateLock.acquire(this.dir, ".jfio-sink.lock", "sink directory");
        this.dirFd = LibC.openat(Fcntl.AT_FDCWD, this.dir.toString(), Fcntl.O_RDONLY | Fcntl.O_DIRECTORY
                | Fcntl.O_CLOEXEC, 0);
        if (dirFd < 0) {
            lock.close();
            throw new ErrnoException("open", -dirFd, this.dir.toString());
        }
        try {
            if (Files.isSymbolicLink(this.dir.resolve(CommitLog.TEMP))) {
                throw CommitLog.refused(this.dir, CommitLog.TEMP);
            }
            CommitLog.Parsed p = CommitLog.read(dirFd, this.dir);
            long[] point = new long[2];
            this.nextSeq = recover(p, point) + 1;
            // A temporary left by a compaction a crash interrupted: the file it was to replace stands.
            try (Arena a = Arena.ofConfined()) {
                LibC.unlinkat(dirFd, a.allocateFrom(CommitLog.TEMP), 0);
            }
            this.commitLog = new CommitLog(dirFd, this.dir, fileMode, log, clock, compactMin, p, point[0], point[1]);
        } catch (IOException | RuntimeException e) {
            LibC.close(dirFd);
            lock.close();
            throw e;
        }
        this.syncer = Thread.ofPlatform().name("jfio-ship-dirsync").daemon(true).start(this::syncLoop);
    }

    @Override
    public String describe() {
        return SinkSpec.DIR + ":" + dir;
    }

    /**
     * The positions in {@code ship.commit}, read from it now (the sink keeps none in memory): where every source's
     * committed bytes end.
     */
    @Override
    public List<Checkpoint> committed() throws IOException {
        return CommitLog.checkpoints(CommitLog.read(dirFd, dir));
    }

    /**
     * The positions a sink directory has committed, read without opening the sink (no lock, no repair): for
     * {@code --dry-run}. Empty when the directory or its commit log does not exist.
     */
    public static List<Checkpoint> readCommitted(Path dir) throws IOException {
        int dirFd = LibC.openat(Fcntl.AT_FDCWD, dir.toString(), Fcntl.O_RDONLY | Fcntl.O_DIRECTORY | Fcntl.O_CLOEXEC,
                0);
        if (dirFd == -Errno.ENOENT) return List.of();
        ErrnoException.check(dirFd, "open", -1, dir.toString());
        try {
            return CommitLog.checkpoints(CommitLog.read(dirFd, dir));
        } finally {
            LibC.close(dirFd);
        }
    }

    /**
     * Where the committed bytes of a sink directory end, read without opening the sink (no lock, no repair): the
     * segment's number and its committed length, {@code {0, 0}} when nothing is committed. Bytes of that segment past
     * the length, and later segments, are not acknowledged: a crash may cut them away. For tests and tools.
     */
    public static long[] readCommittedEnd(Path dir) throws IOException {
        int dirFd = LibC.openat(Fcntl.AT_FDCWD, dir.toString(), Fcntl.O_RDONLY | Fcntl.O_DIRECTORY | Fcntl.O_CLOEXEC,
                0);
        if (dirFd == -Errno.ENOENT) return new long[] {0, 0};
        ErrnoException.check(dirFd, "open", -1, dir.toString());
        try {
            CommitLog.Parsed p = CommitLog.read(dirFd, dir);
            return p.found() ? new long[] {p.segment(), p.length()} : new long[] {0, 0};
        } finally {
            LibC.close(dirFd);
        }
    }

    /** Segment file name of sequence number {@code seq}. */
    public static String segmentName(long seq) {
        return String.format("ship-%012d.log", seq);
    }

    /**
     * Brings the segments to the commit {@code p} found: cuts the committed segment back to its committed length
     * and removes segments that were never committed; sets {@code point} to the commit the state stands for (the
     * segments as they are when no trustworthy commit was found) and returns the highest sequence number in use.
     */
    private long recover(CommitLog.Parsed p, long[] point) throws IOException {
        List<Long> seqs = new ArrayList<>();
        try (Stream<Path> s = Files.list(dir)) {
            s.forEach(f -> {
                Matcher m = SEGMENT.matcher(f.getFileName().toString());
                if (m.matches()) seqs.add(Long.parseLong(m.group(1)));
            });
        }
        seqs.sort(null);
        long max = seqs.isEmpty() ? 0 : seqs.get(seqs.size() - 1);
        if (p.problem() != null) {
            log.error("dir-sink-commit-log-damaged", "dir", dir, "problem", p.problem(),
                    "kept", p.entries().size() + " positions" + (p.found() ? ", commit segment " + p.segment()
                            + " length " + p.length() : ""),
                    "consequence", p.trustTail()
                            ? "sources whose latest position was in the damaged part resume from an earlier one: "
                            + "some of their bytes may be shipped twice; no data is lost"
                            : "the last commit is unknown, so no segment is cut: a partial batch may remain at the "
                            + "newest segment's end, and sources resume from the positions kept (or, without one, "
                            + "as the pipeline decides): some bytes may be shipped twice; no data is lost");
        }
        if (!p.trustTail()) {
            if (!p.found() && !seqs.isEmpty()) {
                log.warn("dir-sink-no-commit-record", "dir", dir, "segments", seqs.size(),
                        "why", p.exists() ? CommitLog.NAME + " holds no valid commit" : "no " + CommitLog.NAME,
                        "action", "segments left as they are; no source positions");
            }
            point[0] = max;
            point[1] = max == 0 ? 0 : segmentLength(max);
            return max;
        }
        if (p.legacy()) {
            log.info("dir-sink-commit-upgraded", "dir", dir, "why", "24-byte " + CommitLog.NAME
                    + " of an earlier version: a commit without source positions");
        }
        point[0] = p.segment();
        point[1] = p.length();
        if (p.segment() > 0 && !seqs.contains(p.segment())) {
            log.error("dir-sink-committed-segment-missing", "segment", dir.resolve(segmentName(p.segment())),
                    "consequence", "its committed bytes are lost from the sink directory");
        }
        for (long s : seqs) {
            if (s > p.segment()) {
                removeUncommitted(s);
            } else if (s == p.segment()) {
                cut(s, p.length());
            }
        }
        // Never reuse the committed segment's number, even when its file is gone.
        return Math.max(max, p.segment());
    }

    private long segmentLength(long seq) throws IOException {
        return Files.readAttributes(dir.resolve(segmentName(seq)), java.nio.file.attribute.BasicFileAttributes.class,
                java.nio.file.LinkOption.NOFOLLOW_LINKS).size();
    }

    /** Cuts segment {@code seq} back to {@code length} (without following a link at its name). */
    private void cut(long seq, long length) throws IOException {
        String p = dir.resolve(segmentName(seq)).toString();
        int fd;
        try (Arena a = Arena.ofConfined()) {
            fd = LibC.openat(dirFd, a.allocateFrom(segmentName(seq)), Fcntl.O_WRONLY | Fcntl.O_NOFOLLOW
                    | Fcntl.O_CLOEXEC, 0);
            ErrnoException.check(fd, "open", -1, p);
            try {
                MemorySegment st = a.allocate(Stat.LAYOUT);
                ErrnoException.check(LibC.fstat(fd, st), "fstat", fd, p);
                long size = Stat.size(st);
                if (size < length) {
                    log.error("dir-sink-segment-short", "segment", p, "size", size, "committed", length,
                            "consequence", "committed bytes are lost from the sink directory");
                } else if (size > length) {
                    ErrnoException.check(LibC.ftruncate(fd, length), "ftruncate", fd, p, length, ErrnoException.NONE);
                    ErrnoException.check(LibC.fsync(fd), "fsync", fd, p);
                    log.info("dir-sink-repaired", "segment", p, "cut-bytes", size - length,
                            "why", "bytes after the last commit were never acknowledged; they are sent again");
                }
            } finally {
                LibC.close(fd);
            }
        }
    }

    private void removeUncommitted(long seq) throws IOException {
        Path p = dir.resolve(segmentName(seq));
        long size = segmentLength(seq);
        Files.delete(p);
        ErrnoException.check(LibC.fsync(dirFd), "fsync", dirFd, dir.toString());
        log.info("dir-sink-repaired", "segment", p, "removed-bytes", size,
                "why", "never acknowledged; its batches are sent again");
    }

    @Override
    public CompletableFuture<Void> send(Batch batch) throws IOException {
        if (closed) throw new IOException("sink closed: sink=" + describe());
        MemorySegment bytes = batch.payload();
        long length = bytes.byteSize();
        if (length <= STAGE_MAX_BATCH) return stage(batch);
        writeStaged();
        if (current == null || poisoned || (current.size > 0 && current.size + length > segmentSize)) roll();
        Segment seg = current;
        long before = seg.size;
        if (!batch.asRead()) return sendAsync(batch, seg, before);
        awaitWriter();
        long done = 0;
        while (done < length) {
            long n = LibC.pwrite(seg.fd, bytes.asSlice(done), length - done, before + done);
            writeCalls.increment();
            if (n == -Errno.EINTR) continue;
            if (n < 0) {
                // Leave no partial batch behind: the pipeline sends the whole batch again.
                LibC.ftruncate(seg.fd, before);
                throw new ErrnoException("pwrite", (int) -n, seg.fd, dir.resolve(segmentName(seg.seq)).toString(),
                        before + done, length - done);
            }
            done += n;
        }
        seg.size = before + length;
        if (batch.id() != null) changes.add(batch.id(), batch.end());
        CompletableFuture<Void> f = new CompletableFuture<>();
        unsynced.add(f);
        return f;
    }

    /**
     * An encoded batch (bytes of the pipeline's, not the source's): copied into a buffer of the writer's, written by
     * its thread while the pipeline goes on. The source's own bytes keep the direct pwrite: copying them would cost
     * what the write costs.
     */
    private CompletableFuture<Void> sendAsync(Batch batch, Segment seg, long before) throws IOException {
        MemorySegment bytes = batch.payload();
        long length = bytes.byteSize();
        MemorySegment buffer;
        try {
            buffer = writer.buffer(length);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted waiting for the dir sink's writer: sink="
                    + describe());
        }
        MemorySegment.copy(bytes, 0, buffer, 0, length);
        writerUsed = true;
        CompletableFuture<Void> f = new CompletableFuture<>();
        writer.submit(buffer, () -> writeAsync(seg, buffer, length, before, f));
        seg.size = before + length;
        if (batch.id() != null) changes.add(batch.id(), batch.end());
        unsynced.add(f);
        return f;
    }

    /**
     * On the writer thread: writes {@code buffer[0, length)} at {@code before} of {@code seg}. A failed write
     * abandons the segment as a failed fsync does: this batch and every batch after it in the segment fail (their
     * positions are never committed), the segment is cut back to its last commit when it is closed, and the pipeline
     * sends them again to a new segment.
     */
    private void writeAsync(Segment seg, MemorySegment buffer, long length, long before, CompletableFuture<Void> f) {
        IOException failure = seg.failure;
        if (failure != null) {
            f.completeExceptionally(new IOException("dir sink segment abandoned after an earlier failure: segment="
                    + segmentName(seg.seq) + ": " + failure.getMessage(), failure));
            return;
        }
        long done = 0;
        while (done < length) {
            long n = LibC.pwrite(seg.fd, buffer.asSlice(done), length - done, before + done);
            writeCalls.increment();
            if (n == -Errno.EINTR) continue;
            if (n < 0) {
                ErrnoException e = new ErrnoException("pwrite", (int) -n, seg.fd,
                        dir.resolve(segmentName(seg.seq)).toString(), before + done, length - done);
                seg.failure = e;
                poisoned = true;
                log.error("dir-sink-write-failed", "segment", segmentName(seg.seq), "error", e.getMessage(),
                        "consequence", "the segment is abandoned at its committed length; its unacknowledged "
                                + "batches are sent again to a new segment");
                f.completeExceptionally(e);
                return;
            }
            done += n;
        }
    }

    /** Waits until the writer has written everything submitted: before a write of the pipeline's own. */
    private void awaitWriter() throws IOException {
        if (!writerUsed) return;
        try {
            writer.awaitIdle();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted waiting for the dir sink's writer: sink="
                    + describe());
        }
    }

    /**
     * Hands {@code task} to the sync thread after the writes submitted before it: at once when the writer is idle,
     * else through the writer's queue.
     */
    private void queueSync(SyncTask task) {
        if (!writerUsed || writer.idle()) {
            syncQueue.add(task);
        } else {
            writer.submit(() -> syncQueue.add(task));
        }
    }

    /**
     * Copies a small batch into the staging buffer; {@link #writeStaged} writes it with the others of its round (at
     * {@link #flush}, or when the buffer is full). Its position
     * and its future join the sync task only once its bytes are written.
     */
    private CompletableFuture<Void> stage(Batch batch) throws IOException {
        MemorySegment bytes = batch.payload();
        long length = bytes.byteSize();
        if (staged + length > STAGE_BYTES) writeStaged();
        long size = current == null ? 0 : current.size + staged;
        if (current == null || poisoned || (size > 0 && size + length > segmentSize)) {
            writeStaged();
            roll();
        }
        if (stageBuffer == null) stageBuffer = stageArena.allocate(STAGE_BYTES, 64);
        MemorySegment.copy(bytes, 0, stageBuffer, staged, length);
        staged += length;
        if (stagedFuture == null) stagedFuture = new CompletableFuture<>();
        stagedBatches.add(batch.id(), batch.end());
        return stagedFuture;
    }

    /**
     * Writes the staged batches to the current segment with one pwrite (more only when it writes short). On a
     * failure their bytes are cut off again and their futures fail: the pipeline sends them again.
     */
    private void writeStaged() throws IOException {
        if (stagedFuture == null) return; // empty batches are staged too: they carry a position
        awaitWriter();
        Segment seg = current;
        long before = seg.size;
        long length = staged;
        staged = 0;
        long done = 0;
        while (done < length) {
            long n = LibC.pwrite(seg.fd, done == 0 ? stageBuffer : stageBuffer.asSlice(done), length - done,
                    before + done);
            writeCalls.increment();
            if (n == -Errno.EINTR) continue;
            if (n < 0) {
                LibC.ftruncate(seg.fd, before);
                ErrnoException e = new ErrnoException("pwrite", (int) -n, seg.fd,
                        dir.resolve(segmentName(seg.seq)).toString(), before + done, length - done);
                stagedFuture.completeExceptionally(e);
                stagedFuture = null;
                stagedBatches.n = 0;
                throw e;
            }
            done += n;
        }
        seg.size = before + length;
        for (int i = 0; i < stagedBatches.n; i++) {
            if (stagedBatches.ids[i] != null) changes.add(stagedBatches.ids[i], stagedBatches.ends[i]);
        }
        stagedBatches.n = 0;
        unsynced.add(stagedFuture);
        stagedFuture = null;
    }

    /** pwrite system calls that wrote batch bytes so far (pipeline thread; for tests that count them). */
    public long writeCalls() {
        return writeCalls.sum();
    }

    /** Starts the next segment; the previous one is synced and closed by the sync thread. */
    private void roll() throws IOException {
        if (current != null) {
            Segment old = current;
            List<CompletableFuture<Void>> waiting = unsynced;
            unsynced = spares.list();
            Changes c = changes;
            changes = spares.changes();
            long length = old.size;
            current = null;
            queueSync(new SyncTask(old, length, waiting, c, true));
        }
        long seq = nextSeq;
        Path p = dir.resolve(segmentName(seq));
        int fd;
        try (Arena a = Arena.ofConfined()) {
            fd = LibC.openat(dirFd, a.allocateFrom(segmentName(seq)),
                    Fcntl.O_WRONLY | Fcntl.O_CREAT | Fcntl.O_EXCL | Fcntl.O_NOFOLLOW | Fcntl.O_CLOEXEC, fileMode);
        }
        ErrnoException.check(fd, "open", -1, p.toString());
        nextSeq = seq + 1;
        current = new Segment(seq, fd);
        poisoned = false;
        // The new name must survive a crash before anything in the segment is acknowledged.
        ErrnoException.check(LibC.fsync(dirFd), "fsync", dirFd, dir.toString());
    }

    @Override
    public void flush() throws IOException {
        if (closed || current == null) return;
        writeStaged();
        if (unsynced.isEmpty()) return;
        Segment seg = current;
        List<CompletableFuture<Void>> waiting = unsynced;
        long length = seg.size;
        unsynced = spares.list();
        Changes c = changes;
        changes = spares.changes();
        queueSync(new SyncTask(seg, length, waiting, c, false));
    }

    /**
     * A sync of a segment up to {@code length} for the futures {@code waiting} and the source positions {@code
     * changes} of their batches, closing the segment after it when {@code closeAfter} (with no futures: only the
     * close). {@code length} is the segment's size when the task was queued: the bytes the futures stand for; the
     * pipeline may be writing more meanwhile, which belong to a later task. Tasks of the same segment queued while an
     * fsync ran are synced and committed as one (group commit): however often the pipeline flushes, at most one sync
     * waits behind the one in progress.
     */
    private record SyncTask(Segment seg, long length, List<CompletableFuture<Void>> waiting, Changes changes,
                            boolean closeAfter) {
    }

    /**
     * On the sync thread, for the tasks {@code from..to} of {@code tasks} (same segment): one fdatasync up to
     * {@code length} and one commit record with their positions, then their futures completed, in order.
     */
    private void syncGroup(Segment seg, long length, List<SyncTask> tasks, int from, int to) {
        boolean any = false;
        for (int i = from; i <= to && !any; i++) any = !tasks.get(i).waiting().isEmpty();
        if (!any) return;
        IOException e = seg.failure != null
                ? new IOException("dir sink segment abandoned after an earlier failure: segment="
                + segmentName(seg.seq) + ": " + seg.failure.getMessage(), seg.failure)
                : sync(seg, length, tasks, from, to);
        for (int i = from; i <= to; i++) complete(e, tasks.get(i).waiting());
    }

    private static void complete(IOException e, List<CompletableFuture<Void>> waiting) {
        for (int i = 0; i < waiting.size(); i++) {
            CompletableFuture<Void> f = waiting.get(i);
            if (e == null) {
                f.complete(null);
            } else {
                f.completeExceptionally(e);
            }
        }
    }

    /** The fdatasync and the commit record; null when both succeeded, else the error (the segment is poisoned). */
    private IOException sync(Segment seg, long length, List<SyncTask> tasks, int from, int to) {
        // fdatasync: an append changes the size, which fdatasync makes durable too; only the times are left out.
        int r = LibC.fdatasync(seg.fd);
        if (r < 0) {
            return poison(seg, new ErrnoException("fdatasync", -r, seg.fd,
                    dir.resolve(segmentName(seg.seq)).toString(), ErrnoException.NONE, ErrnoException.NONE));
        }
        long now = clock.getAsLong();
        for (int i = from; i <= to; i++) {
            Changes c = tasks.get(i).changes();
            for (int j = 0; j < c.n; j++) commitLog.stage(c.ids[j], c.ends[j], now);
        }
        try {
            // Compacted when the segment is rolled: its last commit.
            commitLog.commit(seg.seq, length, tasks.get(to).closeAfter(), now);
        } catch (IOException e) {
            commitLog.discard();
            return poison(seg, e);
        }
        seg.committedLength = length;
        return null;
    }

    /**
     * Abandons {@code seg}: after a failed fsync the kernel may have dropped its dirty pages, and after a failed
     * commit its bytes past the last commit are not acknowledged; the next batch starts a new segment.
     */
    private IOException poison(Segment seg, IOException e) {
        seg.failure = e;
        poisoned = true;
        log.error("dir-sink-sync-failed", "segment", segmentName(seg.seq), "error", e.getMessage(),
                "consequence", "the segment is abandoned at its committed length " + seg.committedLength
                        + "; its unacknowledged batches are sent again to a new segment");
        return e;
    }

    /**
     * On the sync thread, when a poisoned segment is closed (no more writes to it): cuts it back to its committed
     * length so that the unacknowledged bytes, sent again to a new segment, are not there twice.
     */
    private void cutPoisoned(Segment seg) {
        String p = dir.resolve(segmentName(seg.seq)).toString();
        if (!commitLog.consistent()) {
            // ship.commit may hold the failed commit's record; its bytes must then stay.
            log.error("dir-sink-segment-not-cut", "segment", p, "from", seg.committedLength,
                    "why", CommitLog.NAME + " could not be restored after a failed commit",
                    "consequence", "bytes after the committed length may appear again in a later segment");
            return;
        }
        int r = LibC.ftruncate(seg.fd, seg.committedLength);
        if (r == 0) r = LibC.fdatasync(seg.fd);
        if (r < 0) {
            log.error("dir-sink-segment-not-cut", "segment", p, "from", seg.committedLength, "error", Errno.name(-r),
                    "consequence", "bytes after the committed length may appear again in a later segment");
        } else {
            log.info("dir-sink-segment-cut", "segment", p, "length", seg.committedLength,
                    "why", "abandoned after a failure; its unacknowledged bytes are sent again");
        }
    }

    private void syncLoop() {
        List<SyncTask> tasks = new ArrayList<>();
        while (true) {
            tasks.clear();
            try {
                tasks.add(syncQueue.take());
                SyncTask first = tasks.get(0);
                if (!promptSync && !syncSoon && first != STOP && !first.closeAfter()
                        && first.length() - first.seg().committedLength < SYNC_GATHER_MAX_BYTES) {
                    LockSupport.parkNanos(this, SYNC_GATHER_NANOS); // see SYNC_GATHER_NANOS
                }
            } catch (InterruptedException e) {
                return;
            }
            syncQueue.drainTo(tasks);
            for (int i = 0; i < tasks.size(); i++) {
                SyncTask s = tasks.get(i);
                if (s == STOP) return;
                // Group commit: the tasks of this segment queued behind it share one fdatasync and one commit record
                // (they are completed from their own lists: no merged copy, which grew with every flush queued).
                int first = i;
                long length = s.length();
                while (!tasks.get(i).closeAfter() && i + 1 < tasks.size() && tasks.get(i + 1).seg() == s.seg()) {
                    i++;
                    length = Math.max(length, tasks.get(i).length());
                }
                boolean close = tasks.get(i).closeAfter();
                try {
                    syncGroup(s.seg(), length, tasks, first, i);
                } catch (RuntimeException e) {
                    log.error("dir-sink-sync-thread", "error", e.toString());
                    commitLog.discard();
                    // Never acknowledged: the pipeline sends these batches again, rather than wait for them forever.
                    IOException io = poison(s.seg(), new IOException("dir sink sync failed: " + e, e));
                    for (int j = first; j <= i; j++) complete(io, tasks.get(j).waiting());
                } finally {
                    if (close) {
                        if (s.seg().failure != null) cutPoisoned(s.seg());
                        LibC.close(s.seg().fd);
                    }
                }
                // Completed and committed: their lists serve the pipeline's next tasks.
                for (int j = first; j <= i; j++) spares.give(tasks.get(j).waiting(), tasks.get(j).changes());
            }
        }
    }

    @Override
    public void acknowledgeSoon(boolean soon) {
        syncSoon = soon;
        if (soon) LockSupport.unpark(syncer);
    }

    /** Nothing is left to read until the acknowledgements come: the sync thread stops letting flushes gather. */
    @Override
    public void drain() throws IOException {
        promptSync = true;
        LockSupport.unpark(syncer);
        flush();
    }

    @Override
    public void finish() throws IOException {
        drain();
    }

    @Override
    public void close() throws IOException {
        if (closed) return;
        promptSync = true;
        LockSupport.unpark(syncer);
        flush();
        closed = true;
        if (current != null) {
            Segment last = current;
            current = null;
            // Only the close: flush() above queued the sync of everything written to it.
            queueSync(new SyncTask(last, last.size, List.of(), new Changes(), true));
        }
        try {
            // The writer's queue holds the sync tasks submitted after its writes: they reach the sync thread first.
            writer.close(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        syncQueue.add(STOP);
        try {
            syncer.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!syncer.isAlive()) {
            // Otherwise the sync thread may still be using them (a hung device); the process is ending anyway.
            commitLog.close();
            LibC.close(dirFd);
        }
        lock.close();
    }

    /** The segment files of {@code dir} in order (none when it does not exist): for tests and tools. */
    public static List<Path> segments(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) return List.of();
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> SEGMENT.matcher(p.getFileName().toString()).matches()).sorted().toList();
        }
    }

    /** Reads every segment of {@code dir} in order, concatenated: for tests and tools. */
    public static byte[] readAll(Path dir) {
        try {
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            for (Path p : segments(dir)) out.write(Files.readAllBytes(p));
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
