package io.jfio.ship.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.core.watch.FileEvent;
import io.jfio.core.watch.FileWatcher;
import io.jfio.core.watch.FileWatchers;
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
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The work of one wake-up does not grow with the number of write events it takes: a wake-up that finds K lines
 * appended to each of F files reads each file once and sends once, whether K is 1 or 64. Counted, not timed: the read
 * system calls on source files as the harvester counts them where it makes them (pread, preadv), the system calls
 * that moved batch bytes as the sinks count them (the directory sink's pwrite, the TCP sink's send and sendfile), and,
 * for the message, every read-like system call of the pipeline thread from the kernel's own counter
 * ({@code /proc/self/task/TID/io}, syscr: the source reads plus the watcher's reads of inotify and its eventfd).
 * The pipeline is held inside its watcher's poll while the lines are appended, so that all their events wait in the
 * kernel's queue and one wake-up takes them: a real inotify watcher, real files, real sinks.
 */
class CoalescingTest {
    private static final int FILES = 8;
    @TempDir
    Path tmp;

    /**
     * The real inotify watcher, with a gate that holds the pipeline thread at its next poll; sleeping in the pipeline
     * thread's io_uring (and the TCP sink's send going with that sleep) or in its own epoll instance.
     */
    private static final class GatedWatcher implements FileWatcher {
        private final FileWatcher real = FileWatchers.open();
        private final boolean ring;
        private final Object gate = new Object();
        private boolean held;
        private boolean waiting;

        /** Closes the gate and waits until the pipeline thread waits at it: nothing is read from now on. */
        void hold() throws InterruptedException {
            synchronized (gate) {
                held = true;
            }
            real.wakeup();
            synchronized (gate) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (!waiting && System.nanoTime() < deadline) gate.wait(10);
                assertTrue(waiting, "the pipeline did not come to its watcher's poll within 10 s");
            }
        }

        GatedWatcher(boolean ring) {
            this.ring = ring;
        }

        /** Whether the pipeline made the watcher sleep in its ring. */
        volatile boolean inRing;

        @Override
        public boolean waitIn(io.jfio.core.engine.EventRing r) {
            inRing = ring && real.waitIn(r);
            return inRing;
        }

        void release() {
            synchronized (gate) {
                held = false;
                gate.notifyAll();
            }
        }

        @Override
        public List<FileEvent> poll(Duration timeout) throws IOException {
            synchronized (gate) {
                while (held) {
                    waiting = true;
                    try {
                        gate.wait();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IOException("interrupted", e);
                    }
                }
                waiting = false;
            }
            return real.poll(timeout);
        }

        @Override
        public void watch(Path path) throws IOException {
            real.watch(path);
        }

        @Override
        public void watchTree(Path dir) throws IOException {
            real.watchTree(dir);
        }

        @Override
        public boolean unwatch(Path path) throws IOException {
            return real.unwatch(path);
        }

        @Override
        public void wakeup() {
            real.wakeup();
        }

        @Override
        public void close() {
            release();
            real.close();
        }

        @Override
        public String mechanism() {
            return real.mechanism();
        }

        @Override
        public Map<Path, String> polled() {
            return real.polled();
        }
    }

    /**
     * What one catch-up cost: reads of source files, system calls that sent batch bytes, all read-like system calls
     * of the pipeline thread, and its wake-ups.
     */
    private record Cost(long reads, long sends, long threadReads, long wakeUps) {
    }

    @ParameterizedTest(name = "ring {0}")
    @ValueSource(booleans = {false, true})
    void shouldReadEachFileOnceAndWriteOnceToTheDirSinkHoweverManyEventsAWakeUpTakes(boolean ring) throws Exception {
        Path out = tmp.resolve("out");
        Rig rig = new Rig(ring, cfg -> new DirSink(out, cfg.segmentSize(), quiet()));
        try {
            rig.start(() -> DirSink.readAll(out).length);
            // The first also takes what the start left (acknowledgements, a checkpoint): not judged.
            rig.catchUp(1, () -> ((DirSink) rig.sink).writeCalls());
            Cost one = rig.catchUp(1, () -> ((DirSink) rig.sink).writeCalls());
            Cost many = rig.catchUp(64, () -> ((DirSink) rig.sink).writeCalls());
            judge(rig, ring, one, many);
        } finally {
            rig.stop();
        }
    }

    @ParameterizedTest(name = "ring {0}")
    @ValueSource(booleans = {false, true})
    void shouldReadEachFileOnceAndSendOnceToTcpHoweverManyEventsAWakeUpTakes(boolean ring) throws Exception {
        Path out = tmp.resolve("received");
        try (TcpReceiver receiver = TcpReceiver.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                Files.createDirectories(out), TcpReceiver.Options.defaults(), new PrintStream(
                        ByteArrayOutputStream.nullOutputStream()))) {
            Rig rig = new Rig(ring, cfg -> new TcpSink("127.0.0.1", receiver.port(), TcpSink.Options.defaults()));
            try {
                rig.start(receiver::received);
                // The first also takes what the start left (acknowledgements, a checkpoint): not judged.
                rig.catchUp(1, () -> ((TcpSink) rig.sink).sendCalls());
                Cost one = rig.catchUp(1, () -> ((TcpSink) rig.sink).sendCalls());
                Cost many = rig.catchUp(64, () -> ((TcpSink) rig.sink).sendCalls());
                judge(rig, ring, one, many);
            } finally {
                rig.stop();
            }
        }
    }

    /** As below, and the pipeline's wait was where the case puts it. */
    private void judge(Rig rig, boolean ring, Cost one, Cost many) {
        assertEquals(ring, rig.watcher.inRing, "the pipeline's wait was not where this case puts it");
        judge(one, many);
    }

    /**
     * 64 times the events must not cost more reads or sends than one event per file: each file is read once (its
     * read comes back short, which says it is at its end: no second read to hear 0 bytes), and the batches of all
     * files leave in one system call.
     */
    private static void judge(Cost one, Cost many) {
        String both = "one line per file: " + one + "; 64 lines per file: " + many;
        assertTrue(many.reads() <= one.reads(), "reads grew with the events coalesced: " + both);
        assertTrue(many.sends() <= one.sends(), "sends grew with the events coalesced: " + both);
        // And what the catch-up costs at all: one read per file, one system call for the batches of every file.
        assertEquals(FILES, many.reads(), "not one read per file: " + both);
        assertEquals(1, many.sends(), "the batches of one wake-up left in more than one system call: " + both);
    }

    private interface SinkMaker {
        Sink open(ShipConfig cfg) throws IOException;
    }

    /** A pipeline over {@link #FILES} files, its thread, and the counters of that thread. */
    private final class Rig {
        private final SinkMaker maker;
        private final GatedWatcher watcher;
        private final List<Path> files = new java.util.ArrayList<>();
        Sink sink;
        private Pipeline pipeline;
        private Thread thread;
        private final CompletableFuture<String> tid = new CompletableFuture<>();
        private LongSupplier delivered;
        private long expected;
        private long line;

        Rig(boolean ring, SinkMaker maker) {
            this.watcher = new GatedWatcher(ring);
            this.maker = maker;
        }

        /** Starts the pipeline on files that already hold 2 KiB (a full fingerprint) and waits until they shipped. */
        void start(LongSupplier deliveredBytes) throws Exception {
            this.delivered = deliveredBytes;
            Path logs = Files.createDirectories(tmp.resolve("logs"));
            for (int i = 0; i < FILES; i++) {
                Path f = logs.resolve(String.format(Locale.ROOT, "f-%d.log", i));
                files.add(f);
                for (int j = 0; j < 24; j++) append(f);
            }
            ShipConfig cfg = ShipRun.config(List.of(logs + "/*.log"), tmp.resolve("out"), tmp.resolve("state"),
                    Map.of());
            sink = maker.open(cfg);
            pipeline = new Pipeline("main", cfg.inputs(), cfg, sink, Shipper.store(cfg.state(), "main"), quiet(),
                    new ShipMetrics(), Pipeline.Mode.RUN, watcher);
            thread = Thread.ofPlatform().name("coalescing-pipeline").start(() -> {
                try {
                    tid.complete(Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString());
                } catch (IOException e) {
                    tid.completeExceptionally(e);
                }
                pipeline.run();
            });
            awaitDelivered();
        }

        /** Appends {@code k} lines to every file while the pipeline is held, then lets one wake-up take them. */
        Cost catchUp(int k, LongSupplier sends) throws Exception {
            watcher.hold();
            for (int j = 0; j < k; j++) {
                for (Path f : files) append(f);
            }
            long reads0 = pipeline.sourceReads();
            long sends0 = sends.getAsLong();
            long thread0 = syscr();
            long waits0 = pipeline.waits();
            watcher.release();
            awaitDelivered();
            Thread.sleep(300); // the turns after it: a look that finds nothing more is part of the cost too
            return new Cost(pipeline.sourceReads() - reads0, sends.getAsLong() - sends0, syscr() - thread0,
                    pipeline.waits() - waits0);
        }

        /** One 92-byte line, one write. */
        private void append(Path f) throws IOException {
            String s = String.format(Locale.ROOT, "line %08d of the coalescing test, padded to a fixed length of "
                    + "ninety-two bytes...%n", line++);
            byte[] b = s.getBytes(StandardCharsets.US_ASCII);
            try (FileChannel ch = FileChannel.open(f, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.APPEND)) {
                ch.write(ByteBuffer.wrap(b));
            }
            expected += b.length;
        }

        private void awaitDelivered() throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (delivered.getAsLong() < expected && System.nanoTime() < deadline) Thread.sleep(5);
            assertEquals(expected, delivered.getAsLong(), "delivered bytes");
        }

        /** The read-like system calls of the pipeline thread so far, as the kernel counts them. */
        private long syscr() throws Exception {
            String io = Files.readString(Path.of("/proc/self/task", tid.get(10, TimeUnit.SECONDS), "io"));
            for (String l : io.split("\n")) {
                if (l.startsWith("syscr:")) return Long.parseLong(l.substring(6).trim());
            }
            throw new IllegalStateException("no syscr in /proc/self/task/TID/io: " + io);
        }

        void stop() throws InterruptedException {
            watcher.release();
            if (pipeline != null) pipeline.stop();
            if (thread != null) thread.join(30_000);
        }
    }

    private static ShipLog quiet() {
        return new ShipLog(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), true);
    }
}
