package io.jfio.bench.suite;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * The {@code jfio-bench-suite-*} directory that holds every test file of a run, removed with everything in it on
 * {@link #close()} and, if the JVM stops first (Ctrl-C, SIGTERM), by a shutdown hook that says so on stderr.
 *
 * <p>Thread-safe: removal is synchronized and happens once.
 */
public final class Scratch implements AutoCloseable {
    private final Path dir;
    private final Thread hook;
    private final PrintStream log;
    private volatile boolean stopping;
    private boolean removed;

    private Scratch(Path dir, PrintStream log) {
        this.dir = dir;
        this.log = log;
        this.hook = new Thread(this::onShutdown, "jfio-bench-suite-cleanup");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /**
     * Creates {@code parent/jfio-bench-suite-*}.
     *
     * @throws IOException with a message naming the directory when it cannot be written
     */
    public static Scratch create(Path parent, PrintStream log) throws IOException {
        Path d = Files.createTempDirectory(parent, "jfio-bench-suite-");
        return new Scratch(d, log);
    }

    public Path dir() {
        return dir;
    }

    /** True once the JVM began shutting down: experiments stop at the next cell. */
    public boolean stopping() {
        return stopping;
    }

    private void onShutdown() {
        stopping = true;
        boolean did = remove();
        if (did) log.println("jfio bench: stopped (Ctrl-C or SIGTERM): removed the test files in " + dir);
    }

    /** Removes everything inside the directory, keeping it. */
    public synchronized void clear() throws IOException {
        if (removed) return;
        delete(dir, false);
    }

    /** Removes the directory and everything in it; true when this call removed it. */
    private synchronized boolean remove() {
        if (removed) return false;
        removed = true;
        try {
            delete(dir, true);
        } catch (IOException e) {
            log.println("jfio bench: could not remove " + dir + ": " + e);
        }
        return true;
    }

    private static void delete(Path root, boolean self) throws IOException {
        if (!Files.exists(root)) return;
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                deleteIfExists(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException exc) {
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path d, IOException exc) throws IOException {
                if (self || !d.equals(root)) deleteIfExists(d);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    private static void deleteIfExists(Path p) throws IOException {
        try {
            Files.deleteIfExists(p);
        } catch (NoSuchFileException e) {
            // raced with another remover: gone either way
        }
    }

    /** Removes the directory. Idempotent. */
    @Override
    public void close() {
        remove();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // shutting down: the hook runs or ran
        }
    }
}
