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
 * on its own thread ({@code jfio-ship-s3-upload}), one at a time, in the order submitted.
 *
 * <p>For each cut object: its intent into the journal (fdatasynced), the PUT, its done into the journal
 * (fdatasynced), then the futures of its batches. A failed PUT is retried with the same key and bytes, with backoff
 * (100 ms doubling to 30 s), until it succeeds: the pipeline sees the acknowledgements stop and pauses reading at
 * {@code max-in-flight}. Each reason is logged once when it starts and once when uploads work again, never per
 * retry. After {@link #deadline} (a stop's grace period) a failing upload is given up: its futures fail, its intent
 * stays, and the next start uploads it again.
 */
final class S3Uploader implements AutoCloseable {
    private static final long BACKOFF_MIN = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long BACKOFF_MAX = TimeUnit.SECONDS.toNanos(30);

    /**
     * An object to upload.
     *
     * @param intent     its number, key and range
     * @param buffer     its bytes (closed once uploaded or given up)
     * @param futures    the futures of its batches
     * @param firstNanos when its first byte arrived (for the oldest-byte gauge)
     */
    record Job(S3Journal.Intent intent, ObjectBuffer buffer, List<CompletableFuture<Void>> futures,
               long firstNanos) {
    }

    private final S3Client client;
    private final String bucket;
    private final S3Settings settings;
    private final S3Journal journal;
    private final ShipLog log;
    private final S3Metrics metrics;
    private final ArrayDeque<Job> queue = new ArrayDeque<>();
    private final Thread thread;
    /** Nanos after which failing uploads are given up (a stop), or 0. */
    private long deadline;
    private boolean stopping;
    private Job current;
    /** The reason last logged, while uploads fail; null while they work. */
    private String failing;

    S3Uploader(S3Client client, String bucket, S3Settings settings, S3Journal journal, ShipLog log,
               S3Metrics metrics) {
        this.client = client;
        this.bucket = bucket;
        this.settings = settings;
        this.journal = journal;
        this.log = log;
        this.metrics = metrics;
        this.thread = Thread.ofPlatform().name("jfio-ship-s3-upload").daemon(true).start(this::run);
    }

    synchronized void submit(Job job) {
        queue.add(job);
        notifyAll();
    }

    /** From now on, uploads that fail after {@code nanos} are given up (a stop). */
    synchronized void deadline(long nanos) {
        if (deadline == 0) deadline = nanos == 0 ? 1 : nanos;
        notifyAll();
    }

    /** When the oldest byte queued or uploading arrived, or 0. */
    synchronized long oldestNanos() {
        Job j = current != null ? current : queue.peekFirst();
        return j == null ? 0 : j.firstNanos();
    }

    private synchronized Job next() throws InterruptedException {
        current = null;
        while (queue.isEmpty() && !stopping) wait();
        current = queue.pollFirst();
        return current;
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
        S3Journal.Intent in = j.intent();
        long backoff = BACKOFF_MIN;
        boolean intended = false;
        while (true) {
            try {
                if (!intended) {
                    journal.intent(in);
                    intended = true;
                }
                long t0 = System.nanoTime();
                put(j);
                long took = System.nanoTime() - t0;
                journal.done(in.seq(), System.currentTimeMillis());
                metrics.uploaded(j.buffer().size(), j.buffer().raw(), took);
                if (failing != null) {
                    log.info("s3-upload-recovered", "bucket", bucket, "key", in.key(), "after", failing);
                    failing = null;
                }
                j.buffer().close();
                for (CompletableFuture<Void> f : j.futures()) f.complete(null);
                return;
            } catch (IOException | SdkException e) {
                String reason = S3Clients.reason(e);
                String kind = reason.length() > 60 ? reason.substring(0, 60) : reason;
                if (failing == null || !failing.equals(kind)) {
                    failing = kind;
                    (S3Clients.permanent(e) ? (Logger) log::error : (Logger) log::warn).log("s3-upload-failing",
                            "bucket", bucket, "key", in.key(), "error", reason,
                            "action", "retrying with backoff up to 30 s; reading pauses at max-in-flight; nothing is "
                                    + "lost");
                }
                metrics.retry();
                if (!sleep(backoff)) {
                    IOException give = new IOException("s3 upload given up at the stop's grace period: key="
                            + in.key() + " error=" + reason + " (uploaded again at the next start)");
                    log.warn("s3-upload-given-up", "bucket", bucket, "key", in.key(), "why",
                            "the stop's grace period is over", "consequence", "its intent stays in the journal; the "
                                    + "next start uploads it again");
                    j.buffer().close();
                    for (CompletableFuture<Void> f : j.futures()) f.completeExceptionally(give);
                    return;
                }
                backoff = Math.min(BACKOFF_MAX, backoff * 2);
            }
        }
    }

    /** One event with key-value pairs, at the level chosen. */
    @FunctionalInterface
    private interface Logger {
        void log(String event, Object... kv);
    }

    private void put(Job j) {
        S3Journal.Intent in = j.intent();
        PutObjectRequest.Builder r = PutObjectRequest.builder().bucket(bucket).key(in.key())
                .contentLength(j.buffer().size()).contentType("text/plain");
        if (settings.contentEncoding() != null) r.contentEncoding(settings.contentEncoding());
        if (settings.storageClass() != null) r.storageClass(settings.storageClass());
        if (settings.sse() != null) r.serverSideEncryption(settings.sse());
        if (settings.sseKmsKeyId() != null) r.ssekmsKeyId(settings.sseKmsKeyId());
        ObjectBuffer b = j.buffer();
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
        for (Job j : queue) {
            for (CompletableFuture<Void> f : j.futures()) f.completeExceptionally(io);
            j.buffer().close();
        }
        queue.clear();
        if (current != null) {
            for (CompletableFuture<Void> f : current.futures()) f.completeExceptionally(io);
        }
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
        try {
            // The grace period, plus time for an upload in progress to end (its socket timeout bounds it).
            thread.join(settings.shutdownGrace().toMillis() + 65_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            log.warn("s3-upload-still-running", "bucket", bucket, "consequence", "left unfinished; its object is "
                    + "uploaded again at the next start");
        }
        synchronized (this) {
            IOException io = new IOException("s3 sink closed before the upload");
            for (Job j : queue) {
                for (CompletableFuture<Void> f : j.futures()) f.completeExceptionally(io);
            }
            queue.clear();
        }
        client.close();
    }
}
