package io.jfio.core.watch;

import static io.jfio.core.sys.Inotify.IN_ATTRIB;
import static io.jfio.core.sys.Inotify.IN_CLOSE_WRITE;
import static io.jfio.core.sys.Inotify.IN_CREATE;
import static io.jfio.core.sys.Inotify.IN_DELETE;
import static io.jfio.core.sys.Inotify.IN_DELETE_SELF;
import static io.jfio.core.sys.Inotify.IN_DONT_FOLLOW;
import static io.jfio.core.sys.Inotify.IN_EXCL_UNLINK;
import static io.jfio.core.sys.Inotify.IN_IGNORED;
import static io.jfio.core.sys.Inotify.IN_ISDIR;
import static io.jfio.core.sys.Inotify.IN_MODIFY;
import static io.jfio.core.sys.Inotify.IN_MOVED_FROM;
import static io.jfio.core.sys.Inotify.IN_MOVED_TO;
import static io.jfio.core.sys.Inotify.IN_MOVE_SELF;
import static io.jfio.core.sys.Inotify.IN_ONLYDIR;
import static io.jfio.core.sys.Inotify.IN_Q_OVERFLOW;

import io.jfio.core.engine.EventRing;
import io.jfio.core.sys.Epoll;
import io.jfio.core.sys.EpollEvent;
import io.jfio.core.sys.Errno;
import io.jfio.core.sys.ErrnoException;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.Inotify;
import io.jfio.core.sys.InotifyEvent;
import io.jfio.core.sys.LibC;
import io.jfio.core.sys.FileNames;
import io.jfio.core.sys.PathBytes;
import io.jfio.core.watch.FileEvent.Kind;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A {@link FileWatcher} on inotify(7), waiting in epoll(7): an inotify descriptor and an eventfd (for
 * {@link #wakeup()} and {@link #close()}) registered in one epoll instance. Idle, the polling thread sleeps in
 * epoll_wait and costs nothing. Given the polling thread's io_uring ({@link #waitIn}), it sleeps there instead: a read
 * of the inotify descriptor that the kernel holds until there are events (the wait and the read in one request, and
 * in the system call that also submits what the thread queued) and a poll of the eventfd.
 *
 * <p>Thread-safe as {@link FileWatcher} says: one thread polls; the others may watch, wake and close. The thread that
 * polls should be a platform thread: epoll_wait blocks in the kernel, which pins a virtual thread's carrier.
 *
 * <p>What it adds to raw inotify:
 * <ul>
 * <li>Renames: {@code IN_MOVED_FROM} and {@code IN_MOVED_TO} with the same cookie become one {@link Kind#MOVED}. The
 * two are queued one right after the other but a read can split them, so a MOVED_FROM is held for up to 20 ms;
 * events after it wait with it, so order is kept. Unpaired, it is a {@link Kind#MOVED_FROM}; a MOVED_TO whose
 * MOVED_FROM was not seen is a {@link Kind#MOVED_TO}.</li>
 * <li>Trees ({@link #watchTree}): inotify is not recursive, so every directory gets its own watch, and a directory
 * created or moved into the tree gets one as soon as its event is read; it is then listed and its entries are
 * reported as CREATE (what was created in it before its watch existed would be missed otherwise). Watch descriptors
 * map to paths, updated when a directory is renamed within the tree.</li>
 * <li>{@code IN_Q_OVERFLOW} becomes {@link Kind#OVERFLOW}, after the trees have been walked again to add the
 * watches that lost events would have added; the caller rescans.</li>
 * <li>Fallback: with a poll interval given, a path on a file system whose changes do not all pass through this
 * kernel (NFS, SMB, 9p, FUSE, ...; by statfs {@code f_type}) is polled instead, and so is a path whose watch hits
 * {@code fs.inotify.max_user_watches} (ENOSPC; a tree that hits it while growing moves to polling whole). Each is
 * logged at WARNING and listed by {@link #polled()}. Without an interval those are errors
 * ({@link InotifyLimitException}).</li>
 * </ul>
 * Self events ({@code IN_DELETE_SELF}, {@code IN_MOVE_SELF}, {@code IN_ATTRIB} on a directory, {@code IN_IGNORED})
 * are reported for the paths the caller watched, not for the subdirectories of a tree, whose parent already reports
 * the change.
 */
public final class InotifyWatcher implements FileWatcher {
    private static final System.Logger LOG = System.getLogger("io.jfio.core.watch");

    /** What every watch asks for. IN_EXCL_UNLINK: nothing about children that were unlinked but are still open. */
    static final int MASK = IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE
            | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF | IN_EXCL_UNLINK;
    /** How long a MOVED_FROM waits for its MOVED_TO; the kernel queues both within one rename. */
    static final long PAIR_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    private static final int READ_BUFFER = 64 * 1024;
    /** Reads per wake-up at most, so one poll returns a bounded batch even under a flood of events. */
    private static final int MAX_READS = 16;
    private static final long TAG_INOTIFY = 1;
    private static final long TAG_WAKE = 2;

    /** One inotify watch: a directory or file, by watch descriptor. */
    private static final class Watch {
        final int wd;
        final boolean dir;
        Path path;
        /** The caller watched this path. */
        boolean root;
        /** The caller watched a tree from here. */
        boolean treeRoot;
        /** In a watched tree: subdirectories created in it get watches. */
        boolean tree;
        /** Its path was just updated by a rename seen in the watched set; the IN_MOVE_SELF that follows is expected. */
        boolean relocated;
        /** inotify_rm_watch was called; forgotten when its IN_IGNORED arrives. */
        boolean dropping;
        /**
         * Dropped because its tree moved to polling: the events the kernel queued before the removal still count
         * (they happened before the polling baseline), up to its IN_IGNORED.
         */
        boolean draining;
        /** The names of its entries that data events came for, decoded once; made at the first. */
        Names names;

        Watch(int wd, Path path, boolean dir) {
            this.wd = wd;
            this.path = path;
            this.dir = dir;
        }
    }

    /**
     * A MOVED_FROM waiting for its MOVED_TO: where it sits in {@code pending} (that event has the directory), until
     * when, and the name's bytes (the event's string may have lost some).
     */
    private static final class Held {
        int index;
        final long deadline;
        final byte[] name;

        Held(int index, long deadline, byte[] name) {
            this.index = index;
            this.deadline = deadline;
            this.name = name;
        }
    }

    /**
     * An entry name that data events ({@code IN_MODIFY}, {@code IN_ATTRIB}, {@code IN_CLOSE_WRITE}) came for: its
     * bytes, its decoded string and the events made for it, which are immutable and so reported again as they are
     * while the watch's path and the entry's type stay the same. A file appended to line by line then costs its
     * events no name, string or event object each.
     */
    private static final class Name {
        final byte[] bytes;
        final int hash;
        final String string;
        /** By data kind (modify, attrib, close-write), then directory or not; null until made. */
        final FileEvent[] events = new FileEvent[6];

        Name(byte[] bytes, int hash) {
            this.bytes = bytes;
            this.hash = hash;
            this.string = FileNames.decode(bytes);
        }
    }

    /** One watch's {@link Name}s, found by the bytes of an event in the read buffer (open addressing). */
    private static final class Names {
        Name[] table = new Name[16];
        int size;

        /** The name of {@code len} bytes at {@code off} of {@code buf}, with hash {@code hash}, or null. */
        Name find(MemorySegment buf, long off, int len, int hash) {
            int mask = table.length - 1;
            for (int i = hash & mask; ; i = (i + 1) & mask) {
                Name n = table[i];
                if (n == null) return null;
                if (n.hash == hash && same(n.bytes, buf, off, len)) return n;
            }
        }

        void add(Name n) {
            if (2 * (size + 1) > table.length) {
                Name[] old = table;
                table = new Name[old.length * 2];
                for (Name o : old) {
                    if (o != null) put(o);
                }
            }
            put(n);
            size++;
        }

        private void put(Name n) {
            int mask = table.length - 1;
            int i = n.hash & mask;
            while (table[i] != null) i = (i + 1) & mask;
            table[i] = n;
        }

        private static boolean same(byte[] b, MemorySegment buf, long off, int len) {
            if (b.length != len) return false;
            for (int i = 0; i < len; i++) {
                if (b[i] != buf.get(ValueLayout.JAVA_BYTE, off + i)) return false;
            }
            return true;
        }
    }

    /**
     * Names kept over all watches at most: a directory of ever new names must not grow them forever; past this all
     * tables are emptied and filled again by the events that come.
     */
    private static final int NAMES_MAX = 16_384;
    private int nameCount;

    private final int inotifyFd;
    private final int wakeFd;
    private final int epollFd;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment readBuf;
    private final MemorySegment ready;
    private final MemorySegment wakeWrite;
    private final MemorySegment wakeRead;
    private final MemorySegment pathBuf;
    private final MemorySegment statfsBuf;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition releasedCond = lock.newCondition();
    private final Map<Integer, Watch> byWd = new HashMap<>();
    private final Map<Path, Watch> byPath = new HashMap<>();
    /**
     * The caller's tree roots still watched ({@code treeRoot} and not dropping): the few watches that
     * {@link #coveringTree} and {@link #overflow} look at, so that neither goes through every watch.
     */
    private final Set<Watch> treeRoots = new LinkedHashSet<>();
    private final List<FileEvent> pending = new ArrayList<>();
    private final Map<Integer, Held> held = new LinkedHashMap<>();

    private final long pollIntervalNanos;
    private final Snapshots polledPaths;
    private final Map<Path, String> pollReasons = new LinkedHashMap<>();
    private long nextScan;

    private IOException deferred;
    private boolean polling;
    private boolean woken;
    private boolean closed;
    private boolean released;

    /**
     * An inotify watcher without fallback: what inotify cannot watch is an error.
     *
     * @throws IOException if inotify cannot be set up: {@link InotifyLimitException} when this user has
     *     {@code fs.inotify.max_user_instances} instances already, otherwise the message names the errno
     */
    public InotifyWatcher() throws IOException {
        this(null);
    }

    /**
     * An inotify watcher that polls, every {@code pollInterval}, the paths inotify cannot watch (null: no fallback).
     *
     * @param pollInterval how often to poll the paths inotify cannot watch, or null for no fallback
     * @throws InotifyLimitException when this user has {@code fs.inotify.max_user_instances} instances already
     * @throws IOException            when inotify, eventfd or epoll cannot be set up (the message names the errno)
     */
    public InotifyWatcher(Duration pollInterval) throws IOException {
        if (pollInterval != null && pollInterval.compareTo(Duration.ofMillis(1)) < 0) {
            throw new IllegalArgumentException("poll interval below 1 ms: interval=" + pollInterval);
        }
        this.pollIntervalNanos = pollInterval == null ? 0 : pollInterval.toNanos();
        this.polledPaths = pollInterval == null ? null : new Snapshots();
        int ino = -1;
        int ev = -1;
        int ep = -1;
        try {
            ino = LibC.inotifyInit1(Inotify.IN_NONBLOCK | Inotify.IN_CLOEXEC);
            if (ino == -Errno.EMFILE) {
                throw Limits.INSTANCES.exception("inotify_init1", Errno.EMFILE, null);
            }
            ErrnoException.check(ino, "inotify_init1", -1, null);
            ev = (int) ErrnoException.check(LibC.eventfd(0, Fcntl.EFD_NONBLOCK | Fcntl.EFD_CLOEXEC), "eventfd", -1,
                    null);
            ep = (int) ErrnoException.check(LibC.epollCreate1(Epoll.EPOLL_CLOEXEC), "epoll_create1", -1, null);
            MemorySegment e = arena.allocate(EpollEvent.SIZE, 8);
            EpollEvent.set(e, 0, Epoll.EPOLLIN, TAG_INOTIFY);
            ErrnoException.check(LibC.epollCtl(ep, Epoll.EPOLL_CTL_ADD, ino, e), "epoll_ctl", ino, null);
            EpollEvent.set(e, 0, Epoll.EPOLLIN, TAG_WAKE);
            ErrnoException.check(LibC.epollCtl(ep, Epoll.EPOLL_CTL_ADD, ev, e), "epoll_ctl", ev, null);
            // In here too: an allocation that fails (OutOfMemoryError) must not leave the three descriptors open.
            readBuf = arena.allocate(READ_BUFFER, 8);
            ready = arena.allocate(EpollEvent.SIZE * 2, 8);
            wakeWrite = arena.allocate(8, 8);
            wakeWrite.set(ValueLayout.JAVA_LONG, 0, 1L);
            wakeRead = arena.allocate(8, 8);
            pathBuf = arena.allocate(Fcntl.PATH_MAX + 1);
            statfsBuf = arena.allocate(io.jfio.core.sys.Statfs.LAYOUT);
        } catch (IOException | RuntimeException | Error t) {
            if (ep >= 0) LibC.close(ep);
            if (ev >= 0) LibC.close(ev);
            if (ino >= 0) LibC.close(ino);
            arena.close();
            throw t;
        }
        inotifyFd = ino;
        wakeFd = ev;
        epollFd = ep;
        nextScan = System.nanoTime() + pollIntervalNanos;
    }

    // ------------------------------------------------------------------ watching

    @Override
    public void watch(Path path) throws IOException {
        Path p = path.toAbsolutePath().normalize();
        lock.lock();
        try {
            ensureOpen();
            Watch existing = byPath.get(p);
            if (existing != null && existing.root) return;
            if (polledPaths != null && polledPaths.contains(p)) return;
            String why = unsupportedReason(p);
            if (why != null) {
                pollInstead(p, false, why);
                return;
            }
            try {
                Watch w = add(p, false);
                w.root = true;
            } catch (InotifyLimitException e) {
                if (polledPaths == null) throw e;
                pollInstead(p, false, e.getMessage());
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void watchTree(Path dir) throws IOException {
        Path p = dir.toAbsolutePath().normalize();
        lock.lock();
        try {
            ensureOpen();
            Watch existing = byPath.get(p);
            if (existing != null && existing.treeRoot) return;
            if (!Files.isDirectory(p)) {
                if (!Files.exists(p)) throw new NoSuchFileException(p.toString());
                throw new NotDirectoryException(p.toString());
            }
            String why = unsupportedReason(p);
            if (why != null) {
                pollInstead(p, true, why);
                return;
            }
            List<Watch> added = new ArrayList<>();
            try {
                addTree(p, null, added, true);
                Watch w = byPath.get(p);
                if (w == null) throw new NoSuchFileException(p.toString());
                w.root = true;
                w.treeRoot = true;
                treeRoots.add(w);
            } catch (InotifyLimitException e) {
                for (Watch w : added) {
                    if (!w.root) drop(w); // only the watches this call created
                }
                if (polledPaths == null) throw e;
                pollInstead(p, true, e.getMessage());
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean unwatch(Path path) throws IOException {
        Path p = path.toAbsolutePath().normalize();
        lock.lock();
        try {
            if (closed) return false;
            if (polledPaths != null && polledPaths.remove(p)) {
                pollReasons.remove(p);
                return true;
            }
            Watch w = byPath.get(p);
            if (w == null || !w.root) return false;
            boolean wasTreeRoot = w.treeRoot;
            w.root = false;
            w.treeRoot = false;
            treeRoots.remove(w);
            if (wasTreeRoot) {
                for (Watch u : new ArrayList<>(byWd.values())) {
                    if (u != w && !u.dropping && u.path.startsWith(p) && !u.root && coveringTree(u.path) == null) {
                        drop(u);
                    }
                }
                w.tree = coveringTree(p) != null;
            }
            if (!w.tree) drop(w);
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** The caller's tree root that {@code path} lies in, if any. */
    private Watch coveringTree(Path path) {
        for (Watch t : treeRoots) {
            if (path.startsWith(t.path)) return t;
        }
        return null;
    }

    /**
     * Adds (or finds) the watch of one path. Directories below a tree root are watched with IN_ONLYDIR and
     * IN_DONT_FOLLOW: a name that became a file or a symlink in the meantime is not followed.
     */
    private Watch add(Path p, boolean subdir) throws IOException {
        if (PathBytes.put(pathBuf, p) < 0) {
            throw new ErrnoException("inotify_add_watch", Errno.ENAMETOOLONG, p.toString());
        }
        int wd = LibC.inotifyAddWatch(inotifyFd, pathBuf, MASK | (subdir ? IN_ONLYDIR | IN_DONT_FOLLOW : 0));
        if (wd < 0) {
            switch (-wd) {
                case Errno.ENOSPC -> throw Limits.WATCHES.exception("inotify_add_watch", Errno.ENOSPC, p.toString());
                case Errno.ENOENT -> throw new NoSuchFileException(p.toString());
                case Errno.ENOTDIR -> throw new NotDirectoryException(p.toString());
                case Errno.EACCES -> throw new AccessDeniedException(p.toString());
                default -> throw new ErrnoException("inotify_add_watch", -wd, inotifyFd, p.toString(),
                        ErrnoException.NONE, ErrnoException.NONE);
            }
        }
        Watch w = byWd.get(wd);
        if (w != null) {
            // The same inode again (a second path to it, or a rename we have not read yet): one watch, first path.
            return w;
        }
        w = new Watch(wd, p, subdir || Files.isDirectory(p));
        byWd.put(wd, w);
        // A watch already under this path is a stale one whose IN_IGNORED is due (the directory was replaced): the
        // new watch takes the name; the old one keeps its path for that IN_IGNORED, which then leaves byPath alone.
        byPath.put(p, w);
        return w;
    }

    /**
     * Watches {@code dir} and the directories below it, top-down: a directory is listed only after its own watch
     * exists, so an entry created meanwhile is either listed or reported by the kernel (or both). With {@code emit},
     * every entry found is reported as CREATE.
     */
    private void addTree(Path dir, List<FileEvent> emit, List<Watch> added, boolean top) throws IOException {
        ArrayDeque<Path> todo = new ArrayDeque<>();
        todo.add(dir);
        boolean first = top;
        while (!todo.isEmpty()) {
            Path d = todo.poll();
            Watch w;
            try {
                int before = byWd.size();
                w = add(d, !first);
                if (byWd.size() > before) added.add(w);
            } catch (NoSuchFileException | NotDirectoryException gone) {
                if (first) throw gone;
                continue; // removed or replaced already: its parent reports that
            } catch (AccessDeniedException denied) {
                if (first) throw denied;
                LOG.log(System.Logger.Level.WARNING, "cannot watch directory: path=" + d + " reason=EACCES");
                continue;
            }
            first = false;
            w.tree = true;
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(d)) {
                for (Path e : ds) {
                    boolean isDir = Files.isDirectory(e, LinkOption.NOFOLLOW_LINKS);
                    if (emit != null) emit.add(FileEvent.of(Kind.CREATE, d, FileNames.of(e.getFileName()), isDir));
                    if (isDir) todo.add(e);
                }
            } catch (IOException | DirectoryIteratorException gone) {
                // removed while we listed it: the kernel reports that
            }
        }
    }

    /** Removes a watch; its IN_IGNORED, still to come, makes it forgotten (and reports UNWATCHED if a root). */
    private void drop(Watch w) {
        if (w.dropping) return;
        w.dropping = true;
        treeRoots.remove(w);
        if (byPath.get(w.path) == w) byPath.remove(w.path);
        int r = LibC.inotifyRmWatch(inotifyFd, w.wd);
        if (r < 0) {
            // EINVAL: the kernel removed it already (its IN_IGNORED is queued); nothing else can fail here.
            LOG.log(System.Logger.Level.DEBUG, "inotify_rm_watch: wd=" + w.wd + " errno=" + Errno.name(-r));
        }
    }

    private void pollInstead(Path p, boolean tree, String why) throws IOException {
        if (polledPaths == null) {
            throw new IOException("inotify cannot watch this path: path=" + p + " reason=" + why
                    + " (use a watcher that polls)");
        }
        polledPaths.add(p, tree);
        pollReasons.put(p, why);
        LOG.log(System.Logger.Level.WARNING, "polling every " + TimeUnit.NANOSECONDS.toMillis(pollIntervalNanos)
                + " ms instead of inotify: path=" + p + " reason=" + why);
    }

    /** Why inotify cannot be trusted for this path's file system, or null. */
    private String unsupportedReason(Path p) {
        if (PathBytes.put(pathBuf, p) < 0) return null;
        int fd = LibC.openat(Fcntl.AT_FDCWD, pathBuf, Fcntl.O_PATH | Fcntl.O_CLOEXEC, 0);
        if (fd < 0) return null; // inotify_add_watch will say what is wrong with it
        try {
            if (LibC.fstatfs(fd, statfsBuf) < 0) return null;
            return FileWatchers.inotifyUnsupportedReason(io.jfio.core.sys.Statfs.type(statfsBuf));
        } finally {
            LibC.close(fd);
        }
    }

    // ------------------------------------------------------------------ polling

    @Override
    public List<FileEvent> poll(Duration timeout) throws IOException {
        List<FileEvent> out = new ArrayList<>();
        poll(timeout, out);
        return out;
    }

    @Override
    public int poll(Duration timeout, List<FileEvent> into) throws IOException {
        long deadline = Deadlines.after(timeout);
        lock.lock();
        try {
            ensureOpen();
            if (polling) throw new IllegalStateException("poll called from two threads at once");
            polling = true;
        } finally {
            lock.unlock();
        }
        try {
            // A zero (or already expired) timeout still takes one look: epoll_wait(0) and the reads it calls for, so a
            // caller polling with 0 between other work gets what the kernel queued meanwhile, not only what an earlier
            // call had read already.
            boolean looked = false;
            while (true) {
                long waitUntil;
                lock.lock();
                try {
                    ensureOpen();
                    if (deferred != null) {
                        IOException e = deferred;
                        deferred = null;
                        throw e;
                    }
                    if (Thread.currentThread().isInterrupted()) throw new InterruptedIOException("poll interrupted");
                    if (ring != null && ring.ownedByCurrentThread()) takeRingReadiness();
                    long now = System.nanoTime();
                    if (polledPaths != null && !polledPaths.isEmpty() && now - nextScan >= 0) {
                        polledPaths.scan(pending);
                        nextScan = now + pollIntervalNanos;
                    }
                    // Unpaired: stays a MOVED_FROM. (Skipped when empty: the lambda would be garbage per poll.)
                    if (!held.isEmpty()) held.values().removeIf(h -> now - h.deadline >= 0);
                    int readyCount = pending.size();
                    long heldUntil = Long.MAX_VALUE;
                    if (!held.isEmpty()) { // (an iterator per poll otherwise)
                        for (Held h : held.values()) {
                            readyCount = Math.min(readyCount, h.index);
                            heldUntil = Math.min(heldUntil, h.deadline - now);
                        }
                    }
                    if (readyCount > 0 || woken || (looked && now - deadline >= 0)) {
                        woken = false;
                        return take(readyCount, into);
                    }
                    waitUntil = deadline;
                    if (heldUntil != Long.MAX_VALUE && now + heldUntil - waitUntil < 0) waitUntil = now + heldUntil;
                    if (polledPaths != null && !polledPaths.isEmpty() && nextScan - waitUntil < 0) waitUntil = nextScan;
                } finally {
                    lock.unlock();
                }
                if (ring != null && ring.ownedByCurrentThread()) {
                    ringWait(waitUntil);
                    looked = true;
                    continue;
                }
                int n = LibC.epollWait(epollFd, ready, 2, Deadlines.millisUntil(waitUntil));
                if (n < 0 && n != -Errno.EINTR) ErrnoException.check(n, "epoll_wait", epollFd, null);
                if (n >= 0) looked = true;
                lock.lock();
                try {
                    for (int i = 0; i < n; i++) {
                        long tag = EpollEvent.data(ready, i);
                        if (tag == TAG_WAKE) {
                            LibC.read(wakeFd, wakeRead, 8); // resets the counter; EAGAIN if another read won
                            woken = true;
                        } else if (tag == TAG_INOTIFY && !closed) {
                            readEvents();
                        }
                    }
                } finally {
                    lock.unlock();
                }
            }
        } finally {
            lock.lock();
            try {
                polling = false;
                if (closed) release();
            } finally {
                lock.unlock();
            }
        }
    }

    @Override
    public boolean waitIn(EventRing ring) {
        lock.lock();
        try {
            if (closed) return false;
            if (ring != this.ring) {
                // A new ring: nothing is armed in it yet. (What the previous one still had armed is its owner's.)
                inotifyArmed = false;
                wakeArmed = false;
                inotifyReadable = false;
                wakeReadable = false;
                ringFilled = 0;
                ringBuf = null;
            }
            this.ring = ring;
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Sleeps in the ring until there are inotify events or the wake-up counter is readable, or {@code waitUntil}:
     * a read of the inotify descriptor (which the kernel holds until there are events: the wait and the read in one
     * request) and a poll of the counter, each armed again once it completed. Their completions may also come while
     * the polling thread waits in the ring for something else (a send); {@link #takeRingReadiness} takes them at the
     * next look either way.
     */
    private void ringWait(long waitUntil) throws IOException {
        if (!inotifyArmed) {
            if (ringReads) {
                if (ringBuf == null) ringBuf = ring.allocate(READ_BUFFER);
                ring.read(inotifyFd, ringBuf, inotifyRead);
            } else {
                ring.pollIn(inotifyFd, inotifyReady);
            }
            inotifyArmed = true;
        }
        if (!wakeArmed) {
            ring.pollIn(wakeFd, wakeReady);
            wakeArmed = true;
        }
        ring.await(Math.max(0, Math.min(waitUntil - System.nanoTime(), TimeUnit.DAYS.toNanos(1))));
    }

    /** With the lock held: handles what the ring's read brought, and reads what its polls found readable. */
    private void takeRingReadiness() throws IOException {
        if (wakeReadable) {
            wakeReadable = false;
            LibC.read(wakeFd, wakeRead, 8); // resets the counter; EAGAIN if another read won
            woken = true;
        }
        int n = ringFilled;
        if (n > 0) {
            ringFilled = 0;
            if (!closed) {
                MemorySegment.copy(ringBuf, 0, readBuf, 0, n);
                handleAll(n);
                // A full buffer: more may be queued than one read took; read on now rather than at the next wake-up.
                if (n > READ_BUFFER - InotifyEvent.MIN_BUFFER) inotifyReadable = true;
            }
        }
        if (inotifyReadable) {
            inotifyReadable = false;
            if (!closed) readEvents();
        }
    }

    /** The polling thread's ring, or null: the watcher waits in its own epoll instance. */
    private EventRing ring;
    /**
     * Whether the inotify descriptor is read through the ring; false after the kernel answered such a read with
     * EAGAIN (kernels that do not wait for a descriptor opened non-blocking) or nothing: then polled, and read
     * directly.
     */
    private boolean ringReads = true;
    /** The ring's memory the inotify read fills (it lives as long as the ring: the kernel may write to it until). */
    private MemorySegment ringBuf;
    /** Bytes of events the ring's read brought, not yet handled. */
    private int ringFilled;
    private boolean inotifyArmed;
    private boolean wakeArmed;
    private boolean inotifyReadable;
    private boolean wakeReadable;
    private final EventRing.Completion inotifyRead = r -> {
        inotifyArmed = false;
        if (r > 0) {
            ringFilled = r;
        } else if (r != -Errno.ECANCELED) {
            // Not waited for by this kernel (EAGAIN; an end of file inotify never reports), or an error: a direct
            // read says which (and takes the events), and the descriptor is polled from now on.
            if (r == -Errno.EAGAIN || r == 0) ringReads = false;
            inotifyReadable = true;
        }
    };
    private final EventRing.Completion inotifyReady = r -> {
        inotifyArmed = false;
        inotifyReadable = true; // an error too: the read says what it is
    };
    private final EventRing.Completion wakeReady = r -> {
        wakeArmed = false;
        wakeReadable = true;
    };

    /** Moves the first {@code count} pending events to {@code into}; held MOVED_FROMs behind them move up. */
    private int take(int count, List<FileEvent> into) {
        if (count == 0) return 0; // most wake-ups of a busy caller: no garbage for them
        for (int i = 0; i < count; i++) into.add(pending.get(i));
        if (count == pending.size()) {
            pending.clear();
        } else {
            pending.subList(0, count).clear();
        }
        if (!held.isEmpty()) {
            for (Held h : held.values()) h.index -= count;
        }
        return count;
    }

    private void readEvents() throws IOException {
        for (int reads = 0; reads < MAX_READS; reads++) {
            long n = LibC.read(inotifyFd, readBuf, READ_BUFFER);
            if (n == -Errno.EAGAIN) return;
            if (n == -Errno.EINTR) continue;
            ErrnoException.check(n, "read", inotifyFd, null);
            handleAll(n);
            // Room was left for the largest event: the queue was empty when the kernel filled the buffer, so a
            // second read would only say EAGAIN (one system call less per wake-up; epoll reports anything newer).
            if (n <= READ_BUFFER - InotifyEvent.MIN_BUFFER) return;
        }
    }

    /** Handles the events in the first {@code n} bytes of the read buffer. */
    private void handleAll(long n) {
        long now = System.nanoTime();
        for (long off = 0; off < n; off += InotifyEvent.recordLength(readBuf, off)) {
            handle(off, now);
        }
    }

    private void handle(long off, long now) {
        int wd = InotifyEvent.wd(readBuf, off);
        int mask = InotifyEvent.mask(readBuf, off);
        if ((mask & IN_Q_OVERFLOW) != 0) {
            overflow();
            return;
        }
        Watch w = byWd.get(wd);
        if (w == null) return; // a watch already forgotten
        if ((mask & IN_IGNORED) != 0) {
            byWd.remove(wd);
            treeRoots.remove(w);
            if (byPath.get(w.path) == w) byPath.remove(w.path);
            if (w.root) pending.add(FileEvent.of(Kind.UNWATCHED, w.path, "", w.dir));
            return;
        }
        if (w.dropping && !w.draining) return;
        boolean isDir = (mask & IN_ISDIR) != 0;
        long name = off + InotifyEvent.OFF_NAME;
        long limit = name + Integer.toUnsignedLong(InotifyEvent.len(readBuf, off));
        int nameLength = 0;
        int hash = 0;
        for (long i = name; i < limit; i++) {
            byte b = readBuf.get(ValueLayout.JAVA_BYTE, i);
            if (b == 0) break;
            hash = 31 * hash + b;
            nameLength++;
        }
        if (nameLength == 0) {
            self(w, mask);
            return;
        }
        if ((mask & (IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE)) == 0) {
            int kind = (mask & IN_MODIFY) != 0 ? 0 : (mask & IN_ATTRIB) != 0 ? 1
                    : (mask & IN_CLOSE_WRITE) != 0 ? 2 : -1;
            if (kind >= 0) pending.add(dataEvent(w, name, nameLength, hash, kind, isDir));
            return;
        }
        // Names change: rare next to data events, so they are decoded as they come. The event carries the name as a
        // string that keeps its bytes; the watcher's own paths are built from the bytes.
        byte[] nameBytes = new byte[nameLength];
        MemorySegment.copy(readBuf, ValueLayout.JAVA_BYTE, name, nameBytes, 0, nameLength);
        String decoded = FileNames.decode(nameBytes);
        int cookie = InotifyEvent.cookie(readBuf, off);
        if ((mask & IN_MOVED_FROM) != 0) {
            held.put(cookie, new Held(pending.size(), now + PAIR_WAIT_NANOS, nameBytes));
            pending.add(FileEvent.of(Kind.MOVED_FROM, w.path, decoded, isDir));
        } else if ((mask & IN_MOVED_TO) != 0) {
            movedTo(w, decoded, nameBytes, isDir, cookie);
        } else if ((mask & IN_CREATE) != 0) {
            pending.add(FileEvent.of(Kind.CREATE, w.path, decoded, isDir));
            if (isDir && w.tree) joinTree(PathBytes.resolve(w.path, nameBytes));
        } else {
            pending.add(FileEvent.of(Kind.DELETE, w.path, decoded, isDir));
        }
    }

    /**
     * The event of data kind {@code kind} (0 modify, 1 attrib, 2 close-write) for the entry named by the
     * {@code length} bytes at {@code name} of the read buffer: the one made before for the same name, watch path and
     * type when there is one (see {@link Name}).
     */
    private FileEvent dataEvent(Watch w, long name, int length, int hash, int kind, boolean isDir) {
        Names names = w.names;
        if (names == null) names = w.names = new Names();
        Name n = names.find(readBuf, name, length, hash);
        if (n == null) {
            if (nameCount >= NAMES_MAX) {
                for (Watch u : byWd.values()) u.names = null;
                nameCount = 0;
                names = w.names = new Names();
            }
            byte[] bytes = new byte[length];
            MemorySegment.copy(readBuf, ValueLayout.JAVA_BYTE, name, bytes, 0, length);
            n = new Name(bytes, hash);
            names.add(n);
            nameCount++;
        }
        int slot = kind * 2 + (isDir ? 1 : 0);
        FileEvent e = n.events[slot];
        if (e == null || e.dir() != w.path) {
            e = FileEvent.of(kind == 0 ? Kind.MODIFY : kind == 1 ? Kind.ATTRIB : Kind.CLOSE_WRITE, w.path, n.string,
                    isDir);
            n.events[slot] = e;
        }
        return e;
    }

    /** An event on a watched object itself. */
    private void self(Watch w, int mask) {
        if ((mask & IN_DELETE_SELF) != 0) {
            if (w.root) pending.add(FileEvent.of(Kind.DELETE_SELF, w.path, "", w.dir));
        } else if ((mask & IN_MOVE_SELF) != 0) {
            if (w.relocated) {
                w.relocated = false;
                if (w.root) pending.add(FileEvent.of(Kind.MOVE_SELF, w.path, "", w.dir));
            } else {
                // Moved to where we do not watch: its path, and those below it, are unknown now.
                if (w.root) pending.add(FileEvent.of(Kind.MOVE_SELF, w.path, "", w.dir));
                Path old = w.path;
                for (Watch u : new ArrayList<>(byWd.values())) {
                    if (u != w && !u.root && u.path.startsWith(old)) drop(u);
                }
                drop(w);
            }
        } else if (w.root || !w.dir) {
            Kind k = (mask & IN_MODIFY) != 0 ? Kind.MODIFY
                    : (mask & IN_ATTRIB) != 0 ? Kind.ATTRIB
                    : (mask & IN_CLOSE_WRITE) != 0 ? Kind.CLOSE_WRITE : null;
            if (k != null) pending.add(FileEvent.of(k, w.path, "", w.dir));
        }
    }

    private void movedTo(Watch w, String name, byte[] nameBytes, boolean isDir, int cookie) {
        Held h = held.remove(cookie);
        if (h == null) {
            pending.add(FileEvent.of(Kind.MOVED_TO, w.path, name, isDir));
            if (isDir && w.tree) joinTree(PathBytes.resolve(w.path, nameBytes));
            return;
        }
        Path from = PathBytes.resolve(pending.get(h.index).dir(), h.name);
        pending.set(h.index, new FileEvent(Kind.MOVED, w.path, name, isDir, from));
        if (isDir) relocate(from, PathBytes.resolve(w.path, nameBytes), w.tree);
    }

    /** A directory renamed from {@code from} to {@code to}, both in watched directories: its watches follow. */
    private void relocate(Path from, Path to, boolean intoTree) {
        Watch top = byPath.get(from);
        if (top == null || top.dropping) {
            if (intoTree) joinTree(to);
            return;
        }
        boolean wasTree = top.tree;
        for (Watch u : new ArrayList<>(byWd.values())) {
            if (u.dropping || !u.path.startsWith(from)) continue;
            if (intoTree || u.root) {
                if (byPath.get(u.path) == u) byPath.remove(u.path);
                u.path = to.resolve(from.relativize(u.path));
                byPath.put(u.path, u);
                u.tree = intoTree || u.treeRoot;
                if (u == top) u.relocated = true;
            } else {
                drop(u);
            }
        }
        if (intoTree && !wasTree) joinTree(to); // its subdirectories were not watched: watch and report them
    }

    /** A directory that became part of a tree: watch it and what is below it, and report what is in it. */
    private void joinTree(Path dir) {
        try {
            addTree(dir, pending, new ArrayList<>(), false);
        } catch (InotifyLimitException e) {
            Watch root = coveringTree(dir);
            if (polledPaths == null || root == null) {
                if (deferred == null) deferred = e;
                return;
            }
            demote(root, e.getMessage());
            reportContents(dir);
        } catch (IOException e) {
            if (deferred == null) deferred = e;
        }
    }

    /**
     * Moves a whole tree from inotify to polling (its watches ran out). The polling baseline is taken now; what
     * happened before it is reported by the events already queued for the old watches, read until their IN_IGNORED.
     */
    private void demote(Watch root, String why) {
        Path p = root.path;
        for (Watch u : new ArrayList<>(byWd.values())) {
            if (!u.dropping && u.path.startsWith(p) && (u == root || !u.root)) {
                if (u == root) {
                    u.root = false;
                    u.treeRoot = false;
                }
                u.tree = false;
                u.draining = true;
                drop(u);
            }
        }
        try {
            pollInstead(p, true, why);
        } catch (IOException e) {
            if (deferred == null) deferred = e;
        }
    }

    /**
     * Reports as CREATE what is in a directory (and below it) whose watch could not be added before the tree moved to
     * polling: it was filled before the polling baseline, and no watch saw it.
     */
    private void reportContents(Path dir) {
        ArrayDeque<Path> todo = new ArrayDeque<>();
        todo.add(dir);
        while (!todo.isEmpty()) {
            Path d = todo.poll();
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(d)) {
                for (Path e : ds) {
                    boolean isDir = Files.isDirectory(e, LinkOption.NOFOLLOW_LINKS);
                    pending.add(FileEvent.of(Kind.CREATE, d, e.getFileName().toString(), isDir));
                    if (isDir) todo.add(e);
                }
            } catch (IOException | DirectoryIteratorException gone) {
                // removed meanwhile: nothing to report
            }
        }
    }

    /**
     * The queue overflowed: events are lost, renames among them, so unpaired MOVED_FROMs are reported as they are;
     * directories created in the lost events are found by walking the trees again and get their watches.
     */
    private void overflow() {
        held.clear();
        pending.add(FileEvent.of(Kind.OVERFLOW, null, "", false));
        for (Watch t : new ArrayList<>(treeRoots)) {
            if (t.dropping) continue; // demoted while an earlier tree was walked
            ArrayDeque<Path> todo = new ArrayDeque<>();
            todo.add(t.path);
            while (!todo.isEmpty()) {
                Path d = todo.poll();
                try (DirectoryStream<Path> ds = Files.newDirectoryStream(d)) {
                    for (Path e : ds) {
                        if (!Files.isDirectory(e, LinkOption.NOFOLLOW_LINKS)) continue;
                        if (!byPath.containsKey(e)) {
                            try {
                                add(e, true).tree = true;
                            } catch (InotifyLimitException limit) {
                                if (polledPaths != null) {
                                    demote(t, limit.getMessage());
                                    todo.clear();
                                    break;
                                }
                                // No fallback: poll throws this next. Every further directory would fail the same
                                // way (and read the limits from /proc again for its exception), so stop the walk.
                                if (deferred == null) deferred = limit;
                                return;
                            } catch (IOException gone) {
                                continue;
                            }
                        }
                        todo.add(e);
                    }
                } catch (IOException | DirectoryIteratorException gone) {
                    // removed meanwhile
                }
            }
        }
    }

    // ------------------------------------------------------------------ lifecycle

    @Override
    public void wakeup() {
        lock.lock();
        try {
            if (closed) return;
            LibC.write(wakeFd, wakeWrite, 8); // EAGAIN only when the counter is near 2^64: a wake-up is due anyway
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() {
        lock.lock();
        try {
            if (closed) return;
            closed = true;
            if (!polling) {
                release();
                return;
            }
            LibC.write(wakeFd, wakeWrite, 8);
            boolean interrupted = false;
            while (!released) {
                try {
                    releasedCond.await();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) Thread.currentThread().interrupt();
        } finally {
            lock.unlock();
        }
    }

    /** Closes the descriptors; called with the lock held, once no thread is in epoll_wait. */
    private void release() {
        if (released) return;
        released = true;
        LibC.close(epollFd);
        LibC.close(wakeFd);
        LibC.close(inotifyFd); // removes every watch with it
        arena.close();
        byWd.clear();
        byPath.clear();
        treeRoots.clear();
        releasedCond.signalAll();
    }

    private void ensureOpen() throws WatcherClosedException {
        if (closed) throw new WatcherClosedException("inotify");
    }

    @Override
    public String mechanism() {
        return "inotify";
    }

    @Override
    public Map<Path, String> polled() {
        lock.lock();
        try {
            return Collections.unmodifiableMap(new LinkedHashMap<>(pollReasons));
        } finally {
            lock.unlock();
        }
    }

    /**
     * How many inotify watches this watcher holds now (one per watched directory or file).
     *
     * @return the number of watches
     */
    public int watchCount() {
        lock.lock();
        try {
            return (int) byWd.values().stream().filter(w -> !w.dropping).count();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "InotifyWatcher[fd=" + inotifyFd + " watches=" + byWd.size() + "]";
    }
}
