package io.jfio.ship.pipeline;

import io.jfio.core.sys.Errno;
import io.jfio.core.sys.Iovec;
import io.jfio.core.sys.LibC;
import io.jfio.ship.config.Framing;
import io.jfio.ship.config.Overlong;
import io.jfio.ship.config.ShipConfig;
import io.jfio.ship.harvest.Fingerprint;
import io.jfio.ship.harvest.Framer;
import io.jfio.ship.harvest.RecordJoiner;
import io.jfio.ship.log.ShipLog;
import io.jfio.ship.metrics.ShipMetrics;
import io.jfio.ship.metrics.ShipMetrics.Counter;
import io.jfio.ship.sink.Batch;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;

/**
 * Not thread-safe; owned by the pipeline thread.
 *
 * <p>Reads and frames: one read of one file into the pipeline's one buffer, cut at the last record boundary, handed to
 * the {@link BatchWindow} as a batch. A read asks for {@code buffer-size} bytes (they stay in the CPU's cache from the
 * read through the scan to the sink's copy) and for the whole buffer ({@code max(buffer-size, max-record + 1)}) only
 * when those hold no newline. Overlong lines are split or dropped as configured; an unterminated last line waits for
 * its newline, the partial timeout, or the end of a rotated file.
 *
 * <p>Start-up ramp: until the sink has acknowledged anything in this run, a read asks for {@link #RAMP_START} bytes,
 * and the limit doubles with each acknowledged batch up to {@code buffer-size}. A shipper that is restarted again
 * and again (a crash loop, an OOM killer, a flapping node) then records progress after its first small batch, not
 * after a full buffer per file, which a slow sink (a cold Kafka producer sends line by line) may take seconds to
 * acknowledge; rotated files it has not delivered yet are deleted by their rotation schedule regardless.
 */
final class Harvester {
    /** What one harvest did. */
    enum Result {
        /** Nothing read (at the end, waiting for a line's end, or the file cannot be read now). */
        IDLE,
        /** Bytes moved: sent, skipped or split. */
        MOVED,
        /** The sink refused the batch: the pipeline treats it as a sink failure. */
        SINK_FAILED
    }

    private final String name;
    private final ShipConfig config;
    private final ShipLog log;
    private final ShipMetrics metrics;
    private final ShipMetrics.SinkCounters counters;
    private final FileTracker files;
    private final BatchWindow window;
    private final MemorySegment buffer;
    private final long readSize;
    /** The first reads' size, before the sink acknowledged anything: small enough to be acknowledged quickly. */
    static final long RAMP_START = 64 << 10;
    /** Acknowledged batches after which the ramp is over (the limit reached {@code buffer-size} long before). */
    static final int RAMP_ACKS = 32;
    private final Framer.Scan scan = new Framer.Scan();
    private final RecordJoiner.Cut cut = new RecordJoiner.Cut();
    /** The multiline joiner of each input that has one (a joiner's matcher keeps state: one per thread). */
    private final java.util.Map<io.jfio.ship.config.InputConfig, RecordJoiner> joiners =
            new java.util.IdentityHashMap<>();
    private final RecordStage stage;
    private final GzipHarvest gzip;
    private IOException sinkError;
    private int readErrors;
    private long reads;
    /** The anchor's bytes of a {@link #readAnchored}, and its two-entry iovec array. */
    private final MemorySegment anchorBytes = Arena.ofAuto().allocate(Stream.ANCHOR);
    private final MemorySegment iov = Arena.ofAuto().allocate(2 * Iovec.SIZE, 8);

    Harvester(String name, ShipConfig config, ShipLog log, ShipMetrics metrics, FileTracker files, BatchWindow window,
              MemorySegment buffer) {
        this.name = name;
        this.config = config;
        this.log = log;
        this.metrics = metrics;
        this.counters = metrics.of(name);
        this.files = files;
        this.window = window;
        this.buffer = buffer;
        this.readSize = config.bufferSize();
        var spec = config.sinks().get(name);
        this.stage = new RecordStage(config.encodingOf(name), spec != null && spec.scheme().equals("kafka"),
                spec != null && spec.scheme().equals(io.jfio.ship.sink.SinkSpec.DIR));
        this.gzip = new GzipHarvest(name, log, metrics, files, window, buffer, config.maxRecord(), stage,
                t -> joiners.computeIfAbsent(t.input, in -> new RecordJoiner(in.multiline())),
                config.maxInFlight(name));
    }

    /** What says that the pipeline is stopping (a gzip file's wait for the window's room ends then). */
    void stopping(java.util.function.BooleanSupplier stopping) {
        gzip.stopping(stopping);
    }

    /** The sink's error of the last {@link Result#SINK_FAILED}. */
    IOException sinkError() {
        return sinkError;
    }

    int readErrors() {
        return readErrors + gzip.damaged();
    }

    /** One read of {@code t} (its stream's primary), framed and sent; {@code flushPartial} ships a partial line. */
    Result harvest(TrackedFile t, boolean flushPartial) {
        if (!t.primary()) {
            t.readable = false;
            return Result.IDLE;
        }
        if (t.fd < 0 && !files.reopen(t, t.path)) {
            t.readable = false;
            return Result.IDLE;
        }
        if (t.input.gzip(t.path)) {
            Result r = gzip.harvest(t, flushPartial);
            if (r == Result.SINK_FAILED) sinkError = gzip.sinkError();
            return r;
        }
        Stream s = t.stream;
        long now = System.nanoTime();
        t.lastUseNanos = now;
        boolean lines = t.input.framing() == Framing.LINES && !s.skipping;
        long want = readLimit(); // at most the buffer's size: bufferCapacity() is never below bufferSize()
        long n;
        if (s.anchorLength > 0 && s.read >= s.anchorLength) {
            // Every read checks that the file still holds what was read before, by reading the anchor's bytes in the
            // same system call: after a write event that nothing looked at (FileTracker.modified), and between two
            // reads of a catch-up too, where copytruncate may truncate the file and the application write it past
            // the read offset again before any event about it is taken.
            n = readAnchored(t, want);
            if (n == ANCHOR_LOST) {
                t.readable = false;
                files.anchorLost(t, now);
                return Result.IDLE;
            }
        } else {
            n = read(t, 0, want);
        }
        if (lines && n == want && want < buffer.byteSize() && Framer.indexOfNewline(buffer, 0, n) < 0) {
            // A line longer than one read: read on, up to the whole buffer, where a line of max-record bytes fits.
            long rest = read(t, n, buffer.byteSize() - n);
            n = rest < 0 ? rest : n + rest;
        }
        if (n < 0) {
            readErrors++;
            log.warn("read-failed", "sink", name, "path", t.path, "offset", s.read, "errno",
                    Errno.name((int) -n), "action", "tried again at the next rescan");
            metrics.error(name, "read");
            t.readable = false;
            return Result.IDLE;
        }
        if (n == 0) {
            t.readable = false;
            t.atEof = true;
            s.partialPending = false;
            s.recordPending = false;
            return Result.IDLE;
        }
        if (s.read == 0 && s.fpLength > 0 && !files.headHolds(t, buffer, n, now)) {
            return t.primary() && t.readable ? Result.MOVED : Result.IDLE;
        }
        if (s.read + n > t.lastSize) files.grew(t, s.read + n, now);
        if (s.fpLength < Fingerprint.SIZE && !files.coverRead(t, buffer, n, now)) {
            return t.primary() && t.readable ? Result.MOVED : Result.IDLE;
        }
        // A regular file's read comes back short only at its end: the file is drained as of now, and the next write
        // brings an event (or, for a file no event reports, the hot poll sees the size change). No second read to
        // hear "0 bytes" from.
        boolean atEnd = n < want && t.input.framing() != Framing.RAW;
        if (t.input.framing() == Framing.RAW) return send(t, n, 0);
        if (s.skipping) {
            long nl = Framer.indexOfNewline(buffer, 0, n);
            long skip = nl < 0 ? n : nl + 1;
            if (nl >= 0) {
                s.skipping = false;
                s.skipFrom = -1;
            }
            window.skip(t, s.read + skip, buffer.asSlice(0, skip));
            return Result.MOVED;
        }
        Framer.scan(buffer, n, config.maxRecord(), scan);
        if (t.input.multiline() != null && scan.end > 0) return records(t, n, want, now, flushPartial);
        s.recordPending = false;
        if (scan.end > 0) {
            Result r = send(t, scan.end, scan.records);
            if (atEnd && r == Result.MOVED) {
                t.readable = false;
                t.atEof = true;
                // What is left after the last newline is an unterminated line: it waits as a partial one does.
                if (scan.end < n) {
                    s.partialPending = true;
                    files.attend(t);
                } else {
                    s.partialPending = false;
                }
            }
            return r;
        }
        if (scan.overlong == 0) {
            if (config.onOverlong() == Overlong.SPLIT) {
                counters.add(Counter.RECORDS_SPLIT, 1);
                return send(t, config.maxRecord(), 1);
            }
            counters.add(Counter.RECORDS_DROPPED, 1);
            log.warn("record-dropped", "sink", name, "path", t.path, "offset", s.read, "why",
                    "longer than max-record", "max-record", config.maxRecord());
            s.skipping = true;
            s.skipFrom = s.read;
            window.skip(t, s.read + config.maxRecord(), buffer.asSlice(0, config.maxRecord()));
            return Result.MOVED;
        }
        // Only an unterminated line is left: it waits for its newline, unless it may ship as it is.
        Duration timeout = t.input.partialTimeout();
        if (flushPartial || (timeout != null && now - t.lastGrowthNanos >= timeout.toNanos())) {
            Result r = send(t, n, 1);
            s.partialPending = false;
            return r;
        }
        s.partialPending = true;
        files.attend(t);
        t.readable = false;
        t.atEof = true;
        return Result.IDLE;
    }

    /**
     * Multiline records out of {@code [0, n)}, which holds complete lines up to {@code scan.end}: the records the
     * joiner ended are sent; the last one waits for the line that starts the next, unless the file has not grown for
     * the multiline timeout, it is flushed (a drained rotated file, the end of a --once run), or it fills the buffer.
     * It is read again from its start at the next harvest, so the read offset stays at a record boundary.
     */
    private Result records(TrackedFile t, long n, long want, long now, boolean flush) {
        Stream s = t.stream;
        var multiline = t.input.multiline();
        RecordJoiner joiner = joiners.computeIfAbsent(t.input, in -> new RecordJoiner(multiline));
        joiner.cut(buffer, scan.end, cut);
        long end = cut.end;
        long records = cut.records;
        if (scan.overlong >= 0 && end < scan.end) {
            // A line longer than max-record follows: the open record ends before it (the line is split or dropped).
            end = scan.end;
            records++;
        }
        if (end > 0) {
            s.recordPending = false;
            return send(t, end, records, cut);
        }
        if (n == want && want < buffer.byteSize()) {
            // The open record fills the read: read on into the rest of the buffer, where the next record may start.
            long rest = read(t, n, buffer.byteSize() - n);
            if (rest > 0) {
                if (s.fpLength < Fingerprint.SIZE && !files.coverRead(t, buffer, n + rest, now)) {
                    return t.primary() && t.readable ? Result.MOVED : Result.IDLE;
                }
                Framer.scan(buffer, n + rest, config.maxRecord(), scan);
                return records(t, n + rest, n + rest, now, flush);
            }
        }
        if (flush || n >= buffer.byteSize() || now - t.lastGrowthNanos >= multiline.timeout().toNanos()) {
            s.recordPending = false;
            return send(t, scan.end, 1);
        }
        s.recordPending = true;
        s.partialPending = true;
        files.attend(t);
        t.readable = false;
        t.atEof = true;
        return Result.IDLE;
    }

    /** {@code buffer-size}, or less while the start-up ramp lasts (see the class comment). */
    long readLimit() {
        long acks = window.acks();
        return acks >= RAMP_ACKS ? readSize : Math.min(readSize, RAMP_START << acks);
    }

    /** What {@link #readAnchored} returns when the bytes before the read offset are not the ones read there. */
    static final long ANCHOR_LOST = Long.MIN_VALUE;

    /**
     * One preadv of the stream's anchor (the last bytes read, into {@link #anchorBytes}) and up to {@code want} bytes
     * after it (into the buffer): the new bytes, or {@link #ANCHOR_LOST} when the file no longer holds the anchor
     * (shorter than the read offset, or rewritten), or -errno.
     */
    private long readAnchored(TrackedFile t, long want) {
        Stream s = t.stream;
        int a = s.anchorLength;
        iov.set(ValueLayout.JAVA_LONG, Iovec.OFF_BASE, anchorBytes.address()); // no slice: nothing allocated
        iov.set(ValueLayout.JAVA_LONG, Iovec.OFF_LEN, a);
        iov.set(ValueLayout.JAVA_LONG, Iovec.SIZE + Iovec.OFF_BASE, buffer.address());
        iov.set(ValueLayout.JAVA_LONG, Iovec.SIZE + Iovec.OFF_LEN, want);
        long n;
        do {
            n = LibC.preadv(t.fd, iov, 2, s.read - a);
            reads++;
        } while (n == -Errno.EINTR);
        if (n < 0) return n;
        if (n < a || Stream.anchorHash(anchorBytes, 0, a) != s.anchorHash) return ANCHOR_LOST;
        return n - a;
    }

    /** Read system calls made so far (pread and preadv, each counted once). */
    long reads() {
        return reads;
    }

    /** One pread of up to {@code want} bytes into the buffer at {@code at}, from the read offset plus {@code at}. */
    private long read(TrackedFile t, long at, long want) {
        MemorySegment into = at == 0 ? buffer : buffer.asSlice(at);
        long n;
        do {
            n = LibC.pread(t.fd, into, want, t.stream.read + at);
            reads++;
        } while (n == -Errno.EINTR);
        return n;
    }

    private Result send(TrackedFile t, long length, long records) {
        return send(t, length, records, null);
    }

    /** The batch handed to the sink, filled again for each one (a sink keeps nothing of it past its send). */
    private final Batch batch = new Batch("", "", -1, 0, 0, 0, MemorySegment.NULL);
    /** Lengths below this have their {@link #head} slice kept. */
    private static final int HEAD_SLICES = 2048;
    /**
     * The buffer's first {@code n} bytes by {@code n}, made once each: at low rates a batch is a line or a few, and a
     * file's lines keep coming in the lengths seen before, so no batch costs a slice of its own.
     */
    private final MemorySegment[] heads = new MemorySegment[HEAD_SLICES];

    /** The buffer's first {@code length} bytes. */
    private MemorySegment head(long length) {
        if (length >= HEAD_SLICES) return buffer.asSlice(0, length);
        MemorySegment h = heads[(int) length];
        if (h == null) heads[(int) length] = h = buffer.asSlice(0, length);
        return h;
    }

    /** Sends {@code [0, length)}; {@code cut} holds its multiline records' ends, when it has them. */
    private Result send(TrackedFile t, long length, long records, RecordJoiner.Cut cut) {
        MemorySegment bytes = head(length);
        io.jfio.ship.sink.RecordView view = null;
        if (stage.needed(t.input)) {
            view = stage.view(t, bytes, t.stream.read, records, cut);
            if (stage.dropped() > 0) counters.add(Counter.RECORDS_FILTERED, stage.dropped());
            if (view.count() == 0) {
                // Every record was filtered out: the offset moves on, nothing is sent.
                window.skip(t, t.stream.read + length, bytes);
                return Result.MOVED;
            }
            records = view.count();
        }
        Batch b = batch.set(t.path, t.input.name(), t.fd, t.stream.read, length, records, bytes, t.sourceId(), view);
        try {
            window.send(t, b);
        } catch (IOException | RuntimeException e) {
            sinkError = e instanceof IOException io ? io : new IOException(e.toString(), e);
            return Result.SINK_FAILED;
        }
        return Result.MOVED;
    }
}
