package io.jfio.core.watch;

import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import io.jfio.core.sys.FileNames;
import io.jfio.core.sys.PathBytes;
import io.jfio.core.sys.Statx;
import io.jfio.core.watch.FileEvent.Kind;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The polling half of change detection: remembers {@code (dev, ino, size, mtime, ctime)} of every entry of the
 * watched directories (every directory below a tree root too) and of every watched file, and turns the difference
 * between two scans into the events inotify would have given, where they can be inferred: CREATE, DELETE, MODIFY,
 * ATTRIB, MOVED (the same inode gone under one name and present under another), DELETE_SELF and UNWATCHED.
 * CLOSE_WRITE cannot be seen; a rename out of or into the watched set is a DELETE or a CREATE.
 *
 * <p>Not thread-safe; its owner ({@link PollingWatcher}, or {@link InotifyWatcher} for the paths it polls) calls it
 * under its lock. Entries are examined with statx(AT_SYMLINK_NOFOLLOW), roots with statx following links (as
 * inotify_add_watch does).
 */
final class Snapshots {
    /** What a scan remembers of one entry. */
    record Entry(long dev, long ino, long size, long mtime, long ctime, boolean dir) {
        boolean sameFile(Entry o) {
            return dev == o.dev && ino == o.ino && dir == o.dir;
        }
    }

    private static final class Root {
        final Path path;
        final boolean tree;
        Entry self;

        Root(Path path, boolean tree, Entry self) {
            this.path = path;
            this.tree = tree;
            this.self = self;
        }

        boolean covers(Path dir) {
            return dir.equals(path) || (tree && dir.startsWith(path));
        }
    }

    /** An entry that changed; {@code name} is the entry's file name as a path, which keeps its bytes exactly. */
    private record Change(Path dir, Path name, Entry entry) {
        Path path() {
            return dir.resolve(name);
        }
    }

    private final Map<Path, Root> roots = new LinkedHashMap<>();
    /** Entries of every directory scanned, by directory. */
    private Map<Path, TreeMap<Path, Entry>> dirs = new HashMap<>();
    private final MemorySegment statBuf = Arena.ofAuto().allocate(Statx.LAYOUT);
    private final MemorySegment pathBuf = Arena.ofAuto().allocate(Fcntl.PATH_MAX + 1);

    /** True when nothing is watched. */
    boolean isEmpty() {
        return roots.isEmpty();
    }

    boolean contains(Path path) {
        return roots.containsKey(path);
    }

    /** The roots, in the order they were added. */
    List<Path> roots() {
        return new ArrayList<>(roots.keySet());
    }

    /**
     * Adds a root and takes its baseline (no events for what is there now).
     *
     * @throws NoSuchFileException   when it does not exist
     * @throws NotDirectoryException when {@code tree} and it is not a directory
     */
    void add(Path path, boolean tree) throws IOException {
        Entry self = stat(path, true);
        if (self == null) throw new NoSuchFileException(path.toString());
        if (tree && !self.dir) throw new NotDirectoryException(path.toString());
        Root old = roots.get(path);
        if (old != null && (old.tree || !tree)) return;
        roots.put(path, new Root(path, tree, self));
        if (self.dir) list(path, tree, dirs);
    }

    /** Removes a root; returns false when it was not one. */
    boolean remove(Path path) {
        Root r = roots.remove(path);
        if (r == null) return false;
        dirs.keySet().removeIf(d -> r.covers(d) && roots.values().stream().noneMatch(o -> o.covers(d)));
        return true;
    }

    /** Compares the file system with the last scan, appends the differences to {@code out}, and remembers it. */
    void scan(List<FileEvent> out) {
        Map<Path, TreeMap<Path, Entry>> now = new HashMap<>();
        List<FileEvent> selfEvents = new ArrayList<>();
        for (Iterator<Root> it = roots.values().iterator(); it.hasNext(); ) {
            Root r = it.next();
            Entry st = stat(r.path, true);
            if (st == null || !st.sameFile(r.self)) {
                // The watched object is gone (or another one now has its name, which is not what was watched).
                selfEvents.add(FileEvent.of(Kind.DELETE_SELF, r.path, "", r.self.dir));
                selfEvents.add(FileEvent.of(Kind.UNWATCHED, r.path, "", r.self.dir));
                it.remove();
                continue;
            }
            Kind k = changeKind(r.self, st);
            if (k != null) selfEvents.add(FileEvent.of(k, r.path, "", st.dir));
            r.self = st;
            if (st.dir) list(r.path, r.tree, now);
        }
        Map<Path, TreeMap<Path, Entry>> old = new HashMap<>();
        for (Map.Entry<Path, TreeMap<Path, Entry>> e : dirs.entrySet()) {
            if (covered(e.getKey())) old.put(e.getKey(), e.getValue());
        }
        rekeyMovedDirectories(old, now);
        diff(old, now, out);
        out.addAll(selfEvents);
        dirs = now;
    }

    private boolean covered(Path dir) {
        for (Root r : roots.values()) {
            if (r.covers(dir)) return true;
        }
        return false;
    }

    /**
     * The event for a changed entry that is still the same file: MODIFY when a file's size or mtime changed, ATTRIB
     * when only its ctime did. A directory's mtime and ctime change with its entries, which are reported on their
     * own, so a directory gets ATTRIB only when its ctime moved and its mtime did not (chmod, chown, touch -a).
     */
    private static Kind changeKind(Entry before, Entry after) {
        if (!after.dir && (before.size != after.size || before.mtime != after.mtime)) return Kind.MODIFY;
        if (before.ctime != after.ctime && before.mtime == after.mtime) return Kind.ATTRIB;
        return null;
    }

    /**
     * A directory renamed within the watched set reappears with all its entries under a new path. Its old snapshot
     * (and those of its subdirectories) is moved to the new path first, so the rename is one MOVED, not a DELETE and
     * a CREATE for everything below it.
     */
    private static void rekeyMovedDirectories(Map<Path, TreeMap<Path, Entry>> old,
            Map<Path, TreeMap<Path, Entry>> now) {
        List<Change> removed = new ArrayList<>();
        List<Change> added = new ArrayList<>();
        changes(old, now, removed, added, null, true);
        List<Path[]> moves = new ArrayList<>();
        for (Change r : removed) {
            for (Iterator<Change> it = added.iterator(); it.hasNext(); ) {
                Change a = it.next();
                if (a.entry.sameFile(r.entry)) {
                    moves.add(new Path[] {r.path(), a.path()});
                    it.remove();
                    break;
                }
            }
        }
        moves.sort(Comparator.comparingInt(m -> m[0].getNameCount()));
        for (int i = 0; i < moves.size(); i++) {
            Path from = moves.get(i)[0];
            Path to = moves.get(i)[1];
            Map<Path, TreeMap<Path, Entry>> moved = new HashMap<>();
            for (Iterator<Map.Entry<Path, TreeMap<Path, Entry>>> it = old.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<Path, TreeMap<Path, Entry>> e = it.next();
                if (e.getKey().startsWith(from)) {
                    moved.put(to.resolve(from.relativize(e.getKey())), e.getValue());
                    it.remove();
                }
            }
            old.putAll(moved);
            for (int j = i + 1; j < moves.size(); j++) {
                Path later = moves.get(j)[0];
                if (later.startsWith(from)) moves.get(j)[0] = to.resolve(from.relativize(later));
            }
        }
    }

    /**
     * Entries gone from ({@code removed}) and new in ({@code added}) each directory, a changed inode under the same
     * name counting as both; with {@code modified} non-null, the events of entries that stayed but changed.
     */
    private static void changes(Map<Path, TreeMap<Path, Entry>> old, Map<Path, TreeMap<Path, Entry>> now,
            List<Change> removed, List<Change> added, List<FileEvent> modified, boolean dirsOnly) {
        TreeSet<Path> all = new TreeSet<>(old.keySet());
        all.addAll(now.keySet());
        TreeMap<Path, Entry> none = new TreeMap<>();
        for (Path dir : all) {
            TreeMap<Path, Entry> o = old.getOrDefault(dir, none);
            TreeMap<Path, Entry> n = now.getOrDefault(dir, none);
            for (Map.Entry<Path, Entry> e : o.entrySet()) {
                if (dirsOnly && !e.getValue().dir) continue;
                Entry ne = n.get(e.getKey());
                if (ne == null || !ne.sameFile(e.getValue())) removed.add(new Change(dir, e.getKey(), e.getValue()));
            }
            for (Map.Entry<Path, Entry> e : n.entrySet()) {
                if (dirsOnly && !e.getValue().dir) continue;
                Entry oe = o.get(e.getKey());
                if (oe == null || !oe.sameFile(e.getValue())) {
                    added.add(new Change(dir, e.getKey(), e.getValue()));
                } else if (modified != null) {
                    Kind k = changeKind(oe, e.getValue());
                    if (k != null) modified.add(FileEvent.of(k, dir, FileNames.of(e.getKey()), e.getValue().dir));
                }
            }
        }
    }

    private static void diff(Map<Path, TreeMap<Path, Entry>> old, Map<Path, TreeMap<Path, Entry>> now,
            List<FileEvent> out) {
        List<Change> removed = new ArrayList<>();
        List<Change> added = new ArrayList<>();
        List<FileEvent> modified = new ArrayList<>();
        changes(old, now, removed, added, modified, false);
        Map<Long, List<Change>> addedByIno = new HashMap<>();
        for (Change a : added) addedByIno.computeIfAbsent(a.entry.ino, k -> new ArrayList<>(1)).add(a);
        List<FileEvent> deletes = new ArrayList<>();
        for (Change r : removed) {
            Change pair = null;
            List<Change> candidates = addedByIno.get(r.entry.ino);
            if (candidates != null) {
                for (Iterator<Change> it = candidates.iterator(); it.hasNext(); ) {
                    Change a = it.next();
                    if (a.entry.sameFile(r.entry)) {
                        pair = a;
                        it.remove();
                        break;
                    }
                }
            }
            if (pair != null) {
                out.add(new FileEvent(Kind.MOVED, pair.dir, FileNames.of(pair.name), pair.entry.dir, r.path()));
                added.remove(pair);
            } else {
                deletes.add(FileEvent.of(Kind.DELETE, r.dir, FileNames.of(r.name), r.entry.dir));
            }
        }
        // Deepest first, like rm -r: a directory's entries go before the directory.
        deletes.sort(Comparator.comparingInt((FileEvent e) -> -e.path().getNameCount()));
        out.addAll(deletes);
        for (Change a : added) out.add(FileEvent.of(Kind.CREATE, a.dir, FileNames.of(a.name), a.entry.dir));
        out.addAll(modified);
    }

    /** Lists {@code dir} (and, for a tree, the directories below it) into {@code into}. */
    private void list(Path dir, boolean tree, Map<Path, TreeMap<Path, Entry>> into) {
        ArrayDeque<Path> todo = new ArrayDeque<>();
        todo.add(dir);
        while (!todo.isEmpty()) {
            Path d = todo.poll();
            TreeMap<Path, Entry> entries = new TreeMap<>();
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(d)) {
                for (Path p : ds) {
                    Entry e = stat(p, false);
                    if (e == null) continue; // gone between the listing and the stat
                    // Keyed by the name as a path, not its string: two names that do not decode could share one.
                    entries.put(p.getFileName(), e);
                    if (tree && e.dir) todo.add(p);
                }
            } catch (IOException | java.nio.file.DirectoryIteratorException gone) {
                continue; // removed or unreadable now: its entries count as gone, as the parent's listing says
            }
            into.put(d, entries);
        }
    }

    /** statx of a path; null when it does not exist (or cannot be examined). */
    Entry stat(Path path, boolean follow) {
        // The path's bytes, not its string: a name that is not valid in sun.jnu.encoding would name another file.
        if (PathBytes.put(pathBuf, path) < 0) return null;
        int r = LibC.statx(Fcntl.AT_FDCWD, pathBuf, follow ? 0 : Fcntl.AT_SYMLINK_NOFOLLOW,
                Statx.STATX_BASIC_STATS, statBuf);
        if (r < 0) return null;
        boolean dir = (Statx.mode(statBuf) & Fcntl.S_IFMT) == Fcntl.S_IFDIR;
        return new Entry(Statx.dev(statBuf), Statx.ino(statBuf), Statx.size(statBuf), stamp(Statx.OFF_MTIME),
                stamp(Statx.OFF_CTIME), dir);
    }

    /**
     * A timestamp as a key that changes whenever the time does: seconds and nanoseconds folded into a long, wrapping
     * where nanoseconds since the epoch would not fit (two times 584 years apart share a key; times held at the
     * long's ends would not tell one year after 2262 from the next).
     */
    private long stamp(long off) {
        return Statx.timeSec(statBuf, off) * 1_000_000_000L + Statx.timeNsec(statBuf, off);
    }
}
