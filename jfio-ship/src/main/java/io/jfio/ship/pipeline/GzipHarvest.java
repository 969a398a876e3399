package io.jfio.ship.pipeline;

import io.jfio.core.sys.Errno;
import io.jfio.core.sys.LibC;
import io.jfio.ship.harvest.Framer;
import io.jfio.ship.harvest.RecordJoiner;
import io.jfio.ship.log.ShipLog;
import io.jfio.ship.metrics.ShipMetrics;
import io.jfio.ship.sink.Batch;
import io.jfio.ship.sink.RecordView;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.function.Function;
import java.util.zip.GZIPInputStream;

/**
 * Not thread-safe; owned by the pipeline thread.
 *
 * <p>Ships a gzip file ({@code read-gz}, a name ending in {@code .gz}: a rotated log that logrotate compressed) once,
 * whole, from its start. A compressed file cannot be resumed in the middle (a deflate stream has no points to start
 * from), so its offsets stay at 0 while it is shipped and jump to its size when all of it was sent: the checkpoint
 * then marks it done, and it is never read again. The file is read once it has not grown for {@link #QUIET} (it may
 * still be being written), first only to check it (every member's CRC and length, to its end), so that a truncated
 * or corrupt file is reported and skipped, nothing of it shipped, while the other files go on; then again to ship
 * it: decompressed into the pipeline's buffer, framed into lines (or multiline records), and sent as batches whose
 * records are the decompressed bytes ({@link RecordView} payload) and whose source range is empty, the last step
 * being a skip to the file's size. Each batch also carries its range of the decompressed bytes ({@link
 * Batch#decompressed}). A crash or a sink failure in the middle ships the file again from its start (at least
 * once), except into a sink that keeps the file's decompressed position with its data ({@link
 * io.jfio.ship.sink.Sink#committedDecompressed}, the s3 sink): the file is then decompressed again from its start
 * and shipped from that position, every decompressed byte once. A gzip file whose decompressed first bytes are a
 * content the shipper knows (the log it was compressed from, shipped under the log's name) is shipped from where
 * that content's shipping had got; into a sink of the second kind only once nothing of that content is in flight
 * or unread, so that where it starts is what the sink holds.
 */
final class GzipHarvest {
    /** How long a gzip file must not have grown before it is read. */
    static final Duration QUIET = Duration.ofSeconds(1);

    private final String name;
    private final ShipLog log;
    private final ShipMetrics metrics;
    private final FileTracker files;
    private final BatchWindow window;
    private final MemorySegment buffer;
    private final long maxRecord;
    private final RecordStage stage;
    private final Function<TrackedFile, RecordJoiner> joiners;
    private final long maxInFlight;
    /** Whether the pipeline is stopping (a wait for room ends then). */
    private java.util.function.BooleanSupplier stopping = () -> false;
    private final Framer.Scan scan = new Framer.Scan();
    private final RecordJoiner.Cut cut = new RecordJoiner.Cut();
    private final byte[] chunk = new byte[64 << 10];
    /** {@link #head}'s answer for a file shorter than a fingerprint. */
    private static final long NO_HEAD = Long.MIN_VALUE;
    private IOException sinkError;
    private int damaged;
    /** Whether the sink keeps the file's decompressed position: every batch is sent, those a filter emptied too. */
    private boolean exact;
    /** The decompressed size of the file being shipped, as its check found it: what is shipped of it. */
    private long plainSize;

    GzipHarvest(String name, ShipLog log, ShipMetrics metrics, FileTracker files, BatchWindow window,
                MemorySegment buffer, long maxRecord, RecordStage stage, Function<TrackedFile, RecordJoiner> joiners,
                long maxInFlight) {
        this.name = name;
        this.log = log;
        this.metrics = metrics;
        this.files = files;
        this.window = window;
        this.buffer = buffer;
        this.maxRecord = maxRecord;
        this.stage = stage;
        this.joiners = joiners;
        this.maxInFlight = maxInFlight;
    }

    /** What says that the pipeline is stopping: a wait for the window's room ends then. */
    void stopping(java.util.function.BooleanSupplier stopping) {
        this.stopping = stopping;
    }

    IOException sinkError() {
        return sinkError;
    }

    /** Gzip files found truncated or corrupt in this run (a {@code --once} run that met one exits 1). */
    int damaged() {
        return damaged;
    }

    /** One harvest of the gzip file {@code t}: waits for it to be quiet, then checks and ships all of it. */
    Harvester.Result harvest(TrackedFile t, boolean flush) {
        Stream s = t.stream;
        long now = System.nanoTime();
        long size = LibC.lseek(t.fd, 0, 2);
        if (size < 0) {
            log.warn("read-failed", "sink", name, "path", t.path, "offset", 0, "errno", Errno.name((int) -size),
                    "action", "tried again at the next rescan");
            metrics.error(name, "read");
            t.readable = false;
            return Harvester.Result.IDLE;
        }
        if (s.read >= size) {
            t.readable = false;
            t.atEof = true;
            s.partialPending = false;
            return Harvester.Result.IDLE;
        }
        if (s.read > 0) {
            // Shipped (or skipped) before, and longer now: a gzip file is not appended to; the new bytes are left.
            log.warn("gzip-grew", "sink", name, "path", t.path, "shipped-size", s.read, "size", size, "action",
                    "not shipped again: a gzip file is shipped once");
            window.skip(t, size, MemorySegment.NULL);
            return Harvester.Result.MOVED;
        }
        if (!flush && now - t.lastGrowthNanos < QUIET.toNanos()) {
            // Maybe still being written (compressed by logrotate right now): read when it has been quiet a while.
            s.partialPending = true;
            files.attend(t);
            t.readable = false;
            t.atEof = true;
            return Harvester.Result.IDLE;
        }
        s.partialPending = false;
        long kept;
        try {
            kept = window.committedDecompressed(t.sourceId());
        } catch (IOException e) {
            sinkError = e;
            return Harvester.Result.SINK_FAILED;
        }
        boolean exact = kept >= 0;
        long head = head(t);
        if (exact && head != NO_HEAD && files.contentBusy(head)) {
            // The log it was compressed from still ships (bytes in flight, or not read to its end): where that ends
            // is where this file starts, and a sink that stores every byte once must not get the rest twice.
            s.partialPending = true;
            files.attend(t);
            t.readable = false;
            t.atEof = true;
            return Harvester.Result.IDLE;
        }
        String damage = check(t.fd);
        if (damage != null) {
            log.error("gzip-damaged", "sink", name, "path", t.path, "size", size, "why", damage, "action",
                    "skipped: nothing of it is shipped; the other files go on");
            metrics.error(name, "gzip");
            damaged++;
            window.skip(t, size, MemorySegment.NULL);
            return Harvester.Result.MOVED;
        }
        long shipped = head == NO_HEAD ? 0 : files.shippedOfContent(head);
        long from = Math.max(shipped, kept);
        if (kept > 0 && kept >= shipped) {
            log.info("gzip-continued", "sink", name, "path", t.path, "offset", kept, "why",
                    "the sink holds its decompressed bytes up to there (stored before a stop or crash)",
                    "action", "shipped from there");
        } else if (shipped > 0) {
            log.info("gzip-resumed", "sink", name, "path", t.path, "offset", shipped, "why",
                    "its first bytes are those of a content shipped before (the log it was compressed from)",
                    "action", "shipped from there");
        }
        this.exact = exact;
        try {
            ship(t, from);
        } catch (IOException e) {
            // Checked a moment ago: it changed since (rewritten in place). Shipped again from its start next time.
            log.error("gzip-damaged", "sink", name, "path", t.path, "size", size, "why", e.getMessage(),
                    "action", "tried again from its start");
            metrics.error(name, "gzip");
            t.readable = false;
            return Harvester.Result.IDLE;
        } catch (SinkFailed e) {
            sinkError = e.cause;
            return Harvester.Result.SINK_FAILED;
        } catch (Paused e) {
            // Stopping, or a batch failed (the pipeline's next look at the acknowledgements finds it): the pipeline
            // takes it from here, and the file is shipped again from where the sink's stored objects end.
            return Harvester.Result.MOVED;
        }
        window.skip(t, Math.max(size, LibC.lseek(t.fd, 0, 2)), MemorySegment.NULL);
        return Harvester.Result.MOVED;
    }

    /**
     * Null when the whole file decompresses with every member's CRC and length right, else what is wrong; its
     * decompressed size is then {@link #plainSize}.
     */
    private String check(int fd) {
        long n = 0;
        try (InputStream in = new GZIPInputStream(new FdInput(fd), 64 << 10)) {
            for (int r; (r = in.read(chunk)) >= 0; ) {
                n += r; // decompressed to nowhere: only the checks and the size matter
            }
            plainSize = n;
            return null;
        } catch (java.io.EOFException e) {
            return "truncated: the compressed data ends before its end (" + e.getMessage() + ")";
        } catch (IOException e) {
            return "corrupt: " + e.getMessage();
        }
    }

    /**
     * The hash of {@code t}'s first {@link io.jfio.ship.harvest.Fingerprint#SIZE} decompressed bytes, by which a
     * content the shipper knows is found (the log this file was compressed from, shipped under the log's name), or
     * {@link #NO_HEAD} when it is shorter than that (never taken for a copy, as with plain files).
     */
    private long head(TrackedFile t) {
        int size = io.jfio.ship.harvest.Fingerprint.SIZE;
        byte[] bytes = new byte[size];
        int n = 0;
        try (InputStream in = new GZIPInputStream(new FdInput(t.fd), 64 << 10)) {
            while (n < size) {
                int r = in.read(bytes, n, size - n);
                if (r < 0) break;
                n += r;
            }
        } catch (IOException e) {
            return NO_HEAD; // checked a moment ago; the shipping pass reports what went wrong
        }
        if (n < size) return NO_HEAD;
        long h = io.jfio.ship.harvest.Fingerprint.hash(MemorySegment.ofArray(bytes), size);
        return h == NO_HEAD ? NO_HEAD + 1 : h;
    }

    /** The file decompressed through the buffer, framed and sent, from decompressed offset {@code from}. */
    private void ship(TrackedFile t, long from) throws IOException {
        RecordJoiner joiner = t.input.multiline() == null ? null : joiners.apply(t);
        long limit = buffer.byteSize();
        long fill = 0;
        long position = from; // the decompressed offset of the buffer's first byte
        try (InputStream in = new GZIPInputStream(new FdInput(t.fd), 64 << 10)) {
            long skip = from;
            while (skip > 0) {
                int n = in.read(chunk, 0, (int) Math.min(chunk.length, skip));
                if (n < 0) return; // all of it was shipped
                skip -= n;
            }
            boolean end = false;
            while (!end || fill > 0) {
                while (!end && fill < limit) {
                    // What the check found, no more: a member appended since is not shipped (as a file that grew).
                    long want = Math.min(limit - fill, plainSize - position - fill);
                    int n = want <= 0 ? -1 : in.read(chunk, 0, (int) Math.min(chunk.length, want));
                    if (n < 0) {
                        end = true;
                        break;
                    }
                    MemorySegment.copy(chunk, 0, buffer, ValueLayout.JAVA_BYTE, fill, n);
                    fill += n;
                }
                long sent = frame(t, joiner, fill, end, position);
                if (sent == 0) break;
                MemorySegment.copy(buffer, sent, buffer, 0, fill - sent);
                fill -= sent;
                position += sent;
            }
        }
    }

    /**
     * Sends the records at the start of {@code [0, fill)}; returns how many bytes they take. {@code end}: nothing
     * follows {@code fill}; otherwise the buffer is full.
     */
    private long frame(TrackedFile t, RecordJoiner joiner, long fill, boolean end, long position) {
        if (fill == 0) return 0;
        Framer.scan(buffer, fill, maxRecord, scan);
        if (scan.end == 0) {
            // No complete line: a line longer than max-record (split) or the file's unterminated last line.
            long length = scan.overlong == 0 ? Math.min(fill, maxRecord) : end ? fill : 0;
            if (length > 0) send(t, length, 1, null, position);
            return length;
        }
        if (joiner == null) {
            send(t, scan.end, scan.records, null, position);
            return scan.end;
        }
        joiner.cut(buffer, scan.end, cut);
        if (end) {
            // The file's last bytes: the open record (and an unterminated last line) end with it.
            send(t, fill, cut.records + 1, cut, position);
            return fill;
        }
        if (cut.end > 0) {
            send(t, cut.end, cut.records, cut, position);
            return cut.end;
        }
        // One record fills the buffer: it ends here.
        send(t, scan.end, 1, null, position);
        return scan.end;
    }

    private void send(TrackedFile t, long length, long records, RecordJoiner.Cut bounds, long position) {
        MemorySegment bytes = buffer.asSlice(0, length);
        RecordView view = stage.viewAlways(t, bytes, position, records, bounds);
        // A sink that names what it stores by decompressed range gets every range, an empty one too.
        if (view.count() == 0 && !exact) return;
        Batch b = new Batch(t.path, t.input.name(), t.fd, 0, 0, view.count(), buffer.asSlice(0, 0), t.sourceId(),
                view).decompressed(position, length, plainSize);
        try {
            window.send(t, b);
        } catch (IOException | RuntimeException e) {
            throw new SinkFailed(e instanceof IOException io ? io : new IOException(e.toString(), e));
        }
        if (exact) room();
    }

    /**
     * Waits while the window holds more than {@code max-in-flight}, taking the acknowledgements that come. A gzip file
     * is shipped in one harvest, and a sink that keeps what it was sent in memory until it is stored (s3) does not
     * block in {@code send}: without this a large file would be held whole. Ends with {@link Paused} when a batch
     * failed or the pipeline is stopping.
     */
    private void room() {
        while (window.inFlightBytes() > maxInFlight) {
            if (window.collect() != null || stopping.getAsBoolean()) throw new Paused();
            if (window.inFlightBytes() <= maxInFlight) return;
            java.util.concurrent.locks.LockSupport.parkNanos(ROOM_POLL_NANOS);
        }
    }

    /** How often a wait for room looks at the acknowledgements. */
    private static final long ROOM_POLL_NANOS = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(2);

    /** A gzip file's shipping paused: the pipeline is stopping, or a batch failed. */
    private static final class Paused extends RuntimeException {
        Paused() {
            super("paused", null, false, false);
        }
    }

    /** A sink failure while a gzip file is being shipped: the pipeline's usual handling takes over. */
    private static final class SinkFailed extends RuntimeException {
        private final transient IOException cause;

        SinkFailed(IOException cause) {
            super(cause.getMessage(), null, false, false);
            this.cause = cause;
        }
    }

    /** The file's bytes from offset 0, read with pread: the descriptor's own position is never used. */
    private static final class FdInput extends InputStream {
        private final int fd;
        private final Arena arena = Arena.ofConfined();
        private final MemorySegment native64 = arena.allocate(64 << 10);
        private long offset;

        FdInput(int fd) {
            this.fd = fd;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            long n;
            do {
                n = LibC.pread(fd, native64, Math.min(len, native64.byteSize()), offset);
            } while (n == -Errno.EINTR);
            if (n < 0) throw new IOException("pread failed: errno=" + Errno.name((int) -n) + " offset=" + offset);
            if (n == 0) return -1;
            MemorySegment.copy(native64, ValueLayout.JAVA_BYTE, 0, b, off, (int) n);
            offset += n;
            return (int) n;
        }

        @Override
        public void close() {
            arena.close();
        }
    }
}
