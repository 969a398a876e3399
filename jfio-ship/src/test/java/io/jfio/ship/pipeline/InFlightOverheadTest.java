package io.jfio.ship.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.ship.Shipper;
import io.jfio.ship.config.ShipConfig;
import io.jfio.ship.log.ShipLog;
import io.jfio.ship.metrics.ShipMetrics;
import io.jfio.ship.sink.Batch;
import io.jfio.ship.sink.Sink;
import io.jfio.ship.testing.ShipRun;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What a sink holds per record counts against {@code max-in-flight}: a real pipeline reading a real file of tiny
 * records into a sink that does not acknowledge (a broker that does not answer) hands it no more records than the
 * bound allows for their bytes and the sink's {@link Sink#overhead} together, fills that bound (nothing else stops
 * it earlier), and ships every record once the sink answers again. Counted, not timed.
 */
class InFlightOverheadTest {
    private static final int RECORDS = 200_000;
    /** Every record is {@code 1234\n}. */
    private static final int RECORD_BYTES = 5;
    private static final long MAX_IN_FLIGHT = 1 << 20;

    @TempDir
    Path tmp;

    /** Holds every future until released; from then on acknowledges at once. Counts what it was given. */
    private static final class Holding implements Sink {
        private final long perRecord;
        private final List<CompletableFuture<Void>> held = new ArrayList<>();
        private boolean released;
        private long records;
        private long largestBatch;

        Holding(long perRecord) {
            this.perRecord = perRecord;
        }

        @Override
        public String describe() {
            return "holding";
        }

        @Override
        public long overhead(Batch batch) {
            return perRecord * batch.records();
        }

        @Override
        public synchronized CompletableFuture<Void> send(Batch batch) {
            records += batch.records();
            largestBatch = Math.max(largestBatch, batch.records());
            if (released) return CompletableFuture.completedFuture(null);
            CompletableFuture<Void> f = new CompletableFuture<>();
            held.add(f);
            return f;
        }

        synchronized long records() {
            return records;
        }

        synchronized long largestBatch() {
            return largestBatch;
        }

        void release() {
            List<CompletableFuture<Void>> now;
            synchronized (this) {
                released = true;
                now = new ArrayList<>(held);
                held.clear();
            }
            now.forEach(f -> f.complete(null));
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
            release();
        }
    }

    @ParameterizedTest(name = "overhead {0} bytes per record")
    @ValueSource(longs = {0, 200})
    void shouldHandOverNoMoreRecordsThanTheirBytesAndOverheadAllow(long perRecord) throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Files.writeString(logs.resolve("tiny.log"), "1234\n".repeat(RECORDS), StandardCharsets.US_ASCII);
        ShipConfig cfg = ShipRun.config(List.of(logs + "/*.log"), tmp.resolve("out"), tmp.resolve("state"),
                Map.of("max-in-flight", Long.toString(MAX_IN_FLIGHT), "buffer-size", "4KiB"));
        Holding sink = new Holding(perRecord);
        Pipeline pipeline = new Pipeline("main", cfg.inputs(), cfg, sink, Shipper.store(cfg.state(), "main"),
                new ShipLog(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), true),
                new ShipMetrics(), Pipeline.Mode.RUN);
        Thread thread = Thread.ofPlatform().name("overhead-pipeline").start(pipeline::run);
        try {
            long each = RECORD_BYTES + perRecord;
            long filled = Math.min(RECORDS, MAX_IN_FLIGHT / each);
            // Until the window is full and what the sink was given has not grown for half a second: the pipeline
            // waits for acknowledgements.
            long seen = -1;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() < deadline) {
                long now = sink.records();
                if (now == seen && now >= filled) break;
                seen = now;
                Thread.sleep(500);
            }
            long bound = MAX_IN_FLIGHT / each + sink.largestBatch(); // reading stops once the bound is passed
            assertTrue(seen <= bound, seen + " records handed to a sink that holds " + perRecord
                    + " bytes for each; the bound allows " + bound);
            assertTrue(seen >= filled, "only " + seen + " records handed over; max-in-flight allows " + filled);
            sink.release();
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (sink.records() < RECORDS && System.nanoTime() < deadline) Thread.sleep(10);
            assertEquals(RECORDS, sink.records(), "records shipped once the sink answered");
        } finally {
            sink.release();
            pipeline.stop();
            thread.join(30_000);
        }
    }
}
