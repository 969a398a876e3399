package io.jfio.ship.pipeline;

import io.jfio.core.file.StatBuffer;
import io.jfio.core.sys.Errno;
import io.jfio.core.sys.FileNames;
import io.jfio.ship.config.InputConfig;
import io.jfio.ship.log.ShipLog;
import io.jfio.ship.state.Checkpoint;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Finds the files an input's globs name: walks each glob's base directory (one statx per entry), matches whole
 * paths, applies the excludes. Symlinks below the base are skipped unless the input follows them; then a link is
 * followed only when root, the shipper's user or the owner of its target owns it (a user's link to a file that user
 * cannot read is not shipped), and symlink loops are cut by remembering directories by identity. An input with
 * owners ships only their files. Files that match but are not regular files (a FIFO, a directory, a device) are
 * reported too, so that the pipeline can say why it skips them; it never opens them. The shipper's own directories
 * (its state directory, its directory sinks') are never walked into, by identity, whatever path leads there: what the
 * shipper writes is not shipped again.
 *
 * <p>Not thread-safe; owned by the pipeline thread.
 */
final class Discovery {
    /**
     * A symlinked directory a scan walked into: its target's real path, and whether a glob reaches below the
     * target's own entries ({@code **}, or more levels after the link), so that its subdirectories matter too.
     */
    record LinkedDir(Path real, boolean tree) {
    }

    /** A path that an input names, with what statx said about it. */
    record Found(InputConfig input, String path, long device, long inode, long size, boolean regular,
                 String type, long mtimeNanos) {
    }

    /** A pattern of an input that named no file in a scan. */
    record Unmatched(String input, String pattern) {
    }

    private final List<InputConfig> inputs;
    private final List<List<Glob>> globs = new ArrayList<>();
    private final List<List<PathMatcher>> nameExcludes = new ArrayList<>();
    private final List<List<PathMatcher>> pathExcludes = new ArrayList<>();
    private final int globCount;
    private final StatBuffer stx;
    private final ShipLog log;
    private final Set<String> warned = new HashSet<>();
    /** The glob base directories' real paths, resolved once per scan (the bases are the configuration's, trusted). */
    private final Map<Path, Path> baseReals = new HashMap<>();
    /** The symlinked directories the last scan walked into, by the link's path. */
    private Map<Path, LinkedDir> linkedDirs = new LinkedHashMap<>();
    /** The patterns the last scan found no file for. */
    private List<Unmatched> unmatched = List.of();
    /** The shipper's own directories by identity (device, inode), looked up at each scan; never walked into. */
    private final Map<TrackedFile.Id, Path> own = new HashMap<>();
    /** Whether the glob being scanned named a file (one that no exclude or owner check left out). */
    private boolean named;

    Discovery(List<InputConfig> inputs, StatBuffer stx, ShipLog log) {
        this.inputs = inputs;
        this.stx = stx;
        this.log = log;
        int count = 0;
        for (InputConfig in : inputs) {
            List<Glob> g = new ArrayList<>();
            for (String p : in.paths()) g.add(Glob.of(p));
            count += g.size();
            globs.add(g);
            List<PathMatcher> names = new ArrayList<>();
            List<PathMatcher> paths = new ArrayList<>();
            for (String e : in.exclude()) {
                PathMatcher m = Glob.exclude(e);
                (e.contains("/") ? paths : names).add(m);
            }
            nameExcludes.add(names);
            pathExcludes.add(paths);
        }
        globCount = count;
    }

    /** Every path the inputs name now; a path named by two inputs goes to the first. */
    List<Found> scan() {
        List<Found> out = new ArrayList<>();
        // One glob walks each path once; only several can name a path twice. A set of every path would be a burst
        // of garbage at the start of a shipper of many files, which the heap keeps the room for.
        Set<String> seen = globCount > 1 ? new HashSet<>() : null;
        linkedDirs = new LinkedHashMap<>();
        baseReals.clear();
        List<Unmatched> none = new ArrayList<>();
        ownDirs();
        for (int i = 0; i < inputs.size(); i++) {
            for (Glob g : globs.get(i)) {
                named = false;
                if (g.literal) {
                    consider(i, g, out, seen);
                } else {
                    walk(i, g, g.base, 0, out, seen, new HashSet<>());
                }
                if (!named) none.add(new Unmatched(inputs.get(i).name(), g.pattern));
            }
        }
        unmatched = none;
        return out;
    }

    /** The patterns the last {@link #scan} found no file for (after excludes and owner checks), in order. */
    List<Unmatched> unmatched() {
        return unmatched;
    }

    private void walk(int input, Glob g, Path dir, int depth, List<Found> out, Set<String> seen,
                      Set<TrackedFile.Id> dirs) {
        int r = stx.ofPath(FileNames.of(dir));
        if (r < 0 || !stx.isDirectory()) return;
        TrackedFile.Id id = new TrackedFile.Id(stx.device(), stx.inode());
        if (!dirs.add(id)) return; // a symlink loop
        if (isOwn(input, g, dir, id)) return;
        InputConfig in = inputs.get(input);
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) {
                int s = look(in, p);
                if (s < 0) continue; // gone meanwhile, a dangling symlink, or one not to follow
                if (stx.isDirectory()) {
                    // Reported before the lstat and the walk below reuse the statx buffer.
                    if (g.matches(p) && !excluded(input, p)) report(input, p, out, seen);
                    if (depth + 1 < g.maxDepth) {
                        // The walk below lists p's entries; it goes into p's subdirectories when depth + 2 levels
                        // are still within the glob.
                        boolean symlink = stx.ofPathNoFollow(FileNames.of(p)) == 0 && stx.isSymbolicLink();
                        if (symlink) linked(p, depth + 2 < g.maxDepth);
                        walk(input, g, p, depth + 1, out, seen, dirs);
                    }
                } else if (g.matches(p) && !excluded(input, p)) {
                    report(input, p, out, seen); // the buffer holds what look found: no second statx
                }
            }
        } catch (NoSuchFileException | NotDirectoryException e) {
            // Removed while we looked: the next scan sees what is there then.
        } catch (IOException | java.nio.file.DirectoryIteratorException e) {
            warnOnce("dir:" + dir, "cannot-list-directory", "dir", dir, "error", e.toString());
        }
    }

    /**
     * The symlinked directories that the last {@link #scan} walked into, by the link's path: the watches of a tree do
     * not follow symlinks, so their targets are watched on their own (see {@code ChangeFeed.linked}).
     */
    Map<Path, LinkedDir> linkedDirs() {
        return linkedDirs;
    }

    private void linked(Path link, boolean tree) {
        LinkedDir old = linkedDirs.get(link);
        if (old != null) {
            // Walked into again by another glob: the deeper of the two decides.
            if (tree && !old.tree()) linkedDirs.put(link, new LinkedDir(old.real(), true));
            return;
        }
        try {
            linkedDirs.put(link, new LinkedDir(link.toRealPath(), tree));
        } catch (IOException e) {
            // Gone or dangling meanwhile: the walk below finds nothing either.
        }
    }

    private void consider(int input, Glob g, List<Found> out, Set<String> seen) {
        Path p = g.base;
        if (excluded(input, p)) return;
        Path parent = p.getParent();
        if (!own.isEmpty() && parent != null && stx.ofPath(FileNames.of(parent)) == 0
                && isOwn(input, g, parent, new TrackedFile.Id(stx.device(), stx.inode()))) {
            return;
        }
        int s = look(inputs.get(input), p);
        if (s == REFUSED) return;
        if (s == -Errno.ENOENT || s == -Errno.ENOTDIR) return;
        if (s < 0) {
            warnOnce("stat:" + p, "cannot-stat", "path", p, "errno", Errno.name(-s));
            return;
        }
        report(input, p, out, seen);
    }

    /** Looks up the identities of the shipper's own directories (those that exist now). */
    private void ownDirs() {
        own.clear();
        for (InputConfig in : inputs) {
            for (Path d : in.ownDirs()) {
                if (stx.ofPath(FileNames.of(d)) == 0 && stx.isDirectory()) {
                    own.putIfAbsent(new TrackedFile.Id(stx.device(), stx.inode()), d);
                }
            }
        }
    }

    /**
     * Whether directory {@code dir}, of identity {@code id}, is one of the shipper's own; the first time a glob
     * reaches one, the log says that its files are skipped.
     */
    private boolean isOwn(int input, Glob g, Path dir, TrackedFile.Id id) {
        Path o = own.get(id);
        if (o == null) return false;
        warnOnce("own:" + o, "own-output-skipped", "input", inputs.get(input).name(), "glob", g.pattern, "dir", dir,
                "why", "the glob reaches the shipper's own output (its state directory or a directory sink's): "
                        + "nothing in it is shipped");
        return true;
    }

    /** What {@link #look} returns for a symlink not to follow. */
    private static final int REFUSED = Integer.MIN_VALUE;

    /**
     * statx of {@code p} into the buffer: of the file itself, or of a symlink's target when the input follows it and
     * the link's owner may point there; 0, -errno, or {@link #REFUSED} (said once per path in the log).
     */
    private int look(InputConfig in, Path p) {
        String name = FileNames.of(p);
        int r = stx.ofPathNoFollow(name);
        if (r < 0 || !stx.isSymbolicLink()) return r;
        if (!in.followSymlinks()) {
            warnOnce("link:" + p, "symlink-skipped", "input", in.name(), "path", p,
                    "why", "follow-symlinks is off for this input");
            return REFUSED;
        }
        int linkOwner = stx.uid();
        r = stx.ofPath(name);
        if (r < 0) return r;
        String why = SourceAccess.linkRefused(linkOwner, stx.uid());
        if (why == null) return 0;
        warnOnce("link:" + p, "symlink-skipped", "input", in.name(), "path", p, "why", why);
        return REFUSED;
    }

    /**
     * Whether a file opened under {@code path} whose real path (all symlinks resolved) is {@code real} lies where
     * that name says, below the base directory of one of the input's globs: no directory between the base and the
     * file is a symlink. What an input that follows no symlinks checks on the open descriptor, so that a directory
     * swapped for a symlink after the scan cannot lead it elsewhere. Only the directory is compared: the file may
     * have been renamed (rotated) since it was opened.
     */
    boolean liesWhereNamed(InputConfig input, String path, Path real) {
        int i = inputs.indexOf(input);
        Path dir = FileNames.path(path).getParent();
        if (i < 0 || dir == null || real.getParent() == null) return false;
        for (Glob g : globs.get(i)) {
            Path base = g.literal ? g.base.getParent() : g.base;
            if (base == null || !dir.startsWith(base)) continue;
            Path baseReal = baseReals.computeIfAbsent(base, b -> {
                try {
                    return b.toRealPath();
                } catch (IOException e) {
                    return null; // gone: nothing below it is read (until a scan finds it again)
                }
            });
            if (baseReal != null && real.getParent().equals(baseReal.resolve(base.relativize(dir)))) return true;
        }
        return false;
    }

    /** Adds what the last statx said about {@code p}, unless an owner check refuses it. */
    private void report(int input, Path p, List<Found> out, Set<String> seen) {
        InputConfig in = inputs.get(input);
        if (!in.owners().isEmpty() && stx.isRegularFile() && !in.owners().contains(stx.uid())) {
            warnOnce("owner:" + p, "owner-skipped", "input", in.name(), "path", p, "owner-uid",
                    Integer.toUnsignedString(stx.uid()), "why", "not one of the input's owners");
            return;
        }
        named = true;
        String path = FileNames.of(p);
        if (seen != null && !seen.add(path)) return;
        out.add(new Found(inputs.get(input), path, stx.device(), stx.inode(), stx.size(), stx.isRegularFile(),
                stx.typeName(), stx.mtimeNanos()));
    }

    private boolean excluded(int input, Path p) {
        Path name = p.getFileName();
        for (PathMatcher m : nameExcludes.get(input)) {
            if (name != null && m.matches(name)) return true;
        }
        for (PathMatcher m : pathExcludes.get(input)) {
            if (m.matches(p)) return true;
        }
        return false;
    }

    private void warnOnce(String key, String event, Object... kv) {
        if (warned.add(key)) log.warn(event, kv);
    }

    /**
     * The positions among {@code known} (by identity) with a full fingerprint whose file is gone: no file of
     * {@code found} (a scan) is it, and its old directory holds it no more (or is gone). Directories are listed once
     * each; one that cannot be read says nothing, and its files' positions are not taken for gone.
     */
    List<Checkpoint> gone(Map<TrackedFile.Id, List<Checkpoint>> known, List<Found> found) {
        Set<TrackedFile.Id> seen = new HashSet<>();
        for (Found f : found) seen.add(new TrackedFile.Id(f.device(), f.inode()));
        Map<Path, Set<TrackedFile.Id>> inDir = new HashMap<>();
        List<Checkpoint> gone = new ArrayList<>();
        for (Map.Entry<TrackedFile.Id, List<Checkpoint>> e : known.entrySet()) {
            if (seen.contains(e.getKey()) || e.getValue().isEmpty()) continue;
            Path dir = FileNames.path(e.getValue().get(0).path()).getParent();
            if (dir == null) continue;
            Set<TrackedFile.Id> there = inDir.computeIfAbsent(dir, this::identitiesIn);
            if (there == null || there.contains(e.getKey())) continue;
            for (Checkpoint c : e.getValue()) {
                if (c.fpLength() == io.jfio.ship.harvest.Fingerprint.SIZE) gone.add(c);
            }
        }
        return gone;
    }

    /**
     * The identities (device, inode) of the regular files in {@code dir} (symlinks not followed): an empty set when
     * the directory does not exist any more, null when it cannot be read (nothing can be said about what is in it).
     */
    Set<TrackedFile.Id> identitiesIn(Path dir) {
        if (dir == null) return null;
        Set<TrackedFile.Id> ids = new HashSet<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) {
                if (stx.ofPathNoFollow(FileNames.of(p)) == 0 && stx.isRegularFile()) {
                    ids.add(new TrackedFile.Id(stx.device(), stx.inode()));
                }
            }
        } catch (NoSuchFileException e) {
            return Set.of();
        } catch (IOException | java.nio.file.DirectoryIteratorException e) {
            return null;
        }
        return ids;
    }

    /**
     * Looks in {@code dir} for a file with this identity (without following symlinks): where a file renamed by a
     * rotation went, found by what it is rather than by name.
     */
    String findByIdentity(Path dir, long device, long inode) {
        if (dir == null) return null;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) {
                String name = FileNames.of(p);
                if (stx.ofPathNoFollow(name) == 0 && stx.isRegularFile() && stx.device() == device
                        && stx.inode() == inode) {
                    return name;
                }
            }
        } catch (IOException | java.nio.file.DirectoryIteratorException e) {
            return null;
        }
        return null;
    }
}
