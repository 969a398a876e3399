package io.jfio.core.watch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.core.watch.FileEvent.Kind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The polling watcher: the same contract as inotify, at a 20 ms interval. */
class PollingWatcherTest extends FileWatcherContract {
    private static final Duration INTERVAL = Duration.ofMillis(20);

    @Override
    FileWatcher create() {
        return FileWatchers.polling(INTERVAL);
    }

    /** Two scans at least, so the next step falls into a scan of its own. */
    @Override
    void settle() throws IOException {
        rec.drain(INTERVAL.multipliedBy(3));
    }

    @Test
    void shouldReportMovesOutAndInAsDeleteAndCreate() throws IOException {
        Path watched = Files.createDirectory(tmp.resolve("watched"));
        Path outside = Files.createDirectory(tmp.resolve("outside"));
        Path a = Files.writeString(watched.resolve("a"), "1");
        Path b = Files.writeString(outside.resolve("b"), "2");
        start().watch(watched);
        Files.move(a, outside.resolve("a"));
        rec.await(Kind.DELETE, a);
        Files.move(b, watched.resolve("b"));
        rec.await(Kind.CREATE, watched.resolve("b"));
    }

    @Test
    void shouldDescribeItself() throws IOException {
        start().watch(tmp);
        assertEquals("polling every 20 ms (polling requested)", watcher.mechanism());
        assertEquals("polling requested", watcher.polled().get(tmp));
        assertThrows(IllegalArgumentException.class, () -> FileWatchers.polling(Duration.ZERO));
    }

    @Test
    void shouldReportARenameOfAFullDirectoryAsOneMove() throws IOException {
        Path root = Files.createDirectory(tmp.resolve("root"));
        Path a = Files.createDirectories(root.resolve("a/b/c"));
        Files.writeString(a.resolve("f"), "1");
        start().watchTree(root);
        Files.move(root.resolve("a"), root.resolve("z"));
        rec.await(Kind.MOVED, root.resolve("z"));
        rec.drain(INTERVAL.multipliedBy(3));
        assertEquals(1, rec.events().size(), rec.events().toString());
        assertFalse(rec.has(Kind.CREATE, root.resolve("z/b/c/f")));
        assertTrue(Files.exists(root.resolve("z/b/c/f")));
    }
}
