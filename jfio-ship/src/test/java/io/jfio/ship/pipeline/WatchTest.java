package io.jfio.ship.pipeline;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.core.testing.Fds;
import io.jfio.core.watch.FileEvent;
import io.jfio.core.watch.FileWatcher;
import io.jfio.core.watch.FileWatchers;
import io.jfio.ship.Shipper;
import io.jfio.ship.config.ShipConfig;
import io.jfio.ship.log.ShipLog;
import io.jfio.ship.metrics.ShipMetrics;
import io.jfio.ship.sink.DirSink;
import io.jfio.ship.testing.Records;
import io.jfio.ship.testing.ShipRun;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipper driven by watcher events: files in directories made after the start are found through inotify (well
 * before the safety rescan), and lost events with an overflow are recovered by the rescan the overflow asks for.
 */
class WatchTest {
    @TempDir
    Path tmp;

    private static String lines(int from, int to) {
        StringBuilder sb = new StringBuilder();
        for (int n = from; n <= to; n++) {
            sb.append("g=1 n=").append(n).append(' ').append("x".repeat(n % 50)).append('\n');
        }
        return sb.toString();
    }

    private static boolean shipped(Path out, String s) {
        return new String(DirSink.readAll(out), StandardCharsets.US_ASCII).contains(s);
    }

    private static void waitFor(Path out, String s, Duration limit, java.util.function.Supplier<String> log)
            throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (System.nanoTime() < deadline) {
            if (shipped(out, s)) return;
            Thread.sleep(10);
        }
        throw new AssertionError("not shipped within " + limit + ": " + s + "\nshipper's log:\n" + log.get());
    }

    /** Where the shipper's log ends now: {@link #waitForLog} looks at the lines that start after it. */
    private static int mark(ShipRun run) {
        return run.log().length();
    }

    /**
     * Waits for a line of the shipper's log that starts at or after {@code from} and holds every one of
     * {@code parts}; returns where that line ends.
     */
    private static int waitForLog(ShipRun run, int from, String... parts) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            String log = run.log();
            int at = from;
            if (at > 0 && at <= log.length() && log.charAt(at - 1) != '\n') {
                at = log.indexOf('\n', at) + 1; // a line written in part before the mark: older than it
                if (at == 0) at = log.length();
            }
            for (int end = log.indexOf('\n', at); end >= 0; at = end + 1, end = log.indexOf('\n', at)) {
                String line = log.substring(at, end);
                boolean all = true;
                for (String p : parts) all &= line.contains(p);
                if (all) return end + 1;
            }
            Thread.sleep(10);
        }
        throw new AssertionError("no log line with " + List.of(parts) + " within 10 s after position " + from
                + "\nshipper's log:\n" + run.log());
    }

    /**
     * Waits for a scan, logged at or after {@code from}, that left no rescan pending: what changes after it can only
     * be found through its event (the safety rescan is a minute away).
     */
    private static int waitForQuietScan(ShipRun run, int from) throws InterruptedException {
        return waitForLog(run, from, "event=scanned", "rescan-pending=false");
    }

    @Test
    void shouldShipFileCreatedLaterInNewSubdirectoriesThroughInotify() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path out = tmp.resolve("out");
        ShipConfig cfg = ShipRun.config(List.of(logs + "/**/*.log"), out, tmp.resolve("state"), Map.of());
        try (ShipRun run = ShipRun.start(cfg)) {
            waitForQuietScan(run, 0); // the watches are in place, the scans of the start are done
            Path deep = Files.createDirectories(logs.resolve("a/b/c"));
            Files.writeString(deep.resolve("x.log"), lines(1, 10));
            // The safety rescan is a minute away: only the watcher's events can find this in time.
            waitFor(out, "n=10 ", Duration.ofSeconds(10), run::log);
            Files.writeString(deep.resolve("x.log"), lines(11, 20), StandardOpenOption.APPEND);
            Path other = Files.createDirectories(logs.resolve("d"));
            Files.writeString(other.resolve("y.txt"), "not matched\n");
            Files.writeString(other.resolve("y.log"), lines(21, 30));
            waitFor(out, "n=20 ", Duration.ofSeconds(10), run::log);
            waitFor(out, "n=30 ", Duration.ofSeconds(10), run::log);
            assertTrue(run.log().contains("change-detection=inotify"), run.log());
        }
        Records.read(out, 30, true).assertComplete().assertNoDuplicates();
        assertFalse(shipped(out, "not matched"));
    }

    @Test
    void shouldSeeWritesAndNewFilesInASymlinkedDirectoryBelowATree() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path elsewhere = Files.createDirectories(tmp.resolve("elsewhere"));
        Files.writeString(elsewhere.resolve("a.log"), lines(1, 10));
        Files.createSymbolicLink(logs.resolve("linked"), elsewhere);
        Path out = tmp.resolve("out");
        ShipConfig cfg = ShipRun.config(List.of(logs + "/**/*.log"), out, tmp.resolve("state"),
                Map.of("follow-symlinks", "true"));
        try (ShipRun run = ShipRun.start(cfg)) {
            waitFor(out, "n=10 ", Duration.ofSeconds(10), run::log);
            // The tree's watches do not follow the symlink: the file's own watch must report this write.
            Files.writeString(elsewhere.resolve("a.log"), lines(11, 20), StandardOpenOption.APPEND);
            waitFor(out, "n=20 ", Duration.ofSeconds(10), run::log);
            // New files under the link, also in a new subdirectory: the link's target is watched as a tree of its
            // own, so they are found at once (the safety rescan is a minute away).
            Files.writeString(elsewhere.resolve("b.log"), lines(21, 30));
            waitFor(out, "n=30 ", Duration.ofSeconds(10), run::log);
            Path sub = Files.createDirectories(elsewhere.resolve("sub/deeper"));
            Files.writeString(sub.resolve("c.log"), lines(31, 40));
            waitFor(out, "n=40 ", Duration.ofSeconds(10), run::log);
            // Re-pointed to another directory: the new target is watched, the old one no longer.
            Path third = Files.createDirectories(tmp.resolve("third"));
            int mark = mark(run);
            Files.delete(logs.resolve("linked"));
            Files.createSymbolicLink(logs.resolve("linked"), third);
            // The rescan the link's change asks for watches the new target, and the rescan after that is done: the
            // file written now can only be found through that watch.
            waitForQuietScan(run, waitForLog(run, mark, "event=watch-link", "dir=" + third.toRealPath()));
            Files.writeString(third.resolve("d.log"), lines(41, 50));
            waitFor(out, "n=50 ", Duration.ofSeconds(10), run::log);
        }
        Records.read(out, 50, true).assertComplete().assertNoDuplicates();
    }

    /**
     * A symlink below a tree points at a directory that is also watched as the ancestor of a missing base: when the
     * link goes away, the link's watch goes but the ancestor's stays, so the base made later is found at once.
     */
    @Test
    void shouldKeepTheAncestorWatchOfAMissingBaseWhenASymlinkToTheAncestorGoesAway() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path waiting = Files.createDirectories(tmp.resolve("waiting"));
        Files.writeString(waiting.resolve("a.log"), lines(1, 10));
        Files.createSymbolicLink(logs.resolve("linked"), waiting);
        Path out = tmp.resolve("out");
        // waiting/later does not exist yet: waiting is watched to hear when it is made.
        ShipConfig cfg = ShipRun.config(List.of(logs + "/**/*.log", waiting + "/later/*.log"), out,
                tmp.resolve("state"), Map.of("follow-symlinks", "true"));
        try (ShipRun run = ShipRun.start(cfg)) {
            waitFor(out, "n=10 ", Duration.ofSeconds(10), run::log); // through the link: its target is watched too
            int mark = mark(run);
            Files.delete(logs.resolve("linked"));
            // The rescan the link's removal asks for drops its target, and no rescan is pending after it: what is
            // made now can only be found through the ancestor's watch.
            waitForQuietScan(run, waitForLog(run, mark, "event=unwatch-link", "dir=" + waiting.toRealPath()));
            Path later = Files.createDirectories(waiting.resolve("later"));
            Files.writeString(later.resolve("x.log"), lines(11, 20));
            // The safety rescan is a minute away: only the ancestor's watch can find this in time.
            waitFor(out, "n=20 ", Duration.ofSeconds(10), run::log);
        }
        Records.read(out, 20, true).assertComplete().assertNoDuplicates();
    }

    /**
     * A base named by a symlink is made after a symlink below another tree led to a directory inside the base's
     * target, which was watched then. The kernel has one watch per directory, which the watcher reports under the
     * path it was first watched by; that directory now lies in the base's tree, so the link's watch of it is dropped.
     * The base must still see a file made there, at once.
     */
    @Test
    void shouldWatchABaseNamedBySymlinkWhoseTreeHoldsADirectoryWatchedThroughALinkBefore() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path data = Files.createDirectories(tmp.resolve("data"));
        Path sub = Files.createDirectories(data.resolve("sub"));
        Files.writeString(sub.resolve("a.log"), lines(1, 10));
        Files.createSymbolicLink(logs.resolve("linked"), sub);
        Path base = tmp.resolve("base"); // missing at the start: its ancestor is watched to hear when it is made
        Path out = tmp.resolve("out");
        ShipConfig cfg = ShipRun.config(List.of(logs + "/**/*.log", base + "/**/*.log"), out, tmp.resolve("state"),
                Map.of("follow-symlinks", "true"));
        try (ShipRun run = ShipRun.start(cfg)) {
            waitFor(out, "n=10 ", Duration.ofSeconds(10), run::log);
            waitForQuietScan(run, waitForLog(run, 0, "event=watch-link", "dir=" + sub.toRealPath()));
            int mark = mark(run);
            Files.createSymbolicLink(base, data);
            waitForQuietScan(run, mark);
            Files.writeString(sub.resolve("b.log"), lines(11, 20));
            waitFor(out, "n=20 ", Duration.ofSeconds(10), run::log);
        }
        Records.read(out, 20, true).assertComplete().assertNoDuplicates();
    }

    /** The inodes this process's inotify instances watch, from {@code /proc/self/fdinfo}. */
    private static Set<Long> watchedInodes() throws IOException {
        Set<Long> out = new HashSet<>();
        Pattern ino = Pattern.compile(" ino:([0-9a-f]+) ");
        for (Map.Entry<Integer, String> fd : Fds.open().entrySet()) {
            if (!fd.getValue().equals("anon_inode:inotify")) continue;
            for (String line : Files.readAllLines(Path.of("/proc/self/fdinfo/" + fd.getKey()))) {
                Matcher m = ino.matcher(line);
                if (line.startsWith("inotify wd:") && m.find()) out.add(Long.parseLong(m.group(1), 16));
            }
        }
        return out;
    }

    private static long inode(Path p) throws IOException {
        return (Long) Files.getAttribute(p, "unix:ino");
    }

    /**
     * A glob that reaches only the files directly in a symlinked directory ({@code logs/*}{@code /*.log}) watches the
     * link's target alone, not the tree below it (a large tree there would cost a watch per directory for nothing),
     * and that watch finds a new file there at once.
     */
    @Test
    void shouldWatchOnlyTheTargetOfASymlinkedDirectoryWhenTheGlobEndsInIt() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path srv = Files.createDirectories(tmp.resolve("srv"));
        Path deeper = Files.createDirectories(srv.resolve("deep/deeper"));
        Files.writeString(srv.resolve("a.log"), lines(1, 10));
        Files.writeString(deeper.resolve("x.log"), "not matched\n");
        Files.createSymbolicLink(logs.resolve("app"), srv);
        Path out = tmp.resolve("out");
        ShipConfig cfg = ShipRun.config(List.of(logs + "/*/*.log"), out, tmp.resolve("state"),
                Map.of("follow-symlinks", "true"));
        try (ShipRun run = ShipRun.start(cfg)) {
            waitFor(out, "n=10 ", Duration.ofSeconds(10), run::log);
            waitForQuietScan(run, waitForLog(run, 0, "event=watch-link", "dir=" + srv.toRealPath(), "tree=false"));
            Set<Long> watched = watchedInodes();
            assertTrue(watched.contains(inode(srv)), "the link's target is watched: " + watched);
            assertFalse(watched.contains(inode(srv.resolve("deep"))) || watched.contains(inode(deeper)),
                    "a directory below the link's target, which no glob reaches, is watched: " + watched);
            Files.writeString(srv.resolve("b.log"), lines(11, 20));
            waitFor(out, "n=20 ", Duration.ofSeconds(10), run::log);
        }
        Records.read(out, 20, true).assertComplete().assertNoDuplicates();
        assertFalse(shipped(out, "not matched"));
    }

    /** A real inotify watcher whose events can be thrown away, then an overflow reported, as the kernel does. */
    private static final class LossyWatcher implements FileWatcher {
        private final FileWatcher real = FileWatchers.open();
        volatile boolean dropping;
        private volatile boolean overflow;

        void overflow() {
            overflow = true;
            real.wakeup();
        }

        @Override
        public void watch(Path path) throws IOException {
            real.watch(path);
        }

        @Override
        public void watchTree(Path dir) throws IOException {
            real.watchTree(dir);
        }

        @Override
        public boolean unwatch(Path path) throws IOException {
            return real.unwatch(path);
        }

        @Override
        public List<FileEvent> poll(Duration timeout) throws IOException {
            if (overflow) {
                overflow = false;
                dropping = false;
                return List.of(new FileEvent(FileEvent.Kind.OVERFLOW, null, "", false, null));
            }
            List<FileEvent> events = real.poll(timeout);
            return dropping ? List.of() : events;
        }

        @Override
        public void wakeup() {
            real.wakeup();
        }

        @Override
        public void close() {
            real.close();
        }

        @Override
        public String mechanism() {
            return real.mechanism();
        }

        @Override
        public Map<Path, String> polled() {
            return real.polled();
        }
    }

    @Test
    void shouldRescanAfterOverflowAndFindWhatTheLostEventsWouldHaveSaid() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path out = tmp.resolve("out");
        Files.writeString(logs.resolve("a.log"), lines(1, 5));
        ShipConfig cfg = ShipRun.config(List.of(logs + "/*.log"), out, tmp.resolve("state"), Map.of());
        ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
        ShipLog log = new ShipLog(new PrintStream(logBytes, true, StandardCharsets.UTF_8), true);
        LossyWatcher watcher = new LossyWatcher();
        Pipeline p = new Pipeline("main", cfg.inputs(), cfg, new DirSink(out, cfg.segmentSize(), log),
                Shipper.store(cfg.state(), "main"), log, new ShipMetrics(), Pipeline.Mode.RUN, watcher);
        Thread t = Thread.ofPlatform().start(p::run);
        try {
            waitFor(out, "n=5 ", Duration.ofSeconds(10), () -> logBytes.toString(StandardCharsets.UTF_8));
            // A new file found through its event: the scan that finds it also takes any rescan still pending from the
            // start (the look once more after the watches are added), which would otherwise find the writes below
            // on a slow machine without any event and make the test prove nothing.
            Files.writeString(logs.resolve("c.log"), lines(6, 10));
            waitFor(out, "n=10 ", Duration.ofSeconds(10), () -> logBytes.toString(StandardCharsets.UTF_8));
            watcher.dropping = true;
            Files.writeString(logs.resolve("b.log"), lines(11, 20));
            Files.writeString(logs.resolve("a.log"), lines(21, 30), StandardOpenOption.APPEND);
            Thread.sleep(500);
            assertFalse(shipped(out, "n=20 ") || shipped(out, "n=30 "),
                    "shipped although its events were dropped: the test would prove nothing");
            watcher.overflow();
            waitFor(out, "n=20 ", Duration.ofSeconds(10), () -> logBytes.toString(StandardCharsets.UTF_8));
            waitFor(out, "n=30 ", Duration.ofSeconds(10), () -> logBytes.toString(StandardCharsets.UTF_8));
        } finally {
            p.stop();
            t.join(30_000);
        }
        String logText = logBytes.toString(StandardCharsets.UTF_8);
        assertTrue(logText.contains("event=watch-overflow"), logText);
        Records.read(out, 30, false).assertComplete().assertNoDuplicates();
    }
}
