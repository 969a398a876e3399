package io.jfio.ship.pipeline;

import io.jfio.core.file.StatBuffer;
import io.jfio.core.sys.Errno;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.FileNames;
import io.jfio.core.sys.LibC;
import io.jfio.ship.config.InputConfig;
import io.jfio.ship.config.ShipConfig;
import io.jfio.ship.config.Start;
import io.jfio.ship.harvest.Fingerprint;
import io.jfio.ship.log.ShipLog;
import io.jfio.ship.metrics.ShipMetrics;
import io.jfio.ship.state.Checkpoint;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Not thread-safe; owned by the pipeline thread.
 *
 * <p>The files of one pipeline: which files there are, which content each holds, and what each needs next. It turns
 * what discovery and the watcher report into tracked files: identity (device, inode, fingerprint), adoption with the
 * resume point of {@link Resume}, renames, deletions, truncations, copies recognised by their content (bound to the
 * same {@link Stream}), the cap on open descriptors, and release once a file is drained. It keeps the attention set:
 * the files that may need work at the next wake-up (data to read, a partial line waiting, recent growth, a rotation
 * to finish); the rest are idle and cost nothing.
 */
final class FileTracker {
    static final long HOT_NANOS = TimeUnit.SECONDS.toNanos(2);
    /** A write to a matching file that is not tracked asks for a rescan at most this often. */
    private static final long UNKNOWN_RESCAN_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** How long a stream no file reads any more stays findable for a copy of it (copytruncate's copy, late). */
    private static final long ENDED_KEEP_NANOS = TimeUnit.SECONDS.toNanos(60);
    private static final long FORGET_MILLIS = TimeUnit.DAYS.toMillis(7);
    /**
     * How long a file that holds the same bytes as a tracked file waits, after it last grew, for that file to be
     * truncated (copytruncate: copy, then truncate at once). If it is not, the two are independent files that happen
     * to hold the same bytes, and each is shipped.
     */
    static final long COPY_GRACE_NANOS = TimeUnit.SECONDS.toNanos(1);
    /**
     * The longest a copy candidate waits in all, however long it keeps growing: two files growing side by side with
     * the same bytes are not held back longer (a copy that takes longer to make is shipped too, twice).
     */
    static final long COPY_HOLD_MAX_NANOS = TimeUnit.SECONDS.toNanos(5);
    /** Bytes compared at the end of the common part when a file is taken for a copy of a tracked one. */
    private static final int COMPARE = 4096;

    private final String name;
    private final ShipConfig config;
    private final ShipLog log;
    private final ShipMetrics metrics;
    private final boolean once;
    private final StatBuffer stx;
    private final MemorySegment scratch;
    private final Discovery discovery;
    private final ChangeFeed feed;

    private final Map<TrackedFile.Id, TrackedFile> tracked = new LinkedHashMap<>();
    /** Tracked files that may need work at the next wake-up; the rest are idle. */
    private final ArrayList<TrackedFile> attention = new ArrayList<>();
    /** Tracked files by path (the file its path names now wins over one renamed away); rebuilt when stale. */
    private final Map<String, TrackedFile> byPath = new HashMap<>();
    private boolean byPathStale = true;
    /** Positions from the checkpoints and the sink's commit record not matched to a file yet, by identity. */
    private final Map<TrackedFile.Id, List<Checkpoint>> known = new HashMap<>();
    /** Positions whose inode holds another content now: matched by content in the first minute of a run. */
    private final List<Checkpoint> orphans = new ArrayList<>();
    /** Streams with a full fingerprint, by its hash: what a new file may be a copy of. */
    private final Map<Long, List<Stream>> byHead = new HashMap<>();
    /** Streams no file is bound to any more, kept while batches of them are in flight or a copy may come. */
    private final List<Stream> ended = new ArrayList<>();
    /**
     * Contents that files left by a truncation, with the file that held them: written to the checkpoint for
     * {@link #ENDED_KEEP_NANOS}, so that a copy of one (copytruncate's) found at the next start resumes where it was.
     */
    private final List<Left> left = new ArrayList<>();
    private final Set<String> warned = new HashSet<>();
    /** No position was known at start: start = end applies to what the first scan finds. */
    private final boolean firstRun;
    private boolean firstScanDone;
    private List<String> unmatchedAtStart = List.of();
    private long scanGen;
    private int openFiles;
    /** The cap on open sources: max-open-files, or less where the descriptor limit says ({@link OpenFileBudget}). */
    private final int openCap;
    /** New files the last scan left unopened for want of a descriptor under the cap; opened by a later scan. */
    private int deferred;
    /** Files the first scan left unopened: start = end still applies to them when they are opened. */
    private final Set<TrackedFile.Id> deferredAtStart = new HashSet<>();
    private boolean exhaustedSaid;
    private boolean capWarned;
    private int fileErrors;
    private long lastUnknownRescanNanos;
    private final long startNanos = System.nanoTime();
    /** Incremented whenever something a checkpoint holds changed (an identity, a path, a stream). */
    private long version;
    /** Incremented whenever something the gauges show changed. */
    private long gaugeVersion;

    FileTracker(String name, ShipConfig config, ShipLog log, ShipMetrics metrics, boolean once, StatBuffer stx,
                MemorySegment scratch, Discovery discovery, ChangeFeed feed, List<Checkpoint> positions,
                boolean storeCorrupt) {
        if (scratch.byteSize() < 2 * COMPARE) throw new IllegalArgumentException("scratch too small");
        this.name = name;
        this.config = config;
        this.log = log;
        this.metrics = metrics;
        this.once = once;
        this.stx = stx;
        this.scratch = scratch;
        this.discovery = discovery;
        this.feed = feed;
        this.firstRun = positions.isEmpty() && !storeCorrupt;
        this.openCap = OpenFileBudget.cap(config.maxOpenFiles(), config.sinks().size(), log);
        for (Checkpoint c : positions) {
            known.computeIfAbsent(new TrackedFile.Id(c.device(), c.inode()), k -> new ArrayList<>(2)).add(c);
        }
    }

    /**
     * The hashes of one file's first bytes while it is being identified: the resume rule, the copy lookup and the
     * fingerprint each ask for them, and the file is read once for each length, not once for each question.
     */
    private final class Heads implements Resume.Head {
        private final int fd;
        private int length = -1;
        private long hash;

        /** One per identification: it may nest (a look at another file while this one is being identified). */
        Heads(int fd) {
            this.fd = fd;
        }

        /** The hash of the first {@code length} bytes is already known. */
        Heads known(int length, long hash) {
            this.length = length;
            this.hash = hash;
            return this;
        }

        @Override
        public long hash(int len) {
            if (len != length) {
                hash = Fingerprint.of(fd, len, scratch);
                length = len;
            }
            return hash;
        }
    }

    /** A content a file left by a truncation, seen at {@code leftNanos} (System.nanoTime) and on the wall clock. */
    private record Left(Stream stream, long device, long inode, String path, long leftNanos, long leftWallNanos) {
    }

    // ---------------------------------------------------------------- what other stages read

    /** The files that may need work; iterate by index, skipping released ones (they leave at {@link #prune}). */
    List<TrackedFile> attention() {
        return attention;
    }

    int size() {
        return tracked.size();
    }

    int fileErrors() {
        return fileErrors;
    }

    /** The patterns the first scan found no file for. */
    List<String> unmatchedAtStart() {
        return unmatchedAtStart;
    }

    boolean firstScanDone() {
        return firstScanDone;
    }

    long version() {
        return version;
    }

    long gaugeVersion() {
        return gaugeVersion;
    }

    /** Something a checkpoint or a gauge shows changed outside this class (an acknowledgement, a read). */
    void changed() {
        version++;
        gaugeVersion++;
    }

    /** What the checkpoint stores now: every tracked file, and positions not matched to a file yet. */
    List<Checkpoint> entries(long wallMillis) {
        List<Checkpoint> out = new ArrayList<>(tracked.size() + known.size());
        for (TrackedFile t : tracked.values()) {
            // A copy candidate has shipped nothing of its own and keeps no position: after a restart it is matched
            // again by its content (to the original's old content, if that was truncated meanwhile) or is new. So is
            // a copy that took over while bytes read from the original were in flight: the sink commits those under
            // the original's identity, whose position (kept in left meanwhile) is the content's.
            if (!t.primary() || t.stream.handOverPending()) continue;
            // A copy that holds only a part of its content (the original grew on after the copy) is at its end.
            out.add(new Checkpoint(t.device, t.inode, t.stream.fpLength, t.stream.fpHash,
                    Math.min(t.stream.checkpointOffset(), Math.max(t.lastSize, 0)), wallMillis, t.path));
        }
        for (List<Checkpoint> l : known.values()) out.addAll(l);
        for (Left l : left) {
            Stream s = l.stream();
            out.add(new Checkpoint(l.device(), l.inode(), s.fpLength, s.fpHash, s.checkpointOffset(), wallMillis,
                    l.path()));
        }
        return out;
    }

    List<ShipMetrics.FileGauge> gauges() {
        List<ShipMetrics.FileGauge> g = new ArrayList<>(tracked.size());
        for (TrackedFile t : tracked.values()) {
            g.add(new ShipMetrics.FileGauge(name, t.path, Math.max(0, t.lastSize - t.ackedOffset()), t.fd >= 0));
        }
        return List.copyOf(g);
    }

    // ---------------------------------------------------------------- discovery

    /**
     * A full scan: adopts new files, follows renames, notices files no path names any more. New files with a
     * position of their own are adopted before the others, so that the content they held before is known (as an
     * orphan) when a copy of it is looked at.
     */
    void scan(long now) {
        scanGen++;
        deferred = 0;
        boolean full = false;
        List<Discovery.Found> fresh = new ArrayList<>();
        List<Discovery.Found> found = discovery.scan();
        for (Discovery.Found f : found) {
            TrackedFile t = tracked.get(new TrackedFile.Id(f.device(), f.inode()));
            if (!f.regular()) {
                if (t == null) notRegular(f.path(), f.type());
                continue;
            }
            if (t == null) {
                fresh.add(f);
                continue;
            }
            if (t.scanGen == scanGen) continue; // named twice (a symlink and its target): the first name wins
            t.scanGen = scanGen;
            if (!t.path.equals(f.path())) {
                log.info("rotation", "sink", name, "kind", "rename", "from", t.path, "to", f.path());
                metrics.rotation(name, "rename");
                t.path = f.path();
                byPathStale = true;
                changed();
            }
            if (t.state != TrackedFile.State.ACTIVE) {
                t.state = TrackedFile.State.ACTIVE;
                byPathStale = true;
                changed();
            }
            observeSize(t, f.size(), now);
        }
        if (!firstScanDone && !known.isEmpty()) orphanGone(found);
        if (!known.isEmpty()) {
            List<Discovery.Found> first = new ArrayList<>(fresh.size());
            List<Discovery.Found> then = new ArrayList<>();
            for (Discovery.Found f : fresh) {
                (known.containsKey(new TrackedFile.Id(f.device(), f.inode())) ? first : then).add(f);
            }
            first.addAll(then);
            fresh = first;
        }
        List<TrackedFile> reusedInodes = null;
        for (Discovery.Found f : fresh) {
            TrackedFile.Id id = new TrackedFile.Id(f.device(), f.inode());
            if (tracked.containsKey(id)) continue; // named twice (a symlink and its target): adopted under the first
            // --once ships the files found at its start: a later scan only opens those that waited for a descriptor.
            if (once && firstScanDone && !deferredAtStart.contains(id)) continue;
            boolean hadEntry = known.containsKey(id);
            // At the cap with no idle file to close: the file waits for a later scan rather than take a descriptor
            // the sinks need.
            if (openFiles >= openCap && (full || closeIdle(openCap - 1) >= openCap)) {
                full = true;
                defer(id);
                continue;
            }
            int fd = open(f.path(), f.input(), true);
            if (fd == -Errno.EMFILE || fd == -Errno.ENFILE) {
                defer(id);
                continue;
            }
            TrackedFile t = fd >= 0 ? adopt(fd, f.path(), f.input(), now, false) : null;
            // With entries of its own and still possibly a copy: they describe another content (new-file-same-inode).
            if (t != null && hadEntry && t.stream.mayBeCopy) {
                if (reusedInodes == null) reusedInodes = new ArrayList<>();
                reusedInodes.add(t);
            }
        }
        // A file on a reused inode has entries of its own, as the original of its content has: both are adopted
        // first, in directory order. When it came first, that original's entries were not orphans yet.
        if (reusedInodes != null) {
            for (TrackedFile t : reusedInodes) {
                Stream s = t.stream;
                if (t.fd >= 0 && s.mayBeCopy && s.fileCount() == 1 && s.inFlight == 0 && s.read == 0
                        && s.fullFingerprint()) {
                    copyOfShipped(t, t.lastSize, new Heads(t.fd).known(s.fpLength, s.fpHash));
                }
            }
        }
        // Files no path of an input names any more.
        for (TrackedFile t : new ArrayList<>(tracked.values())) {
            if (t.scanGen == scanGen) continue;
            if (t.state == TrackedFile.State.ACTIVE) leftPath(t, now);
            if (t.fd >= 0 && t.state != TrackedFile.State.ACTIVE && stx.ofFd(t.fd) == 0) {
                if (stx.nlink() == 0 && t.state != TrackedFile.State.DELETED) {
                    t.state = TrackedFile.State.DELETED;
                    attend(t);
                    byPathStale = true;
                    changed();
                    log.info("rotation", "sink", name, "kind", "delete", "path", t.path, "unread",
                            Math.max(0, stx.size() - t.readOffset()));
                    metrics.rotation(name, "delete");
                }
                observeSize(t, stx.size(), now);
            }
        }
        if (!firstScanDone) {
            firstScanDone = true;
            unmatchedAtStart = discovery.unmatched().stream().map(Discovery.Unmatched::pattern).toList();
            for (Discovery.Unmatched u : discovery.unmatched()) {
                log.warn("no-file-matched", "sink", name, "input", u.input(), "pattern", u.pattern(),
                        "consequence", once ? "nothing to ship for it" : "files that appear later are shipped");
            }
            findRotatedWhileStopped(now);
        }
        forgetOld(now);
        enforceOpenCap(false);
    }

    /**
     * At the first scan: positions whose file no path of the inputs names and that is not beside its old name either
     * (deleted, or moved to another file system, while the shipper was stopped) describe a content no file holds:
     * orphans, so that a copy of it (what a move across file systems leaves) resumes where it was shipped. They stay
     * known too: a file only hidden for now is still found by identity later.
     */
    private void orphanGone(List<Discovery.Found> found) {
        orphans.addAll(discovery.gone(known, found));
    }

    private void notRegular(String path, String type) {
        if (warned.add(path + "|" + type)) {
            log.warn("skipped-not-regular", "sink", name, "path", path, "type", type,
                    "why", "only regular files are shipped; a FIFO or device is never opened");
            metrics.error(name, "not-regular");
        }
    }

    /** The path that named {@code t} names something else now, or nothing. */
    private void leftPath(TrackedFile t, long now) {
        if (t.fd < 0) {
            // Closed to stay under the cap (idle at its end): find where it went by identity, or let it go.
            String moved = discovery.findByIdentity(parent(t.path), t.device, t.inode);
            if (moved == null || !reopen(t, moved)) {
                log.info("released", "sink", name, "path", t.path, "why", "gone while closed (idle)");
                release(t);
                return;
            }
        }
        if (stx.ofFd(t.fd) != 0) return;
        boolean deleted = stx.nlink() == 0;
        t.state = deleted ? TrackedFile.State.DELETED : TrackedFile.State.ROTATED;
        t.releaseAtNanos = now + config.rotateWait().toNanos();
        attend(t);
        byPathStale = true;
        changed();
        String kind = deleted ? "delete" : "rename";
        log.info("rotation", "sink", name, "kind", kind, "path", t.path, "unread",
                Math.max(0, stx.size() - t.readOffset()), "action", "drain then close");
        metrics.rotation(name, kind);
    }

    /** At start: positions no input path matched: look for their file beside the old name (renamed while stopped). */
    private void findRotatedWhileStopped(long now) {
        for (TrackedFile.Id id : new ArrayList<>(known.keySet())) {
            List<Checkpoint> l = known.get(id);
            if (l == null || l.isEmpty()) continue;
            Checkpoint c = l.get(0);
            String found = discovery.findByIdentity(parent(c.path()), c.device(), c.inode());
            if (found == null) continue;
            InputConfig input = inputFor(c.path());
            if (input == null) continue;
            int fd = open(found, input, false);
            if (fd < 0) continue;
            TrackedFile t = adopt(fd, found, input, now, true);
            if (t == null) continue;
            t.state = stx.ofFd(fd) == 0 && stx.nlink() == 0 ? TrackedFile.State.DELETED : TrackedFile.State.ROTATED;
            t.releaseAtNanos = now + config.rotateWait().toNanos();
            attend(t);
            byPathStale = true;
            log.info("rotation", "sink", name, "kind", "rename-while-stopped", "was", c.path(), "now", found,
                    "from", t.readOffset(), "action", "drain then close");
            metrics.rotation(name, "rename");
        }
    }

    private InputConfig inputFor(String path) {
        Path p = FileNames.path(path);
        List<InputConfig> all = config.inputsOf(name);
        for (InputConfig in : all) {
            for (String g : in.paths()) {
                if (Glob.of(g).matches(p)) return in;
            }
        }
        return all.isEmpty() ? null : all.get(0);
    }

    private void forgetOld(long now) {
        // Content matching against the last run's positions is for what was there at start (a copy still being
        // written then is recognised when it reaches a full fingerprint, within this time).
        if (!orphans.isEmpty() && now - startNanos > ENDED_KEEP_NANOS) orphans.clear();
        long cutoff = System.currentTimeMillis() - FORGET_MILLIS;
        for (Iterator<List<Checkpoint>> it = known.values().iterator(); it.hasNext(); ) {
            List<Checkpoint> l = it.next();
            if (l.removeIf(c -> c.seenAt() < cutoff)) version++;
            if (l.isEmpty()) it.remove();
        }
        if (left.removeIf(l -> now - l.leftNanos() > ENDED_KEEP_NANOS && !l.stream().handOverPending())) version++;
        for (Iterator<Stream> it = ended.iterator(); it.hasNext(); ) {
            Stream s = it.next();
            if (s.fileCount() == 0 && s.inFlight == 0 && now - s.endedNanos > ENDED_KEEP_NANOS) {
                it.remove();
                unindex(s);
            }
        }
    }

    private static Path parent(String path) {
        return FileNames.path(path).getParent();
    }

    /**
     * Opens a source file without waiting (should the path have become a FIFO since the scan), and without following
     * a symlink unless the input does; then checks on the descriptor what the scan checked on the name (see
     * {@link #refusal}). fd or -errno.
     */
    int open(String path, InputConfig input, boolean report) {
        int flags = Fcntl.O_RDONLY | Fcntl.O_CLOEXEC | Fcntl.O_NONBLOCK
                | (input.followSymlinks() ? 0 : Fcntl.O_NOFOLLOW);
        int fd = openSourceMakingRoom(path, flags);
        if (fd == -Errno.ELOOP && !input.followSymlinks()) return fd; // a symlink now: the next scan says so
        if (fd == -Errno.EMFILE || fd == -Errno.ENFILE) {
            if (!exhaustedSaid) {
                exhaustedSaid = true;
                log.warn("descriptors-exhausted", "sink", name, "path", path, "errno", Errno.name(-fd),
                        "open", openFiles, "action", "the file is opened by a later scan, when a descriptor is free; "
                                + "raise ulimit -n or lower --max-open-files");
            }
            return fd;
        }
        if (fd >= 0) {
            String why = refusal(fd, path, input);
            if (why == null) return fd;
            LibC.close(fd);
            if (warned.add(path + "|refused|" + why)) {
                log.warn("source-refused", "sink", name, "input", input.name(), "path", path, "why", why,
                        "action", "not read");
            }
            return -Errno.EACCES;
        }
        if (fd == -Errno.ENOENT) return fd;
        fileErrors++;
        if (report && warned.add(path + "|open|" + (-fd))) {
            log.warn("cannot-open", "sink", name, "input", input.name(), "path", path, "errno", Errno.name(-fd),
                    "action", "skipped; tried again at every rescan");
            metrics.error(name, "open");
        }
        return fd;
    }

    /**
     * Opens a source for reading without updating its access time (O_NOATIME): a file being appended to has its
     * modification time ahead of its access time, so the kernel would otherwise write its inode at every read (with
     * relatime too), which costs more than the read at everyday rates. O_NOATIME is for the file's owner and for
     * processes with CAP_FOWNER; for other users' files (EPERM) the file is opened as usual. fd or -errno.
     */
    /** {@link #openSource}, again after closing idle files when the process is out of descriptors. */
    private int openSourceMakingRoom(String path, int flags) {
        int fd = openSource(path, flags);
        int before = openFiles;
        if ((fd == -Errno.EMFILE || fd == -Errno.ENFILE) && before > 0 && closeIdle(before - 1) < before) {
            fd = openSource(path, flags);
        }
        return fd;
    }

    private void defer(TrackedFile.Id id) {
        deferred++;
        if (!firstScanDone) deferredAtStart.add(id);
    }

    /** Whether the last scan left files unopened for want of a descriptor (a later scan opens them). */
    boolean deferredLeft() {
        return deferred > 0;
    }

    /** Whether files were left unopened and there is room now: the caller rescans to open them. Clears the flag. */
    boolean roomForDeferred() {
        if (deferred == 0 || openFiles >= openCap) return false;
        deferred = 0;
        return true;
    }

    static int openSource(String path, int flags) {
        int fd = LibC.openat(Fcntl.AT_FDCWD, path, flags | Fcntl.O_NOATIME, 0);
        return fd == -Errno.EPERM ? LibC.openat(Fcntl.AT_FDCWD, path, flags, 0) : fd;
    }

    /**
     * Why the file open as {@code fd} under {@code path} may not be read, or null: its owner is not one of the
     * input's; or, for an input that follows no symlinks, its real path is not one the input's globs name (a
     * directory on the way was swapped for a symlink after the scan); or, for one that does, {@code path} is now a
     * symlink whose owner may not point at it.
     */
    private String refusal(int fd, String path, InputConfig input) {
        if (stx.ofFd(fd) != 0) return null; // adoption looks again and says what is wrong
        int owner = stx.uid();
        if (!input.owners().isEmpty() && !input.owners().contains(owner)) {
            return "owned by uid " + Integer.toUnsignedString(owner) + ", not one of the input's owners";
        }
        if (!input.followSymlinks()) {
            Path real;
            try {
                real = Files.readSymbolicLink(Path.of("/proc/self/fd/" + fd));
            } catch (IOException | RuntimeException e) {
                return "its real path cannot be read from /proc/self/fd: " + e.getMessage();
            }
            return discovery.liesWhereNamed(input, path, real) ? null : "it is really " + real + ": a directory on "
                    + "the way is a symlink, and follow-symlinks is off";
        }
        if (stx.ofPathNoFollow(path) == 0 && stx.isSymbolicLink()) return SourceAccess.linkRefused(stx.uid(), owner);
        return null;
    }

    // ---------------------------------------------------------------- adoption

    /** Tracks the file open as {@code fd}; null (and fd closed) when it is not a regular file or already known. */
    TrackedFile adopt(int fd, String path, InputConfig input, long now, boolean rotatedAway) {
        if (stx.ofFd(fd) != 0 || !stx.isRegularFile()) {
            String type = stx.typeName();
            LibC.close(fd);
            notRegular(path, type);
            return null;
        }
        TrackedFile.Id id = new TrackedFile.Id(stx.device(), stx.inode());
        long size = stx.size();
        long mtime = stx.mtimeNanos();
        if (tracked.containsKey(id)) {
            LibC.close(fd);
            return null;
        }
        TrackedFile t = new TrackedFile(input, path, id.device(), id.inode());
        t.fd = fd;
        openFiles++;
        t.scanGen = scanGen;
        t.lastGrowthNanos = now;
        t.lastUseNanos = now;
        t.lastSize = size;
        Resume.Head head = new Heads(fd);
        Resume.Decision d = Resume.own(size, head, known.remove(id));
        Stream joined = null;
        if (d != null) orphans.addAll(d.orphans());
        if (Resume.byContentToo(d)) {
            joined = sameContent(fd, size, head, now);
            Resume.Decision copy = joined == null ? Resume.copy(size, head, orphans) : null;
            if (copy != null) d = copy;
            if (joined == null && d == null) {
                d = Resume.fresh(size, input.start() == Start.END && firstRun
                                && (!firstScanDone || deferredAtStart.remove(id)) && !rotatedAway,
                        input.ignoredAsOlder(mtime, System.currentTimeMillis()));
            }
        }
        String why;
        if (joined != null) {
            bind(t, joined);
            if (t.primary()) {
                why = "copy-of-shipped";
            } else {
                why = "copy-candidate";
                t.copySinceNanos = now;
                t.copyDeadlineNanos = now + COPY_GRACE_NANOS;
            }
        } else {
            Stream s = new Stream(0, Fingerprint.of(fd, 0, scratch), d.offset());
            // A new file (or a reused inode, or one of which nothing was shipped) may still be filled as a copy; a
            // truncated one holds a new content.
            s.mayBeCopy = d.why().equals("new") || d.why().equals("new-file-same-inode") || Resume.nothingShipped(d);
            if (d.entry() != null) {
                s.fpLength = d.entry().fpLength();
                s.fpHash = d.entry().fpHash();
            }
            bind(t, s);
            reanchor(s, fd);
            why = d.why();
            if (why.equals("truncated-while-stopped")) metrics.rotation(name, "truncate");
        }
        fingerprint(t, size, now, false, head);
        tracked.put(id, t);
        attend(t);
        byPathStale = true;
        changed();
        boolean watchedNow = false;
        if (feed != null && !feed.covers(FileNames.path(path))) {
            t.watchedLink = FileNames.path(path);
            feed.watchFile(t.watchedLink);
            watchedNow = true;
        }
        log.info("file", "sink", name, "input", input.name(), "path", path, "dev", id.device(), "ino", id.inode(),
                "size", size, "from", t.readOffset(), "why", why);
        if (why.startsWith("copy-of")) metrics.rotation(name, "copy");
        // A write between the fstat above and the file's own watch is reported by no event: one read finds it.
        if (size > t.readOffset() || watchedNow) {
            markReadable(t);
        } else {
            // Resumed at its end: nothing to read, as after a read that reached the end. Without this a file that
            // is never written again would count as unread forever: never closed as idle, never let go when it is
            // deleted or renamed away (its descriptor kept, and with it a deleted file's blocks).
            t.atEof = true;
        }
        enforceOpenCap(false); // no warning yet: files adopted now are mostly unread; it comes when files go idle
        return t;
    }

    /**
     * A stream of this run whose content the file open as {@code fd} holds too (same full fingerprint): one that no
     * file holds any more (its file was truncated or let go lately: the file is its copy), or one whose file holds the
     * same bytes at the end of what both have (a copy candidate, confirmed when that file is truncated). Null when
     * none.
     */
    private Stream sameContent(int fd, long size, Resume.Head head, long now) {
        if (size < Fingerprint.SIZE || byHead.isEmpty()) return null;
        List<Stream> candidates = byHead.get(head.hash(Fingerprint.SIZE));
        if (candidates == null) return null;
        for (Stream s : List.copyOf(candidates)) {
            if (heldBy(fd, size, s, now)) return s;
        }
        return null;
    }

    /**
     * Whether the file open as {@code fd}, {@code size} bytes long, can hold {@code s}'s content: no file reads it
     * any more, or its reader is not shorter and has the same bytes at the end of what both hold. The reader is
     * looked at first, and again when it changed under the compare: copytruncate truncates it right after the copy,
     * and a truncation seen only half (the size before, the bytes after) must not make the copy a stranger. A reader
     * that merely grew is compared as it is: the application may append all through the looks.
     */
    private boolean heldBy(int fd, long size, Stream s, long now) {
        for (int look = 0; look < 3; look++) {
            TrackedFile p = s.primary();
            if (p != null && p.fd == fd) return true; // the file itself reads it
            if (p == null || p.fd < 0) {
                // The size the caller has may be from while cp was still writing the file; a copy is done before
                // its original is truncated, so now that no file holds the content it has its final size.
                long born = -1;
                if (stx.ofFd(fd) == 0) {
                    size = Math.max(size, stx.size());
                    born = stx.birthNanos();
                }
                return anchored(fd, size, s) || size < s.read && copiedBeforeTruncation(s, born);
            }
            if (stx.ofFd(p.fd) != 0) return false;
            long psize = stx.size();
            if (psize != p.lastSize) {
                observeSize(p, psize, now); // a truncation ends its hold on the content
                if (s.primary() != p) continue;
            }
            // A reader that only grew still holds the bytes compared (the application writes on after the copy,
            // maybe all through these looks): only a truncation makes the compare worth doing again.
            if (size <= psize && sameTail(fd, p.fd, size)) return true;
            if (stx.ofFd(p.fd) != 0 || stx.size() == psize) return false;
            observeSize(p, stx.size(), now); // it changed while the bytes were compared: truncated and written again?
            if (s.primary() == p) return false;
        }
        return false;
    }

    /**
     * Whether the file open as {@code fd} holds {@code s}'s last read bytes where {@code s} would resume: a content
     * no file holds any more is taken up by a copy only then (a new file that merely starts like it, such as one with
     * the same header, is not; it is shipped whole).
     */
    private boolean anchored(int fd, long size, Stream s) {
        if (s.read == 0) return true;
        if (s.anchorLength < 0 || size < s.read) return false;
        MemorySegment a = scratch.asSlice(0, Stream.ANCHOR);
        return readFully(fd, a, s.anchorLength, s.read - s.anchorLength)
                && Stream.anchorHash(a, 0, s.anchorLength) == s.anchorHash;
    }

    /**
     * The wall clock to the nanosecond it has (a creation time is compared with it: milliseconds would put a copy
     * made in the same millisecond as the truncation's sighting after it).
     */
    private static long wallNanos() {
        java.time.Instant i = java.time.Instant.now();
        return i.getEpochSecond() * 1_000_000_000L + i.getNano();
    }

    /**
     * Whether a file created at {@code bornNanos} (wall clock; -1 when the file system does not say) may be a copy
     * of {@code s} that ends before what was read of it, as copytruncate makes while the application writes on
     * between the copy and the truncation: {@code s} ended by its file's truncation, and the file was created before
     * that truncation was seen. A file with the same first KiB created after it is another file (a copy comes
     * before the truncation), and one shorter than what was read can be checked no further: its anchor is past its
     * end.
     */
    private boolean copiedBeforeTruncation(Stream s, long bornNanos) {
        if (bornNanos < 0) return false;
        for (Left l : left) {
            if (l.stream() == s) return bornNanos <= l.leftWallNanos();
        }
        return false;
    }

    /**
     * Sets {@code s}'s anchor from the file open as {@code fd}, which holds it (a position resumed, a rewind): the
     * anchor must be known before the file can be truncated, or a copy found after that could not be checked.
     */
    private void reanchor(Stream s, int fd) {
        if (s.read == 0 || fd < 0) return;
        int len = (int) Math.min(Stream.ANCHOR, s.read);
        MemorySegment a = scratch.asSlice(0, Stream.ANCHOR);
        if (readFully(fd, a, len, s.read - len)) {
            s.anchorLength = len;
            s.anchorHash = Stream.anchorHash(a, 0, len);
        }
    }

    /** Whether the two files have the same bytes in the {@link #COMPARE} bytes before {@code end}. */
    private boolean sameTail(int fd, int otherFd, long end) {
        int len = (int) Math.min(COMPARE, end);
        long at = end - len;
        MemorySegment a = scratch.asSlice(0, COMPARE);
        MemorySegment b = scratch.asSlice(COMPARE, COMPARE);
        if (!readFully(fd, a, len, at) || !readFully(otherFd, b, len, at)) return false;
        return MemorySegment.mismatch(a, 0, len, b, 0, len) < 0;
    }

    private static boolean readFully(int fd, MemorySegment into, int len, long at) {
        long got = 0;
        while (got < len) {
            long n = LibC.pread(fd, into.asSlice(got), len - got, at + got);
            if (n == -Errno.EINTR) continue;
            if (n <= 0) return false;
            got += n;
        }
        return true;
    }

    // ---------------------------------------------------------------- streams

    private void bind(TrackedFile t, Stream s) {
        t.stream = s;
        s.bind(t);
        if (s.endedNanos != 0) {
            s.endedNanos = 0;
            ended.remove(s);
            tookOver(t, s);
        }
        index(s);
    }

    /**
     * {@code t} became the primary of {@code s}, which another file read until now: what was read and is not
     * acknowledged was read from that one ({@link Stream#handedOver}), and {@code t}'s size is looked at again (a
     * size taken while cp was writing the copy is behind: the copy was done before its original was truncated).
     */
    private void tookOver(TrackedFile t, Stream s) {
        s.handOver();
        if (t.fd >= 0 && stx.ofFd(t.fd) == 0 && stx.size() > t.lastSize) t.lastSize = stx.size();
    }

    /** {@code t} leaves its stream; the next bound file (a copy) reads on, or the stream ends. */
    private void leave(TrackedFile t, long now) {
        Stream s = t.stream;
        boolean wasPrimary = s.primary() == t;
        s.unbind(t);
        if (s.fileCount() == 0) {
            s.endedNanos = now;
            ended.add(s);
        } else if (wasPrimary) {
            TrackedFile next = s.primary();
            tookOver(next, s);
            next.copyDeadlineNanos = 0;
            log.info("copy-takes-over", "sink", name, "path", next.path, "from", s.read, "was", t.path);
            markReadable(next);
        }
    }

    private void index(Stream s) {
        if (s.indexed || !s.fullFingerprint()) return;
        s.indexed = true;
        byHead.computeIfAbsent(s.fpHash, k -> new ArrayList<>(1)).add(s);
    }

    private void unindex(Stream s) {
        if (!s.indexed) return;
        s.indexed = false;
        List<Stream> l = byHead.get(s.fpHash);
        if (l != null) {
            l.remove(s);
            if (l.isEmpty()) byHead.remove(s.fpHash);
        }
    }

    /** Every stream with something in flight or bound, for a rewind after the sink failed. */
    void rewindAll() {
        Set<Stream> done = new HashSet<>();
        for (TrackedFile t : tracked.values()) {
            if (done.add(t.stream) && t.stream.read != t.stream.acked) {
                t.stream.rewind();
                reanchor(t.stream, t.stream.primary().fd);
                markReadable(t.stream.primary());
            }
            t.stream.inFlight = 0;
        }
        for (Stream s : ended) {
            s.rewind();
            s.inFlight = 0;
        }
        version++;
    }

    // ---------------------------------------------------------------- sizes, truncation, growth

    /**
     * Grows the stream's fingerprint (from its primary) while it covers less than the file has. When it becomes
     * full and {@code lookForCopy}, the file may turn out to be a copy of a known content: one caught while it was
     * still being written (copytruncate's copy found at size 0) could not be told from a new file before.
     */
    private void fingerprint(TrackedFile t, long size, long now, boolean lookForCopy, Resume.Head head) {
        Stream s = t.stream;
        if (!t.primary() || t.fd < 0 || s.fpLength >= Fingerprint.SIZE || size <= s.fpLength) return;
        int len = (int) Math.min(size, Fingerprint.SIZE);
        long fp = head != null ? head.hash(len) : Fingerprint.of(t.fd, len, scratch);
        if (fp == Long.MIN_VALUE) return;
        s.fpLength = len;
        s.fpHash = fp;
        version++;
        if (lookForCopy && s.fullFingerprint() && identified(t, size, now)) return;
        index(s);
    }

    /**
     * {@code t}'s content just got a full fingerprint: if it is a content of this run (a stream whose file agrees
     * with it) or one shipped before the start (an orphan), and nothing of it was shipped beyond what that content
     * was shipped to, {@code t} joins it. True when it did.
     */
    private boolean identified(TrackedFile t, long size, long now) {
        Stream s = t.stream;
        if (!s.mayBeCopy || s.fileCount() != 1 || s.inFlight > 0 || s.read > 0) return false;
        Resume.Head head = new Heads(t.fd).known(s.fpLength, s.fpHash);
        Stream other = sameContent(t.fd, size, head, now);
        if (other != null && other != s) {
            s.unbind(t);
            bind(t, other);
            if (!t.primary()) {
                t.copySinceNanos = now;
                t.copyDeadlineNanos = now + COPY_GRACE_NANOS;
            }
            log.info("copy-recognised", "sink", name, "path", t.path, "content-at", other.read, "state",
                    t.primary() ? "reads it" : "candidate", "why", "its first KiB and its last bytes agree with a "
                            + "content of this run");
            metrics.rotation(name, "copy");
            changed();
            return true;
        }
        copyOfShipped(t, size, head);
        return false;
    }

    /**
     * A read put {@code n} bytes of {@code t}'s stream, from its read offset on, into {@code bytes}: makes the stream's
     * fingerprint cover the content's first bytes up to where that read ends ({@link Fingerprint#SIZE} at most) before
     * any of them is sent. A batch carries the fingerprint its content has when it is made, and a position is stored
     * with it: a fingerprint that covers less than its position claims would match another content that merely
     * starts the same (the file truncated and written again, records with the same first bytes), whose first lines
     * would then be taken for shipped. When the fingerprint covers exactly what was read before (the usual case) the
     * read's bytes extend it; otherwise the first bytes are read from the file, which must still hold what the read
     * got. Only the first reads of a content do anything here.
     *
     * @return true to go on with the read; false when the file no longer holds what was read (handled as a truncation)
     *         or the content turned out to be a copy of one of this run (the file joined it): the read is dropped
     */
    boolean coverRead(TrackedFile t, MemorySegment bytes, long n, long now) {
        Stream s = t.stream;
        int want = (int) Math.min(Fingerprint.SIZE, s.read + n);
        if (s.fpLength >= want) return true;
        long h;
        if (s.fpLength == s.read && s.fpHash != Fingerprint.ADJUSTED) {
            h = Fingerprint.extend(s.fpHash, bytes, 0, (int) (want - s.read));
        } else {
            h = Fingerprint.of(t.fd, want, scratch);
            int tail = (int) Math.max(0, want - s.read);
            if (h == Long.MIN_VALUE || tail > 0 && MemorySegment.mismatch(scratch, s.read, want, bytes, 0, tail) >= 0) {
                anchorLost(t, now);
                return false;
            }
        }
        s.fpLength = want;
        s.fpHash = h;
        version++;
        if (s.fullFingerprint() && s.read == 0) {
            // The first read of a new file brought its first KiB: it may be a copy, as when a look at its size does.
            boolean joined = identified(t, Math.max(t.lastSize, n), now);
            if (joined || s.read != 0) {
                // Resumed as a copy of a content shipped before the start: it is a content a later copy may hold.
                if (!joined) index(s);
                if (t.primary() && t.lastSize > t.readOffset()) markReadable(t);
                return false;
            }
        }
        index(s);
        return true;
    }

    /**
     * The first read of {@code t}'s stream (nothing read of it yet, so no anchor to check) put {@code n} bytes from
     * offset 0 into {@code bytes}: whether the file still holds the content its fingerprint was taken of, when the
     * file was first looked at. copytruncate may have truncated it and the application written it again since (a
     * file found while the shipper catches up waits its turn), and the new bytes must not be shipped as the old
     * content: one pread of the fingerprint's bytes, compared with the hash and with what the read got. When they
     * differ the file holds a new content (handled as a truncation: the old one's copy takes it over) and the read
     * is dropped.
     */
    boolean headHolds(TrackedFile t, MemorySegment bytes, long n, long now) {
        Stream s = t.stream;
        int len = s.fpLength;
        long h = Fingerprint.of(t.fd, len, scratch);
        int overlap = (int) Math.min(n, len);
        if (h == s.fpHash && MemorySegment.mismatch(scratch, 0, overlap, bytes, 0, overlap) < 0) return true;
        if (h != s.fpHash && stx.ofFd(t.fd) == 0) {
            truncated(t, stx.size(), now);
        } else {
            markReadable(t); // changed between the read and the look: read again
        }
        return false;
    }

    /** Resumes {@code t}, which has read nothing, where a content shipped before the start that it copies was. */
    private void copyOfShipped(TrackedFile t, long size, Resume.Head head) {
        if (orphans.isEmpty()) return;
        Resume.Decision d = Resume.copy(size, head, orphans);
        if (d == null) return;
        Stream s = t.stream;
        s.read = d.offset();
        s.acked = d.offset();
        reanchor(s, t.fd);
        log.info("copy-recognised", "sink", name, "path", t.path, "from", d.offset(),
                "why", "its first KiB agrees with a content shipped before the start");
        metrics.rotation(name, "copy");
        changed();
    }

    /** A look at {@code t}'s size (from an event, a scan or a poll). */
    void observeSize(TrackedFile t, long size, long now) {
        Stream s = t.stream;
        if (size != t.lastSize) gaugeVersion++;
        boolean primary = t.primary();
        // A primary shorter than what was read of its content was truncated, unless it took the content over from
        // a file that grew on after the copy (copytruncate while the application writes): then it holds a part of
        // the content, all of it shipped, and only getting shorter than it was is a truncation.
        if (primary && size < s.read && (size < t.lastSize || t.lastSize >= s.read)
                || size < t.lastSize && (size < s.fpLength || !primary)) {
            truncated(t, size, now);
        } else if (size != t.lastSize && t.fd >= 0 && rewritten(t, size)) {
            // Truncated and written past the old offset between two looks: the size alone cannot tell.
            truncated(t, size, now);
        } else if (!primary && size > t.lastSize && t.fd >= 0 && !stillACopy(t, size, now)) {
            // A file taken for a copy is written with other bytes than the file it was taken for: not a copy.
            diverged(t, "written with other bytes than the file it was taken for a copy of", now);
        } else if (size > t.lastSize) {
            t.lastGrowthNanos = now;
            t.releaseAtNanos = now + config.rotateWait().toNanos();
            if (t.copyDeadlineNanos != 0) { // still being copied
                t.copyDeadlineNanos = Math.min(now + COPY_GRACE_NANOS, t.copySinceNanos + COPY_HOLD_MAX_NANOS);
            }
            attend(t);
        }
        t.lastSize = size;
        fingerprint(t, size, now, true, null);
        if (t.primary() && size > t.readOffset()) markReadable(t);
    }

    /**
     * Whether {@code t} no longer holds its content where it did: the last bytes read (the anchor, one pread of at
     * most 256 bytes) are not before the read offset any more, or, while no anchor is known, the first bytes differ
     * (one pread of at most 1 KiB). The anchor also sees a file truncated and written again under a header that
     * every file starts with, which the first KiB cannot.
     */
    private boolean rewritten(TrackedFile t, long size) {
        Stream s = t.stream;
        if (t.primary() && s.anchorLength > 0 && size >= s.read) return !anchored(t.fd, size, s);
        return s.fpLength > 0 && Fingerprint.of(t.fd, s.fpLength, scratch) != s.fpHash;
    }

    /** The file no longer holds its stream's content (truncated, or rewritten): it starts a new one from 0. */
    private void truncated(TrackedFile t, long size, long now) {
        log.info("rotation", "sink", name, "kind", "truncate", "path", t.path, "size", size, "offset",
                t.readOffset(), "action", "shipped from its beginning");
        metrics.rotation(name, "truncate");
        if (t.stream.fullFingerprint()) {
            left.add(new Left(t.stream, t.device, t.inode, t.path, now, wallNanos()));
        }
        leave(t, now);
        t.stream = null;
        Stream s = new Stream(0, Fingerprint.of(t.fd, 0, scratch), 0);
        t.stream = s;
        s.bind(t);
        t.lastSize = size;
        t.lastGrowthNanos = now;
        fingerprint(t, size, now, true, null);
        markReadable(t);
        changed();
    }

    /**
     * Whether {@code t}, bound as a copy and grown to {@code size}, still agrees with the file it was taken for. That
     * file is looked at first: a copy still being written when the original was truncated (copytruncate) outgrows
     * it, and is the content's reader from then on, not a different file.
     */
    private boolean stillACopy(TrackedFile t, long size, long now) {
        return heldBy(t.fd, size, t.stream, now) || t.primary();
    }

    /**
     * A file taken for a copy is not one (written with other bytes, or its original was not truncated): it is a file
     * of its own, shipped from its beginning. Its bytes equal to the original's may then arrive twice; taking them
     * for shipped could lose an independent file's lines.
     */
    private void diverged(TrackedFile t, String why, long now) {
        Stream old = t.stream;
        log.info("not-a-copy", "sink", name, "path", t.path, "was-candidate-of", old.primary().path, "why", why,
                "action", "shipped from its beginning");
        leave(t, now);
        t.copyDeadlineNanos = 0;
        Stream s = new Stream(0, Fingerprint.of(t.fd, 0, scratch), 0);
        t.stream = s;
        s.bind(t);
        fingerprint(t, t.lastSize, now, false, null);
        markReadable(t);
        changed();
    }

    /** Copy candidates whose original was not truncated within the grace time are files of their own. */
    void checkCopies(long now) {
        for (int i = 0; i < attention.size(); i++) {
            TrackedFile t = attention.get(i);
            if (t.released || t.copyDeadlineNanos == 0) continue;
            if (!t.primary() && now - t.copyDeadlineNanos >= 0) {
                // The original may have been truncated in time with the event not handled yet (a busy machine): one
                // look at it first, which makes the candidate the content's reader if so.
                TrackedFile p = t.stream.primary();
                if (p.fd >= 0 && stx.ofFd(p.fd) == 0 && stx.size() != p.lastSize) observeSize(p, stx.size(), now);
                if (!t.released && !t.primary() && t.copyDeadlineNanos != 0) {
                    diverged(t, "its original was not truncated: a file of its own with the same bytes", now);
                }
            }
            if (t.primary()) t.copyDeadlineNanos = 0;
        }
    }

    boolean hasCopyCandidates() {
        for (int i = 0; i < attention.size(); i++) {
            TrackedFile t = attention.get(i);
            if (!t.released && t.copyDeadlineNanos != 0) return true;
        }
        return false;
    }

    void markReadable(TrackedFile t) {
        t.readable = true;
        t.atEof = false;
        attend(t);
    }

    void attend(TrackedFile t) {
        if (!t.released && !t.attended) {
            t.attended = true;
            attention.add(t);
        }
    }

    /** Lets idle files out of the attention set. */
    void prune(long now) {
        // In place, in order (no lambda capturing the time: this runs at every wake-up).
        int kept = 0;
        boolean idled = false;
        for (int i = 0; i < attention.size(); i++) {
            TrackedFile t = attention.get(i);
            boolean idle = t.released || (!t.readable && !partialWaits(t) && t.stream.inFlight == 0
                    && t.copyDeadlineNanos == 0 && t.state == TrackedFile.State.ACTIVE
                    && now - t.lastGrowthNanos > HOT_NANOS);
            if (idle) {
                t.attended = false;
                idled |= !t.released;
            } else {
                attention.set(kept++, t);
            }
        }
        if (kept < attention.size()) attention.subList(kept, attention.size()).clear();
        // Files that just went idle may be closed now to bring the open ones under the cap.
        if (idled && openFiles > openTarget()) enforceOpenCap(true);
    }

    // ---------------------------------------------------------------- watcher reports

    /** The watcher says {@code path} was written to; true when a rescan should look for it (not tracked). */
    boolean modified(String path, long now) {
        TrackedFile t = trackedAt(path);
        if (t == null) {
            // A matching file not tracked: it could not be opened, or appeared before its directory's watch.
            if (now - lastUnknownRescanNanos >= UNKNOWN_RESCAN_NANOS) {
                lastUnknownRescanNanos = now;
                return true;
            }
            return false;
        }
        if (t.fd < 0) {
            markReadable(t); // closed to stay under the cap: the read reopens it
        } else if (growsPlainly(t)) {
            // The common case, an append to a file that is its content's only reader: no fstat and no separate look
            // at the anchor; the read checks the anchor in the same system call (Harvester) and comes here through
            // anchorLost when the file no longer holds it.
            markReadable(t);
        } else if (stx.ofFd(t.fd) == 0) {
            observeSize(t, stx.size(), now);
        }
        return false;
    }

    /**
     * Whether a write event on {@code t} may go straight to a read: the primary of its content, under its name, not
     * a copy being decided, with a full fingerprint and an anchor to check. For anything else {@link #observeSize}
     * decides what the new size means (a copy's growth, a first full fingerprint, a rotation to finish).
     */
    private static boolean growsPlainly(TrackedFile t) {
        Stream s = t.stream;
        return t.primary() && t.state == TrackedFile.State.ACTIVE && t.copyDeadlineNanos == 0
                && s.fullFingerprint() && s.anchorLength > 0 && s.read >= s.anchorLength && s.fileCount() == 1;
    }

    /** A read found {@code t} grown to {@code size} (at least): what {@link #observeSize} records for growth. */
    void grew(TrackedFile t, long size, long now) {
        if (size == t.lastSize) return;
        gaugeVersion++;
        t.lastSize = size;
        t.lastGrowthNanos = now;
        t.releaseAtNanos = now + config.rotateWait().toNanos();
        attend(t);
    }

    /**
     * A read checked {@code t}'s anchor and the file no longer holds it before the read offset: shorter than it, or
     * rewritten. One fstat says which, as {@link #observeSize} would; when the size alone cannot tell (rewritten to
     * the same size as last seen, or longer), the content is gone all the same and the file starts a new one.
     */
    void anchorLost(TrackedFile t, long now) {
        if (t.fd < 0 || stx.ofFd(t.fd) != 0) return;
        long size = stx.size();
        if (size < t.stream.read || size != t.lastSize) {
            observeSize(t, size, now);
        } else {
            truncated(t, size, now);
        }
    }

    private TrackedFile trackedAt(String path) {
        if (byPathStale) {
            byPath.clear();
            for (TrackedFile t : tracked.values()) {
                if (t.state != TrackedFile.State.ACTIVE) byPath.put(t.path, t);
            }
            for (TrackedFile t : tracked.values()) {
                if (t.state == TrackedFile.State.ACTIVE) byPath.put(t.path, t);
            }
            byPathStale = false;
        }
        return byPath.get(path);
    }

    // ---------------------------------------------------------------- descriptors and release

    /** Reopens a file closed to stay under the cap, if {@code path} still names it. */
    boolean reopen(TrackedFile t, String path) {
        int fd = openSourceMakingRoom(path, Fcntl.O_RDONLY | Fcntl.O_CLOEXEC | Fcntl.O_NONBLOCK);
        if (fd < 0) return false;
        if (stx.ofFd(fd) != 0 || !stx.isRegularFile() || !t.sameFile(stx.device(), stx.inode())) {
            LibC.close(fd);
            return false;
        }
        t.fd = fd;
        if (!t.path.equals(path)) byPathStale = true;
        t.path = path;
        openFiles++;
        return true;
    }

    /**
     * While more source files are open than the cap: nanoseconds until the next attended file may go idle (0 when
     * one may now), so that the wait ends for the {@link #prune} that lets it close; -1 when nothing is to wait for.
     */
    long capWakeNanos(long now) {
        if (openFiles <= openTarget()) return -1;
        long soonest = -1;
        for (int i = 0; i < attention.size(); i++) {
            TrackedFile t = attention.get(i);
            if (t.released || t.readable || t.stream.partialPending || t.stream.inFlight != 0
                    || t.copyDeadlineNanos != 0 || t.state != TrackedFile.State.ACTIVE) {
                continue;
            }
            long in = Math.max(0, t.lastGrowthNanos + HOT_NANOS + 1 - now);
            soonest = soonest < 0 ? in : Math.min(soonest, in);
        }
        return soonest;
    }

    /**
     * Closes idle files (at their end, everything acknowledged, still named by their path) above the cap, the least
     * recently read first; a closed file is opened again by the read its next growth brings, at the same offset.
     * With {@code warn}, says once when files that must stay open keep the count above the cap.
     */
    private void enforceOpenCap(boolean warn) {
        closeIdle(openTarget());
        if (warn && openFiles > openCap && !capWarned) {
            capWarned = true;
            log.warn("open-files-over-cap", "sink", name, "open", openFiles, "cap", openCap,
                    "why", "files with unread data, copies or in rotation stay open");
        }
    }

    /**
     * How many files may stay open: the cap, less room for files a scan left unopened (up to half the cap), so that
     * closing idle files lets them in.
     */
    private int openTarget() {
        return openCap - Math.min(deferred, openCap / 2);
    }

    /** Closes idle files, least recently read first, until at most {@code target} are open; returns how many are. */
    private int closeIdle(int target) {
        if (openFiles <= target) return openFiles;
        List<TrackedFile> idle = new ArrayList<>();
        for (TrackedFile t : tracked.values()) {
            if (t.fd >= 0 && t.state == TrackedFile.State.ACTIVE && t.atEof && !t.readable && t.stream.inFlight == 0
                    && !partialWaits(t) && t.stream.fileCount() == 1) {
                idle.add(t);
            }
        }
        idle.sort((a, b) -> Long.compare(a.lastUseNanos, b.lastUseNanos));
        for (TrackedFile t : idle) {
            if (openFiles <= target) break;
            LibC.close(t.fd);
            t.fd = -1;
            openFiles--;
        }
        return openFiles;
    }

    /**
     * Whether {@code t}'s unterminated last line keeps it from being idle: it may still ship, on its timeout or when
     * its newline comes. A --once run without a timeout never ships it, so there the file is as idle as a drained one
     * (and may be closed to let in files waiting for a descriptor; a later read starts again at the line).
     */
    private boolean partialWaits(TrackedFile t) {
        return t.stream.partialPending && !(once && pendingTimeout(t) == null);
    }

    /**
     * Whether {@code t} is drained and may be let go: renamed away (after rotate-wait without growth, at once with
     * --once) or deleted, everything read and acknowledged, and no other file waiting to read its content from it.
     */
    boolean drained(TrackedFile t, long now) {
        if (t.released || t.state == TrackedFile.State.ACTIVE) return false;
        if (t.primary() && (!t.atEof || t.readable || t.stream.inFlight > 0)) return false;
        return t.state == TrackedFile.State.DELETED || once || now - t.releaseAtNanos >= 0;
    }

    void release(TrackedFile t) {
        long now = System.nanoTime();
        if (t.fd >= 0) {
            LibC.close(t.fd);
            t.fd = -1;
            openFiles--;
        }
        t.released = true; // leaves attention at the next prune: rounds over it may be running
        tracked.remove(t.id());
        if (t.state != TrackedFile.State.DELETED) {
            // Still linked somewhere: should a scan find it again (a rename it missed, a name matching again, a
            // restart), it resumes where it was instead of being shipped anew.
            known.computeIfAbsent(t.id(), k -> new ArrayList<>(1)).add(new Checkpoint(t.device, t.inode,
                    t.stream.fpLength, t.stream.fpHash, t.ackedOffset(), System.currentTimeMillis(), t.path));
        }
        leave(t, now);
        byPathStale = true;
        changed();
        if (t.watchedLink != null && feed != null) feed.unwatchFile(t.watchedLink);
    }

    // ---------------------------------------------------------------- idle-time checks

    /** Files that grew recently are polled often (fstat of the descriptor) where nothing reports their writes. */
    boolean pollHot(long now) {
        boolean any = false;
        boolean hot = false;
        for (int i = 0; i < attention.size(); i++) {
            TrackedFile t = attention.get(i);
            if (t.released || t.fd < 0 || now - t.lastGrowthNanos > HOT_NANOS || !pollsItself(t)) continue;
            if (!t.readable && stx.ofFd(t.fd) == 0) {
                long size = stx.size();
                if (size > t.lastSize || size < t.lastSize || t.primary() && size < t.readOffset()) {
                    observeSize(t, size, now);
                    any |= t.readable;
                }
            }
            // As hasHotFiles would find it after this look (a file the look found grown or gone counts as it is now).
            hot |= !t.released && t.fd >= 0 && now - t.lastGrowthNanos <= HOT_NANOS && pollsItself(t);
        }
        hotAfterPoll = hot;
        return any;
    }

    /** Whether the last {@link #pollHot} saw a file it must keep looking at (one pass for both questions). */
    private boolean hotAfterPoll;

    /** Whether a file polled by size grew lately, as the last {@link #pollHot} found it. */
    boolean hasHotFiles() {
        return hotAfterPoll;
    }

    /**
     * Whether the pipeline must look at {@code t}'s size itself: no watcher (--once), a watcher that polls, or a
     * file no longer named by a watched path (renamed away or deleted: inotify reports writes to it under a name
     * no glob matches, or not at all).
     */
    private boolean pollsItself(TrackedFile t) {
        return feed == null || feed.polls() || t.state != TrackedFile.State.ACTIVE;
    }

    boolean hasPartialTimers() {
        for (int i = 0; i < attention.size(); i++) {
            TrackedFile t = attention.get(i);
            if (!t.released && t.stream.partialPending && pendingTimeout(t) != null) return true;
        }
        return false;
    }

    /** Whether a file waits for a partial-line or record timeout, or a copy candidate for its deadline: one pass. */
    boolean hasTimers() {
        for (int i = 0; i < attention.size(); i++) {
            TrackedFile t = attention.get(i);
            if (t.released) continue;
            if (t.copyDeadlineNanos != 0 || t.stream.partialPending && pendingTimeout(t) != null) return true;
        }
        return false;
    }

    void checkPartialTimeouts(long now) {
        for (int i = 0; i < attention.size(); i++) {
            TrackedFile t = attention.get(i);
            if (t.released || !t.stream.partialPending) continue; // (the timeout's lookup only where one waits)
            var timeout = pendingTimeout(t);
            if (timeout != null && now - t.lastGrowthNanos >= timeout.toNanos()) t.readable = true;
        }
    }

    /** How long what {@code t} holds back (a multiline record, an unterminated line) waits, or null: until ended. */
    static java.time.Duration pendingTimeout(TrackedFile t) {
        if (t.input.gzip(t.path)) return GzipHarvest.QUIET;
        return t.input.pendingTimeout(t.stream.recordPending);
    }

    /**
     * How much of the content whose first {@link Fingerprint#SIZE} bytes hash to {@code head} was shipped already:
     * the largest read offset of a stream of it (tracked now, or ended and kept), or position of it from the
     * checkpoints not matched to a file; 0 when none is known. A gzip file of a rotated log holds a content the
     * shipper usually shipped before under the log's name: only what comes after is shipped from it.
     */
    long shippedOfContent(long head) {
        long best = 0;
        List<Stream> streams = byHead.get(head);
        if (streams != null) {
            for (Stream s : streams) {
                if (s.fullFingerprint()) best = Math.max(best, s.read);
            }
        }
        for (List<Checkpoint> cs : known.values()) {
            for (Checkpoint c : cs) {
                if (c.fpLength() == Fingerprint.SIZE && c.fpHash() == head) best = Math.max(best, c.offset());
            }
        }
        for (Checkpoint c : orphans) {
            if (c.fpLength() == Fingerprint.SIZE && c.fpHash() == head) best = Math.max(best, c.offset());
        }
        return best;
    }

    /**
     * Whether a stream of the content whose first {@link Fingerprint#SIZE} bytes hash to {@code head} may still ship
     * bytes: batches of it not acknowledged, a file of it not read to its end, or an unterminated line or multiline
     * record it holds back. A gzip file of that content waits for it when the sink stores every byte once: it starts
     * where that content's shipping ended.
     */
    boolean contentBusy(long head) {
        List<Stream> streams = byHead.get(head);
        if (streams == null) return false;
        for (Stream s : streams) {
            if (!s.fullFingerprint()) continue;
            TrackedFile p = s.primary();
            if (s.inFlight > 0 || p != null && !p.released && (!p.atEof || s.partialPending || s.recordPending)) {
                return true;
            }
        }
        return false;
    }

    /** Closes every descriptor (shutdown). */
    void closeAll() {
        for (TrackedFile t : tracked.values()) {
            if (t.fd >= 0) LibC.close(t.fd);
            t.fd = -1;
        }
        openFiles = 0;
    }

    /** For tests: the tracked file at {@code path}, or null. */
    TrackedFile at(String path) {
        return trackedAt(path);
    }
}
