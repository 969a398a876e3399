package io.jfio.core.watch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jfio.core.watch.FileEvent.Kind;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The inotify watcher: the contract, and what only inotify can report. */
class InotifyWatcherTest extends FileWatcherContract {

    @Override
    FileWatcher create() throws IOException {
        return new InotifyWatcher();
    }

    @Test
    void shouldReportCloseWriteAfterTheWriterCloses() throws IOException {
        start().watch(tmp);
        Path f = tmp.resolve("w");
        try (OutputStream out = Files.newOutputStream(f)) {
            out.write(1);
            out.flush();
            rec.await(Kind.MODIFY, f);
            assertFalse(rec.has(Kind.CLOSE_WRITE, f));
        }
        rec.await(Kind.CLOSE_WRITE, f);
        List<Kind> kinds = rec.events().stream().map(FileEvent::kind).toList();
        assertEquals(List.of(Kind.CREATE, Kind.MODIFY, Kind.CLOSE_WRITE), kinds);
    }

    @Test
    void shouldReportUnpairedMovesOutOfAndIntoTheWatchedSet() throws IOException {
        Path watched = Files.createDirectory(tmp.resolve("watched"));
        Path outside = Files.createDirectory(tmp.resolve("outside"));
        Path a = Files.writeString(watched.resolve("a"), "1");
        Path b = Files.writeString(outside.resolve("b"), "2");
        start().watch(watched);
        Files.move(a, outside.resolve("a"));
        FileEvent out = rec.await(Kind.MOVED_FROM, a);
        assertEquals(watched, out.dir());
        Files.move(b, watched.resolve("b"));
        rec.await(Kind.MOVED_TO, watched.resolve("b"));
        // The one after the other, in order; no MOVED made of the two.
        assertEquals(List.of(Kind.MOVED_FROM, Kind.MOVED_TO), rec.events().stream().map(FileEvent::kind).toList());
    }

    @Test
    void shouldKeepOrderBehindAHeldMovedFrom() throws IOException {
        Path watched = Files.createDirectory(tmp.resolve("watched"));
        Path outside = Files.createDirectory(tmp.resolve("outside"));
        Path a = Files.writeString(watched.resolve("a"), "1");
        start().watch(watched);
        Files.move(a, outside.resolve("a"));
        Path c = Files.writeString(watched.resolve("c"), "3");
        rec.await(Kind.CREATE, c);
        assertEquals(Kind.MOVED_FROM, rec.events().get(0).kind(), rec.events().toString());
    }

    @Test
    void shouldReportAWatchedDirectoryMovedAwayAndDropIt() throws IOException {
        Path dir = Files.createDirectory(tmp.resolve("d"));
        start().watch(dir);
        Path away = tmp.resolve("away");
        Files.move(dir, away);
        rec.await(Kind.MOVE_SELF, dir);
        rec.await(Kind.UNWATCHED, dir);
        assertEquals(0, ((InotifyWatcher) watcher).watchCount());
        Files.writeString(away.resolve("f"), "x");
        rec.drain(Duration.ofMillis(200));
        assertFalse(rec.events().stream().anyMatch(e -> e.kind() == Kind.CREATE), rec.events().toString());
    }

    @Test
    void shouldStopWatchingADirectoryMovedOutOfATree() throws IOException {
        Path root = Files.createDirectory(tmp.resolve("root"));
        Path sub = Files.createDirectories(root.resolve("sub/deeper"));
        start().watchTree(root);
        assertEquals(3, ((InotifyWatcher) watcher).watchCount());
        Files.move(root.resolve("sub"), tmp.resolve("gone"));
        rec.await(Kind.MOVED_FROM, root.resolve("sub"));
        rec.drain(Duration.ofMillis(100));
        assertEquals(1, ((InotifyWatcher) watcher).watchCount(), rec.events().toString());
        Files.writeString(tmp.resolve("gone/deeper/f"), "x");
        rec.drain(Duration.ofMillis(200));
        assertFalse(rec.events().stream().anyMatch(e -> e.kind() == Kind.CREATE), rec.events().toString());
        assertFalse(Files.exists(sub));
    }

    @Test
    void shouldReportAMoveIntoATreeWithItsContents() throws IOException {
        Path root = Files.createDirectory(tmp.resolve("root"));
        Path outside = Files.createDirectories(tmp.resolve("outside/x/y"));
        Files.writeString(outside.resolve("f"), "1");
        start().watchTree(root);
        Files.move(tmp.resolve("outside/x"), root.resolve("x"));
        assertTrue(rec.await(Kind.MOVED_TO, root.resolve("x")).directory());
        rec.await(Kind.CREATE, root.resolve("x/y"));
        rec.await(Kind.CREATE, root.resolve("x/y/f"));
        Files.writeString(root.resolve("x/y/f"), "2", StandardOpenOption.APPEND);
        rec.await(Kind.MODIFY, root.resolve("x/y/f"));
    }

    /**
     * Data events are made once per name and reused: a write to a file of a directory renamed within the tree is still
     * reported under the directory's new path, and every name keeps its own events.
     */
    @Test
    void shouldReportWritesUnderTheirDirectorysNewPathAfterItMovesWithinATree() throws IOException {
        Path root = Files.createDirectory(tmp.resolve("root"));
        Path a = Files.createDirectory(root.resolve("a"));
        Files.writeString(a.resolve("f"), "1");
        start().watchTree(root);
        Files.writeString(a.resolve("f"), "2", StandardOpenOption.APPEND);
        rec.await(Kind.MODIFY, a.resolve("f"));
        Path b = root.resolve("b");
        Files.move(a, b);
        rec.await(Kind.MOVED, b);
        rec.clear();
        Files.writeString(b.resolve("f"), "3", StandardOpenOption.APPEND);
        FileEvent e = rec.await(Kind.MODIFY, b.resolve("f"));
        assertEquals(b, e.dir());
        assertFalse(rec.events().stream().anyMatch(x -> a.resolve("f").equals(x.path())), rec.events().toString());
    }

    /** Many names written again and again, polled into one reused list: each write is reported under its name. */
    @Test
    void shouldReportEachOfManyNamesWrittenAgainUnderItsOwnName() throws IOException {
        int n = 200;
        List<Path> files = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) files.add(Files.writeString(tmp.resolve("file-" + i + ".log"), "0"));
        start().watch(tmp);
        List<FileEvent> into = new java.util.ArrayList<>();
        for (int round = 1; round <= 3; round++) {
            for (Path f : files) Files.writeString(f, "x", StandardOpenOption.APPEND);
            java.util.Set<Path> seen = new java.util.HashSet<>();
            long deadline = System.nanoTime() + Recorder.PATIENCE.toNanos();
            while (seen.size() < n && System.nanoTime() < deadline) {
                into.clear();
                int got = watcher.poll(Duration.ofMillis(200), into);
                assertEquals(got, into.size());
                for (FileEvent e : into) {
                    if (e.kind() == Kind.MODIFY) seen.add(e.path());
                }
            }
            assertEquals(new java.util.HashSet<>(files), seen, "round " + round);
        }
    }

    /**
     * Fills the kernel's queue ({@code fs.inotify.max_queued_events}) while nobody reads: the next poll reports
     * OVERFLOW, and a directory created among the lost events is watched afterwards.
     */
    @Test
    void shouldReportOverflowAndRewatchTheTree() throws IOException {
        long max = FileWatchers.maxQueuedEvents();
        assumeTrue(max > 0 && max <= 100_000, "max_queued_events too large to fill in a test: " + max);
        Path root = Files.createDirectory(tmp.resolve("root"));
        start().watchTree(root);
        // Each new file queues IN_CREATE and IN_CLOSE_WRITE, each with its own name: the kernel merges only equal
        // events, so these all count.
        for (long i = 0; i <= max / 2 + 100; i++) Files.createFile(root.resolve("f" + i));
        Path late = Files.createDirectory(root.resolve("late")); // its IN_CREATE is lost: the queue is full
        FileEvent over = rec.await("OVERFLOW", e -> e.kind() == Kind.OVERFLOW);
        assertEquals(null, over.path());
        rec.clear();
        Path h = Files.writeString(late.resolve("h"), "x");
        rec.await(Kind.CREATE, h);
    }

    /** Idle, the polling thread sleeps in epoll_wait: it costs no CPU however many files are watched. */
    @Test
    void shouldSleepInEpollWaitWhenIdle() throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("many"));
        for (int i = 0; i < 1000; i++) Files.writeString(dir.resolve("f" + i), "x");
        start().watchTree(dir);
        AtomicReference<Throwable> failed = new AtomicReference<>();
        CountDownLatch started = new CountDownLatch(1);
        Thread t = new Thread(() -> {
            started.countDown();
            try {
                watcher.poll(Duration.ofMinutes(5));
            } catch (Throwable e) {
                failed.set(e);
            }
        }, "jfio-idle-poller");
        t.start();
        started.await();
        // __NR_epoll_wait 232 or __NR_epoll_pwait 281 on x86_64 (as the C library likes); aarch64 has epoll_pwait 22
        List<String> epollWait = io.jfio.core.sys.Platform.arch() == io.jfio.core.sys.Platform.Arch.X86_64
                ? List.of("232", "281") : List.of("22");
        String syscall = "";
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            syscall = Threads.syscallOf("jfio-idle-poll");
            if (epollWait.contains(syscall.split(" ")[0])) break;
            Thread.sleep(20);
        }
        assertTrue(epollWait.contains(syscall.split(" ")[0]), "the poller is not blocked in epoll_wait: " + syscall);
        long cpu1 = Threads.cpuNanos("jfio-idle-poll");
        Thread.sleep(500);
        long cpu2 = Threads.cpuNanos("jfio-idle-poll");
        assertEquals(cpu1, cpu2, "the idle poller used CPU");
        watcher.wakeup();
        t.join(30_000);
        assertEquals(null, failed.get());
    }
}
