package io.jfio.core.watch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.core.engine.EventRing;
import io.jfio.core.watch.FileEvent.Kind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The inotify watcher sleeping in an {@link EventRing} of the polling thread: the same contract as with its own epoll
 * wait (polls from other threads, which the contract makes too, fall back to epoll).
 */
class InotifyRingWatcherTest extends FileWatcherContract {
    private EventRing ring;

    /** One ring for the test, open before it starts (the descriptor check counts from there). */
    @BeforeEach
    void openRing() throws IOException {
        ring = EventRing.open();
    }

    @Override
    FileWatcher create() throws IOException {
        InotifyWatcher w = new InotifyWatcher();
        assertTrue(w.waitIn(ring));
        return w;
    }

    /** Runs before the contract's own close: the watcher first, then the ring it sleeps in. */
    @AfterEach
    void closeRing() {
        if (watcher != null) watcher.close();
        if (ring != null) ring.close();
    }

    @Test
    void shouldTakeEventsWhoseReadinessCameWhileTheRingWaitedForSomethingElse() throws IOException {
        Path dir = Files.createDirectory(tmp.resolve("d"));
        start().watch(dir);
        Path f = dir.resolve("a.log");
        Files.writeString(f, "x");
        rec.await(Kind.CREATE, f);
        assertEquals(List.of(), watcher.poll(Duration.ZERO)); // arms the ring's polls
        Files.writeString(f, "more", StandardOpenOption.APPEND);
        // Another user of the ring (a sink waiting for its send) takes the inotify poll's completion.
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (ring.awaitAny(Duration.ofMillis(100).toNanos()) == 0 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        List<FileEvent> got = new ArrayList<>(watcher.poll(Duration.ZERO));
        assertTrue(got.stream().anyMatch(e -> e.kind() == Kind.MODIFY && e.path().equals(f)), got.toString());
    }

    @Test
    void shouldReportEveryEventInOrderWhenMoreAreQueuedThanTheRingsReadTakes() throws IOException {
        Path dir = Files.createDirectory(tmp.resolve("many"));
        start().watch(dir);
        assertEquals(List.of(), watcher.poll(Duration.ZERO)); // arms the ring's read of the inotify descriptor
        // About 100 KiB of events (32 bytes each), queued before the thread looks: more than one read's buffer.
        int n = 3_000;
        List<Path> made = new ArrayList<>();
        for (int i = 0; i < n; i++) made.add(Files.createFile(dir.resolve(String.format("file-%05d.log", i))));
        List<Path> created = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (created.size() < n && System.nanoTime() < deadline) {
            for (FileEvent e : watcher.poll(Duration.ofMillis(200))) {
                if (e.kind() == Kind.CREATE) created.add(e.path());
            }
        }
        assertEquals(made, created, "every file's CREATE once, in the order they were made");
    }
}
