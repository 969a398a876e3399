package io.jfio.ship.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.ship.Shipper;
import io.jfio.ship.config.ShipConfig;
import io.jfio.ship.log.ShipLog;
import io.jfio.ship.metrics.ShipMetrics;
import io.jfio.ship.sink.DirSink;
import io.jfio.ship.sink.Sink;
import io.jfio.ship.tcp.TcpReceiver;
import io.jfio.ship.tcp.TcpSink;
import io.jfio.ship.testing.ShipRun;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the pipeline thread allocates per line at an everyday rate: many files, each appended to a line at a time,
 * so that every wake-up takes a few lines from a few files. Counted, not timed: the heap bytes the JVM charges to the
 * pipeline thread ({@code com.sun.management.ThreadMXBean#getThreadAllocatedBytes}) over the lines of a measured
 * stretch, after a warm-up that lets the JIT compile the path. The watch events, the batches, the window's entries,
 * the identities and the sinks' acknowledgements of such lines cost no objects of their own; what is left per line
 * is a share of what each wake-up and each round still costs (a future per round, a checkpoint's entries every
 * 200 ms). A pipeline that makes an object or two per event, batch or acknowledgement allocates several hundred
 * bytes per line here.
 */
class SteadyAllocationTest {
    private static final int FILES = 16;
    /** Well above what is left (a few tens of bytes), well below the hundreds a per-line object costs. */
    private static final long MAX_BYTES_PER_LINE = 160;
    @TempDir
    Path tmp;

    private interface SinkMaker {
        Sink open(ShipConfig cfg) throws IOException;
    }

    @Test
    void shouldAllocateLittlePerLineShippingManySlowFilesToTheDirSink() throws Exception {
        Path out = tmp.resolve("out");
        Rig rig = new Rig(cfg -> new DirSink(out, cfg.segmentSize(), quiet()));
        try {
            rig.start(() -> DirSink.readAll(out).length);
            judge("dir", rig.measure());
        } finally {
            rig.stop();
        }
    }

    @Test
    void shouldAllocateLittlePerLineShippingManySlowFilesToTcp() throws Exception {
        Path out = tmp.resolve("received");
        try (TcpReceiver receiver = TcpReceiver.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                Files.createDirectories(out), TcpReceiver.Options.defaults(), new PrintStream(
                        ByteArrayOutputStream.nullOutputStream()))) {
            Rig rig = new Rig(cfg -> new TcpSink("127.0.0.1", receiver.port(), TcpSink.Options.defaults()));
            try {
                rig.start(receiver::received);
                judge("tcp", rig.measure());
            } finally {
                rig.stop();
            }
        }
    }

    private static void judge(String sink, double bytesPerLine) {
        System.out.printf(Locale.ROOT, "%s sink: the pipeline thread allocated %.1f bytes per line%n", sink,
                bytesPerLine);
        assertTrue(bytesPerLine <= MAX_BYTES_PER_LINE, String.format(Locale.ROOT,
                "%s sink: the pipeline thread allocated %.0f bytes per line (at most %d expected)", sink,
                bytesPerLine, MAX_BYTES_PER_LINE));
    }

    /** A pipeline over {@link #FILES} files on its own thread, and a writer that appends to them line by line. */
    private final class Rig {
        private final SinkMaker maker;
        private final List<FileChannel> files = new ArrayList<>();
        /** Each file's line (their contents differ: files that hold the same bytes are looked at as copies). */
        private final List<ByteBuffer> lines = new ArrayList<>();
        private Sink sink;
        private Pipeline pipeline;
        private Thread thread;
        private LongSupplier delivered;
        private long expected;

        Rig(SinkMaker maker) {
            this.maker = maker;
        }

        void start(LongSupplier deliveredBytes) throws Exception {
            this.delivered = deliveredBytes;
            Path logs = Files.createDirectories(tmp.resolve("logs"));
            for (int i = 0; i < FILES; i++) {
                files.add(FileChannel.open(logs.resolve(String.format(Locale.ROOT, "f-%d.log", i)),
                        StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, StandardOpenOption.APPEND));
                String line = String.format(Locale.ROOT, "a line of file %02d of the steady allocation test, padded "
                        + "to a fixed length of 92 bytes......%n", i);
                lines.add(ByteBuffer.wrap(line.getBytes(StandardCharsets.US_ASCII)));
            }
            // The state directory exists, as the shipper makes it before its pipelines start; checkpoints as often as
            // by default (the tests' configurations write one after every acknowledgement).
            ShipConfig cfg = ShipRun.config(List.of(logs + "/*.log"), tmp.resolve("out"),
                    Files.createDirectories(tmp.resolve("state")),
                    Map.of("checkpoint-interval", ShipConfig.CHECKPOINT_INTERVAL_DEFAULT.toMillis() + "ms"));
            sink = maker.open(cfg);
            pipeline = new Pipeline("main", cfg.inputs(), cfg, sink, Shipper.store(cfg.state(), "main"), quiet(),
                    new ShipMetrics(), Pipeline.Mode.RUN, null);
            thread = Thread.ofPlatform().name("steady-allocation-pipeline").start(pipeline::run);
        }

        /** Warms up, then returns the pipeline thread's heap bytes per line over a measured stretch. */
        double measure() throws Exception {
            write(40_000); // the JIT compiles the path: interpreted code allocates what compiled code does not
            awaitDelivered();
            com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            long before = mx.getThreadAllocatedBytes(thread.threadId());
            int lines = 20_000;
            write(lines);
            awaitDelivered();
            long after = mx.getThreadAllocatedBytes(thread.threadId());
            assertTrue(before >= 0 && after >= before, "no allocation count for the pipeline thread");
            return (double) (after - before) / lines;
        }

        /** {@code n} lines, one write each, a line to each file in turn, about 8,000 a second. */
        private void write(int n) throws IOException, InterruptedException {
            for (int i = 0; i < n; i++) {
                FileChannel f = files.get(i % FILES);
                ByteBuffer line = lines.get(i % FILES).rewind();
                while (line.hasRemaining()) f.write(line);
                expected += line.capacity();
                if (i % 8 == 7) Thread.sleep(1);
            }
        }

        private void awaitDelivered() throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (delivered.getAsLong() < expected && System.nanoTime() < deadline) Thread.sleep(20);
            assertEquals(expected, delivered.getAsLong(), "delivered bytes");
        }

        void stop() throws Exception {
            if (pipeline != null) pipeline.stop();
            if (thread != null) thread.join(30_000);
            for (FileChannel f : files) f.close();
        }
    }

    private static ShipLog quiet() {
        return new ShipLog(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), true);
    }
}
