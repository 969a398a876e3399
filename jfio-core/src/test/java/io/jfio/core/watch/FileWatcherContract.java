package io.jfio.core.watch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.core.sys.Errno;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.FileNames;
import io.jfio.core.sys.LibC;
import io.jfio.core.sys.PathBytes;
import io.jfio.core.testing.Fds;
import io.jfio.core.watch.FileEvent.Kind;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What every {@link FileWatcher} must report for the same actions on real files: the kinds both inotify and polling
 * can see. Subclasses add what only one of them can (CLOSE_WRITE, unpaired moves, overflow).
 */
abstract class FileWatcherContract {
    @TempDir
    Path tmp;
    FileWatcher watcher;
    Recorder rec;

    abstract FileWatcher create() throws IOException;

    /** Lets a polling watcher take a scan between two steps, so each step is one difference. */
    void settle() throws IOException {
    }

    FileWatcher start() throws IOException {
        watcher = create();
        rec = new Recorder(watcher);
        return watcher;
    }

    @AfterEach
    void closeWatcher() {
        if (watcher != null) watcher.close();
    }

    @Test
    void shouldReportCreateModifyAttribDelete() throws IOException {
        Path dir = Files.createDirectory(tmp.resolve("d"));
        start().watch(dir);
        Path f = dir.resolve("a.log");
        Files.writeString(f, "x");
        assertFalse(rec.await(Kind.CREATE, f).directory());
        settle();
        Files.writeString(f, "more", StandardOpenOption.APPEND);
        rec.await(Kind.MODIFY, f);
        settle();
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
        rec.await(Kind.ATTRIB, f);
        settle();
        Files.delete(f);
        rec.await(Kind.DELETE, f);
        Path sub = Files.createDirectory(dir.resolve("sub"));
        assertTrue(rec.await(Kind.CREATE, sub).directory());
        for (FileEvent e : rec.events()) assertEquals(dir, e.dir(), e.toString());
    }

    @Test
    void shouldPairARenameWithinADirectory() throws IOException {
        Path dir = Files.createDirectory(tmp.resolve("d"));
        Path a = Files.writeString(dir.resolve("app.log"), "1");
        start().watch(dir);
        Files.move(a, dir.resolve("app.log.1"));
        FileEvent e = rec.await(Kind.MOVED, dir.resolve("app.log.1"));
        assertEquals(a, e.from());
        assertFalse(rec.has(Kind.CREATE, dir.resolve("app.log.1")), rec.events().toString());
        assertFalse(rec.has(Kind.DELETE, a), rec.events().toString());
    }

    @Test
    void shouldPairARenameBetweenTwoWatchedDirectories() throws IOException {
        Path d1 = Files.createDirectory(tmp.resolve("d1"));
        Path d2 = Files.createDirectory(tmp.resolve("d2"));
        Path a = Files.writeString(d1.resolve("x"), "1");
        Path sub = Files.createDirectory(d1.resolve("sub"));
        start().watch(d1);
        watcher.watch(d2);
        Files.move(a, d2.resolve("y"));
        assertEquals(a, rec.await(Kind.MOVED, d2.resolve("y")).from());
        settle();
        Files.move(sub, d2.resolve("sub2"));
        FileEvent e = rec.await(Kind.MOVED, d2.resolve("sub2"));
        assertEquals(sub, e.from());
        assertTrue(e.directory());
    }

    @Test
    void shouldReportADeletedWatchedDirectoryAndForgetIt() throws IOException {
        Path dir = Files.createDirectory(tmp.resolve("d"));
        start().watch(dir);
        Files.delete(dir);
        rec.await(Kind.DELETE_SELF, dir);
        rec.await(Kind.UNWATCHED, dir);
        Files.createDirectory(dir);
        Files.writeString(dir.resolve("new"), "x");
        rec.drain(Duration.ofMillis(300));
        assertFalse(rec.has(Kind.CREATE, dir.resolve("new")), "a new directory under the old name is not watched");
    }

    @Test
    void shouldReportChangesToAWatchedFile() throws IOException {
        Path f = Files.writeString(tmp.resolve("single.log"), "1");
        start().watch(f);
        Files.writeString(f, "22", StandardOpenOption.APPEND);
        FileEvent e = rec.await(Kind.MODIFY, f);
        assertEquals(f, e.dir());
        assertEquals("", e.name());
        settle();
        Files.delete(f);
        rec.await(Kind.DELETE_SELF, f);
        rec.await(Kind.UNWATCHED, f);
    }

    @Test
    void shouldReportEverythingInADirectoryCreatedAndFilledAtOnce() throws Exception {
        Path root = Files.createDirectory(tmp.resolve("root"));
        start().watchTree(root);
        // Another process makes and fills the directories as fast as it can: most of it happens before the watcher
        // has read the first event, so before the new directories have watches.
        Process p = new ProcessBuilder("sh", "-c",
                "mkdir -p new/deep/er && echo a > new/a && echo b > new/deep/b && echo c > new/deep/er/c")
                .directory(root.toFile()).inheritIO().start();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0);
        Path n = root.resolve("new");
        for (Path expected : List.of(n, n.resolve("a"), n.resolve("deep"), n.resolve("deep/b"), n.resolve("deep/er"),
                n.resolve("deep/er/c"))) {
            rec.await(Kind.CREATE, expected);
        }
        settle();
        // The new directories are watched now.
        Path c = n.resolve("deep/er/c");
        Files.writeString(c, "more", StandardOpenOption.APPEND);
        rec.await(Kind.MODIFY, c);
        Path d = Files.writeString(n.resolve("deep/er/d"), "d");
        rec.await(Kind.CREATE, d);
    }

    @Test
    void shouldFollowADirectoryRenamedInsideATree() throws IOException {
        Path root = Files.createDirectory(tmp.resolve("root"));
        Path old = Files.createDirectories(root.resolve("a/b"));
        Path f = Files.writeString(old.resolve("f"), "1");
        start().watchTree(root);
        Path renamed = root.resolve("a/c");
        Files.move(old, renamed);
        FileEvent moved = rec.await(Kind.MOVED, renamed);
        assertEquals(old, moved.from());
        assertTrue(moved.directory());
        settle();
        rec.clear();
        Files.writeString(renamed.resolve("f"), "22", StandardOpenOption.APPEND);
        rec.await(Kind.MODIFY, renamed.resolve("f"));
        assertFalse(rec.has(Kind.MODIFY, f), "reported under the old path: " + rec.events());
    }

    @Test
    void shouldStopReportingAfterUnwatch() throws IOException {
        Path dir = Files.createDirectory(tmp.resolve("d"));
        Path tree = Files.createDirectories(tmp.resolve("t/sub"));
        start().watch(dir);
        watcher.watchTree(tmp.resolve("t"));
        assertTrue(watcher.unwatch(dir));
        assertTrue(watcher.unwatch(tmp.resolve("t")));
        assertFalse(watcher.unwatch(dir));
        Files.writeString(dir.resolve("x"), "1");
        Files.writeString(tree.resolve("y"), "1");
        rec.drain(Duration.ofMillis(300));
        assertEquals(List.of(), rec.events());
    }

    @Test
    void shouldKeepANestedTreeWhenTheOuterOneIsUnwatched() throws IOException {
        Path outer = tmp.resolve("outer");
        Path other = Files.createDirectories(outer.resolve("other"));
        Path inner = Files.createDirectories(outer.resolve("inner"));
        Path deep = Files.createDirectories(inner.resolve("deep"));
        start().watchTree(outer);
        watcher.watchTree(inner);
        assertTrue(watcher.unwatch(outer));
        if (watcher instanceof InotifyWatcher w) assertEquals(2, w.watchCount(), "inner and inner/deep stay");
        Files.writeString(other.resolve("x"), "1");
        Files.writeString(outer.resolve("x"), "1");
        Path y = Files.writeString(deep.resolve("y"), "1");
        rec.await(Kind.CREATE, y);
        rec.drain(Duration.ofMillis(300));
        assertFalse(rec.has(Kind.CREATE, other.resolve("x")), rec.events().toString());
        assertFalse(rec.has(Kind.CREATE, outer.resolve("x")), rec.events().toString());
        assertTrue(watcher.unwatch(inner));
        if (watcher instanceof InotifyWatcher w) assertEquals(0, w.watchCount());
    }

    /**
     * Names that do not decode in sun.jnu.encoding (bytes 0xfe and 0xff are neither UTF-8 nor ASCII): the JDK shows
     * them with U+FFFD, so a watcher that turned such a path's string back into bytes would examine or watch a name
     * that does not exist. An event's name keeps the bytes (two such names are two strings) and its path names the
     * entry. A file with
     * such a name, a directory with one in a tree (there before the watch, and made after it), and that directory
     * renamed: each is reported, and what happens inside the directories is reported at their real paths.
     */
    @Test
    void shouldReportNamesThatAreNotValidUtf8() throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("d"));
        Path tree = Files.createDirectory(tmp.resolve("t"));
        Path before = create(tree, "old\u00ff", true);
        Path f0 = Files.writeString(before.resolve("f0"), "0");
        start().watch(dir);
        watcher.watchTree(tree);
        settle();
        Path file = create(dir, "bad\u00ff.log", false);
        rec.await("CREATE " + file, e -> e.kind() == Kind.CREATE && dir.equals(e.dir())
                && e.name().equals(FileNames.of(file.getFileName())) && file.equals(e.path()));
        Files.writeString(f0, "more", StandardOpenOption.APPEND);
        rec.await(Kind.MODIFY, f0);
        Path after = create(tree, "new\u00fe", true);
        rec.await("CREATE " + after, e -> e.kind() == Kind.CREATE && tree.equals(e.dir()) && e.directory()
                && e.name().equals(FileNames.of(after.getFileName())) && after.equals(e.path()));
        settle();
        Path f1 = Files.writeString(after.resolve("f1"), "1");
        rec.await(Kind.CREATE, f1);
        settle();
        Path renamed = tree.resolve("renamed");
        Files.move(before, renamed);
        rec.await(Kind.MOVED, renamed);
        settle();
        rec.clear();
        Files.writeString(renamed.resolve("f0"), "again", StandardOpenOption.APPEND);
        rec.await(Kind.MODIFY, renamed.resolve("f0"));
        assertFalse(rec.has(Kind.MODIFY, f0), "reported under the old path: " + rec.events());
    }

    /**
     * Creates {@code name} in {@code dir} by its ISO-8859-1 bytes (one byte per char: not UTF-8 where a char is above
     * U+007F), through the system call, as the JDK cannot make such a name from a string; returns the path the JDK
     * lists for it. Only the name is ISO-8859-1: {@code dir} goes by its own bytes, whatever they are.
     */
    private static Path create(Path dir, String name, boolean directory) throws IOException {
        byte[] nameBytes = name.getBytes(StandardCharsets.ISO_8859_1);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = arena.allocate(Fcntl.PATH_MAX + 1);
            assertEquals(0, PathBytes.put(seg, PathBytes.join(PathBytes.bytes(dir), nameBytes)));
            int r = directory ? LibC.mkdirat(Fcntl.AT_FDCWD, seg, 0755)
                    : LibC.openat(Fcntl.AT_FDCWD, seg, Fcntl.O_CREAT | Fcntl.O_WRONLY | Fcntl.O_CLOEXEC, 0644);
            assertTrue(r >= 0, Errno.name(-r));
            if (!directory) LibC.close(r);
        }
        try (var entries = Files.list(dir)) {
            return entries.filter(p -> Arrays.equals(PathBytes.lastComponent(PathBytes.bytes(p)), nameBytes))
                    .findFirst().orElseThrow();
        }
    }

    @Test
    void shouldFailClearlyForMissingPaths() throws IOException {
        start();
        assertThrows(NoSuchFileException.class, () -> watcher.watch(tmp.resolve("missing")));
        assertThrows(NoSuchFileException.class, () -> watcher.watchTree(tmp.resolve("missing")));
        Path file = Files.writeString(tmp.resolve("file"), "x");
        assertThrows(java.nio.file.NotDirectoryException.class, () -> watcher.watchTree(file));
    }

    @Test
    void shouldReturnEmptyOnTimeoutAndOnWakeup() throws Exception {
        start().watch(tmp);
        assertEquals(List.of(), watcher.poll(Duration.ZERO));
        assertEquals(List.of(), watcher.poll(Duration.ofMillis(30)));
        CompletableFuture<List<FileEvent>> polled = CompletableFuture.supplyAsync(() -> {
            try {
                return watcher.poll(Duration.ofMinutes(10));
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        }, r -> new Thread(r, "poller").start());
        Thread.sleep(100);
        watcher.wakeup();
        assertEquals(List.of(), polled.get(30, TimeUnit.SECONDS));
        watcher.wakeup(); // before a poll: the next one returns at once
        assertEquals(List.of(), watcher.poll(Duration.ofMinutes(10)));
    }

    /**
     * A caller that polls with a zero timeout between other work (the shipper's pipeline) must get what happened
     * meanwhile: only zero-timeout polls here, retried while the change reaches the watcher (at once for inotify,
     * after the next scan for polling).
     */
    @Test
    void shouldCollectNewEventsWithAZeroTimeout() throws Exception {
        start().watch(tmp);
        assertEquals(List.of(), watcher.poll(Duration.ZERO));
        Path f = Files.writeString(tmp.resolve("zero"), "x");
        long deadline = System.nanoTime() + Recorder.PATIENCE.toNanos();
        List<FileEvent> got = new java.util.ArrayList<>();
        while (got.stream().noneMatch(e -> e.kind() == Kind.CREATE && f.equals(e.path()))) {
            assertTrue(System.nanoTime() - deadline < 0, "no CREATE from poll(0) within " + Recorder.PATIENCE
                    + ": " + got);
            Thread.sleep(5);
            got.addAll(watcher.poll(Duration.ZERO));
        }
    }

    @Test
    void shouldThrowClosedInAPollBlockedInAnotherThread() throws Exception {
        start().watch(tmp);
        CompletableFuture<Throwable> polled = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                watcher.poll(Duration.ofMinutes(10));
                polled.complete(null);
            } catch (Throwable e) {
                polled.complete(e);
            }
        }, "poller");
        t.start();
        Thread.sleep(100);
        watcher.close();
        assertTrue(polled.get(30, TimeUnit.SECONDS) instanceof WatcherClosedException, () -> String.valueOf(
                polled.getNow(null)));
        watcher.close(); // idempotent
        watcher.wakeup(); // harmless
        assertThrows(WatcherClosedException.class, () -> watcher.poll(Duration.ZERO));
        assertThrows(WatcherClosedException.class, () -> watcher.watch(tmp));
    }

    @Test
    void shouldLeakNoDescriptors() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("t/a/b"));
        Fds.assertNoLeak("watcher open, watch, poll, close", () -> {
            try (FileWatcher w = create()) {
                w.watchTree(tmp.resolve("t"));
                w.watch(tmp);
                Files.writeString(dir.resolve("f"), "x");
                new Recorder(w).await(Kind.CREATE, dir.resolve("f"));
                Files.delete(dir.resolve("f"));
            }
        });
    }

    /** Renames a file over another: the target's old file is gone, the source's name is gone. */
    @Test
    void shouldReportARenameOverAnExistingFile() throws IOException {
        Path dir = Files.createDirectory(tmp.resolve("d"));
        Path tmpFile = Files.writeString(dir.resolve("state.tmp"), "new");
        Files.writeString(dir.resolve("state"), "old!");
        start().watch(dir);
        Files.move(tmpFile, dir.resolve("state"), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        assertEquals(tmpFile, rec.await(Kind.MOVED, dir.resolve("state")).from());
    }
}
