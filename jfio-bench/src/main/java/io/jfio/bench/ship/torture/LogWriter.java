package io.jfio.bench.ship.torture;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One writer's file {@code w<K>.log} and what was ever written to it: the records appended so far, where each file
 * generation (the file's content between two rotations) starts, and every rotated file (renamed away or copied by
 * copytruncate) with the records it holds and whether it was deleted.
 *
 * <p>Thread-safe: every method but {@link #written} takes the writer's lock. The writer thread calls {@link #append};
 * the rotator calls the rotations, each of which holds the lock from start to end, so that no record lands in the
 * middle of one; but for {@link #copy} then {@link #truncateAfterCopy}, between which the writer goes on (the rotator
 * truncates only what the sink holds, or gives the copy the rest first: the loss window of a real copytruncate is
 * logrotate's, not the shipper's).
 */
final class LogWriter {
    /** A rotated file: its path, the records {@code [first, end)} it holds, whether it is a copy, when it was made. */
    static final class Rotated {
        final Path path;
        final long first;
        final long end;
        final boolean copy;
        final long madeNanos;
        volatile boolean deleted;

        Rotated(Path path, long first, long end, boolean copy, long madeNanos) {
            this.path = path;
            this.first = first;
            this.end = end;
            this.copy = copy;
            this.madeNanos = madeNanos;
        }

        boolean holds(long n) {
            return n >= first && n < end;
        }
    }

    final int id;
    final Path file;
    private final ReentrantLock lock = new ReentrantLock();
    private FileChannel ch;
    /**
     * The next record's number = records written so far. Written under the lock; volatile so that {@link #written}
     * can read it without the lock, which a truncate holds for seconds.
     */
    private volatile long next;
    /** The first record of the current file (what the live file holds is {@code [fileStart, next)}). */
    private long fileStart;
    private int gen;
    /** First record number of each generation after the first, ascending. */
    private final List<Long> genStarts = new ArrayList<>();
    private final List<Rotated> rotated = new ArrayList<>();

    LogWriter(int id, Path dir) throws IOException {
        this.id = id;
        this.file = dir.resolve("w" + id + ".log");
        this.ch = open(file);
    }

    private static FileChannel open(Path p) throws IOException {
        // APPEND is O_APPEND: every write goes to the end, whoever truncated the file meanwhile.
        return FileChannel.open(p, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    }

    /** Appends the next record with one write(2); returns its number. */
    long append() throws IOException {
        lock.lock();
        try {
            ByteBuffer b = ByteBuffer.wrap(TortureRecord.format(id, next));
            // One heap buffer of 75 bytes: the JDK copies it to a direct buffer and issues a single write(2), which
            // for a regular file with O_APPEND writes it whole or fails.
            int w = ch.write(b);
            if (w != TortureRecord.SIZE) throw new IOException("short write: " + w + " bytes file=" + file);
            return next++;
        } finally {
            lock.unlock();
        }
    }

    /** Records written so far; does not wait for the lock. */
    long written() {
        return next;
    }

    /** Takes the lock for a rotation that spans more than one call (truncate's wait); pair with {@link #unlock}. */
    void lock() {
        lock.lock();
    }

    void unlock() {
        lock.unlock();
    }

    /** The bytes of the live file: its records since the last rotation. */
    long liveBytes() {
        lock.lock();
        try {
            return (next - fileStart) * TortureRecord.SIZE;
        } finally {
            lock.unlock();
        }
    }

    /** The live file's last record, or -1 when it is empty. Call with the lock held. */
    long lastInFile() {
        return next > fileStart ? next - 1 : -1;
    }

    /** The first record of the live file. Call with the lock held. */
    long ledgerFileStart() {
        return fileStart;
    }

    /** rename w.log -> w.log.GEN, then a new w.log. Returns the rotated file. */
    Rotated rename() throws IOException {
        lock.lock();
        try {
            Path to = file.resolveSibling(file.getFileName() + "." + (++gen));
            Files.move(file, to, StandardCopyOption.ATOMIC_MOVE);
            ch.close();
            ch = open(file);
            return newGeneration(to, false);
        } finally {
            lock.unlock();
        }
    }

    /** copy w.log -> w.log.GEN, then truncate w.log to 0, with no write in between. Returns the copy. */
    Rotated copyTruncate() throws IOException {
        lock.lock();
        try {
            Path to = file.resolveSibling(file.getFileName() + "." + (++gen));
            Files.copy(file, to, StandardCopyOption.COPY_ATTRIBUTES);
            ch.truncate(0);
            return newGeneration(to, true);
        } finally {
            lock.unlock();
        }
    }

    /** A copy made by {@link #copy}: its path and the records {@code [first, end)} it holds. */
    record Copied(Path path, long first, long end) {
    }

    /**
     * copytruncate's first step alone: copy w.log -> w.log.GEN. The writer goes on, as an application does while
     * logrotate copies; {@link #truncateAfterCopy} ends the rotation.
     */
    Copied copy() throws IOException {
        lock.lock();
        try {
            Path to = file.resolveSibling(file.getFileName() + "." + (++gen));
            Files.copy(file, to, StandardCopyOption.COPY_ATTRIBUTES);
            return new Copied(to, fileStart, next);
        } finally {
            lock.unlock();
        }
    }

    /**
     * copytruncate's last step, with the lock held: truncates w.log to 0. With {@code catchUp}, the copy is first given
     * what was appended since it was made (a cp that read on to the end of the growing file), so that it holds every
     * record truncated away; without, the records appended since the copy are gone from every file (the caller
     * checked that the sink holds them). Returns the copy.
     */
    Rotated truncateAfterCopy(Copied c, boolean catchUp) throws IOException {
        if (!lock.isHeldByCurrentThread()) throw new IllegalStateException("lock not held");
        long end = c.end();
        if (catchUp && next > end) {
            try (FileChannel src = FileChannel.open(file, StandardOpenOption.READ);
                 FileChannel dst = FileChannel.open(c.path(), StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
                long at = (end - fileStart) * TortureRecord.SIZE;
                long until = (next - fileStart) * TortureRecord.SIZE;
                while (at < until) at += src.transferTo(at, until - at, dst);
            }
            end = next;
        }
        ch.truncate(0);
        Rotated r = new Rotated(c.path(), c.first(), end, true, System.nanoTime());
        rotated.add(r);
        fileStart = next;
        genStarts.add(next);
        return r;
    }

    /** Truncates w.log to 0 in place. Call with the lock held (the caller checked the sink first). */
    void truncateInPlace() throws IOException {
        if (!lock.isHeldByCurrentThread()) throw new IllegalStateException("lock not held");
        ch.truncate(0);
        newGeneration(null, false);
    }

    private Rotated newGeneration(Path to, boolean copy) {
        Rotated r = to == null ? null : new Rotated(to, fileStart, next, copy, System.nanoTime());
        if (r != null) rotated.add(r);
        fileStart = next;
        genStarts.add(next);
        return r;
    }

    /**
     * Deletes rotated files made more than {@code ageNanos} ago whose records {@code delivered} says the sink holds
     * (asked without the lock: a look into the sink may take a while); returns those deleted now.
     */
    List<Rotated> deleteOlderThan(long ageNanos, java.util.function.Predicate<Rotated> delivered) throws IOException {
        List<Rotated> old = new ArrayList<>();
        lock.lock();
        try {
            long now = System.nanoTime();
            for (Rotated r : rotated) {
                if (!r.deleted && now - r.madeNanos > ageNanos) old.add(r);
            }
        } finally {
            lock.unlock();
        }
        List<Rotated> gone = new ArrayList<>();
        for (Rotated r : old) {
            if (!delivered.test(r)) continue;
            lock.lock();
            try {
                Files.deleteIfExists(r.path);
                r.deleted = true;
                gone.add(r);
            } finally {
                lock.unlock();
            }
        }
        return gone;
    }

    /** What the verifier needs to know about this writer, taken once writing is over. */
    Ledger ledger() {
        lock.lock();
        try {
            List<Ledger.File> files = new ArrayList<>();
            for (Rotated r : rotated) {
                files.add(new Ledger.File(r.path.getFileName().toString(), r.first, r.end, r.copy, r.deleted));
            }
            return new Ledger(id, next, List.copyOf(genStarts), files);
        } finally {
            lock.unlock();
        }
    }

    void close() throws IOException {
        lock.lock();
        try {
            ch.close();
        } finally {
            lock.unlock();
        }
    }
}
