package io.jfio.ship.s3;

import static io.jfio.ship.s3.S3Uploader.sdk;

import io.jfio.ship.log.ShipLog;
import java.io.IOException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.MultipartUpload;

/**
 * Not thread-safe; runs once, on the thread opening the sink, before the pipeline reads its positions.
 *
 * <p>Settles what a stop or crash left between an intent and its done, by asking the bucket: an object that is
 * there is complete (a PUT and a multipart completion are all or nothing), and is recorded done; a multipart upload
 * left incomplete is aborted, so that none accumulates; an object cut before its planned end and completed under its
 * planned key is copied to its key and the planned key deleted. Recording them done now matters when a source was
 * truncated while the shipper was stopped and its copytruncate copy is read after it: it would otherwise resume
 * before the object and store its range again. What the bucket cannot be asked about now stays open: the upload
 * threads finish it when its bytes come again (same key, same range, obsolete keys deleted before the done).
 */
final class S3Recovery {
    private final S3Client client;
    private final String bucket;
    private final S3Settings settings;
    private final S3Journal journal;
    private final ShipLog log;

    S3Recovery(S3Client client, String bucket, S3Settings settings, S3Journal journal, ShipLog log) {
        this.client = client;
        this.bucket = bucket;
        this.settings = settings;
        this.journal = journal;
        this.log = log;
    }

    /** Settles every open intent it can. */
    void settle() {
        for (S3Journal.Intent in : journal.openIntents()) {
            try {
                if (settle(in)) {
                    journal.done(in.seq(), in.millis());
                    log.info("s3-upload-found", "key", in.key(), "source", in.path(), "range", in.start() + "-"
                            + in.end(), "why", "its upload reached the bucket before a stop or crash recorded it: "
                                    + "recorded done now");
                }
            } catch (IOException e) {
                log.warn("s3-intent-unchecked", "key", in.key(), "error", S3Clients.reason(e), "action",
                        "uploaded again under its key if its bytes come again");
            }
        }
    }

    /** Whether {@code in}'s object is complete in the bucket under its key (made so, for a cut multipart object). */
    private boolean settle(S3Journal.Intent in) throws IOException {
        if (in.multipart()) abortUploads(in.key());
        if (in.obsolete() != null) abortUploads(in.obsolete());
        if (exists(in.key())) {
            if (in.obsolete() != null) delete(in.obsolete());
            return true;
        }
        if (in.obsolete() != null && exists(in.obsolete())) {
            sdk(() -> client.copyObject(S3Uploader.copy(bucket, settings, in.obsolete(), in.key()).build()));
            delete(in.obsolete());
            return true;
        }
        return false;
    }

    private boolean exists(String key) throws IOException {
        try {
            sdk(() -> client.headObject(h -> h.bucket(bucket).key(key)));
            return true;
        } catch (S3Failure e) {
            if (e.status() == 404) return false;
            throw e;
        }
    }

    private void delete(String key) throws IOException {
        sdk(() -> client.deleteObject(d -> d.bucket(bucket).key(key)));
    }

    private void abortUploads(String key) throws IOException {
        for (MultipartUpload u : sdk(() -> client.listMultipartUploads(l -> l.bucket(bucket).prefix(key)).uploads())) {
            if (!u.key().equals(key)) continue;
            try {
                sdk(() -> client.abortMultipartUpload(a -> a.bucket(bucket).key(key).uploadId(u.uploadId())));
            } catch (S3Failure e) {
                if (e.status() != 404) throw e;
            }
            log.info("s3-upload-aborted", "key", key, "upload", u.uploadId(), "why", "an incomplete upload a stop "
                    + "or crash left; its object is stored again");
        }
    }
}
