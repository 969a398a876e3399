package io.jfio.ship.s3;

import io.jfio.ship.harvest.Fingerprint;
import io.jfio.ship.log.ShipLog;
import io.jfio.ship.sink.Batch;
import io.jfio.ship.sink.RecordView;
import io.jfio.ship.sink.Sink;
import io.jfio.ship.sink.SourceId;
import io.jfio.ship.state.Checkpoint;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Thread-safe: the pipeline thread calls {@link #send}, {@link #flush}, {@link #finish} and {@link #close}; the
 * timer thread ({@code jfio-ship-s3-timer}) cuts objects that reached their age; the upload thread ({@link
 * S3Uploader}) completes the futures. The open objects are guarded by this object's lock.
 *
 * <p>The sink {@code s3://BUCKET/PREFIX}: every source content's bytes go into objects of their own, one object per
 * contiguous range {@code [start, end)} of one source, compressed as they arrive ({@link ObjectBuffer}, native
 * memory). An object is cut when its source bytes reach the object size, when its first byte is older than the
 * object age, when the open objects together pass half of {@code max-in-flight} (the oldest is cut), when an open
 * object holds the oldest bytes not acknowledged and could not reach its end before they reach {@code
 * max-in-flight} (the pipeline acknowledges in send order and pauses reading there: only a cut can free it;
 * {@link #relieve}), and at a stop. Objects whose stored bytes pass the part size are multipart uploads, their end
 * and key planned when they become one ({@link #begin}). A
 * cut object gets its number and key and goes to the upload thread, which records its intent in the {@link
 * S3Journal} before the upload and its done after, and only then completes the futures of its batches. A batch
 * that straddles an object's end (a redone object, below) completes when both objects are done; the futures
 * complete in send order.
 *
 * <p>Exactly once: {@link #committed()} is the journal's done positions, so after a crash the pipeline sends every
 * source again from the end of its last done object. An intent that has no done (the crash came during its upload,
 * or between the upload and the done) is redone: when its source's bytes come again from the intent's start, they go
 * into an object with the intent's number and key, cut at exactly the intent's end (never by age, size or a stop),
 * so the object that may already be in the bucket is overwritten by the same bytes. An intent whose source does not
 * come back at its start (the file was truncated or replaced while the shipper was down) is abandoned: its bytes
 * are not sent again, so they cannot be in two objects.
 *
 * <p>A gzip file's records ({@link Batch#isDecompressed}) go into objects of its decompressed bytes: their ranges,
 * intents and position ({@link #committedDecompressed}) are decompressed offsets, which do not change since a gzip
 * file is read only when it no longer grows; the rest is as above. {@link GoneGzipFiles} reports, at start, the
 * gzip files deleted before all of their objects were stored.
 */
public final class S3Sink implements Sink {
    /** An object being filled: one source's bytes {@code [start, end)}. */
    static final class OpenObject {
        final Object key;
        SourceId id;
        String path;
        final long start;
        long end;
        final long firstMillis;
        final long firstNanos;
        /** The sink's count of batches when its first came: the object holding the oldest batch has the least. */
        final long order;
        final ObjectBuffer buffer;
        /** Bytes stored in it before compression: its source bytes, or its records' encoded or filtered form. */
        long size;
        /** The single-request intent this object redoes, as recorded, or null. */
        final S3Journal.Intent recorded;
        /** The single-request intent this object redoes (cut at exactly its end), or null. */
        S3Journal.Intent redo;
        /** Whether {@link #redo}'s end is no longer the recorded one (a record ran over it). */
        boolean reshaped;
        /** A multipart object's intent (its planned end and key), or null while it is one request. */
        S3Journal.Intent planned;
        /** A multipart object's upload. */
        S3Uploader.Job job;
        /** -1 for a plain file's bytes; else the object holds decompressed bytes of a gzip file of this size. */
        long gzipSize = -1;
        final List<CompletableFuture<Void>> futures = new ArrayList<>();

        OpenObject(Object key, SourceId id, String path, long start, long firstMillis, ObjectBuffer buffer,
                   S3Journal.Intent redo, long order) {
            this.key = key;
            this.id = id;
            this.path = path;
            this.start = start;
            this.end = start;
            this.firstMillis = firstMillis;
            this.firstNanos = System.nanoTime();
            this.order = order;
            this.buffer = buffer;
            this.recorded = redo;
            this.redo = redo;
        }
    }

    private final String bucket;
    private final String prefix;
    private final String host;
    private final S3Settings settings;
    private final KeyTemplate template;
    private final ShipLog log;
    private final S3Journal journal;
    private final S3Uploader uploader;
    private final S3Metrics metrics;
    private final long openBudget;
    /** The pipeline's bound on bytes not acknowledged. */
    private final long maxInFlight;
    /** Bytes sent whose futures have not completed (completed on the upload threads). */
    private final java.util.concurrent.atomic.AtomicLong unacknowledged = new java.util.concurrent.atomic.AtomicLong();
    /** Batches sent (guarded by this sink's lock). */
    private long batches;
    private final ScheduledExecutorService timer;
    /** The open objects, oldest first (objects are only ever added at the end). */
    private final Map<Object, OpenObject> open = new java.util.LinkedHashMap<>();
    /** Intents to redo, by source (device, inode) and by full fingerprint. */
    private final Map<Object, List<S3Journal.Intent>> redo = new HashMap<>();
    private long openRaw;
    private CompletableFuture<Void> previous = CompletableFuture.completedFuture(null);
    private boolean closed;
    /** Gzip files found gone at start before all of their objects were stored. */
    private final int gone;

    /**
     * Opens the sink: replays the journal, checks that the bucket answers, starts the upload and timer threads.
     *
     * @param client      the client (closed with the sink)
     * @param transfer    what sends the objects' and parts' bytes (closed with the sink)
     * @param bucket      the bucket
     * @param prefix      the key prefix (empty, or ending in {@code /})
     * @param settings    the settings
     * @param journal     the open journal (closed with the sink)
     * @param maxInFlight the pipeline's bound on unacknowledged bytes
     * @param log         the log
     * @param metrics     the metrics to add to
     */
    S3Sink(S3Client client, S3Transfer transfer, String bucket, String prefix, S3Settings settings,
           S3Journal journal, long maxInFlight, ShipLog log, S3Metrics metrics) {
        this.bucket = bucket;
        this.prefix = prefix;
        this.settings = settings;
        this.template = KeyTemplate.parse(settings.keyTemplate());
        this.log = log;
        this.journal = journal;
        this.metrics = metrics;
        this.host = hostName();
        this.openBudget = Math.max(1 << 20, maxInFlight / 2);
        this.maxInFlight = maxInFlight;
        if (settings.objectSize() > openBudget) {
            log.info("s3-object-size-capped", "object-size", settings.objectSize(), "cap", openBudget,
                    "why", "open objects are cut at half of max-in-flight, where the pipeline pauses reading; "
                            + "raise max-in-flight for larger objects");
        }
        new S3Recovery(client, bucket, settings, journal, log).settle();
        try {
            this.gone = GoneGzipFiles.settle(journal, describe(), log, metrics);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        for (S3Journal.Intent in : journal.openIntents()) {
            redo.computeIfAbsent(List.of(in.device(), in.inode()), k -> new ArrayList<>()).add(in);
            if (in.fpLen() == Fingerprint.SIZE) {
                redo.computeIfAbsent(List.of(in.fpHash()), k -> new ArrayList<>()).add(in);
            }
        }
        if (!journal.openIntents().isEmpty()) {
            log.info("s3-redo", "sink", describe(), "objects", journal.openIntents().size(),
                    "why", "uploads a stop or crash interrupted: they are uploaded again under the same keys with the "
                            + "same bytes as their sources' bytes come again");
        }
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform()
                .name("jfio-ship-s3-timer").daemon(true).unstarted(r));
        // An object stored may leave an open one holding the pipeline back, and the pipeline, its window full,
        // sends nothing that would cut it: the timer thread looks at once.
        this.uploader = new S3Uploader(client, transfer, bucket, settings, journal, log, metrics,
                () -> {
                    try {
                        timer.execute(this::relieveNow);
                    } catch (java.util.concurrent.RejectedExecutionException stopping) {
                        // The sink is closing: every open object was cut already.
                    }
                });
        long tick = Math.max(10, Math.min(1000, settings.objectAge().toMillis() / 4));
        timer.scheduleWithFixedDelay(this::cutAged, tick, tick, TimeUnit.MILLISECONDS);
        metrics.oldest(this::oldestMillis);
    }

    @Override
    public String describe() {
        return "s3://" + bucket + "/" + prefix;
    }

    @Override
    public List<Checkpoint> committed() {
        return journal.positions();
    }

    @Override
    public int sourcesLost() {
        return gone;
    }

    /** Where the gzip file's objects end in its decompressed bytes: it is resumed there, never stored twice. */
    @Override
    public long committedDecompressed(SourceId id) {
        return id == null ? 0 : journal.gzipPosition(id.device(), id.inode(), id.fpLength(), id.fpHash());
    }

    @Override
    public synchronized CompletableFuture<Void> send(Batch batch) throws IOException {
        if (closed) throw new IOException("s3 sink closed: sink=" + describe());
        batches++;
        Object key = batch.id() != null ? List.of(batch.id().device(), batch.id().inode()) : batch.source();
        // Records encoded or filtered: the bytes to store are the payload, split only where a record starts. With
        // line filters and the raw encoding, a batch none of whose records was left out is the source's bytes as
        // they are (any byte may end an object then): both go into the same objects.
        boolean encoded = !batch.asRead();
        // A gzip file's records: its range is of the decompressed bytes (the file is not appended to once read, so
        // they are the same at every reading), and so are the objects' ranges.
        boolean gzip = batch.isDecompressed();
        long base = gzip ? batch.decompressedOffset() : batch.offset();
        long batchEnd = gzip ? base + batch.decompressedLength() : batch.end();
        long offset = base;
        long left = batchEnd - base;
        // Where the payload's bytes for the source from offset on start.
        long out = 0;
        List<CompletableFuture<Void>> parts = new ArrayList<>(1);
        while (left > 0 || parts.isEmpty()) {
            OpenObject o = open.get(key);
            if (o != null && (o.gzipSize >= 0) != gzip) {
                // The same inode read as gzip and as a plain file (renamed to or from .gz): offsets of two kinds.
                if (o.redo != null) {
                    drop(o, new IOException("s3 sink: redone object " + o.redo.key() + " of another kind of bytes"));
                } else {
                    cut(o);
                }
                o = null;
            }
            if (o != null && offset < o.end && o.redo == null && otherContent(o.id, batch.id())) {
                // The file was truncated and written anew (copytruncate, or truncate in place): the open object
                // holds the earlier content's bytes, read before the truncation and as good as ever. It is
                // uploaded; the new content starts an object of its own.
                cut(o);
                o = null;
            } else if (o != null && offset < o.end) {
                // A resend after a failure: the pipeline reads these bytes again. The object was never cut, so
                // nothing of it is in the bucket or the journal; dropped, its bytes come again in this batch.
                drop(o, new IOException("s3 sink: bytes sent again from offset " + offset + " of "
                        + batch.source()));
                o = null;
            } else if (o != null && offset > o.end) {
                // A gap (bytes skipped: an overlong line dropped): an object holds one contiguous range.
                if (o.redo != null) {
                    drop(o, new IOException("s3 sink: redone object " + o.redo.key() + " expected offset " + o.end
                            + " of " + batch.source() + ", got " + offset));
                } else {
                    cut(o);
                }
                o = null;
            }
            if (o == null) o = start(key, batch, offset);
            long fixed = o.redo != null ? o.redo.end() : o.planned != null ? o.planned.end() : -1;
            long n;
            long stored;
            if (!encoded) {
                n = fixed >= 0 ? Math.min(left, fixed - offset) : left;
                stored = n;
                o.buffer.write(batch.bytes(), offset - base, n);
            } else {
                long stop = batchEnd;
                if (fixed >= 0 && fixed < stop) {
                    stop = fixed;
                    RecordView v = batch.view();
                    int k = firstEndingAfter(v, fixed - base);
                    if (k < v.count() && v.start(k) < fixed - base) {
                        // A record runs over the end the object must have, and records encoded or filtered are
                        // not split: the object ends after that record instead. A redone object (the record was cut
                        // there by a timeout in the run that planned it, and came whole this time): its key is
                        // deleted and its new end recorded before its upload (S3Uploader#putReshaped). A multipart
                        // object (its end planned when its upload began): completed and copied to the key of its
                        // real range, as an object cut short of its planned end is.
                        long whole = base + v.end(k);
                        if (o.redo != null) {
                            o.redo = o.redo.ending(whole);
                            o.reshaped = true;
                            log.info("s3-redo-reshaped", "key", o.redo.key(), "source", batch.source(), "range",
                                    o.start + "-" + fixed, "end", whole, "why", "a record a timeout had cut at that "
                                            + "end came whole: the object ends after it");
                        }
                        fixed = whole;
                        stop = whole;
                    }
                }
                n = Math.max(0, stop - offset);
                long to = stop == batchEnd ? batch.payload().byteSize()
                        : payloadAt(batch.view(), stop - base, batch.payload().byteSize());
                stored = to - out;
                o.buffer.write(batch.payload(), out, stored);
                out = to;
            }
            o.end += n;
            o.size += stored;
            o.id = batch.id();
            o.path = batch.source();
            openRaw += stored;
            CompletableFuture<Void> f = new CompletableFuture<>();
            o.futures.add(f);
            parts.add(f);
            offset += n;
            left -= n;
            if (fixed >= 0 ? o.end == fixed : o.size >= cap()) {
                cut(o);
            } else if (!encoded && o.buffer.pending() >= settings.partSize()) {
                if (o.job == null && o.redo == null) begin(o);
                if (o.job != null) uploader.part(o.job, o.buffer.take());
            }
            if (left == 0) break;
        }
        long weight = Math.max(batch.length(), batch.payload().byteSize());
        unacknowledged.addAndGet(weight);
        relieve();
        CompletableFuture<Void> own = parts.size() == 1 ? parts.get(0)
                : CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new));
        // In send order, whatever order the objects of different sources finish in.
        CompletableFuture<Void> ordered = previous.handle((v, t) -> null).thenCompose(x -> own);
        ordered.whenComplete((v, t) -> unacknowledged.addAndGet(-weight));
        previous = ordered;
        return ordered;
    }

    /**
     * Whether {@code now} is certainly another content than {@code before} on the same inode: a content's
     * fingerprint only grows, so a shorter one, or one as long with another hash, is another content's. (A longer
     * one may be the same content's, grown: not certain.)
     */
    static boolean otherContent(SourceId before, SourceId now) {
        if (before == null || now == null) return false;
        return now.fpLength() < before.fpLength()
                || now.fpLength() == before.fpLength() && now.fpHash() != before.fpHash();
    }

    /** The first record of {@code v} that ends after {@code at} (an offset in the batch), or its count. */
    static int firstEndingAfter(RecordView v, long at) {
        int lo = 0;
        int hi = v.count();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (v.end(mid) > at) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return lo;
    }

    /**
     * Where the delivered bytes of the batch's source from {@code at} on start in its payload: the first record that
     * starts there or later, else the payload's end (the records before {@code at} all end by it).
     */
    static long payloadAt(RecordView v, long at, long payloadSize) {
        int lo = 0;
        int hi = v.count();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (v.start(mid) >= at) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return lo == v.count() ? payloadSize : v.outStart(lo);
    }

    /**
     * The pipeline acknowledges in send order and pauses reading at max-in-flight: an open object holding the oldest
     * batch not acknowledged holds back every later one, uploaded or not, until it is cut. Such an object is cut once
     * it could not reach its end (its size, or its planned end) before the bytes not acknowledged reach max-in-flight
     * (looked at each send and flush, and after each object stored: the pipeline, its window full, sends nothing
     * then); and the oldest open objects whenever the open objects pass half of max-in-flight.
     */
    private void relieve() throws IOException {
        while (true) {
            OpenObject oldest = null;
            for (OpenObject o : open.values()) {
                if (o.redo == null) {
                    oldest = o;
                    break;
                }
            }
            if (oldest == null) return;
            long need = oldest.planned != null ? oldest.planned.end() - oldest.end : cap() - oldest.size;
            // The uploader's oldest first, then the bytes not acknowledged: the uploader completes an object's futures
            // under the lock oldestOrder takes, so the count read after it never still holds an object gone from it.
            long head = uploader.oldestOrder();
            if (openRaw <= openBudget && (unacknowledged.get() + need <= maxInFlight || oldest.order > head)) return;
            cut(oldest);
        }
    }

    /** Timer thread: {@link #relieve} after an object was stored. */
    private void relieveNow() {
        synchronized (this) {
            if (closed) return;
            try {
                relieve();
            } catch (IOException | RuntimeException e) {
                log.error("s3-cut-failed", "sink", describe(), "error", e.toString());
            }
        }
    }

    /** The size at which an object is cut: the object size, at most half of max-in-flight. */
    private long cap() {
        return Math.min(settings.objectSize(), openBudget);
    }

    /**
     * Makes {@code o} a multipart upload, its parts uploaded as it fills: its end is planned now (its start plus the
     * object size), and so is its key, recorded in its intent before the upload is created. Cut before that end, it
     * is completed under the planned key and copied to its own ({@link S3Uploader}).
     */
    private void begin(OpenObject o) {
        long seq = journal.takeSeq();
        long end = o.start + cap();
        SourceId id = o.id;
        o.planned = new S3Journal.Intent(seq, template.key(prefix, host, o.path, o.firstMillis, o.start, end, seq,
                settings.extension()), id == null ? -1 : id.device(), id == null ? -1 : id.inode(),
                id == null ? 0 : id.fpLength(), id == null ? 0 : id.fpHash(), o.path, o.start, end, o.firstMillis,
                true, null);
        o.job = uploader.begin(o.planned, o.firstNanos, o.order, false);
    }

    /** A new object for {@code batch}'s source from {@code offset}: the redo of an intent that starts there, if any. */
    private OpenObject start(Object key, Batch batch, long offset) throws IOException {
        S3Journal.Intent again = null;
        SourceId id = batch.id();
        boolean gzip = batch.isDecompressed();
        if (id != null && !redo.isEmpty()) {
            // Its own inode's intents, then a copy's (same full fingerprint, another inode: copytruncate, or a file
            // renamed across file systems), which are only ever taken, never abandoned: their inode may come back.
            List<S3Journal.Intent> own = new ArrayList<>(redo.getOrDefault(key, List.of()));
            for (S3Journal.Intent in : own) {
                boolean same = (in.fpLen() < id.fpLength() || in.fpLen() == id.fpLength() && in.fpHash() == id.fpHash())
                        && in.gzip() == gzip;
                if (in.start() == offset && same && again == null) {
                    again = in;
                } else if (in.start() <= offset || !same) {
                    // Its source is another content now, or resumed past it: its bytes are not sent again.
                    log.warn("s3-redo-abandoned", "key", in.key(), "source", in.path(), "range", in.start() + "-"
                            + in.end(), "resumed-at", offset, "why", "the source no longer holds these bytes at "
                            + "this offset (truncated or replaced while the shipper was stopped)");
                    forget(in);
                    journal.abandon(in.seq());
                }
            }
            if (again == null && id.fpLength() == Fingerprint.SIZE) {
                for (S3Journal.Intent in : redo.getOrDefault(List.of(id.fpHash()), List.of())) {
                    if (in.start() == offset && in.fpLen() == Fingerprint.SIZE && in.gzip() == gzip) {
                        again = in;
                        break;
                    }
                }
            }
            if (again != null) forget(again);
            if (again != null && (again.device() != id.device() || again.inode() != id.inode())) {
                // A copy takes the interrupted object of the content it copies (the original's inode holds another
                // content now, or is gone). Recorded before the upload: the object's done must place the copy, whose
                // own checkpoint may still be at the object's start, or a later start would store its range again.
                again = again.movedTo(id.device(), id.inode(), batch.source());
                journal.intent(again);
            }
        }
        boolean parts = again != null && again.multipart();
        String type = batch.view() != null && batch.view().encoding() == RecordView.Encoding.NDJSON
                ? "application/x-ndjson" : "text/plain";
        OpenObject o = new OpenObject(key, id, batch.source(), offset, again != null ? again.millis()
                : System.currentTimeMillis(), new ObjectBuffer(settings.compression(), type), parts ? null : again,
                batches);
        if (gzip) o.gzipSize = batch.decompressedSize();
        if (parts) {
            // A multipart object again: same number, key and planned end, uploaded in parts as its bytes come.
            o.planned = again;
            o.job = uploader.begin(again, o.firstNanos, o.order, true);
        }
        open.put(key, o);
        return o;
    }

    /**
     * Drops an open object: its futures fail, its memory is freed; a redo's intent goes back to be redone. A
     * multipart object's upload is given up (only after a failure is a batch sent again): its intent stays, and the
     * next start aborts the upload and settles it.
     */
    private void drop(OpenObject o, IOException why) {
        open.remove(o.key);
        openRaw -= o.size;
        o.buffer.close();
        if (o.job != null) uploader.giveUp(o.job, why);
        for (CompletableFuture<Void> f : o.futures) f.completeExceptionally(why);
        if (o.recorded != null) {
            S3Journal.Intent in = o.recorded;
            redo.computeIfAbsent(List.of(in.device(), in.inode()), k -> new ArrayList<>()).add(in);
            if (in.fpLen() == Fingerprint.SIZE) {
                redo.computeIfAbsent(List.of(in.fpHash()), k -> new ArrayList<>()).add(in);
            }
        }
    }

    private void forget(S3Journal.Intent in) {
        for (Iterator<List<S3Journal.Intent>> it = redo.values().iterator(); it.hasNext(); ) {
            List<S3Journal.Intent> l = it.next();
            l.remove(in);
            if (l.isEmpty()) it.remove();
        }
    }

    /**
     * Closes {@code o} and queues its upload: one PUT under the number and key decided now (or its redone intent's),
     * or a multipart object's last part and completion, under its planned key when it reached its planned end, else
     * under the key of the range it holds.
     */
    private void cut(OpenObject o) throws IOException {
        open.remove(o.key);
        openRaw -= o.size;
        o.buffer.finish();
        if (o.job != null) {
            ObjectBuffer.Body last = o.buffer.take();
            if (last.size() > 0) {
                uploader.part(o.job, last);
            } else {
                last.close();
            }
            S3Journal.Intent p = o.planned;
            String key = o.end == p.end() ? p.key() : template.key(prefix, host, o.path, o.firstMillis, o.start, o.end,
                    p.seq(), settings.extension());
            uploader.complete(o.job, o.end, key, List.copyOf(o.futures), o.buffer.raw());
            o.buffer.close();
            return;
        }
        S3Journal.Intent in = o.redo;
        if (in == null) {
            long seq = journal.takeSeq();
            SourceId id = o.id;
            in = new S3Journal.Intent(seq, template.key(prefix, host, o.path, o.firstMillis, o.start, o.end, seq,
                    settings.extension()), id == null ? -1 : id.device(), id == null ? -1 : id.inode(),
                    id == null ? 0 : id.fpLength(), id == null ? 0 : id.fpHash(), o.path, o.start, o.end,
                    o.firstMillis, false, null, o.gzipSize);
        }
        if (o.reshaped) {
            uploader.putReshaped(in, o.buffer.take(), List.copyOf(o.futures), o.firstNanos, o.order, o.buffer.raw());
        } else {
            uploader.put(in, o.buffer.take(), List.copyOf(o.futures), o.firstNanos, o.order, o.buffer.raw(),
                    o.redo != null);
        }
        o.buffer.close();
    }

    /** Timer thread: cuts the objects whose first byte is older than the object age. */
    private void cutAged() {
        synchronized (this) {
            if (closed) return;
            long limit = settings.objectAge().toNanos();
            long now = System.nanoTime();
            for (OpenObject o : new ArrayList<>(open.values())) {
                if (o.redo == null && now - o.firstNanos >= limit) {
                    try {
                        cut(o);
                    } catch (IOException | RuntimeException e) {
                        log.error("s3-cut-failed", "sink", describe(), "source", o.path, "error", e.toString());
                    }
                }
            }
        }
    }

    /** The age of the oldest byte not yet acknowledged (open or uploading), in ms; 0 when there is none. */
    private long oldestMillis() {
        long oldest = uploader.oldestNanos();
        synchronized (this) {
            for (OpenObject o : open.values()) {
                if (oldest == 0 || o.firstNanos - oldest < 0) oldest = o.firstNanos;
            }
        }
        return oldest == 0 ? 0 : TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - oldest);
    }

    /**
     * Cuts an open object only when it holds back the pipeline's acknowledgements ({@link #relieve}): otherwise objects
     * are cut by size, age, the memory bound and a stop, not by a pause in the data.
     */
    @Override
    public synchronized void flush() throws IOException {
        if (!closed) relieve();
    }

    /** Every open object is cut and uploaded now (a redo waits for the rest of its range). */
    @Override
    public synchronized void drain() throws IOException {
        if (closed) return;
        for (OpenObject o : new ArrayList<>(open.values())) {
            if (o.redo == null) cut(o);
        }
    }

    /** A stop: every open object is cut and uploaded now, within the shutdown grace period. */
    @Override
    public synchronized void finish() throws IOException {
        if (closed) return;
        uploader.deadline(System.nanoTime() + settings.shutdownGrace().toNanos());
        drain();
    }

    @Override
    public void close() throws IOException {
        List<OpenObject> left;
        synchronized (this) {
            if (closed) return;
            finish();
            closed = true;
            left = new ArrayList<>(open.values());
            open.clear();
        }
        timer.shutdownNow();
        for (OpenObject o : left) {
            // A redo the stop interrupted: its intent stays and is redone at the next start.
            IOException e = new IOException("s3 sink stopped before the redone object was complete: key="
                    + o.redo.key());
            for (CompletableFuture<Void> f : o.futures) f.completeExceptionally(e);
            o.buffer.close();
        }
        try {
            uploader.close();
        } finally {
            journal.close();
        }
    }

    /** The host name for keys: the kernel's, else the environment's, else {@code localhost}. */
    private static String hostName() {
        try {
            String h = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/sys/kernel/hostname")).trim();
            if (!h.isEmpty()) return h;
        } catch (IOException | RuntimeException e) {
            // Fall through.
        }
        String h = System.getenv("HOSTNAME");
        return h == null || h.isBlank() ? "localhost" : h;
    }
}
