package io.jfio.ship.kafka;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import io.jfio.core.sys.FileNames;
import io.jfio.ship.harvest.Framer;
import io.jfio.ship.sink.Batch;
import io.jfio.ship.sink.RecordView;
import io.jfio.ship.sink.Sink;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A sink that produces to Kafka: one record per line (the newline not included) or, in raw mode, one record per
 * batch; the key is the source file's path, the topic a fixed name or a template with {@code ${input}}.
 *
 * <p>Not thread-safe for callers: one pipeline thread calls {@link #send}, {@link #flush} and {@link #close}. The
 * producer's own I/O thread completes the futures.
 *
 * <p>Delivery: an idempotent producer with {@code acks=all} (so retries inside the producer neither duplicate nor
 * reorder records of a partition) and {@code max.in.flight.requests.per.connection=5}, the most idempotence keeps
 * ordered. A batch's future completes when every record of it was acknowledged by all in-sync replicas and every
 * earlier batch's future completed: records of different sources go to different partitions, whose acknowledgements
 * can come in any order, and the pipeline needs its futures in order. When the broker is down, the producer retries
 * until {@code delivery.timeout.ms}, then the futures fail and the pipeline resends from its checkpoint (duplicates,
 * never loss). The records' bytes are bounded by {@code buffer.memory}: when it is full, {@code send} blocks (up to
 * {@code max.block.ms}, then throws; the pipeline backs off and retries), which pauses reading. The producer also
 * keeps objects for every record it was given until it is acknowledged; the sink reports them as its {@link
 * #overhead}, so that the pipeline's {@code max-in-flight} bounds them as it bounds the bytes, and a batch's future
 * completes only once all its records have reported, so that after a failure the pipeline counts the batches the
 * producer still holds until it lets go of them ({@link #holdsFailedBatches}). The metadata of a
 * fixed topic is fetched as soon as the producer exists, on a short-lived thread of its own.
 *
 * <p>Bytes: the producer needs each value as a heap array, so each line is copied once, from the batch's native
 * memory straight into its record's array; there is no intermediate buffer.
 */
public final class KafkaSink implements Sink {
    /** The topic template's placeholder for the input's name. */
    public static final String INPUT_PLACEHOLDER = "${input}";
    /**
     * The heap the producer holds for each record until it is acknowledged, beyond the record's bytes: its future,
     * its callbacks, its headers, its partition (six objects, 192 bytes with compressed references in a heap
     * histogram of a shipper holding 54,000 records), rounded up. Counted against max-in-flight, it keeps a stream of
     * records of a few bytes from filling the heap with objects while the broker does not answer.
     */
    static final long RECORD_OVERHEAD = 256;
    /** With the {@code headers} encoding a record also holds its own list of headers and its offset header. */
    static final long HEADERS_OVERHEAD = 128;
    private static final Set<String> COMPRESSIONS = Set.of("none", "gzip", "snappy", "lz4", "zstd");

    static {
        KafkaLogging.configure();
    }

    /**
     * How the sink produces.
     *
     * @param compression     none, gzip, snappy, lz4 or zstd (default lz4: the cheapest CPU per byte of the codecs
     *                        Kafka offers, with a ratio on log lines close to zstd's at level 1, and decoded cheaply
     *                        by every consumer)
     * @param raw             one record per batch instead of one per line
     * @param linger          how long the producer waits to fill a request (default 5 ms)
     * @param batchSize       the producer's per-partition batch size in bytes (default 1 MiB)
     * @param bufferMemory    the producer's memory for unsent records (default 8 MiB): the memory bound
     * @param deliveryTimeout how long the producer retries a record before its batch's future fails (default 120 s)
     * @param maxBlock        how long {@code send} blocks on a full buffer or missing metadata before it throws
     *                        (default 60 s)
     * @param properties      further producer properties, applied last (they override everything above)
     */
    public record Options(String compression, boolean raw, Duration linger, int batchSize, long bufferMemory,
                          Duration deliveryTimeout, Duration maxBlock, Map<String, String> properties) {
        public Options {
            if (!COMPRESSIONS.contains(compression)) {
                throw new IllegalArgumentException("kafka compression must be one of none, gzip, snappy, lz4, zstd;"
                        + " got '" + compression + "'");
            }
            if (batchSize <= 0 || bufferMemory <= 0 || linger.isNegative() || deliveryTimeout.isNegative()
                    || maxBlock.isNegative()) {
                throw new IllegalArgumentException("kafka options: batchSize=" + batchSize + " bufferMemory="
                        + bufferMemory + " linger=" + linger + " deliveryTimeout=" + deliveryTimeout);
            }
            properties = Map.copyOf(properties);
        }

        /**
         * lz4, one record per line, 5 ms linger, 1 MiB batches, 8 MiB buffer, 120 s delivery, 60 s block. The buffer
         * is heap memory (the producer's pool keeps it once used): kafka-clients' own default of 32 MiB kept a
         * shipper at 146-165 MB peak RSS while it shipped a 460 MB file at full speed, over the 128 MB budget; 8
         * MiB (eight 1 MiB batches in flight) with bin/jfio's 32 MB heap peaked at 118-126 MiB, and shipped the
         * file no slower against a local broker.
         */
        public static Options defaults() {
            return new Options("lz4", false, Duration.ofMillis(5), 1 << 20, 8L << 20, Duration.ofSeconds(120),
                    Duration.ofSeconds(60), Map.of());
        }

        public Options withCompression(String value) {
            return new Options(value, raw, linger, batchSize, bufferMemory, deliveryTimeout, maxBlock, properties);
        }

        public Options withRaw(boolean value) {
            return new Options(compression, value, linger, batchSize, bufferMemory, deliveryTimeout, maxBlock,
                    properties);
        }

        public Options withBufferMemory(long value) {
            return new Options(compression, raw, linger, batchSize, value, deliveryTimeout, maxBlock, properties);
        }

        public Options withDeliveryTimeout(Duration value) {
            return new Options(compression, raw, linger, batchSize, bufferMemory, value, maxBlock, properties);
        }

        public Options withMaxBlock(Duration value) {
            return new Options(compression, raw, linger, batchSize, bufferMemory, deliveryTimeout, value, properties);
        }

        /** Adds a producer property ({@code client.id}, {@code security.protocol}, ...). */
        public Options withProperty(String key, String value) {
            Map<String, String> m = new LinkedHashMap<>(properties);
            m.put(key, value);
            return new Options(compression, raw, linger, batchSize, bufferMemory, deliveryTimeout, maxBlock, m);
        }
    }

    private final String bootstrap;
    private final String topicTemplate;
    private final Options options;
    private final Producer<byte[], byte[]> producer;
    private final AtomicLong recordsAcked = new AtomicLong();
    /** Records handed to the producer that have not reported yet (acknowledged or failed). */
    private final AtomicLong recordsHeld = new AtomicLong();
    private CompletableFuture<Void> previous = CompletableFuture.completedFuture(null);

    /**
     * A sink producing to {@code bootstrap} (host:port[,host:port...]); {@code topic} may contain
     * {@link #INPUT_PLACEHOLDER}. The producer is created here and connects at once; a fixed topic's metadata is
     * fetched in the background.
     */
    public KafkaSink(String bootstrap, String topic, Options options) {
        if (bootstrap == null || bootstrap.isBlank() || topic == null || topic.isBlank()) {
            throw new IllegalArgumentException("kafka sink needs BOOTSTRAP/TOPIC, got bootstrap=" + bootstrap
                    + " topic=" + topic);
        }
        this.bootstrap = bootstrap;
        this.topicTemplate = topic;
        this.options = options;
        if (!topic.contains(INPUT_PLACEHOLDER)) {
            checkTopic(topic);
        }
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "5");
        p.put(ProducerConfig.RETRIES_CONFIG, Integer.toString(Integer.MAX_VALUE));
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, options.compression());
        p.put(ProducerConfig.LINGER_MS_CONFIG, Long.toString(options.linger().toMillis()));
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(options.batchSize()));
        p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, Long.toString(options.bufferMemory()));
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Long.toString(options.deliveryTimeout().toMillis()));
        // delivery.timeout.ms must be >= linger.ms + request.timeout.ms: keep the request timeout below it.
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG,
                Long.toString(Math.min(30_000, Math.max(1, options.deliveryTimeout().toMillis()
                        - options.linger().toMillis()))));
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Long.toString(options.maxBlock().toMillis()));
        // A line can be as long as a batch; let the broker's limit (message.max.bytes) be the one that decides.
        p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(Math.max(options.batchSize(), 16 << 20)));
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "jfio-ship");
        p.putAll(options.properties());
        try {
            this.producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
        } catch (KafkaException e) {
            throw new IllegalArgumentException("kafka sink: " + e.getMessage()
                    + (e.getCause() != null ? ": " + e.getCause().getMessage() : ""), e);
        }
        if (!topic.contains(INPUT_PLACEHOLDER)) {
            warmUp(topic);
        }
    }

    /**
     * Fetches the topic's metadata on a thread of its own while the shipper finds and opens its files, so that the
     * first send does not wait for it (a round trip, more when the broker creates the topic). Only a head start:
     * its failure is ignored, the first send waits for metadata as it would have.
     */
    private void warmUp(String topic) {
        Thread t = new Thread(() -> {
            try {
                producer.partitionsFor(topic);
            } catch (RuntimeException ignored) {
                // The first send reports what is wrong (no broker, no topic, no permission).
            }
        }, "jfio-kafka-metadata");
        t.setDaemon(true);
        t.start();
    }

    /** Checks a topic name against Kafka's rules, so that a bad one fails at start rather than on every send. */
    private static void checkTopic(String topic) {
        if (topic.length() > 249 || topic.equals(".") || topic.equals("..") || !topic.matches("[a-zA-Z0-9._-]+")) {
            throw new IllegalArgumentException("kafka topic '" + topic + "' is not valid: 1-249 characters of"
                    + " a-z A-Z 0-9 . _ -");
        }
    }

    /** The topic for an input: the template with {@code ${input}} replaced by the input's name, made legal. */
    public String topicFor(String input) {
        if (!topicTemplate.contains(INPUT_PLACEHOLDER)) {
            return topicTemplate;
        }
        String name = input.replaceAll("[^a-zA-Z0-9._-]", "_");
        String t = topicTemplate.replace(INPUT_PLACEHOLDER, name);
        return t.length() > 249 ? t.substring(0, 249) : t;
    }

    @Override
    public String describe() {
        return "kafka:" + bootstrap + "/" + topicTemplate;
    }

    /** Records acknowledged by the cluster so far. */
    public long recordsAcknowledged() {
        return recordsAcked.get();
    }

    /** Records the producer holds: handed to it, neither acknowledged nor failed yet. */
    public long recordsHeld() {
        return recordsHeld.get();
    }

    /** {@link #RECORD_OVERHEAD} for every Kafka record the batch becomes (more with metadata headers). */
    @Override
    public long overhead(Batch batch) {
        RecordView view = batch.view();
        if (options.raw()) return RECORD_OVERHEAD;
        if (view == null) return RECORD_OVERHEAD * Math.max(1, batch.records());
        long each = view.encoding() == RecordView.Encoding.HEADERS ? RECORD_OVERHEAD + HEADERS_OVERHEAD
                : RECORD_OVERHEAD;
        return each * view.count();
    }

    @Override
    public CompletableFuture<Void> send(Batch batch) throws IOException {
        String topic = topicFor(batch.input());
        byte[] key = FileNames.encode(batch.source());
        MemorySegment bytes = batch.bytes();
        long length = batch.length();
        BatchFuture own = new BatchFuture(recordsAcked, recordsHeld);
        try {
            if (options.raw()) {
                send(topic, key, bytes, 0, length, own);
            } else if (batch.view() != null) {
                sendRecords(topic, key, batch, own);
            } else {
                long start = 0;
                while (start < length && !own.failed()) {
                    // Eight bytes at a time (SWAR), as the harvester frames, rather than a bounds-checked get per byte.
                    long nl = Framer.indexOfNewline(bytes, start, length);
                    if (nl < 0) {
                        break;
                    }
                    send(topic, key, bytes, start, nl - start, own);
                    start = nl + 1;
                }
                // A record that failed inside producer.send (metadata not available within max.block.ms while the
                // cluster is down: the producer reports that through the callback, not by throwing) fails the
                // batch; sending the rest would block up to max.block.ms per record, for hours on a large batch.
                if (start < length && !own.failed()) {
                    // A batch ends at a record boundary; a tail without newline is still a record, not dropped.
                    send(topic, key, bytes, start, length - start, own);
                }
            }
        } catch (KafkaException e) {
            // Records already handed over may still arrive: the resend makes duplicates of them, never gaps.
            IOException io = new IOException("kafka send to " + topic + " failed: " + e.getMessage(), e);
            own.fail(io);
            previous = inOrder(own);
            throw io;
        }
        own.sealed();
        CompletableFuture<Void> ordered = inOrder(own);
        previous = ordered;
        return ordered;
    }

    /**
     * A future with {@code own}'s outcome that settles only after the previous batch's future settled, so that the
     * pipeline sees completions in send order. It waits for the previous one's outcome, not its success: a failure
     * must not poison the batches the pipeline resends after it.
     */
    private CompletableFuture<Void> inOrder(CompletableFuture<Void> own) {
        return previous.handle((v, t) -> null).thenCompose(x -> own);
    }

    /**
     * One Kafka record per record of the batch's view (a multiline record is one record; records a filter left out are
     * not sent): the value is the record without its newline, as read or encoded (ndjson), and with the
     * {@code headers} encoding the record's metadata and the input's fields go into headers.
     */
    private void sendRecords(String topic, byte[] key, Batch batch, BatchFuture own) {
        RecordView view = batch.view();
        MemorySegment out = batch.payload();
        MetadataHeaders meta = view.encoding() == RecordView.Encoding.HEADERS ? new MetadataHeaders(batch) : null;
        for (int i = 0; i < view.count() && !own.failed(); i++) {
            long from = view.outStart(i);
            long to = view.outEnd(i);
            if (to > from && out.get(JAVA_BYTE, to - 1) == '\n') to--;
            send(topic, key, out, from, to - from, own,
                    meta == null ? null : meta.of(batch.offset() + view.start(i)));
        }
    }

    private void send(String topic, byte[] key, MemorySegment bytes, long offset, long length, BatchFuture own) {
        send(topic, key, bytes, offset, length, own, null);
    }

    private void send(String topic, byte[] key, MemorySegment bytes, long offset, long length, BatchFuture own,
                      Iterable<org.apache.kafka.common.header.Header> headers) {
        if (length > Integer.MAX_VALUE - 16) {
            throw new KafkaException("record of " + length + " bytes is larger than a Kafka record can be");
        }
        byte[] value = new byte[(int) length];
        MemorySegment.copy(bytes, JAVA_BYTE, offset, value, 0, (int) length);
        // The batch's future is every record's callback: no callback object per record in flight (tiny records, a
        // few MiB of them unacknowledged, are hundreds of thousands of callbacks held by the producer).
        own.expect();
        try {
            producer.send(new ProducerRecord<>(topic, null, key, value, headers), own);
        } catch (RuntimeException e) {
            own.refused();
            throw e;
        }
    }

    /**
     * Nothing to wait for: the producer sends within {@code linger.ms} on its own, and KafkaProducer.flush() would
     * block the pipeline until every record is acknowledged (for minutes while the broker is down).
     */
    @Override
    public void flush() {
    }

    /** True: a failed batch's records stay in the producer until each one's delivery times out, and all report. */
    @Override
    public boolean holdsFailedBatches() {
        return true;
    }

    @Override
    public void close() throws IOException {
        try {
            producer.close(Duration.ofSeconds(5));
        } catch (KafkaException e) {
            throw new IOException("closing the kafka producer failed: " + e.getMessage(), e);
        }
    }

    /**
     * Thread-safe (the pipeline thread expects and seals, the producer's I/O thread reports records): the outcome of
     * one batch's records, and the callback of each of them. It completes once every record handed to the producer
     * has reported: normally when all were acknowledged, exceptionally with the first error otherwise. Waiting for
     * the records after a failure is what makes it say when the producer let go of them all (a batch's records
     * expire together, within a few batches of each other), which the pipeline counts on ({@link
     * #holdsFailedBatches}).
     */
    private static final class BatchFuture extends CompletableFuture<Void> implements Callback {
        private final AtomicLong acked;
        private final AtomicLong held;
        private long expected;
        private long done;
        private boolean sealed;
        private Throwable failure;

        BatchFuture(AtomicLong acked, AtomicLong held) {
            this.acked = acked;
            this.held = held;
        }

        /** A record is about to be handed to the producer. */
        synchronized void expect() {
            expected++;
            held.incrementAndGet();
        }

        /** The record counted by the last {@link #expect} was refused (the producer threw): it will not report. */
        synchronized void refused() {
            expected--;
            held.decrementAndGet();
        }

        /** Whether a record failed: the rest of the batch is not handed over (it would be sent again anyway). */
        synchronized boolean failed() {
            return failure != null;
        }

        synchronized void sealed() {
            sealed = true;
            settleIfAllReported();
        }

        /** One record's outcome (the producer's I/O thread). */
        @Override
        public void onCompletion(RecordMetadata metadata, Exception error) {
            held.decrementAndGet();
            if (error == null) acked.incrementAndGet();
            synchronized (this) {
                if (error != null && failure == null) failure = error;
                done++;
                settleIfAllReported();
            }
        }

        /** The batch failed before it was all handed over; it completes when what was handed over reported. */
        synchronized void fail(Throwable t) {
            if (failure == null) failure = t;
            sealed = true;
            settleIfAllReported();
        }

        private void settleIfAllReported() {
            // At least: a record the producer both reported and threw for must not keep the batch open for good.
            if (!sealed || done < expected) return;
            if (failure == null) {
                complete(null);
            } else {
                completeExceptionally(failure instanceof IOException ? failure
                        : new IOException("kafka: " + failure.getMessage(), failure));
            }
        }
    }
}
