package io.jfio.core.watch;

import io.jfio.core.watch.FileEvent.Kind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;

/**
 * Runs in a child JVM inside a user namespace whose inotify limits the parent lowered ({@link WatchLimitTest}), so
 * the limits are reached for real without touching the machine's own. Prints one line per finding.
 */
public final class LimitChild {
    private LimitChild() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[1]);
        switch (args[0]) {
            case "watches" -> watches(dir);
            case "instances" -> instances(dir);
            default -> throw new IllegalArgumentException(args[0]);
        }
    }

    /** user.max_inotify_watches is 3 here. */
    private static void watches(Path dir) throws Exception {
        Path tree = Files.createDirectories(dir.resolve("tree"));
        for (int i = 0; i < 5; i++) Files.createDirectories(tree.resolve("d" + i));
        System.out.println("MAX " + FileWatchers.maxUserWatches());
        try (InotifyWatcher strict = new InotifyWatcher()) {
            try {
                strict.watchTree(tree);
                System.out.println("NO-LIMIT");
            } catch (InotifyLimitException e) {
                System.out.println("LIMIT " + e.getMessage());
                System.out.println("COUNT " + strict.watchCount());
            }
        }
        try (FileWatcher w = FileWatchers.open(Duration.ofMillis(30))) {
            w.watchTree(tree);
            System.out.println("POLLED " + w.polled().keySet());
            Path f = Files.writeString(tree.resolve("d3/f"), "x");
            await(w, Kind.CREATE, f);
            Files.writeString(f, "more", StandardOpenOption.APPEND);
            await(w, Kind.MODIFY, f);
        }
        // A tree that fits, then grows beyond the limit: it moves to polling whole, and keeps reporting.
        Path small = Files.createDirectories(dir.resolve("small/a"));
        try (FileWatcher w = FileWatchers.open(Duration.ofMillis(30))) {
            w.watchTree(dir.resolve("small"));
            System.out.println("SMALL-POLLED " + w.polled().keySet());
            Files.createDirectories(small.resolve("b"));
            Files.createDirectories(small.resolve("c"));
            Files.createDirectories(small.resolve("e"));
            await(w, Kind.CREATE, small.resolve("e"));
            long deadline = System.nanoTime() + 20_000_000_000L;
            while (w.polled().isEmpty() && System.nanoTime() < deadline) w.poll(Duration.ofMillis(50));
            System.out.println("GROWN-POLLED " + w.polled().keySet());
            Path g = Files.writeString(small.resolve("c/g"), "x");
            await(w, Kind.CREATE, g);
        }
    }

    /** user.max_inotify_instances is 0 here: no inotify at all. */
    private static void instances(Path dir) throws Exception {
        try {
            new InotifyWatcher().close();
            System.out.println("NO-LIMIT");
        } catch (InotifyLimitException e) {
            System.out.println("LIMIT " + e.getMessage());
        }
        try (FileWatcher w = FileWatchers.open(Duration.ofMillis(30))) {
            System.out.println("MECHANISM " + w.mechanism());
            w.watch(dir);
            Path f = Files.writeString(dir.resolve("f"), "x");
            await(w, Kind.CREATE, f);
        }
    }

    private static void await(FileWatcher w, Kind kind, Path path) throws Exception {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (System.nanoTime() < deadline) {
            List<FileEvent> events = w.poll(Duration.ofMillis(100));
            for (FileEvent e : events) {
                if (e.kind() == kind && e.path().equals(path)) {
                    System.out.println("EVENT " + kind + " " + path);
                    return;
                }
            }
        }
        System.out.println("MISSING " + kind + " " + path);
    }
}
