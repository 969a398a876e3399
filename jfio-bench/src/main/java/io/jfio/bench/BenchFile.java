package io.jfio.bench;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * A benchmark data file: created once in its own {@code jfio-bench-*} directory, filled with non-zero data (every
 * block really allocated on disk, no holes), fdatasync'ed, and removed with its directory by {@link #close()} or, if
 * the JVM is stopped first (Ctrl-C, SIGTERM), by a shutdown hook.
 *
 * <p>Every 4 KiB block starts with a stamp, {@link #stamp(long)} of its own offset, so a reader can check that each
 * read returned the block it asked for. Not thread-safe to create or close; the file itself may be read by any
 * number of threads.
 */
public final class BenchFile implements AutoCloseable {
    /** Block size of the stamps. */
    public static final int BLOCK = 4096;
    /** File systems whose "disk" is memory: O_DIRECT and cold-cache results would mean nothing there. */
    private static final Set<String> MEMORY_FS = Set.of("tmpfs", "ramfs", "devtmpfs", "hugetlbfs");
    /** Kept free beyond the file, so the benchmark never fills a file system to the brim. */
    private static final long SPACE_MARGIN = 64L << 20;
    private static final long STAMP_MAGIC = 0x6a66_696f_0000_0000L; // "jfio" in the high bytes: never zero

    private final Path dir;
    private final Path file;
    private final long size;
    private final Thread hook;
    private boolean closed;

    private BenchFile(Path dir, Path file, long size) {
        this.dir = dir;
        this.file = file;
        this.size = size;
        this.hook = new Thread(this::deleteQuietly, "jfio-bench-cleanup");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** The stamp at the start of the block at {@code offset}: never zero. */
    public static long stamp(long offset) {
        return STAMP_MAGIC ^ offset;
    }

    /**
     * MemAvailable from /proc/meminfo in bytes (0 when unreadable): the room a file system without a size of its own
     * (ramfs, which reports 0 blocks) has.
     */
    public static long memAvailable() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemAvailable:")) return Long.parseLong(line.replaceAll("\\D+", "")) * 1024;
            }
        } catch (IOException | NumberFormatException e) {
            // unknown: callers then refuse for lack of space, the safe side
        }
        return 0;
    }

    /**
     * Refuses a directory on a memory file system, with a message saying why and what to do instead.
     *
     * @throws IllegalArgumentException for tmpfs, ramfs and the like
     */
    public static FileStore checkFileSystem(Path dir) throws IOException {
        FileStore store = Files.getFileStore(dir);
        String type = store.type().toLowerCase(Locale.ROOT);
        if (MEMORY_FS.contains(type)) {
            throw new IllegalArgumentException("refusing to benchmark on " + type + " (" + dir.toAbsolutePath()
                    + "): its files live in RAM, so O_DIRECT and cold page-cache results would be meaningless; "
                    + "pass --dir on a disk-backed file system (ext4, xfs, btrfs...)");
        }
        return store;
    }

    /**
     * Creates {@code <parent>/jfio-bench-*}/data of {@code size} bytes.
     *
     * @param parent where to create the benchmark directory; created if missing
     * @param size   bytes, a positive multiple of {@link #BLOCK}
     * @param seed   seeds the (non-zero) content
     * @param log    progress messages
     * @throws IllegalArgumentException on a memory file system or without enough free space (says how much is
     *                                  needed and how much there is)
     */
    public static BenchFile create(Path parent, long size, long seed, PrintWriter log) throws IOException {
        return create(parent, size, seed, log, false);
    }

    /**
     * Like {@link #create(Path, long, long, PrintWriter)}; {@code allowMemoryFs} lets it go on tmpfs or ramfs (where
     * ramfs, which has no size, is checked against the memory available).
     */
    public static BenchFile create(Path parent, long size, long seed, PrintWriter log, boolean allowMemoryFs)
            throws IOException {
        if (size < BLOCK || size % BLOCK != 0) {
            throw new IllegalArgumentException("file size must be a positive multiple of " + BLOCK + ": size=" + size);
        }
        Files.createDirectories(parent);
        FileStore store = allowMemoryFs ? Files.getFileStore(parent) : checkFileSystem(parent);
        long needed = size + SPACE_MARGIN;
        long usable = store.getTotalSpace() == 0 ? memAvailable() : store.getUsableSpace();
        if (usable < needed) {
            throw new IllegalArgumentException("not enough free space in " + parent.toAbsolutePath() + ": need "
                    + Units.formatSize(needed) + " (" + Units.formatSize(size) + " file + "
                    + Units.formatSize(SPACE_MARGIN) + " margin), have " + Units.formatSize(usable)
                    + "; pass a smaller --size or another --dir");
        }
        Path dir = Files.createTempDirectory(parent, "jfio-bench-");
        Path file = dir.resolve("data");
        BenchFile bf = new BenchFile(dir, file, size);
        try {
            log.printf(Locale.ROOT, "creating %s (%s of non-zero data, fdatasync)...%n", file, Units.formatSize(size));
            log.flush();
            long t0 = System.nanoTime();
            fill(file, size, seed);
            double s = (System.nanoTime() - t0) / 1e9;
            log.printf(Locale.ROOT, "  written in %.1f s (%.0f MiB/s)%n", s, size / s / (1 << 20));
            log.flush();
            return bf;
        } catch (IOException | RuntimeException | Error e) {
            bf.close();
            throw e;
        }
    }

    private static void fill(Path file, long size, long seed) throws IOException {
        SplittableRandom rnd = new SplittableRandom(seed);
        int chunk = 1 << 20;
        ByteBuffer buf = ByteBuffer.allocateDirect(chunk).order(ByteOrder.LITTLE_ENDIAN);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            long off = 0;
            while (off < size) {
                int n = (int) Math.min(chunk, size - off);
                buf.clear();
                for (int i = 0; i < n; i += 8) {
                    long v = rnd.nextLong();
                    // No zero bytes anywhere: the file must not look sparse or compressible to zero-detecting layers.
                    v |= 0x0101_0101_0101_0101L;
                    buf.putLong(i, v);
                }
                for (int b = 0; b < n; b += BLOCK) buf.putLong(b, stamp(off + b));
                buf.limit(n);
                while (buf.hasRemaining()) off += ch.write(buf, off);
            }
            ch.force(false); // fdatasync: the data is on disk, so evicting it later drops clean pages only
        }
    }

    public Path path() {
        return file;
    }

    public Path directory() {
        return dir;
    }

    public long size() {
        return size;
    }

    /** Blocks of {@link #BLOCK} bytes in the file. */
    public long blocks() {
        return size / BLOCK;
    }

    private synchronized void deleteQuietly() {
        if (closed) return;
        closed = true;
        try {
            Files.deleteIfExists(file);
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            System.err.println("jfio bench: could not remove " + dir + ": " + e);
        }
    }

    /** Removes the file and its directory. Idempotent. */
    @Override
    public void close() {
        deleteQuietly();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // The JVM is shutting down: the hook is running or has run, and deletes the file itself.
        }
    }
}
