package io.jfio.core.copy;

import io.jfio.core.sys.Errno;
import io.jfio.core.sys.ErrnoException;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import io.jfio.core.sys.PathBytes;
import io.jfio.core.sys.Platform;
import io.jfio.core.sys.Statfs;
import io.jfio.core.sys.Statx;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Copies files and directory trees like {@code cp}, as fast as the storage allows and exactly: {@code cp}'s meaning
 * of sources and target, {@code cp -a}'s attributes, atomic file replacement, and resumable runs.
 *
 * <p>Thread-safe: {@link #run()} once, from one thread; {@link #progress()} and {@link #cancel()} from any thread,
 * at any time.
 *
 * <h2>How it works</h2>
 * <ul>
 *   <li>Worker threads (platform threads: every system call here may block, and a virtual thread would pin its
 *       carrier in a native call) take tasks from shared queues: directory listings, batches of up to
 *       {@value Copier#BATCH_ENTRIES} entries of one directory, parts of large files. Listings go first while
 *       fewer than {@value Work#ENTRY_HIGH_WATER} entries wait, so totals are known early and memory stays
 *       bounded. The worker that lists a directory copies its first batch itself, with the directory descriptors
 *       the listing opened and verified.</li>
 *   <li>Regular files: the data goes by reflink (FICLONE) where the file system can, else copy_file_range (the
 *       kernel copies; no bytes cross into Java), else io_uring reads and writes, else pread/pwrite; what fails
 *       between two devices is remembered, so only their first file pays. Holes are found with
 *       SEEK_DATA/SEEK_HOLE and kept. Files from {@link CopyOptions#splitThreshold()} up are split across
 *       workers, unless at least half of one is in the page cache (cachestat(2)): its parts would only take turns
 *       on the target's inode lock, so it is copied in one piece.</li>
 *   <li>Atomic: a file is written unnamed ({@code O_TMPFILE}; else under {@code .jfio-PID-N.part}), gets its
 *       attributes, and only then its name ({@code linkat} or {@code rename}). A killed copy leaves no partial
 *       file under a final name; running it again skips what is complete (same size and mtime) and removes stale
 *       temporary files of dead runs.</li>
 *   <li>Directories get their attributes after everything inside them (their mtime, and a read-only mode, would
 *       not survive the copy otherwise).</li>
 *   <li>Parallelism: {@link CopyOptions#jobs()} workers when given; else adaptive: one worker per CPU to begin
 *       with, and one more per CPU every {@value #ADAPT_MILLIS} ms while work is queued and the CPUs are idle or
 *       waiting for I/O at least {@value #ADAPT_IDLE_PERCENT}% of the time, up to {@value #JOBS_PER_CORE} per CPU (a
 *       copy from the page cache is fastest with few threads, one from disk with many requests in flight); never
 *       more than RLIMIT_NOFILE allows. Sequential (one worker, no split files) where a source or the target device
 *       reports {@code queue/rotational = 1} (virtual disks excepted: their flag is a default), unless
 *       {@link CopyOptions#sequential()} says otherwise or jobs are given.</li>
 * </ul>
 *
 * <p>Per-entry problems (EACCES, ENOSPC, a file vanishing, a pseudo file system) are reported to the
 * {@link CopyListener} and in the {@link CopyResult}; the rest of the copy goes on. Problems with the request
 * itself (several sources and a target that is not a directory) throw {@link IllegalArgumentException} before
 * anything is copied.
 */
public final class TreeCopy {
    /** At most this many failures are kept in {@link CopyResult#failures()} (all are counted and reported). */
    public static final int MAX_FAILURES_KEPT = 10_000;
    /** At most this many workers per CPU by default (adaptive parallelism starts with one). */
    public static final int JOBS_PER_CORE = 8;
    /**
     * System property: {@code false} makes the copy write every file under a temporary name and rename it, rather
     * than writing it unnamed ({@code O_TMPFILE}) and linking it. For measurements and for file systems where
     * O_TMPFILE is slow.
     */
    public static final String TMPFILE_PROP = "jfio.copy.tmpfile";
    /** The default of {@link #TMPFILE_PROP}: files are written unnamed and linked. */
    public static final boolean TMPFILE_DEFAULT = true;
    /**
     * System property, the default of {@link CopyOptions#buildAside()}: {@code true} makes the copy build each
     * directory it creates where it would be seen (the top-level target, a new directory in an existing one) under a
     * temporary name next to it
     * ({@code .NAME.jfio-HEX}, mode 0700), create the files inside directly under their names (no O_TMPFILE, no
     * linkat), and rename the directory into place once everything in it is complete. Files written into
     * directories that existed keep the unnamed-file path.
     */
    public static final String ASIDE_PROP = "jfio.copy.aside";
    /** The default of {@link #ASIDE_PROP}. */
    public static final boolean ASIDE_DEFAULT = false;
    /** How often adaptive parallelism looks at the CPUs. */
    static final int ADAPT_MILLIS = 40;
    /** Idle (or waiting for I/O) CPU share from which adaptive parallelism adds workers. */
    static final int ADAPT_IDLE_PERCENT = 25;
    /**
     * Descriptors one worker may hold at once: the source and target directories of the entries it copies, the
     * source and target files, a spare (a directory being listed or finished, a hard link's first name's directory).
     */
    static final int FDS_PER_WORKER = 5;
    /** {@code -Djfio.copy.readAhead=false}: workers do not open a batch's small files ahead ({@link Copier}). */
    static final String READ_AHEAD_PROP = "jfio.copy.readAhead";

    private final List<Path> sources;
    private final Path target;
    private final CopyContext ctx;
    private final AtomicBoolean started = new AtomicBoolean();
    /**
     * The directories the top-level targets go into, open ({@code O_PATH}) for the whole run, by path (ISO-8859-1,
     * one char per byte): every target below is opened beneath one of them.
     */
    private final Map<String, Integer> rootFds = new LinkedHashMap<>();
    /**
     * The top-level source directories, open ({@code O_PATH}) for the whole run: every source directory below is
     * opened beneath one of them.
     */
    private final List<Integer> sourceFds = new ArrayList<>();
    /** {@code --parents}: the directories created on the way to the copies. */
    private final ParentDirs parentDirs;
    /** {@code --parents}: the target directory, open ({@code O_PATH}) while the copy runs; -1 before. */
    private int parentsTargetFd = -1;

    private TreeCopy(List<Path> sources, Path target, CopyOptions options, CopyListener listener) {
        this.sources = List.copyOf(sources);
        this.target = target;
        this.ctx = new CopyContext(options, listener);
        this.parentDirs = new ParentDirs(ctx);
        ctx.buildAside = options.buildAside();
    }

    /**
     * A copy of {@code sources} to {@code target}, with {@code cp}'s meaning: several sources (or a target that is
     * an existing directory) are copied into {@code target}; one source to a target that is not a directory is
     * copied as {@code target}.
     *
     * @param sources the files, directories or symlinks to copy; at least one
     * @param target where to copy them
     * @param options what to copy and how
     * @param listener told about each entry, failure and notice; null for none
     * @return the copy, not started; {@link #run()} starts it
     * @throws IllegalArgumentException if there is no source
     */
    public static TreeCopy of(List<Path> sources, Path target, CopyOptions options, CopyListener listener) {
        Platform.requireSupported();
        if (sources.isEmpty()) throw new IllegalArgumentException("no source to copy: target=" + target);
        return new TreeCopy(sources, target, options, listener == null ? CopyListener.NONE : listener);
    }

    /**
     * Copies everything; returns when all is done, failed, or cancelled.
     *
     * @return what was copied, skipped and failed
     * @throws IllegalArgumentException when the request cannot be carried out at all (several sources and the
     *                                  target is not a directory)
     * @throws IllegalStateException    when {@link CopyMethod#URING} is forced and io_uring is unavailable
     */
    public CopyResult run() {
        if (!started.compareAndSet(false, true)) throw new IllegalStateException("a TreeCopy runs once");
        try {
            List<Work.Task> roots = new ArrayList<>();
            List<Long> devices = new ArrayList<>();
            prepare(roots, devices);
            choose(devices);
            for (Work.Task t : roots) {
                if (t instanceof Copier.ListDir) {
                    ctx.submitDir(t);
                } else {
                    ctx.work.submitBatch(t);
                }
            }
            ctx.rootsSubmitted();
            if (runWorkers()) Thread.currentThread().interrupt();
            // After a cancel, tasks that never ran may hold descriptors (parts of a split file): release them here.
            List<Work.Task> left = ctx.work.drain();
            if (!left.isEmpty()) {
                try (Copier c = new Copier(ctx)) {
                    for (Work.Task t : left) t.abandon(c);
                }
            }
            if (!ctx.cancelled && !ctx.options.dryRun()) {
                try (Copier c = new Copier(ctx)) {
                    parentDirs.finish(c);
                }
            }
            if (ctx.cancelled && !ctx.asideDirs.isEmpty()) {
                try (Copier c = new Copier(ctx)) {
                    c.placeCancelled();
                }
            }
            if (ctx.options.fsync() && !ctx.cancelled) syncRoots();
        } finally {
            parentDirs.close();
            if (parentsTargetFd >= 0) LibC.close(parentsTargetFd);
            for (int fd : rootFds.values()) LibC.close(fd);
            for (int fd : sourceFds) LibC.close(fd);
            ctx.closeEngine();
        }
        return result();
    }

    /**
     * Starts the workers and waits for them. With adaptive parallelism it starts one per CPU and, every
     * {@value #ADAPT_MILLIS} ms while work is queued, adds one per CPU as long as the CPUs are idle or waiting for
     * the disk at least {@value #ADAPT_IDLE_PERCENT}% of the time, up to the maximum: a copy from the page cache
     * keeps the CPUs busy with few threads (more only add contention), a copy from disk needs many requests in
     * flight.
     *
     * @return true if this thread was interrupted (and the copy cancelled)
     */
    private boolean runWorkers() {
        List<Thread> workers = new ArrayList<>();
        int cores = Runtime.getRuntime().availableProcessors();
        int target = ctx.adaptive ? Math.min(ctx.jobs, cores) : ctx.jobs;
        for (int i = 0; i < target; i++) workers.add(startWorker(i));
        CpuIdle idle = ctx.adaptive ? new CpuIdle() : null;
        boolean interrupted = false;
        int next = 0;
        while (next < workers.size()) {
            Thread w = workers.get(next);
            try {
                w.join(idle != null && workers.size() < ctx.jobs ? ADAPT_MILLIS : 0);
            } catch (InterruptedException e) {
                interrupted = true;
                cancel();
                continue;
            }
            if (!w.isAlive()) {
                next++;
                continue;
            }
            if (idle != null && idle.percent() >= ADAPT_IDLE_PERCENT && ctx.work.hasQueued() && !ctx.cancelled) {
                int add = Math.min(cores, ctx.jobs - workers.size());
                for (int i = 0; i < add; i++) workers.add(startWorker(workers.size()));
                ctx.workersStarted = workers.size();
            }
        }
        if (ctx.adaptive) ctx.listener.onNotice("workers_started=" + workers.size());
        return interrupted;
    }

    private Thread startWorker(int i) {
        return Thread.ofPlatform().name("jfio-copy-" + i).daemon(true).start(this::work);
    }

    /** How idle the CPUs were since the last call (idle and iowait time from /proc/stat), in percent. */
    private static final class CpuIdle {
        private long idle = -1;
        private long total;

        int percent() {
            long[] t = read();
            if (t == null) return 0;
            long di = t[0] - idle;
            long dt = t[1] - total;
            boolean first = idle < 0;
            idle = t[0];
            total = t[1];
            return first || dt <= 0 ? 0 : (int) (100 * di / dt);
        }

        private static long[] read() {
            try (var r = Files.newBufferedReader(Path.of("/proc/stat"))) {
                String[] f = r.readLine().trim().split("\\s+");
                if (!f[0].equals("cpu") || f.length < 6) return null;
                long sum = 0;
                for (int i = 1; i < Math.min(f.length, 9); i++) sum += Long.parseLong(f[i]);
                return new long[] {Long.parseLong(f[4]) + Long.parseLong(f[5]), sum};
            } catch (IOException | RuntimeException e) {
                return null;
            }
        }
    }

    private void work() {
        try (Copier c = new Copier(ctx)) {
            while (true) {
                Work.Task t;
                try {
                    t = ctx.work.take();
                } catch (InterruptedException e) {
                    cancel();
                    return;
                }
                if (t == null) return;
                try {
                    t.run(c);
                } catch (RuntimeException | Error e) {
                    ctx.fail(null, null, "internal error: " + e, 0);
                } finally {
                    ctx.work.done();
                }
            }
        }
    }

    /** Stops the copy: workers finish the system call they are in and leave; nothing partial gets a final name. */
    public void cancel() {
        ctx.cancelled = true;
        ctx.work.cancel();
    }

    /**
     * What has been done so far.
     *
     * @return a snapshot of the counters
     */
    public CopyProgress progress() {
        return new CopyProgress(ctx.filesFound.sum(), ctx.bytesFound.sum(), ctx.walkComplete, ctx.entriesDone.sum(),
                ctx.bytesAccounted.sum(), ctx.bytesWritten.sum(), ctx.failureCount.get(),
                System.nanoTime() - ctx.startNanos);
    }

    /**
     * Worker threads the copy uses (known once {@link #run()} has started them; 0 before).
     *
     * @return the number of workers
     */
    public int jobs() {
        return started.get() ? ctx.workersStarted : 0;
    }

    private CopyResult result() {
        // A dry run writes nothing: its result counts the bytes the copy would write.
        long bytes = ctx.options.dryRun() ? ctx.bytesWouldWrite.sum() : ctx.bytesWritten.sum();
        return new CopyResult(ctx.files.sum(), bytes, ctx.directories.sum(), ctx.symlinks.sum(),
                ctx.specials.sum(), ctx.hardLinks.sum(), ctx.skipped.sum(), ctx.failures(), ctx.failureCount.get(),
                Duration.ofNanos(System.nanoTime() - ctx.startNanos), ctx.cancelled);
    }

    // ================================================================== the sources and the target

    /** With --fsync: the directories that got the new top-level names are synced too, so the names survive. */
    private void syncRoots() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment dot = a.allocateFrom(".");
            for (Map.Entry<String, Integer> root : rootFds.entrySet()) {
                int fd = LibC.openat(root.getValue(), dot, Fcntl.O_RDONLY | Fcntl.O_DIRECTORY | Fcntl.O_CLOEXEC, 0);
                int r = fd < 0 ? fd : LibC.fsync(fd);
                if (fd >= 0) LibC.close(fd);
                if (r < 0) {
                    byte[] path = root.getKey().getBytes(StandardCharsets.ISO_8859_1);
                    ctx.fail(null, path, "fsync (target directory)", r, path);
                }
            }
        }
    }

    private void prepare(List<Work.Task> roots, List<Long> devices) {
        CopyOptions o = ctx.options;
        boolean tmpfile = Boolean.parseBoolean(System.getProperty(TMPFILE_PROP, Boolean.toString(TMPFILE_DEFAULT)));
        // AT_EMPTY_PATH names the descriptor itself (it needs CAP_DAC_READ_SEARCH: root); /proc/self/fd/N works for
        // anyone but costs a walk through procfs per file.
        ctx.tmpfileLinkMode = !tmpfile ? 2 : ctx.euid == 0 ? 1 : Files.isDirectory(Path.of("/proc/self/fd")) ? 0 : 2;
        byte[] tgt = PathBytes.bytes(target);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment path = a.allocate(Fcntl.PATH_MAX + 1);
            MemorySegment sx = a.allocate(Statx.LAYOUT);
            if (PathBytes.put(path, tgt) < 0) {
                throw new IllegalArgumentException("target path too long: target=" + target);
            }
            int tr = LibC.statx(Fcntl.AT_FDCWD, path, 0, Meta.MASK, sx);
            boolean isDir = tr == 0 && (Statx.mode(sx) & Fcntl.S_IFMT) == Fcntl.S_IFDIR;
            boolean intoDir = isDir && !o.noTargetDirectory();
            if (o.noTargetDirectory() && sources.size() > 1) {
                throw new IllegalArgumentException("no_target_directory takes one source: target=" + target
                        + " sources=" + sources.size());
            }
            if (o.parents() && !intoDir) {
                throw new IllegalArgumentException("--parents copies into a directory: " + (tr == 0 ? "target is "
                        + "not a directory" : "target directory does not exist") + ": target=" + target);
            }
            if (sources.size() > 1 && !intoDir) {
                throw new IllegalArgumentException((tr == 0 ? "target is not a directory" : "target directory does "
                        + "not exist") + ": target=" + target + " sources=" + sources.size());
            }
            boolean trailingSlash = tgt.length > 1 && tgt[tgt.length - 1] == '/';
            // Top-level targets so far (the target's bytes as ISO-8859-1) and whether each is a directory.
            Map<String, Boolean> tops = new HashMap<>();
            for (Path source : sources) {
                byte[] src = PathBytes.bytes(source);
                if (PathBytes.put(path, src) < 0) {
                    ctx.fail(src, null, new ErrnoException("statx", Errno.ENAMETOOLONG, source.toString()));
                    continue;
                }
                boolean follow = o.dereference() != CopyOptions.Dereference.NEVER;
                int r = LibC.statx(Fcntl.AT_FDCWD, path, follow ? 0 : Fcntl.AT_SYMLINK_NOFOLLOW, Meta.MASK, sx);
                if (r < 0) {
                    ctx.fail(src, null, "statx", r, src);
                    continue;
                }
                Meta m = Meta.of(sx);
                // An interrupted "copy src as tgt" left tgt with a marker for this source: finish it, rather than
                // starting a copy inside it as cp would.
                boolean resume = intoDir && m.isDirectory() && sources.size() == 1 && ResumeMarker.matches(tgt, m);
                if (resume) {
                    ctx.listener.onNotice("resuming an interrupted copy: target=" + target + " marker="
                            + ResumeMarker.NAME);
                }
                byte[] name = targetName(src);
                byte[] dst = intoDir && !resume && name != null ? PathBytes.join(tgt, name) : tgt;
                int parentFd = -1; // --parents: the directory dst goes into, opened beneath the target directory
                if (o.parents()) {
                    byte[] rel = ParentDirs.relative(src);
                    if (rel == null) {
                        ctx.fail(src, tgt, "--parents refuses a source name with '..' or none: the copy would not "
                                + "be inside the target directory: source=" + source, Errno.EINVAL);
                        continue;
                    }
                    dst = PathBytes.join(tgt, rel);
                    parentFd = parentDirs.open(targetFd(tgt, a), tgt, src, rel, a);
                    if (parentFd == -1) continue;
                }
                if (sameTargetAsEarlier(tops, src, dst, m)) continue;
                if (m.isDirectory()) {
                    if (!o.recursive()) {
                        ctx.fail(src, dst, "omitting directory: -r not given: source=" + source, Errno.EISDIR);
                        continue;
                    }
                    if (intoItself(source, m, dst)) continue;
                } else {
                    if (!intoDir && trailingSlash) {
                        ctx.fail(src, dst, new ErrnoException("copy to a directory", Errno.ENOTDIR, target.toString()));
                        continue;
                    }
                    if (refusePseudo(path, follow, src, dst)) continue;
                }
                DirNode standIn;
                if (parentFd == -2) {
                    // dry run: the directory dst goes into would be created, so nothing is there yet
                    standIn = new DirNode(null, dirname(src), dirname(dst), null);
                    standIn.fresh = true;
                } else {
                    if (parentFd >= 0 && rootFds.putIfAbsent(new String(dirname(dst), StandardCharsets.ISO_8859_1),
                            parentFd) != null) {
                        LibC.close(parentFd);
                    }
                    standIn = standIn(src, dst, m.isDirectory(), a);
                    if (standIn == null) continue;
                }
                standIn.topSrc = src;
                standIn.topDst = dst;
                devices.add(m.dev());
                devices.add(standIn.dstDev);
                if (m.isDirectory()) {
                    DirNode top = new DirNode(standIn, stripSlashes(src), stripSlashes(dst), m);
                    top.srcTopFd = openSourceTop(path, follow, m, src, dst, a);
                    if (top.srcTopFd < 0) continue;
                    roots.add(new Copier.ListDir(top));
                } else {
                    ctx.filesFound.increment();
                    if (m.isRegular()) ctx.bytesFound.add(m.size());
                    roots.add(new Copier.Batch(List.of(new Entry(standIn, PathBytes.lastComponent(src),
                            PathBytes.lastComponent(dst), m))));
                }
            }
        }
    }

    /**
     * Refuses a source whose target another source given before it already has ({@code a/x b/x DIR}): copied in
     * parallel, the two would land in no defined order. For a file cp refuses the later one the same way; two
     * directories cp would merge one after the other, which a parallel copy does not do, so they are refused too,
     * and nothing of the later source is copied. True when refused (and reported).
     */
    private boolean sameTargetAsEarlier(Map<String, Boolean> tops, byte[] src, byte[] dst, Meta m) {
        String key = new String(stripSlashes(dst), StandardCharsets.ISO_8859_1);
        Boolean dir = tops.putIfAbsent(key, m.isDirectory());
        if (dir == null) return false;
        if (dir && m.isDirectory()) {
            ctx.fail(src, dst, "will not merge " + Names.show(src) + " into " + Names.show(dst)
                    + ", which a source given before it is copied to: name them in two commands", Errno.EEXIST);
        } else {
            ctx.fail(src, dst, "will not overwrite just-created " + Names.show(dst) + " with " + Names.show(src),
                    Errno.EEXIST);
        }
        return true;
    }

    /** The target directory, open ({@code O_PATH}, followed like cp follows it) for {@code --parents}. */
    private int targetFd(byte[] tgt, Arena a) {
        if (parentsTargetFd >= 0) return parentsTargetFd;
        MemorySegment path = a.allocate(Fcntl.PATH_MAX + 1);
        PathBytes.put(path, tgt);
        parentsTargetFd = LibC.openat(Fcntl.AT_FDCWD, path, Fcntl.O_PATH | Fcntl.O_DIRECTORY | Fcntl.O_CLOEXEC, 0);
        return parentsTargetFd;
    }

    /**
     * Opens a top-level source directory ({@code O_PATH}, following a symlink where {@code follow}, as cp does with
     * its arguments) and checks it is the one statx saw as {@code m}; -1 after reporting.
     */
    private int openSourceTop(MemorySegment path, boolean follow, Meta m, byte[] src, byte[] dst, Arena a) {
        int fd = LibC.openat(Fcntl.AT_FDCWD, path, Fcntl.O_PATH | Fcntl.O_DIRECTORY | Fcntl.O_CLOEXEC
                | (follow ? 0 : Fcntl.O_NOFOLLOW), 0);
        if (fd < 0) {
            ctx.fail(src, dst, "open (source directory)", fd, src);
            return -1;
        }
        sourceFds.add(fd);
        MemorySegment sx = a.allocate(Statx.LAYOUT);
        int r = LibC.statx(fd, a.allocateFrom(""), Fcntl.AT_EMPTY_PATH, Statx.STATX_INO, sx);
        if (r < 0) {
            ctx.fail(src, dst, "statx (source directory)", r, src);
            return -1;
        }
        if (Statx.dev(sx) != m.dev() || Statx.ino(sx) != m.ino()) {
            ctx.fail(src, dst, DirFds.SOURCE_REPLACED + ": path=" + Names.show(src), 0);
            return -1;
        }
        return fd;
    }

    /** The name a source gets inside a target directory: its last component ("." and ".." by their real name). */
    /**
     * The name a source gets inside a target directory: its last component; null for a source named {@code .} or
     * {@code ..} ({@code SRC/.}), whose contents go into the target directory itself, as with cp.
     */
    private static byte[] targetName(byte[] src) {
        byte[] last = PathBytes.lastComponent(src);
        if (Arrays.equals(last, new byte[] {'.', '.'}) || Arrays.equals(last, new byte[] {'.'})) return null;
        return last;
    }

    private static byte[] stripSlashes(byte[] p) {
        int end = p.length;
        while (end > 1 && p[end - 1] == '/') end--;
        return Arrays.copyOf(p, end);
    }

    private static byte[] dirname(byte[] p) {
        byte[] s = stripSlashes(p);
        int i = s.length - 1;
        while (i >= 0 && s[i] != '/') i--;
        if (i < 0) return new byte[] {'.'};
        while (i > 0 && s[i - 1] == '/') i--;
        return i == 0 ? new byte[] {'/'} : Arrays.copyOf(s, i);
    }

    /**
     * The stand-in parent of a top-level entry: the directories that hold the source and the target, with what
     * new entries in the target directory will look like. Null after reporting that the target directory is
     * missing.
     */
    private DirNode standIn(byte[] src, byte[] dst, boolean dir, Arena a) {
        byte[] dstDir = dirname(dst);
        DirNode n = new DirNode(null, dir ? dirname(src) : dirname(src), dstDir, null);
        MemorySegment path = a.allocate(Fcntl.PATH_MAX + 1);
        MemorySegment sx = a.allocate(Statx.LAYOUT);
        if (PathBytes.put(path, dstDir) < 0) {
            ctx.fail(src, dst, new ErrnoException("statx", Errno.ENAMETOOLONG, Names.show(dstDir)));
            return null;
        }
        // The directory the user named is followed, like cp; nothing below it will be.
        String key = new String(dstDir, StandardCharsets.ISO_8859_1);
        Integer known = rootFds.get(key);
        int fd = known != null ? known : LibC.openat(Fcntl.AT_FDCWD, path, Fcntl.O_PATH | Fcntl.O_CLOEXEC, 0);
        if (fd < 0) {
            ctx.fail(src, dst, "open (target directory)", fd, dstDir);
            return null;
        }
        if (known == null) rootFds.put(key, fd);
        int r = LibC.statx(fd, a.allocateFrom(""), Fcntl.AT_EMPTY_PATH, Meta.MASK, sx);
        if (r < 0) {
            ctx.fail(src, dst, "statx (target directory)", r, dstDir);
            return null;
        }
        if ((Statx.mode(sx) & Fcntl.S_IFMT) != Fcntl.S_IFDIR) {
            ctx.fail(src, dst, new ErrnoException("statx (target directory)", Errno.ENOTDIR, Names.show(dstDir)));
            return null;
        }
        n.rootFd = fd;
        n.dstIno = Statx.ino(sx);
        n.dstUid = Statx.uid(sx);
        n.fresh = false;
        n.dstDev = Statx.dev(sx);
        n.setgid = (Statx.mode(sx) & Fcntl.S_ISGID) != 0;
        n.newGid = n.setgid ? Statx.gid(sx) : ctx.egid;
        MemorySegment name = a.allocateFrom("system.posix_acl_default");
        n.defaultAcl = LibC.lgetxattr(path, name, MemorySegment.NULL, 0) > 0;
        return n;
    }

    /** True (after reporting) when the target lies inside the source directory. */
    private boolean intoItself(Path source, Meta m, byte[] dst) {
        // By its bytes: a name that does not decode, made a string, would name another path (or none), and the
        // check would pass a target that is inside the source.
        byte[] abs = dst.length > 0 && dst[0] == '/' ? dst
                : PathBytes.join(PathBytes.bytes(Path.of("").toAbsolutePath()), dst);
        Path p = PathBytes.path(abs);
        while (p != null && !Files.exists(p, LinkOption.NOFOLLOW_LINKS)) p = p.getParent();
        if (p == null) return false;
        try {
            for (Path q = p.toRealPath(); q != null; q = q.getParent()) {
                long dev = ((Number) Files.getAttribute(q, "unix:dev")).longValue();
                long ino = ((Number) Files.getAttribute(q, "unix:ino")).longValue();
                if (dev == m.dev() && ino == m.ino()) {
                    ctx.fail(PathBytes.bytes(source), dst, "cannot copy a directory into itself: source=" + source
                            + " target=" + Names.show(dst), Errno.EINVAL);
                    return true;
                }
            }
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return false;
        }
        return false;
    }

    /** Refuses a top-level source on procfs, sysfs and the like; true when refused (and reported). */
    private boolean refusePseudo(MemorySegment path, boolean follow, byte[] src, byte[] dst) {
        int fd = LibC.openat(Fcntl.AT_FDCWD, path, Fcntl.O_PATH | Fcntl.O_CLOEXEC | (follow ? 0 : Fcntl.O_NOFOLLOW),
                0);
        if (fd < 0) return false; // the copy itself will report why it cannot open it
        try (Arena a = Arena.ofConfined()) {
            MemorySegment sf = a.allocate(Statfs.LAYOUT);
            if (LibC.fstatfs(fd, sf) != 0) return false;
            long magic = Statfs.type(sf);
            if (!Statfs.isPseudo(magic)) return false;
            ctx.fail(src, dst, "refusing to copy from a pseudo file system: path=" + Names.show(src)
                    + " file_system=" + Statfs.name(magic) + " reason=its files' sizes do not describe their "
                    + "content", 0);
            return true;
        } finally {
            LibC.close(fd);
        }
    }

    // ================================================================== parallelism

    private void choose(List<Long> devices) {
        CopyOptions o = ctx.options;
        if (o.method() == CopyMethod.URING && ctx.uringEngine() == null) {
            throw new IllegalStateException("method=uring needs io_uring: reason=" + ctx.uringUnavailable());
        }
        String why;
        boolean sequential;
        if (o.sequential() != null) {
            sequential = o.sequential();
            why = sequential ? "sequential requested" : "parallel requested";
        } else {
            List<String> spinning = new ArrayList<>();
            List<String> seen = new ArrayList<>();
            for (long dev : devices) {
                Storage.Rotation r = Storage.rotation(dev);
                if (!seen.contains(r.detail())) seen.add(r.detail());
                if (r.rotational() && !spinning.contains(r.detail())) spinning.add(r.detail());
            }
            sequential = !spinning.isEmpty();
            why = sequential ? "rotational storage (" + String.join("; ", spinning) + "): sequential avoids seeks"
                    : "storage not rotational (" + String.join("; ", seen) + ")";
        }
        int cores = Runtime.getRuntime().availableProcessors();
        int jobs;
        boolean adaptive = false;
        if (o.jobs() > 0) {
            jobs = o.jobs();
            why = "jobs requested" + (sequential ? "; large files not split: " + why : "");
        } else if (sequential) {
            jobs = 1;
        } else {
            jobs = Math.min(CopyOptions.MAX_JOBS, cores * JOBS_PER_CORE);
            adaptive = cores < jobs;
            why = why + "; from " + Math.min(jobs, cores) + " (one per CPU) up to " + JOBS_PER_CORE
                    + " per CPU while the CPUs wait for the disk (cpus=" + cores + ")";
        }
        long limit = Storage.openFileLimit();
        long free = limit - Storage.openFiles() - 32;
        long budget = free / FDS_PER_WORKER;
        if (budget < jobs) {
            jobs = (int) Math.max(1, budget);
            why = why + "; capped by RLIMIT_NOFILE=" + limit;
        }
        // Reading ahead holds a batch's files open: only where every worker can, and not where descriptors are short.
        ctx.readAhead = free / (FDS_PER_WORKER + Copier.BATCH_ENTRIES) >= jobs
                && !"false".equals(System.getProperty(READ_AHEAD_PROP));
        ctx.jobs = jobs;
        ctx.adaptive = adaptive;
        ctx.workersStarted = adaptive ? Math.min(jobs, cores) : jobs;
        ctx.sequential = sequential;
        ctx.listener.onNotice("workers=" + (adaptive ? Math.min(jobs, cores) + ".." : "") + jobs
                + " split_large_files=" + (!sequential && jobs > 1) + " read_ahead=" + ctx.readAhead
                + " reason=" + why);
    }
}
