package io.jfio.ship.sink;

import io.jfio.core.sys.Errno;
import io.jfio.core.sys.ErrnoException;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import io.jfio.ship.log.ShipLog;
import io.jfio.ship.state.CheckpointStore;
import io.jfio.ship.state.StateLock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * The directory sink: batches appended to segment files {@code ship-000000000001.log}, {@code ship-...2.log}, ...,
 * rolled when a segment would pass the segment size. Records are written exactly as read, no headers: one source
 * file's bytes appear in the order read, and batches of several sources interleave at batch granularity (whole
 * records).
 *
 * <p>Durability: {@link #send} writes (pwrite from the batch's native memory, no heap copy) and returns a pending
 * future; {@link #flush} hands a sync to the sink's sync thread, which fdatasyncs the segment and then records the
 * synced length in {@code ship.commit} (fdatasync'ed) before it completes the futures, in order. A new segment's name
 * is made durable with a directory fsync before any byte in it is acknowledged. After a crash, {@code ship.commit}
 * says how much of which segment was acknowledged: the newest segment is cut back to that length and newer ones
 * (never synced) are removed, so a batch torn by a kill never leaves a partial record behind; the shipper sends it
 * again.
 *
 * <p>Threads: one pipeline thread calls {@code send}/{@code flush}/{@code close}; the sync thread
 * ({@code jfio-ship-dirsync}) completes the futures. The directory is locked ({@code .jfio-sink.lock}) so that two
 * shippers never write the same segments.
 */
public final class DirSink implements Sink {
    private static final Pattern SEGMENT = Pattern.compile("ship-(\\d{12})\\.log");
    private static final String COMMIT = "ship.commit";
    /** Ends the sync thread; compared by identity. */
    private static final SyncTask STOP = new SyncTask(null, 0, List.of(), false);
    /**
     * The commit record's fields. Made once: a layout made per call ({@code withOrder}) makes its VarHandle anew each
     * time too (found as the shipper's unexplained ConcurrentHashMap garbage in JFR allocation samples).
     */
    private static final ValueLayout.OfLong BE_LONG = ValueLayout.JAVA_LONG_UNALIGNED
            .withOrder(java.nio.ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BE_INT = ValueLayout.JAVA_INT_UNALIGNED
            .withOrder(java.nio.ByteOrder.BIG_ENDIAN);

    private final Path dir;
    private final long segmentSize;
    private final ShipLog log;
    private final StateLock lock;
    private final int commitFd;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment commitBuf = arena.allocate(24);
    private final LinkedBlockingQueue<SyncTask> syncQueue = new LinkedBlockingQueue<>();
    private final Thread syncer;

    // Pipeline thread only.
    private long nextSeq;
    private Segment current;
    private List<CompletableFuture<Void>> unsynced = new ArrayList<>();
    private volatile boolean poisoned;
    private boolean closed;

    /** An open segment. Its descriptor is closed by the sync thread after its last fsync. */
    private static final class Segment {
        final long seq;
        final int fd;
        long size;

        Segment(long seq, int fd) {
            this.seq = seq;
            this.fd = fd;
        }
    }

    /**
     * Opens (creating it if needed) the sink directory, repairs what a crash left, and starts the sync thread.
     *
     * @param dir         the directory
     * @param segmentSize a segment is rolled before it would pass this size
     * @param log         where repairs and failures are logged
     */
    public DirSink(Path dir, long segmentSize, ShipLog log) throws IOException {
        this.dir = dir.toAbsolutePath().normalize();
        this.segmentSize = segmentSize;
        this.log = log;
        Files.createDirectories(this.dir);
        this.lock = StateLock.acquire(this.dir, ".jfio-sink.lock", "sink directory");
        try {
            this.nextSeq = recover() + 1;
            this.commitFd = (int) ErrnoException.check(LibC.openat(Fcntl.AT_FDCWD, this.dir.resolve(COMMIT).toString(),
                    Fcntl.O_RDWR | Fcntl.O_CREAT | Fcntl.O_CLOEXEC, 0644), "open", -1, COMMIT);
        } catch (IOException | RuntimeException e) {
            lock.close();
            arena.close();
            throw e;
        }
        this.syncer = Thread.ofPlatform().name("jfio-ship-dirsync").daemon(true).start(this::syncLoop);
    }

    @Override
    public String describe() {
        return SinkSpec.DIR + ":" + dir;
    }

    /** Segment file name of sequence number {@code seq}. */
    public static String segmentName(long seq) {
        return String.format("ship-%012d.log", seq);
    }

    /**
     * Cuts the newest acknowledged segment back to its committed length and removes segments that were never
     * synced; returns the highest sequence number in use.
     */
    private long recover() throws IOException {
        List<Long> seqs = new ArrayList<>();
        try (Stream<Path> s = Files.list(dir)) {
            s.forEach(p -> {
                Matcher m = SEGMENT.matcher(p.getFileName().toString());
                if (m.matches()) seqs.add(Long.parseLong(m.group(1)));
            });
        }
        seqs.sort(null);
        long max = seqs.isEmpty() ? 0 : seqs.get(seqs.size() - 1);
        Path commitFile = dir.resolve(COMMIT);
        if (!Files.exists(commitFile)) {
            if (!seqs.isEmpty()) {
                log.warn("dir-sink-no-commit-record", "dir", dir, "segments", seqs.size(),
                        "action", "segments left as they are");
            }
            return max;
        }
        byte[] b = Files.readAllBytes(commitFile);
        if (b.length == 0) {
            // Created, never written: nothing in any segment was ever acknowledged by this directory's writer.
            for (long seq : seqs) removeUnsynced(seq);
            return max;
        }
        ByteBuffer buf = ByteBuffer.wrap(b);
        CRC32C crc = new CRC32C();
        crc.update(b, 0, Math.min(16, b.length));
        if (b.length != 24 || (int) crc.getValue() != buf.getInt(16)) {
            log.warn("dir-sink-commit-record-damaged", "dir", dir, "bytes", b.length,
                    "action", "segments left as they are; a partial batch may remain at a segment's end");
            return max;
        }
        long seq = buf.getLong(0);
        long length = buf.getLong(8);
        for (long s : seqs) {
            if (s > seq) {
                removeUnsynced(s);
            } else if (s == seq) {
                Path p = dir.resolve(segmentName(s));
                long size = Files.size(p);
                if (size > length) {
                    try (var ch = java.nio.channels.FileChannel.open(p, java.nio.file.StandardOpenOption.WRITE)) {
                        ch.truncate(length);
                        ch.force(true);
                    }
                    log.info("dir-sink-repaired", "segment", p, "cut-bytes", size - length,
                            "why", "bytes after the last commit were never acknowledged; they are sent again");
                }
            }
        }
        return max;
    }

    private void removeUnsynced(long seq) throws IOException {
        Path p = dir.resolve(segmentName(seq));
        long size = Files.size(p);
        Files.delete(p);
        CheckpointStore.syncDirectory(dir);
        log.info("dir-sink-repaired", "segment", p, "removed-bytes", size,
                "why", "never acknowledged; its batches are sent again");
    }

    @Override
    public CompletableFuture<Void> send(Batch batch) throws IOException {
        if (closed) throw new IOException("sink closed: sink=" + describe());
        long length = batch.length();
        if (current == null || poisoned || (current.size > 0 && current.size + length > segmentSize)) roll();
        Segment seg = current;
        long before = seg.size;
        MemorySegment bytes = batch.bytes();
        long done = 0;
        while (done < length) {
            long n = LibC.pwrite(seg.fd, bytes.asSlice(done), length - done, before + done);
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
        CompletableFuture<Void> f = new CompletableFuture<>();
        unsynced.add(f);
        return f;
    }

    /** Starts the next segment; the previous one is synced and closed by the sync thread. */
    private void roll() throws IOException {
        if (current != null) {
            Segment old = current;
            List<CompletableFuture<Void>> waiting = unsynced;
            unsynced = new ArrayList<>();
            long length = old.size;
            current = null;
            syncQueue.add(new SyncTask(old, length, waiting, true));
        }
        long seq = nextSeq;
        Path p = dir.resolve(segmentName(seq));
        int fd = LibC.openat(Fcntl.AT_FDCWD, p.toString(),
                Fcntl.O_WRONLY | Fcntl.O_CREAT | Fcntl.O_EXCL | Fcntl.O_CLOEXEC, 0644);
        ErrnoException.check(fd, "open", -1, p.toString());
        nextSeq = seq + 1;
        current = new Segment(seq, fd);
        poisoned = false;
        // The new name must survive a crash before anything in the segment is acknowledged.
        CheckpointStore.syncDirectory(dir);
    }

    @Override
    public void flush() throws IOException {
        if (closed || current == null || unsynced.isEmpty()) return;
        Segment seg = current;
        List<CompletableFuture<Void>> waiting = unsynced;
        long length = seg.size;
        unsynced = new ArrayList<>();
        syncQueue.add(new SyncTask(seg, length, waiting, false));
    }

    /**
     * A sync of a segment up to {@code length} for the futures {@code waiting}, closing the segment after it when
     * {@code closeAfter} (with no futures: only the close). {@code length} is the segment's size when the task was
     * queued: the bytes the futures stand for; the pipeline may be writing more meanwhile, which belong to a later
     * task. Tasks of the same segment queued while an fsync ran are synced as one (group commit): however often the
     * pipeline flushes, at most one sync waits behind the one in progress.
     */
    private record SyncTask(Segment seg, long length, List<CompletableFuture<Void>> waiting, boolean closeAfter) {
    }

    /**
     * On the sync thread, for the tasks {@code from..to} of {@code tasks} (same segment): one fdatasync up to
     * {@code length} and the commit record, then their futures completed, in order.
     */
    private void syncGroup(Segment seg, long length, List<SyncTask> tasks, int from, int to) {
        boolean any = false;
        for (int i = from; i <= to && !any; i++) any = !tasks.get(i).waiting().isEmpty();
        if (!any) return;
        IOException e = sync(seg, length);
        for (int i = from; i <= to; i++) complete(e, tasks.get(i).waiting());
    }

    private static void complete(IOException e, List<CompletableFuture<Void>> waiting) {
        for (CompletableFuture<Void> f : waiting) {
            if (e == null) {
                f.complete(null);
            } else {
                f.completeExceptionally(e);
            }
        }
    }

    /** The fdatasync and the commit record; null when both succeeded, else the error (the segment is poisoned). */
    private IOException sync(Segment seg, long length) {
        // fdatasync: an append changes the size, which fdatasync makes durable too; only the times are left out.
        int r = LibC.fdatasync(seg.fd);
        if (r == 0) r = writeCommit(seg.seq, length);
        if (r < 0) {
            // After a failed fsync the kernel may have dropped the dirty pages: nothing in this segment can be
            // trusted any more, so the next batch starts a new segment.
            poisoned = true;
            IOException e = new ErrnoException("fdatasync", -r, seg.fd, dir.resolve(segmentName(seg.seq)).toString(),
                    ErrnoException.NONE, ErrnoException.NONE);
            log.error("dir-sink-sync-failed", "segment", segmentName(seg.seq), "error", e.getMessage());
            return e;
        }
        return null;
    }

    private int writeCommit(long seq, long length) {
        commitBuf.set(BE_LONG, 0, seq);
        commitBuf.set(BE_LONG, 8, length);
        CRC32C crc = new CRC32C();
        crc.update(commitBuf.asSlice(0, 16).asByteBuffer());
        commitBuf.set(BE_INT, 16, (int) crc.getValue());
        commitBuf.set(ValueLayout.JAVA_INT_UNALIGNED, 20, 0);
        long n = LibC.pwrite(commitFd, commitBuf, 24, 0);
        if (n < 0) return (int) n;
        if (n != 24) return -Errno.EIO;
        return LibC.fdatasync(commitFd);
    }

    private void syncLoop() {
        List<SyncTask> tasks = new ArrayList<>();
        while (true) {
            tasks.clear();
            try {
                tasks.add(syncQueue.take());
            } catch (InterruptedException e) {
                return;
            }
            syncQueue.drainTo(tasks);
            for (int i = 0; i < tasks.size(); i++) {
                SyncTask s = tasks.get(i);
                if (s == STOP) return;
                // Group commit: the tasks of this segment queued behind it share one fdatasync (they are completed
                // from their own lists: no merged copy, which grew with every flush queued).
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
                    // Never acknowledged: the pipeline sends these batches again, rather than wait for them forever.
                    IOException io = new IOException("dir sink sync failed: " + e, e);
                    for (int j = first; j <= i; j++) complete(io, tasks.get(j).waiting());
                } finally {
                    if (close) LibC.close(s.seg().fd);
                }
            }
        }
    }

    @Override
    public void close() throws IOException {
        if (closed) return;
        flush();
        closed = true;
        if (current != null) {
            Segment last = current;
            current = null;
            // Only the close: flush() above queued the sync of everything written to it.
            syncQueue.add(new SyncTask(last, last.size, List.of(), true));
        }
        syncQueue.add(STOP);
        try {
            syncer.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        LibC.close(commitFd);
        lock.close();
        if (!syncer.isAlive()) arena.close();
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
