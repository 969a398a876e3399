package io.jfio.bench.ship.torture;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * N writer threads, each appending {@code rate} records a second to its own {@link LogWriter} for a fixed number of
 * records ({@code rate x seconds}). Each is paced against its own schedule: a writer held up (by a rotation holding
 * its lock, or by the CPU) catches up afterwards, so the number of records is always the same for a seed.
 *
 * <p>Thread-safe: started and joined by the run's thread; {@link #writers} may be read by the rotator.
 */
final class Writers {
    private final List<LogWriter> writers = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    Writers(Path dir, int n) throws IOException {
        for (int i = 0; i < n; i++) writers.add(new LogWriter(i, dir));
    }

    List<LogWriter> writers() {
        return writers;
    }

    /** Starts every writer: {@code rate} records a second, {@code perWriter} records each. */
    void start(int rate, long perWriter) {
        long start = System.nanoTime();
        for (LogWriter w : writers) {
            threads.add(Thread.ofPlatform().daemon().name("jfio-torture-writer-" + w.id).start(() -> {
                try {
                    for (long i = 0; i < perWriter; i++) {
                        long due = start + i * 1_000_000_000L / rate;
                        long wait = due - System.nanoTime();
                        if (wait > 0) LockSupport.parkNanos(wait);
                        w.append();
                    }
                } catch (IOException | RuntimeException e) {
                    failure.compareAndSet(null, e);
                }
            }));
        }
    }

    /** True while some writer still writes. */
    boolean running() {
        for (Thread t : threads) {
            if (t.isAlive()) return true;
        }
        return false;
    }

    /** Waits for every writer; throws what one of them failed with. */
    void join() throws IOException, InterruptedException {
        for (Thread t : threads) t.join();
        for (LogWriter w : writers) w.close();
        Throwable t = failure.get();
        if (t != null) throw new IOException("a writer failed: " + t, t);
    }

    /** Records written so far, over all writers. */
    long written() {
        long s = 0;
        for (LogWriter w : writers) s += w.written();
        return s;
    }

    List<Ledger> ledgers() {
        List<Ledger> l = new ArrayList<>();
        for (LogWriter w : writers) l.add(w.ledger());
        return l;
    }
}
