package io.jfio.core.watch;

import static org.junit.jupiter.api.Assertions.fail;

import io.jfio.core.watch.FileEvent.Kind;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * Polls a watcher on the test's thread and keeps every event it returned, so a test can wait for the events an
 * action must cause and then look at all of them.
 *
 * <p>Not thread-safe; used by the test thread only.
 */
final class Recorder {
    /** Generous: a loaded 2-CPU machine running the build in parallel can be slow; passing tests never wait it out. */
    static final Duration PATIENCE = Duration.ofSeconds(20);

    private final FileWatcher watcher;
    private final List<FileEvent> events = new ArrayList<>();

    Recorder(FileWatcher watcher) {
        this.watcher = watcher;
    }

    List<FileEvent> events() {
        return events;
    }

    void clear() {
        events.clear();
    }

    /** Polls until an event matching {@code p} has arrived (or fails after {@link #PATIENCE}); returns it. */
    FileEvent await(String what, Predicate<FileEvent> p) throws IOException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (true) {
            for (FileEvent e : events) {
                if (p.test(e)) return e;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) fail("no " + what + " within " + PATIENCE + "; " + summary() + ": " + events);
            events.addAll(watcher.poll(Duration.ofNanos(Math.min(left, Duration.ofMillis(200).toNanos()))));
        }
    }

    FileEvent await(Kind kind, Path path) throws IOException {
        return await(kind + " " + path, e -> e.kind() == kind && path.equals(e.path()));
    }

    /** Polls for {@code time} more, collecting whatever comes. */
    void drain(Duration time) throws IOException {
        long deadline = System.nanoTime() + time.toNanos();
        long left;
        while ((left = deadline - System.nanoTime()) > 0) events.addAll(watcher.poll(Duration.ofNanos(left)));
    }

    /** How many events of each kind, for failure messages. */
    String summary() {
        java.util.Map<Kind, Long> n = new java.util.TreeMap<>();
        for (FileEvent e : events) n.merge(e.kind(), 1L, Long::sum);
        return events.size() + " events " + n;
    }

    boolean has(Kind kind, Path path) {
        return events.stream().anyMatch(e -> e.kind() == kind && path.equals(e.path()));
    }
}
