package io.jfio.ship.pipeline;

import io.jfio.core.sys.FileNames;
import io.jfio.core.watch.FileEvent;
import io.jfio.core.watch.FileWatcher;
import io.jfio.core.watch.WatcherClosedException;
import io.jfio.ship.config.InputConfig;
import io.jfio.ship.log.ShipLog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The pipeline's change detector: a {@link FileWatcher} (inotify, or polling) over the directories the inputs' globs
 * start from, whose events it turns into two things for the pipeline: paths whose data changed (looked up among the
 * tracked files and checked with one fstat each), and a request for a full rescan (something appeared, disappeared
 * or was renamed; a watch was lost; the kernel's queue overflowed). Events for names no glob matches are dropped.
 *
 * <p>The pipeline thread itself waits in {@link #poll} (epoll_wait) when it has nothing to do, instead of parking
 * while a second thread waits for events: a write then wakes one thread, not two in a row, which matters for
 * latency on a busy 2-core machine; {@link #wakeup} ends the wait (acknowledgements, stop).
 *
 * <p>Watches: a literal path's directory, a glob's base directory ({@code watchTree} when the glob reaches deeper
 * than one level, e.g. {@code **}). A base that does not exist yet is waited for: its nearest existing ancestor is
 * watched, and each rescan tries again. The target of a symlinked directory a scan walked into is watched too (a
 * tree's watches do not follow symlinks), as deep as a glob reaches below the link ({@link #linked}). A file whose
 * writes no directory watch reports under its name (a symlink, or a file under a symlinked directory) is also
 * watched itself ({@link #watchFile}).
 *
 * <p>Not thread-safe, except {@link #wakeup}: the pipeline thread calls everything else.
 */
final class ChangeFeed implements AutoCloseable {
    /** A directory to watch and how. */
    private record Root(Path dir, boolean tree) {
    }

    /** A watched link target: the links that lead to it, and whether its subdirectories are watched too. */
    private record Target(List<Path> via, boolean tree) {
    }

    private final FileWatcher watcher;
    private final String sink;
    private final ShipLog log;
    private final List<Glob> globs = new ArrayList<>();
    private final Map<Path, Root> wanted = new LinkedHashMap<>();
    private final Set<Path> established = ConcurrentHashMap.newKeySet();
    /**
     * The real path of each established base, resolved when its watch was added: what the watch follows even if the
     * base's name is re-pointed later, and no {@code toRealPath} per base and link on every scan.
     */
    private final Map<Path, Path> baseReal = new java.util.HashMap<>();
    private final Set<Path> ancestors = ConcurrentHashMap.newKeySet();
    private final Set<Path> files = ConcurrentHashMap.newKeySet();
    /**
     * Symlinked directories below a tree, watched at their targets (a tree's watches do not follow symlinks), by the
     * target's real path. Events there are about the files under the links that lead to it.
     */
    private Map<Path, Target> links = new LinkedHashMap<>();
    private final Set<String> warned = new HashSet<>();
    /**
     * The files written to since the last drain, in the order of their first event, each once (its flag says it is
     * queued): filled and drained on the pipeline thread, which polls. A list of the cache's own entries, so an event
     * adds no entry of its own.
     */
    private final List<Written> modified = new ArrayList<>();
    /**
     * What {@link #poll} concluded for a write event's (directory, name): the path's string when a glob or a watched
     * file ({@link #watchFile}) matches it, {@link #NOT_RELEVANT} otherwise. At 10,000 writes a second, resolving,
     * converting and matching each event's path anew was a third of the pipeline's garbage. Cleared when the watched
     * files change and when it holds {@link #MODIFY_CACHE_MAX} names (a directory of ever new names must not grow it
     * forever). The watched links do not enter into it: writes under a link are reported by the file's own watch
     * under the link's name; the link target's watch reports them too, under the target's path, which no glob or
     * watched file matches, so they are dropped here.
     */
    private final Map<Path, Map<String, Written>> modifyCache = new java.util.HashMap<>();
    private int modifyCacheSize;
    private static final int MODIFY_CACHE_MAX = 65_536;
    /** The cache's answer for a name no input matches: compared by identity. */
    private static final Written NOT_RELEVANT = new Written("");

    /** A written file's path, and whether it is queued for the next drain. */
    private static final class Written {
        final String path;
        boolean queued;

        Written(String path) {
            this.path = path;
        }
    }

    private boolean broken;
    private volatile boolean rescan;
    private volatile boolean polls;

    ChangeFeed(FileWatcher watcher, List<InputConfig> inputs, String sink, ShipLog log) {
        this.watcher = watcher;
        this.sink = sink;
        this.log = log;
        for (InputConfig in : inputs) {
            for (String p : in.paths()) {
                Glob g = Glob.of(p);
                globs.add(g);
                Path dir = g.literal ? g.base.getParent() : g.base;
                if (dir == null) continue;
                boolean tree = !g.literal && g.maxDepth > 1;
                Root old = wanted.get(dir);
                wanted.put(dir, new Root(dir, tree || (old != null && old.tree())));
            }
        }
        this.polls = watcher.mechanism().startsWith("polling");
    }

    /** Adds the watches: call before the first scan, so that nothing made in between is missed. */
    void start() {
        ensureWatches();
    }

    /** False once the watcher failed: the pipeline then sleeps on its own and checks files itself. */
    boolean usable() {
        return !broken;
    }

    /** Makes {@link #poll} sleep in {@code ring} (see {@link FileWatcher#waitIn}); false when the watcher cannot. */
    boolean waitIn(io.jfio.core.engine.EventRing ring) {
        return !broken && watcher.waitIn(ring);
    }

    /** Ends a {@link #poll} in progress (or the next one) at once. Any thread. */
    void wakeup() {
        watcher.wakeup();
    }

    /** How changes are detected, for the log. */
    String mechanism() {
        return watcher.mechanism();
    }

    /** True when some path is polled (no inotify there) or the watcher failed: the pipeline checks busy files. */
    boolean polls() {
        return polls || broken;
    }

    /**
     * Adds the watches still missing (a base directory created since, a watch lost with its directory).
     *
     * @return true when a watch was added: what appeared before it was in place is only found by a rescan
     */
    boolean ensureWatches() {
        boolean added = false;
        for (Root r : wanted.values()) {
            if (established.contains(r.dir())) continue;
            try {
                if (r.tree()) {
                    watcher.watchTree(r.dir());
                } else {
                    watcher.watch(r.dir());
                }
                try {
                    baseReal.put(r.dir(), r.dir().toRealPath());
                } catch (IOException gone) {
                    // removed right after: its watch reports that (UNWATCHED), and it covers nothing now
                }
                established.add(r.dir());
                added = true;
            } catch (NoSuchFileException | NotDirectoryException e) {
                waitForAncestor(r.dir());
            } catch (WatcherClosedException e) {
                return false;
            } catch (IOException e) {
                if (warned.add("watch:" + r.dir())) {
                    log.warn("cannot-watch", "sink", sink, "dir", r.dir(), "error", e.toString(),
                            "action", "found by the periodic rescan instead");
                }
            }
        }
        Map<Path, String> p = watcher.polled();
        polls = watcher.mechanism().startsWith("polling") || !p.isEmpty();
        for (Map.Entry<Path, String> e : p.entrySet()) {
            if (warned.add("polled:" + e.getKey())) {
                log.warn("polled-not-watched", "sink", sink, "path", e.getKey(), "why", e.getValue());
            }
        }
        return added;
    }

    /** Watches the nearest existing ancestor of a missing directory, to hear when the path below it is made. */
    private void waitForAncestor(Path dir) {
        for (Path a = dir.getParent(); a != null; a = a.getParent()) {
            if (!Files.isDirectory(a)) continue;
            if (ancestors.add(a)) {
                try {
                    watcher.watch(a);
                } catch (IOException e) {
                    ancestors.remove(a);
                }
            }
            return;
        }
    }

    /**
     * Whether the watches report writes to {@code file} under this name: it is no symlink, and its directory is a
     * watched directory, or lies in a watched tree without a symlinked directory in between (a tree's watches do
     * not follow symlinks). One lstat per path component below the root; called once per new file.
     */
    boolean covers(Path file) {
        Path parent = file.getParent();
        if (parent == null || Files.isSymbolicLink(file)) return false;
        for (Root r : wanted.values()) {
            if (parent.equals(r.dir())) return true;
            if (!r.tree() || !parent.startsWith(r.dir())) continue;
            boolean linked = false;
            for (Path d = parent; !d.equals(r.dir()); d = d.getParent()) {
                if (Files.isSymbolicLink(d)) {
                    linked = true;
                    break;
                }
            }
            if (!linked) return true;
        }
        return false;
    }

    /**
     * Watches the targets of the symlinked directories a scan walked into ({@link Discovery#linkedDirs}), so that a
     * file created under one is found at once rather than by the safety rescan, and stops watching targets no
     * longer linked. A target is watched as deep as a glob reaches below its link: alone when the globs end in its
     * entries ({@code logs/*}{@code /*.log}), as a tree otherwise. A target that a base's watches serve
     * ({@link #servedByBase}) is left to them.
     *
     * <p>The kernel has one watch per directory, and the watcher reports it under the path it was first watched by.
     * A base whose watches were added after a link target's and serve it therefore shares that watch, and its events
     * there come under the target's path. When such a target is dropped, its watch goes and the base is watched
     * again, under its own names (a missing base's ancestor keeps the shared watch instead: it was watched by this
     * same path).
     *
     * @return true when a watch was added: what appeared before it was in place is only found by a rescan
     */
    boolean linked(Map<Path, Discovery.LinkedDir> linkedDirs) {
        Map<Path, Target> now = new LinkedHashMap<>();
        for (Map.Entry<Path, Discovery.LinkedDir> e : linkedDirs.entrySet()) {
            Path real = e.getValue().real();
            if (!servedByBase(real).isEmpty()) continue;
            Target t = now.get(real);
            List<Path> via = t == null ? new ArrayList<>(1) : t.via();
            via.add(e.getKey());
            now.put(real, new Target(via, e.getValue().tree() || (t != null && t.tree())));
        }
        boolean added = false;
        boolean rewatch = false;
        for (Path real : links.keySet()) {
            Target t = now.get(real);
            if (t != null && t.tree() == links.get(real).tree()) continue;
            if (t != null) {
                // Still linked, but the globs now reach deeper than before, or less deep: watched again below.
                unwatch(real);
                continue;
            }
            if (ancestors.contains(real)) {
                log.debug("unwatch-link", "sink", sink, "dir", real, "watch", "kept: a missing base's ancestor");
                continue;
            }
            unwatch(real);
            List<Path> bases = servedByBase(real);
            for (Path b : bases) {
                unwatch(b);
                established.remove(b);
                baseReal.remove(b);
            }
            rewatch |= !bases.isEmpty();
            log.debug("unwatch-link", "sink", sink, "dir", real, "watched-again", bases);
        }
        if (rewatch) added = ensureWatches();
        Map<Path, Target> kept = new LinkedHashMap<>();
        for (Map.Entry<Path, Target> e : now.entrySet()) {
            Path real = e.getKey();
            Target t = e.getValue();
            Target before = links.get(real);
            if (before == null || before.tree() != t.tree()) {
                try {
                    // Only as deep as a glob reaches: a link to a large tree that a glob enters one level does not
                    // cost a watch per directory in it.
                    if (t.tree()) {
                        watcher.watchTree(real);
                    } else {
                        watcher.watch(real);
                    }
                    added = true;
                    log.debug("watch-link", "sink", sink, "dir", real, "via", t.via().get(0), "tree", t.tree());
                } catch (WatcherClosedException e2) {
                    return added;
                } catch (IOException e2) {
                    if (warned.add("link:" + real)) {
                        log.warn("cannot-watch", "sink", sink, "dir", real, "via", t.via().get(0), "error",
                                e2.toString(), "action", "found by the periodic rescan instead");
                    }
                    continue;
                }
            }
            kept.put(real, t);
        }
        links = kept;
        return added;
    }

    private void unwatch(Path path) {
        try {
            watcher.unwatch(path);
        } catch (IOException e) {
            // Closed or gone: nothing is reported for it any more either way.
        }
    }

    /**
     * The established bases whose watches serve the directory {@code real} (a real path): a base that is this
     * directory, or a tree base that holds it. Decides both whether a link target needs a watch of its own and
     * whether dropping a link target's watch takes a base's with it.
     */
    private List<Path> servedByBase(Path real) {
        List<Path> out = List.of();
        for (Map.Entry<Path, Path> e : baseReal.entrySet()) {
            Root r = wanted.get(e.getKey());
            if (real.equals(e.getValue()) || (r != null && r.tree() && real.startsWith(e.getValue()))) {
                if (out.isEmpty()) out = new ArrayList<>(1);
                out.add(e.getKey());
            }
        }
        return out;
    }

    /** The names under the links of an event's path in a watched link target; empty when it is in none. */
    private List<Path> viaLinks(Path path) {
        if (links.isEmpty() || path == null) return List.of();
        List<Path> out = new ArrayList<>(1);
        for (Map.Entry<Path, Target> e : links.entrySet()) {
            if (!path.startsWith(e.getKey())) continue;
            Path rel = e.getKey().relativize(path);
            for (Path link : e.getValue().via()) out.add(link.resolve(rel));
        }
        return out;
    }

    /**
     * Whether a name event is about a symlink to a directory: one the last scan walked into (removed, renamed,
     * re-pointed), or a new one (inotify does not flag a symlink as a directory, so a new name that is a symlink is
     * looked at: one lstat and one stat, for created or moved-in names that no glob matches).
     */
    private boolean linkChanged(FileEvent e) {
        for (Target t : links.values()) {
            if (t.via().contains(e.path()) || (e.from() != null && t.via().contains(e.from()))) return true;
        }
        if (e.kind() != FileEvent.Kind.CREATE && e.kind() != FileEvent.Kind.MOVED
                && e.kind() != FileEvent.Kind.MOVED_TO) {
            return false;
        }
        Path p = e.path();
        return p != null && Files.isSymbolicLink(p) && Files.isDirectory(p);
    }

    /** Whether an event's path, or its name under a symlinked directory, is one the inputs match. */
    private boolean relevantAnyName(Path p) {
        if (relevant(p)) return true;
        for (Path q : viaLinks(p)) {
            if (relevant(q)) return true;
        }
        return false;
    }

    /** Watches one file whose writes no directory watch reports (see {@link #covers}). */
    void watchFile(Path file) {
        if (!files.add(file)) return;
        clearModifyCache();
        try {
            watcher.watch(file);
        } catch (IOException e) {
            files.remove(file);
        }
    }

    /** Stops watching a file given to {@link #watchFile}. */
    void unwatchFile(Path file) {
        if (!files.remove(file)) return;
        clearModifyCache();
        unwatch(file);
    }

    /** Whether a rescan was asked for since the last call; clears the request. */
    boolean takeRescan() {
        if (!rescan) return false;
        rescan = false;
        return true;
    }

    /** Hands each path whose data changed to {@code action} once, and forgets it. */
    void drainModified(java.util.function.Consumer<String> action) {
        if (modified.isEmpty()) return;
        for (int i = 0; i < modified.size(); i++) {
            Written w = modified.get(i);
            w.queued = false;
            action.accept(w.path);
        }
        modified.clear();
    }

    private void clearModifyCache() {
        modifyCache.clear();
        modifyCacheSize = 0;
    }

    /** The write event's file when it matters, else null; cached (see modifyCache). */
    private Written modifiedPath(FileEvent e) {
        Map<String, Written> byName = modifyCache.get(e.dir());
        Written w = byName != null ? byName.get(e.name()) : null;
        if (w == null) {
            Path path = e.path();
            w = relevant(path) ? new Written(FileNames.of(path)) : NOT_RELEVANT;
            if (modifyCacheSize >= MODIFY_CACHE_MAX) clearModifyCache();
            modifyCache.computeIfAbsent(e.dir(), k -> new java.util.HashMap<>()).put(e.name(), w);
            modifyCacheSize++;
        }
        return w == NOT_RELEVANT ? null : w;
    }

    private boolean relevant(Path p) {
        if (p == null) return false;
        if (files.contains(p)) return true;
        for (Glob g : globs) {
            if (g.matches(p)) return true;
        }
        return false;
    }

    /**
     * Waits up to {@code nanos} (0: not at all) for events, or until {@link #wakeup}, and sorts what came.
     *
     * @return true when something for the pipeline came
     */
    boolean poll(long nanos) {
        if (broken) return false;
        List<FileEvent> events = this.events;
        events.clear();
        try {
            watcher.poll(nanos <= 0 ? Duration.ZERO : Duration.ofNanos(nanos), events);
        } catch (WatcherClosedException e) {
            broken = true;
            return false;
        } catch (IOException | RuntimeException e) {
            broken = true;
            log.error("watcher-failed", "sink", sink, "error", e.toString(),
                    "action", "busy files checked every few ms, a rescan every 60 s");
            return false;
        }
        boolean any = false;
        for (int i = 0; i < events.size(); i++) {
            FileEvent e = events.get(i);
            switch (e.kind()) {
                case MODIFY, CLOSE_WRITE, ATTRIB -> {
                    Written w = e.directory() || e.dir() == null ? null : modifiedPath(e);
                    if (w != null) {
                        if (!w.queued) {
                            w.queued = true;
                            modified.add(w);
                        }
                        any = true;
                    }
                }
                case OVERFLOW -> {
                    log.warn("watch-overflow", "sink", sink, "why", "the kernel's event queue overflowed",
                            "action", "full rescan");
                    rescan = true;
                    any = true;
                }
                case UNWATCHED -> {
                    established.remove(e.dir());
                    baseReal.remove(e.dir());
                    links.remove(e.dir());
                    rescan = true;
                    any = true;
                }
                default -> {
                    // CREATE, DELETE, MOVED*, *_SELF: names changed. A directory may hold (or come to hold)
                    // matching files; a file matters when its old or new name matches.
                    if (e.directory() || relevantAnyName(e.path()) || relevantAnyName(e.from())
                            || ancestors.contains(e.dir()) || linkChanged(e)) {
                        rescan = true;
                        any = true;
                    }
                }
            }
        }
        events.clear(); // no reference kept to what was handled
        return any;
    }

    /** The list each {@link #poll} fills: one for the feed's life, not one per wake-up. */
    private final List<FileEvent> events = new ArrayList<>();

    /** Closes the watcher. */
    @Override
    public void close() {
        try {
            watcher.close();
        } catch (RuntimeException e) {
            log.warn("watcher-close-failed", "sink", sink, "error", e.toString());
        }
    }
}
