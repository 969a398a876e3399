package io.jfio.ship.s3;

import io.jfio.ship.log.ShipLog;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

/**
 * Thread-safe: {@link #submit}, {@link #deadline} and {@link #close} may be called from any thread; the uploads run
 * on {@link #WORKERS} threads of its own ({@code jfio-ship-s3-upload-N}), taking the objects in the order
 * submitted.
 *
 * <p>For each cut object: its intent into the journal (fdatasynced), the PUT, and once it and every object submitted
 * before it are uploaded, its done into the journal (fdatasynced) and the futures of its batches. Done records are
 * written in submission order, so that a source's position in the journal only ever moves over objects that are all
 * in the bucket; several PUTs run at once, because one PUT at a time leaves the link idle while the server stores
 * and answers. A failed PUT is retried with the same key and bytes, with backoff (100 ms doubling to 30 s), until
 * it succeeds: the pipeline sees the acknowledgements stop and pauses reading at {@code max-in-flight}. Each reason
 * is logged once per outage (whichever of the threads meets it), and the end of the outage once, never a retry.
 * After {@link #deadline} (a stop's grace period) a failing upload is given up: its futures fail, and so do those of
 * every later object (their done would move positions over it); their intents stay, and the next start uploads them
 * again.
 */
final class S3Uploader implements AutoCloseable {
    private static final long BACKOFF_MIN = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long BACKOFF_MAX = TimeUnit.SECONDS.toNanos(30);
    /** PUTs at once. */
    static final int WORKERS = 4;

    /**
     * An object to upload.
     *
     * @param intent     its number, key and range
     * @param buffer     its bytes (closed once uploaded or given up)
     * @param futures    the futures of its batches
     * @param firstNanos when its first byte arrived (for the oldest-byte gauge)
     */
    static final class Job {
        final S3Journal.Intent intent;
        final ObjectBuffer buffer;
        final List<CompletableFuture<Void>> futures;
        final long firstNanos;
        /** Guarded by the uploader: 0 waiting or uploading, 1 uploaded, 2 given up. */
        int state;
        long nanos;
        IOException failure;

        Job(S3Journal.Intent intent, ObjectBuffer buffer, List<CompletableFuture<Void>> futures, long firstNanos) {
            this.intent = intent;
            this.buffer = buffer;
            this.futures = futures;
            this.firstNanos = firstNanos;
        }
    }

    private final S3Client client;
    private final String bucket;
    private final S3Settings settings;
    private final S3Journal journal;
    private final ShipLog log;
    private final S3Metrics metrics;
    /** Submitted and not yet taken by a worker. */
    private final ArrayDeque<Job> queue = new ArrayDeque<>();
    /** Submitted and not yet done, in submission order. */
    private final ArrayDeque<Job> order = new ArrayDeque<>();
    private final List<Thread> threads = new java.util.ArrayList<>();
    /** Nanos after which failing uploads are given up (a stop), or 0. */
    private long deadline;
    private boolean stopping;
    /** The reasons logged since uploads last worked (each is logged once per outage, whichever thread meets it). */
    private final java.util.Set<String> failing = new java.util.LinkedHashSet<>();
    /**
     * Why no more done records are written in this run (an object given up at a stop, a journal that cannot be
     * written), or null: a done after a missing one would move a position over bytes not in the bucket.
     */
    private IOException stuck;

    S3Uploader(S3Client client, String bucket, S3Settings settings, S3Journal journal, ShipLog log,
               S3Metrics metrics) {
        this.client = client;
        this.bucket = bucket;
        this.settings = settings;
        this.journal = journal;
        this.log = log;
        this.metrics = metrics;
        for (int i = 0; i < WORKERS; i++) {
            threads.add(Thread.ofPlatform().name("jfio-ship-s3-upload-" + i).daemon(true).start(this::run));
        }
    }

    synchronized void submit(Job job) {
        queue.add(job);
        order.add(job);
        notifyAll();
    }

    /** From now on, uploads that fail after {@code nanos} are given up (a stop). */
    synchronized void deadline(long nanos) {
        if (deadline == 0) deadline = nanos == 0 ? 1 : nanos;
        notifyAll();
    }

    /** When the oldest byte queued or uploading arrived, or 0. */
    synchronized long oldestNanos() {
        Job j = order.peekFirst();
        return j == null ? 0 : j.firstNanos;
    }

    /**
     * The next object, its intent recorded: intents are written in submission order (under this lock), so that after
     * a crash the open intents of a source are consecutive ranges from its journal position, each of which is redone
     * in turn.
     */
    private synchronized Job next() throws InterruptedException {
        while (true) {
            while (queue.isEmpty() && !stopping) wait();
            Job j = queue.pollFirst();
            if (j == null) return null;
            if (stuck == null) {
                try {
                    journal.intent(j.intent);
                    return j;
                } catch (IOException e) {
                    log.error("s3-journal-write-failed", "path", journal.file(), "error", e.getMessage(),
                            "consequence", "nothing more is uploaded in this run; what is not acknowledged is read "
                                    + "again at the next start");
                    stuck = e;
                }
            }
            j.failure = stuck;
            j.state = 2;
            commit();
        }
    }

    private void run() {
        try {
            Job j;
            while ((j = next()) != null) upload(j);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | Error e) {
            log.error("s3-upload-thread", "error", e.toString(), "consequence", "nothing more is uploaded; the objects "
                    + "left are uploaded again at the next start");
            fail(e);
        }
    }

    private void upload(Job j) throws InterruptedException {
        S3Journal.Intent in = j.intent;
        long backoff = BACKOFF_MIN;
        while (true) {
            try {
                long t0 = System.nanoTime();
                put(j);
                synchronized (this) {
                    j.nanos = System.nanoTime() - t0;
                    j.state = 1;
                    if (!failing.isEmpty()) {
                        log.info("s3-upload-recovered", "bucket", bucket, "key", in.key(), "after",
                                String.join("; ", failing));
                        failing.clear();
                    }
                }
                commit();
                return;
            } catch (SdkException e) {
                String reason = S3Clients.reason(e);
                String kind = reason.length() > 60 ? reason.substring(0, 60) : reason;
                synchronized (this) {
                    if (failing.add(kind)) {
                        (S3Clients.permanent(e) ? (Logger) log::error : (Logger) log::warn).log("s3-upload-failing",
                                "bucket", bucket, "key", in.key(), "error", reason,
                                "action", "retrying with backoff up to 30 s; reading pauses at max-in-flight; "
                                        + "nothing is lost");
                    }
                }
                metrics.retry();
                if (!sleep(backoff)) {
                    log.warn("s3-upload-given-up", "bucket", bucket, "key", in.key(), "why",
                            "the stop's grace period is over", "consequence", "its intent stays in the journal; the "
                                    + "next start uploads it again");
                    synchronized (this) {
                        j.failure = new IOException("s3 upload given up at the stop's grace period: key=" + in.key()
                                + " error=" + reason + " (uploaded again at the next start)");
                        j.state = 2;
                    }
                    commit();
                    return;
                }
                backoff = Math.min(BACKOFF_MAX, backoff * 2);
            }
        }
    }

    /**
     * Writes the done records of the uploaded objects at the head of the submission order and completes their
     * futures; an object given up fails, and so does every object after it (their done would move a position over
     * its range).
     */
    private synchronized void commit() {
        while (!order.isEmpty() && order.peekFirst().state != 0) {
            Job j = order.pollFirst();
            if (stuck == null && j.state == 2) stuck = j.failure;
            if (stuck == null) {
                try {
                    journal.done(j.intent.seq(), System.currentTimeMillis());
                } catch (IOException e) {
                    log.error("s3-journal-write-failed", "path", journal.file(), "error", e.getMessage(),
                            "consequence", "objects in the bucket are not acknowledged; they are uploaded again "
                                    + "(same keys) at the next start");
                    stuck = e;
                }
            }
            j.buffer.close();
            if (stuck == null) {
                metrics.uploaded(j.buffer.size(), j.buffer.raw(), j.nanos);
                for (CompletableFuture<Void> f : j.futures) f.complete(null);
            } else {
                for (CompletableFuture<Void> f : j.futures) f.completeExceptionally(stuck);
            }
        }
    }

    /** One event with key-value pairs, at the level chosen. */
    @FunctionalInterface
    private interface Logger {
        void log(String event, Object... kv);
    }

    private void put(Job j) {
        S3Journal.Intent in = j.intent;
        PutObjectRequest.Builder r = PutObjectRequest.builder().bucket(bucket).key(in.key())
                .contentLength(j.buffer.size()).contentType("text/plain");
        if (settings.contentEncoding() != null) r.contentEncoding(settings.contentEncoding());
        if (settings.storageClass() != null) r.storageClass(settings.storageClass());
        if (settings.sse() != null) r.serverSideEncryption(settings.sse());
        if (settings.sseKmsKeyId() != null) r.ssekmsKeyId(settings.sseKmsKeyId());
        ObjectBuffer b = j.buffer;
        client.putObject(r.build(), RequestBody.fromContentProvider(b::stream, b.size(), "text/plain"));
    }

    /** Waits {@code nanos}; false when the stop's deadline is over (the upload is to be given up). */
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

    private synchronized void fail(Throwable e) {
        IOException io = new IOException("s3 upload thread failed: " + e, e);
        for (Job j : order) {
            for (CompletableFuture<Void> f : j.futures) f.completeExceptionally(io);
        }
        queue.clear();
        order.clear();
        stopping = true;
        notifyAll();
    }

    /**
     * Uploads what is queued (each failing upload until the deadline set by {@link #deadline}, or for the shutdown
     * grace period from now), then ends the thread and closes the client.
     */
    @Override
    public void close() {
        synchronized (this) {
            deadline(System.nanoTime() + settings.shutdownGrace().toNanos());
            stopping = true;
            notifyAll();
        }
        // The grace period, plus time for an upload in progress to end (its socket timeout bounds it).
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
            queue.clear();
            order.clear();
        }
        if (!alive) client.close();
    }
}
