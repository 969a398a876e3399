package io.jfio.ship.s3;

import io.jfio.ship.log.ShipLog;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ChecksumAlgorithm;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.CopyObjectRequest;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.NoSuchUploadException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Thread-safe: {@link #put}, {@link #begin}, {@link #part}, {@link #complete}, {@link #deadline} and {@link #close}
 * may be called from any thread; the requests run on {@link #WORKERS} threads of its own
 * ({@code jfio-ship-s3-upload-N}), which take the tasks in the order submitted.
 *
 * <p>An object is either one PUT ({@link #put}) or a multipart upload fed while the object fills ({@link #begin},
 * {@link #part} as each part is full, {@link #complete} when it is cut). Its intent goes into the journal
 * (fdatasynced) as its first task is taken, under this object's lock, so intents are in submission order. Once it
 * and every object submitted before it are stored, its done goes into the journal (fdatasynced) and the futures of
 * its batches complete: done records are written in submission order, so that a source's position in the journal
 * only ever moves over objects that are all in the bucket. Several requests run at once, because one at a time
 * leaves the link idle while the server stores and answers.
 *
 * <p>A multipart object cut before its planned end (by age, the memory bound or a stop) has its new end and key
 * recorded ({@link S3Journal#replan}) before it is completed under its planned key, then copied to its key by the
 * server and the planned key deleted; only then is it done. A failed request is retried with backoff (100 ms
 * doubling to 30 s) until it succeeds: the pipeline sees the acknowledgements stop and pauses reading at {@code
 * max-in-flight}. Each reason is logged once per outage (whichever thread meets it), and the end of the outage once.
 * After {@link #deadline} (a stop's grace period) a failing request is given up: its object's futures fail, and so
 * do those of every later object (their done would move positions over it); their intents stay, and the next start
 * stores them again.
 */
final class S3Uploader implements AutoCloseable {
    private static final long BACKOFF_MIN = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long BACKOFF_MAX = TimeUnit.SECONDS.toNanos(30);
    /** Requests at once. */
    static final int WORKERS = 4;
    /** Intents recorded with one fdatasync at most. */
    private static final int INTENT_BATCH = 64;
    /**
     * How many times one object's multipart upload is made again after the server lost it: once is an upload
     * aborted by a lifecycle rule or another tool; again and again is a server that does not keep uploads, where
     * each new one would be left behind with its parts.
     */
    private static final int MAX_RENEWALS = 3;

    /** An object to store: its intent, its progress, its batches' futures. Guarded by the uploader. */
    static final class Job {
        S3Journal.Intent intent;
        /**
         * The key the object is uploaded under: its intent's key when the job was made. A multipart object cut
         * short gets a new intent (its real range's key) before its completion, but its upload, parts and
         * completion stay under this one, which the server knows the upload by; it is copied afterwards.
         */
        final String uploadKey;
        final long firstNanos;
        /** The sink's count of batches when its first came. */
        final long order;
        /** Whether its intent was recorded in an earlier run (a redo: stale uploads of its key may exist). */
        final boolean redo;
        List<CompletableFuture<Void>> futures = List.of();
        /** 0 waiting or uploading, 1 stored, 2 given up. */
        int state;
        long started;
        long nanos;
        long stored;
        long raw;
        IOException failure;
        /** Multipart: the upload's id once created (null while it is created again), the parts submitted. */
        String uploadId;
        int partsSubmitted;
        /** Multipart: the parts stored in the current upload, by number. */
        final java.util.TreeMap<Integer, CompletedPart> parts = new java.util.TreeMap<>();
        /**
         * Multipart: the parts' bytes, kept until the object is stored or given up, so that an upload the server no
         * longer knows can be made again.
         */
        final List<ObjectBuffer.Body> bodies = new ArrayList<>();
        /** Multipart: which upload the parts go to; a new upload of the same object takes the next. */
        int generation;
        /** Multipart: how many times the upload was made again because the server no longer knew it. */
        int renewals;
        /** Multipart: whether its creation was retried (an upload an answer was lost for may be left over). */
        boolean createRetried;
        /** Whether its intent is in the journal. */
        boolean recorded;
        /**
         * A redo whose end is not its recorded intent's: its key is deleted (an earlier upload of the old range may be
         * there) before the new end is recorded, and only then stored.
         */
        boolean reshaped;

        Job(S3Journal.Intent intent, long firstNanos, long order, boolean redo) {
            this.intent = intent;
            this.uploadKey = intent.key();
            this.firstNanos = firstNanos;
            this.order = order;
            this.redo = redo;
        }
    }

    private enum Kind { PUT, CREATE, PART, COMPLETE }

    /**
     * One request to make.
     *
     * @param kind   what
     * @param job    its object
     * @param number a part's number
     * @param body   a PUT's or a part's bytes (closed once sent or given up)
     * @param end    a completion's source end
     * @param key    a completion's key
     */
    private record Task(Kind kind, Job job, int number, ObjectBuffer.Body body, long end, String key) {
    }

    /** A request given up (the stop's grace period is over): its job failed. */
    private static final class GiveUp extends Exception {
        private static final long serialVersionUID = 1L;

        GiveUp() {
            super(null, null, false, false);
        }
    }

    /** The multipart upload a request was for does not exist (any more). */
    private static final class Gone extends Exception {
        private static final long serialVersionUID = 1L;

        Gone(String message) {
            super(message, null, false, false);
        }
    }

    /** One request, retried until it works or the job is given up. */
    @FunctionalInterface
    private interface Call<T> {
        T call() throws IOException;
    }

    private final S3Client client;
    private final S3Transfer transfer;
    private final String bucket;
    private final S3Settings settings;
    private final S3Journal journal;
    private final ShipLog log;
    private final S3Metrics metrics;
    /** Submitted and not yet taken by a worker. */
    private final ArrayDeque<Task> queue = new ArrayDeque<>();
    /** Objects submitted and not yet done, in submission order. */
    private final ArrayDeque<Job> order = new ArrayDeque<>();
    private final List<Thread> threads = new ArrayList<>();
    /** Nanos after which failing requests are given up (a stop), or 0. */
    private long deadline;
    private boolean stopping;
    /** The reasons logged since requests last worked (each is logged once per outage, whichever thread meets it). */
    private final java.util.Set<String> failing = new java.util.LinkedHashSet<>();
    /**
     * Why no more done records are written in this run (an object given up, a journal that cannot be written), or
     * null: a done after a missing one would move a position over bytes not in the bucket.
     */
    private IOException stuck;
    /** Run after an object is stored and its done written, outside this object's lock. */
    private final Runnable onStored;

    S3Uploader(S3Client client, S3Transfer transfer, String bucket, S3Settings settings, S3Journal journal,
               ShipLog log, S3Metrics metrics, Runnable onStored) {
        this.onStored = onStored;
        this.client = client;
        this.transfer = transfer;
        this.bucket = bucket;
        this.settings = settings;
        this.journal = journal;
        this.log = log;
        this.metrics = metrics;
        for (int i = 0; i < WORKERS; i++) {
            threads.add(Thread.ofPlatform().name("jfio-ship-s3-upload-" + i).daemon(true).start(this::run));
        }
    }

    /** Stores {@code body} as the object of {@code intent} in one PUT; then its futures complete. */
    synchronized void put(S3Journal.Intent intent, ObjectBuffer.Body body, List<CompletableFuture<Void>> futures,
                          long firstNanos, long firstBatch, long raw, boolean redo) {
        Job j = new Job(intent, firstNanos, firstBatch, redo);
        j.futures = futures;
        j.raw = raw;
        order.add(j);
        queue.add(new Task(Kind.PUT, j, 0, body, intent.end(), intent.key()));
        notifyAll();
    }

    /**
     * Stores {@code body} in one PUT as the redone object of {@code intent}, whose end is not the one recorded: its
     * key is deleted first, then the new end recorded, so that neither a crash nor an earlier upload of the old range
     * can leave the key holding bytes the journal does not say it holds.
     */
    synchronized void putReshaped(S3Journal.Intent intent, ObjectBuffer.Body body,
                                  List<CompletableFuture<Void>> futures, long firstNanos, long firstBatch, long raw) {
        Job j = new Job(intent, firstNanos, firstBatch, true);
        j.futures = futures;
        j.raw = raw;
        j.reshaped = true;
        j.recorded = true;
        order.add(j);
        queue.add(new Task(Kind.PUT, j, 0, body, intent.end(), intent.key()));
        notifyAll();
    }

    /** Starts the multipart upload of the object of {@code intent} (planned to end at its end); parts follow. */
    synchronized Job begin(S3Journal.Intent intent, long firstNanos, long firstBatch, boolean redo) {
        Job j = new Job(intent, firstNanos, firstBatch, redo);
        order.add(j);
        queue.add(new Task(Kind.CREATE, j, 0, null, 0, null));
        notifyAll();
        return j;
    }

    /** Uploads {@code body} as the next part of {@code j}. */
    synchronized void part(Job j, ObjectBuffer.Body body) {
        if (j.state == 2) {
            body.close();
            return;
        }
        j.partsSubmitted++;
        j.stored += body.size();
        j.bodies.add(body);
        queue.add(new Task(Kind.PART, j, j.partsSubmitted, body, 0, null));
        notifyAll();
    }

    /**
     * Completes {@code j} once its parts are stored, as source bytes up to {@code end} under {@code key}: its planned
     * key and end, or (cut before them) a new end and key, recorded before the completion.
     */
    synchronized void complete(Job j, long end, String key, List<CompletableFuture<Void>> futures, long raw) {
        j.futures = futures;
        j.raw = raw;
        if (j.state == 2) {
            // Given up already: commit() has passed it.
            IOException why = stuck != null ? stuck : j.failure;
            for (CompletableFuture<Void> f : futures) f.completeExceptionally(why);
            return;
        }
        queue.add(new Task(Kind.COMPLETE, j, 0, null, end, key));
        notifyAll();
    }

    /** Gives {@code j} up (its object was dropped after a failure): nothing more is acknowledged in this run. */
    void giveUp(Job j, IOException why) {
        fail(j, why);
    }

    /** From now on, requests that fail after {@code nanos} are given up (a stop). */
    synchronized void deadline(long nanos) {
        if (deadline == 0) deadline = nanos == 0 ? 1 : nanos;
        notifyAll();
    }

    /** The order of the oldest object not done (its first batch's), or the largest long when there is none. */
    synchronized long oldestOrder() {
        Job j = order.peekFirst();
        return j == null ? Long.MAX_VALUE : j.order;
    }

    /** When the oldest byte queued or uploading arrived, or 0. */
    synchronized long oldestNanos() {
        Job j = order.peekFirst();
        return j == null ? 0 : j.firstNanos;
    }

    /**
     * The next task; an object's intent is recorded as its first task is taken (under this lock, so intents are in
     * submission order: after a crash the open intents of a source are consecutive ranges from its journal position,
     * each of which is redone in turn). Tasks of a job given up are dropped.
     */
    private synchronized Task next() throws InterruptedException {
        while (true) {
            while (queue.isEmpty() && !stopping) wait();
            Task t = queue.pollFirst();
            if (t == null) return null;
            Job j = t.job();
            if (j.state == 2) {
                if (t.kind() == Kind.PUT) t.body().close();
                continue;
            }
            if (t.kind() != Kind.PUT && t.kind() != Kind.CREATE) return t;
            if (stuck == null) {
                try {
                    if (!j.recorded) {
                        // With the intents of the objects queued behind it, in order: one fdatasync for them all.
                        List<Job> batch = new ArrayList<>();
                        batch.add(j);
                        for (Task q : queue) {
                            if (batch.size() >= INTENT_BATCH) break;
                            if ((q.kind() == Kind.PUT || q.kind() == Kind.CREATE) && q.job().state != 2
                                    && !q.job().recorded) {
                                batch.add(q.job());
                            }
                        }
                        List<S3Journal.Intent> ins = new ArrayList<>(batch.size());
                        for (Job b : batch) ins.add(b.intent);
                        journal.intents(ins);
                        for (Job b : batch) b.recorded = true;
                    }
                    j.started = System.nanoTime();
                    return t;
                } catch (IOException e) {
                    log.error("s3-journal-write-failed", "path", journal.file(), "error", e.getMessage(),
                            "consequence", "nothing more is uploaded in this run; what is not acknowledged is read "
                                    + "again at the next start");
                    stuck = e;
                }
            }
            if (t.kind() == Kind.PUT) t.body().close();
            fail(j, stuck);
        }
    }

    private void run() {
        try {
            Task t;
            while ((t = next()) != null) {
                try {
                    perform(t);
                } catch (GiveUp e) {
                    // The job is failed; the next task.
                } finally {
                    // A part's bytes stay with its job (closed when it is stored or given up).
                    if (t.kind() == Kind.PUT) t.body().close();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | Error e) {
            log.error("s3-upload-thread", "error", e.toString(), "consequence", "nothing more is uploaded; the objects "
                    + "left are uploaded again at the next start");
            failAll(e);
        }
    }

    private void perform(Task t) throws GiveUp, InterruptedException {
        Job j = t.job();
        String key = j.uploadKey;
        switch (t.kind()) {
            case PUT -> {
                if (j.reshaped) reshape(j, key);
                retry(j, "PutObject", key, () -> {
                    transfer.put(key, t.body());
                    return null;
                });
                synchronized (this) {
                    j.stored = t.body().size();
                }
                if (j.intent.obsolete() != null) removeObsolete(j);
                stored(j);
            }
            case CREATE -> {
                // A redo's key may have uploads a crash left: aborted first, so that none is left to accumulate.
                if (j.redo) abortUploads(j, key);
                String id = createUpload(j, key);
                synchronized (this) {
                    j.uploadId = id;
                    notifyAll();
                }
            }
            case PART -> {
                String id;
                int gen;
                synchronized (this) {
                    while (j.uploadId == null && j.state != 2) wait();
                    if (j.state == 2) return;
                    id = j.uploadId;
                    gen = j.generation;
                }
                String etag;
                try {
                    etag = retry(j, "UploadPart", key, true, () -> transfer.uploadPart(key, id, t.number(),
                            t.body()));
                } catch (Gone e) {
                    renew(j, gen, key, e.getMessage());
                    return;
                }
                CompletedPart p = CompletedPart.builder().partNumber(t.number()).eTag(etag)
                        .checksumCRC32C(t.body().crc32cBase64()).build();
                synchronized (this) {
                    if (j.generation == gen) j.parts.put(t.number(), p);
                    notifyAll();
                }
            }
            case COMPLETE -> complete(j, t);
            default -> throw new IllegalStateException("task " + t.kind());
        }
    }

    /** Completes a multipart object; cut before its planned end, records its new end and key, then copies it there. */
    private void complete(Job j, Task t) throws GiveUp, InterruptedException {
        String planned = j.uploadKey;
        boolean moved = !t.key().equals(planned);
        if (moved) {
            try {
                journal.replan(j.intent.seq(), t.end(), t.key());
            } catch (IOException e) {
                throw journalFailed(j, e);
            }
            synchronized (this) {
                j.intent = j.intent.replanned(t.end(), t.key());
            }
        }
        while (true) {
            String id;
            int gen;
            List<CompletedPart> parts;
            synchronized (this) {
                while ((j.uploadId == null || j.parts.size() < j.partsSubmitted) && j.state != 2) wait();
                if (j.state == 2) return;
                id = j.uploadId;
                gen = j.generation;
                parts = new ArrayList<>(j.parts.values());
            }
            try {
                retry(j, "CompleteMultipartUpload", planned, true, () -> sdk(() -> client.completeMultipartUpload(
                        c -> c.bucket(bucket).key(planned).uploadId(id).multipartUpload(u -> u.parts(parts)))));
                break;
            } catch (Gone e) {
                // Gone before it was completed, or completed by an attempt whose answer was lost: made again, the
                // same bytes under the same key either way.
                renew(j, gen, planned, e.getMessage());
            }
        }
        boolean orphans;
        synchronized (this) {
            orphans = j.createRetried;
        }
        if (orphans) abortUploads(j, planned);
        if (moved) {
            retry(j, "CopyObject", t.key(), () -> sdk(() -> client.copyObject(copy(bucket, settings, planned,
                    t.key()).build())));
            removeObsolete(j);
        }
        stored(j);
    }

    /** Creates {@code j}'s multipart upload; notes when it took more than one attempt. */
    private String createUpload(Job j, String key) throws GiveUp, InterruptedException {
        int[] attempts = {0};
        String id = retry(j, "CreateMultipartUpload", key, () -> {
            attempts[0]++;
            return sdk(() -> client.createMultipartUpload(create(key).build()).uploadId());
        });
        if (attempts[0] > 1) {
            synchronized (this) {
                j.createRetried = true;
            }
        }
        return id;
    }

    /**
     * The server no longer knows {@code j}'s upload {@code gen} (aborted by someone else, or expired): unless another
     * thread did it already, a new upload of the same key is created and every part submitted so far is uploaded to
     * it again from the bytes kept.
     */
    private void renew(Job j, int gen, String key, String why) throws GiveUp, InterruptedException {
        int renewals;
        synchronized (this) {
            if (j.generation != gen || j.state == 2) return;
            renewals = j.renewals;
        }
        if (renewals >= MAX_RENEWALS) {
            log.error("s3-upload-failed", "bucket", bucket, "key", key, "error", why, "renewals", renewals,
                    "consequence", "the object is given up in this run; its bytes are read again at the next start");
            fail(j, new IOException("s3 multipart upload lost by the server " + renewals + " times: bucket="
                    + bucket + " key=" + key + " error=" + why));
            throw new GiveUp();
        }
        synchronized (this) {
            if (j.generation != gen || j.state == 2) return;
            j.renewals++;
            j.generation++;
            j.uploadId = null;
            j.parts.clear();
        }
        log.warn("s3-upload-restarted", "bucket", bucket, "key", key, "error", why, "action",
                "a new multipart upload of the same bytes under the same key");
        String id = createUpload(j, key);
        synchronized (this) {
            j.uploadId = id;
            for (int n = j.bodies.size(); n >= 1; n--) {
                queue.addFirst(new Task(Kind.PART, j, n, j.bodies.get(n - 1), 0, null));
            }
            notifyAll();
        }
    }

    /** A reshaped redo: its key deleted, then its new end recorded (see {@link #putReshaped}). */
    private void reshape(Job j, String key) throws GiveUp, InterruptedException {
        retry(j, "DeleteObject", key, () -> sdk(() -> client.deleteObject(d -> d.bucket(bucket).key(key))));
        try {
            journal.intent(j.intent);
        } catch (IOException e) {
            throw journalFailed(j, e);
        }
    }

    /**
     * A journal record that an upload depends on could not be written: said once, no more done records in this run
     * (what is not acknowledged is read again at the next start), {@code j} failed.
     */
    private GiveUp journalFailed(Job j, IOException e) {
        log.error("s3-journal-write-failed", "path", journal.file(), "error", e.getMessage(),
                "consequence", "nothing more is uploaded in this run; what is not acknowledged is read "
                        + "again at the next start");
        synchronized (this) {
            if (stuck == null) stuck = e;
        }
        fail(j, e);
        return new GiveUp();
    }

    /** Deletes the job's obsolete key, its incomplete uploads aborted first. */
    private void removeObsolete(Job j) throws GiveUp, InterruptedException {
        String old = j.intent.obsolete();
        abortUploads(j, old);
        retry(j, "DeleteObject", old, () -> sdk(() -> client.deleteObject(d -> d.bucket(bucket).key(old))));
    }

    /** Aborts every incomplete multipart upload of exactly {@code key}. */
    private void abortUploads(Job j, String key) throws GiveUp, InterruptedException {
        List<MultipartUpload> ups = retry(j, "ListMultipartUploads", key, () -> sdk(() -> client
                .listMultipartUploads(l -> l.bucket(bucket)
                .prefix(key)).uploads()));
        for (MultipartUpload u : ups) {
            if (!u.key().equals(key)) continue;
            retry(j, "AbortMultipartUpload", key, () -> {
                try {
                    sdk(() -> client.abortMultipartUpload(a -> a.bucket(bucket).key(key).uploadId(u.uploadId())));
                } catch (S3Failure e) {
                    if (e.status() != 404) throw e;
                }
                return null;
            });
            log.info("s3-upload-aborted", "key", key, "upload", u.uploadId(), "why", "an incomplete upload a stop "
                    + "or crash left; its object is stored again");
        }
    }

    /** The job is in the bucket: marked, and the done records written as far as the order allows. */
    private void stored(Job j) {
        synchronized (this) {
            j.nanos = System.nanoTime() - j.started;
            j.state = 1;
            for (ObjectBuffer.Body b : j.bodies) b.close();
            j.bodies.clear();
            if (!failing.isEmpty()) {
                log.info("s3-upload-recovered", "bucket", bucket, "key", j.intent.key(), "after",
                        String.join("; ", failing));
                failing.clear();
            }
        }
        commit();
        onStored.run();
    }

    private CreateMultipartUploadRequest.Builder create(String key) {
        CreateMultipartUploadRequest.Builder r = CreateMultipartUploadRequest.builder().bucket(bucket).key(key)
                .contentType("text/plain").checksumAlgorithm(ChecksumAlgorithm.CRC32_C);
        if (settings.contentEncoding() != null) r.contentEncoding(settings.contentEncoding());
        if (settings.storageClass() != null) r.storageClass(settings.storageClass());
        if (settings.sse() != null) r.serverSideEncryption(settings.sse());
        if (settings.sseKmsKeyId() != null) r.ssekmsKeyId(settings.sseKmsKeyId());
        return r;
    }

    /** A server-side copy of {@code from} to {@code to}, with the sink's storage class and encryption. */
    static CopyObjectRequest.Builder copy(String bucket, S3Settings settings, String from, String to) {
        CopyObjectRequest.Builder r = CopyObjectRequest.builder().sourceBucket(bucket).sourceKey(from)
                .destinationBucket(bucket).destinationKey(to);
        if (settings.storageClass() != null) r.storageClass(settings.storageClass());
        if (settings.sse() != null) r.serverSideEncryption(settings.sse());
        if (settings.sseKmsKeyId() != null) r.ssekmsKeyId(settings.sseKmsKeyId());
        return r;
    }

    /** Runs an SDK call, its errors as {@link S3Failure} (an answer) or {@link IOException} (no answer). */
    static <T> T sdk(java.util.function.Supplier<T> call) throws IOException {
        try {
            return call.get();
        } catch (NoSuchUploadException e) {
            throw new S3Failure(404, "NoSuchUpload", e.awsErrorDetails() != null
                    ? e.awsErrorDetails().errorMessage() : null);
        } catch (S3Exception e) {
            throw new S3Failure(e.statusCode(), e.awsErrorDetails() != null ? e.awsErrorDetails().errorCode() : null,
                    e.awsErrorDetails() != null ? e.awsErrorDetails().errorMessage() : null);
        } catch (SdkException e) {
            throw new IOException(S3Clients.reason(e), e);
        }
    }

    /**
     * Runs {@code c} until it works, with backoff; gives the job up when the stop's deadline is over or its
     * multipart upload is gone (aborted by someone else: the parts sent are lost with it).
     */
    private <T> T retry(Job j, String request, String key, Call<T> c) throws GiveUp, InterruptedException {
        try {
            return retry(j, request, key, false, c);
        } catch (Gone e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * As above; with {@code upload} (a request on a multipart upload), an answer that the upload does not exist
     * ends it with {@link Gone} instead of a retry.
     */
    private <T> T retry(Job j, String request, String key, boolean upload, Call<T> c) throws GiveUp, Gone,
            InterruptedException {
        long backoff = BACKOFF_MIN;
        while (true) {
            synchronized (this) {
                if (j.state == 2) throw new GiveUp();
            }
            try {
                return c.call();
            } catch (IOException e) {
                String reason = S3Clients.reason(e);
                if (upload && e instanceof S3Failure f && "NoSuchUpload".equals(f.code())) {
                    throw new Gone(request + ": " + reason);
                }
                String kind = reason.length() > 60 ? reason.substring(0, 60) : reason;
                synchronized (this) {
                    if (failing.add(kind)) {
                        (S3Clients.permanent(e) ? (Logger) log::error : (Logger) log::warn).log("s3-upload-failing",
                                "bucket", bucket, "key", key, "request", request, "error", reason,
                                "action", "retrying with backoff up to 30 s; reading pauses at max-in-flight; "
                                        + "nothing is lost");
                    }
                }
                metrics.retry();
                if (!sleep(backoff)) {
                    log.warn("s3-upload-given-up", "bucket", bucket, "key", key, "why",
                            "the stop's grace period is over", "consequence", "its intent stays in the journal; the "
                                    + "next start uploads it again");
                    fail(j, new IOException("s3 upload given up at the stop's grace period: key=" + key
                            + " error=" + reason + " (uploaded again at the next start)"));
                    throw new GiveUp();
                }
                backoff = Math.min(BACKOFF_MAX, backoff * 2);
            }
        }
    }

    /** Marks {@code j} given up for {@code why}. */
    private void fail(Job j, IOException why) {
        synchronized (this) {
            if (j.state == 2) return;
            j.failure = why;
            j.state = 2;
            for (ObjectBuffer.Body b : j.bodies) b.close();
            j.bodies.clear();
            notifyAll();
        }
        commit();
    }

    /**
     * Writes the done records of the stored objects at the head of the submission order and completes their
     * futures; an object given up fails, and so does every object after it (their done would move a position over
     * its range). A multipart object given up before its completion was submitted fails its futures then.
     */
    private synchronized void commit() {
        // The stored objects at the head get their done records in one write and one fdatasync.
        List<Job> done = new ArrayList<>();
        List<Job> failed = new ArrayList<>();
        while (!order.isEmpty() && order.peekFirst().state != 0) {
            Job j = order.pollFirst();
            if (stuck == null && j.state == 2) stuck = j.failure;
            (stuck == null ? done : failed).add(j);
        }
        if (!done.isEmpty()) {
            List<Long> seqs = new ArrayList<>(done.size());
            for (Job j : done) seqs.add(j.intent.seq());
            try {
                journal.done(seqs, System.currentTimeMillis());
                for (Job j : done) {
                    metrics.uploaded(j.stored, j.raw, j.nanos);
                    for (CompletableFuture<Void> f : j.futures) f.complete(null);
                }
            } catch (IOException e) {
                log.error("s3-journal-write-failed", "path", journal.file(), "error", e.getMessage(),
                        "consequence", "objects in the bucket are not acknowledged; they are uploaded again "
                                + "(same keys) at the next start");
                if (stuck == null) stuck = e;
                failed.addAll(0, done);
            }
        }
        for (Job j : failed) {
            for (CompletableFuture<Void> f : j.futures) f.completeExceptionally(stuck);
        }
    }

    /** One event with key-value pairs, at the level chosen. */
    @FunctionalInterface
    private interface Logger {
        void log(String event, Object... kv);
    }

    /** Waits {@code nanos}; false when the stop's deadline is over (the request is to be given up). */
    private synchronized boolean sleep(long nanos) throws InterruptedException {
        long until = System.nanoTime() + nanos;
        while (true) {
            long now = System.nanoTime();
            if (deadline != 0 && now - deadline >= 0) return false;
            long wait = until - now;
            if (deadline != 0) wait = Math.min(wait, deadline - now);
            if (wait <= 0) return true;
            TimeUnit.NANOSECONDS.timedWait(this, wait);
        }
    }

    private synchronized void failAll(Throwable e) {
        IOException io = new IOException("s3 upload thread failed: " + e, e);
        for (Job j : order) {
            for (CompletableFuture<Void> f : j.futures) f.completeExceptionally(io);
            j.state = 2;
            j.failure = io;
        }
        for (Task t : queue) {
            if (t.body() != null) t.body().close();
        }
        for (Job j : order) {
            for (ObjectBuffer.Body b : j.bodies) b.close();
        }
        queue.clear();
        order.clear();
        stopping = true;
        notifyAll();
    }

    /**
     * Uploads what is queued (each failing request until the deadline set by {@link #deadline}, or for the shutdown
     * grace period from now), then ends the threads and closes the clients.
     */
    @Override
    public void close() {
        synchronized (this) {
            deadline(System.nanoTime() + settings.shutdownGrace().toNanos());
            stopping = true;
            notifyAll();
        }
        // The grace period, plus time for a request in progress to end (its timeout bounds it).
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.shutdownGrace().toMillis() + 65_000);
        boolean alive = false;
        for (Thread t : threads) {
            try {
                t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(until - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            alive |= t.isAlive();
        }
        if (alive) {
            log.warn("s3-upload-still-running", "bucket", bucket, "consequence", "left unfinished; its object is "
                    + "uploaded again at the next start");
        }
        synchronized (this) {
            IOException io = new IOException("s3 sink closed before the upload");
            for (Job j : order) {
                for (CompletableFuture<Void> f : j.futures) f.completeExceptionally(io);
            }
            for (Task t : queue) {
                if (t.body() != null) t.body().close();
            }
            queue.clear();
            order.clear();
        }
        if (!alive) {
            transfer.close();
            client.close();
        }
    }
}
