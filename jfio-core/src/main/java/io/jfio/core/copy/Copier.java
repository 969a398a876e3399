package io.jfio.core.copy;

import io.jfio.core.file.PageCache;
import io.jfio.core.sys.Errno;
import io.jfio.core.sys.ErrnoException;
import io.jfio.core.sys.Dirent64;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import io.jfio.core.sys.PathBytes;
import io.jfio.core.sys.Statfs;
import io.jfio.core.sys.Statx;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The work of one worker thread: lists directories, copies entries, finishes directories.
 *
 * <p>Not thread-safe; owned by one worker (its {@link Scratch} is confined to that thread). Every descriptor it
 * opens is closed before the method that opened it returns, except those of a split file, which the last part to
 * finish closes, and the two of the directory it has entered ({@link #enter}, or the listing's), which it keeps
 * until it moves to another directory. A regular file is written under no name ({@code O_TMPFILE}) or a temporary
 * one, gets its data and attributes, and only then its final name, so a name never shows a partial file.
 */
final class Copier implements AutoCloseable {
    /** Entries per batch task: enough to amortize the queue, few enough to spread a directory over workers. */
    static final int BATCH_ENTRIES = 16;
    /** Bytes per batch task. */
    static final long BATCH_BYTES = 8L << 20;

    private static final byte[] DEFAULT_ACL = "system.posix_acl_default".getBytes(StandardCharsets.US_ASCII);

    private final CopyContext ctx;
    private final CopyOptions o;
    private final Scratch s;
    private final DataCopy data;
    private final Attributes attrs;
    private final DirFds dirs;
    /** The directory whose source and target are open (see {@link #enter}), or null. */
    private DirNode cur;
    private int curSrc = -1;
    private int curDst = -1;
    /** Whether curSrc and curDst are both O_RDONLY (not O_PATH): they can then set the directory's attributes. */
    private boolean curReadable;
    /** Whether the descriptor {@link #makeTarget} returned is O_RDONLY (else O_PATH: the directory is not readable). */
    private boolean madeReadable;
    /** The entries of the batch being copied whose sources {@link #openAhead} opened (null once taken or closed). */
    private final Entry[] ahead = new Entry[BATCH_ENTRIES];
    /** Their descriptors, at the same index. */
    private final int[] aheadFds = new int[BATCH_ENTRIES];
    private int aheadCount;

    Copier(CopyContext ctx) {
        this.ctx = ctx;
        this.o = ctx.options;
        this.s = new Scratch(ctx.options.blockSize());
        this.data = new DataCopy(ctx, s);
        this.attrs = new Attributes(ctx, s);
        this.dirs = new DirFds(ctx, s);
    }

    @Override
    public void close() {
        leave();
        s.close();
    }

    /**
     * Opens {@code d}'s source and target directories (verified by {@link DirFds}) for the entries about to be
     * copied, unless they are open already.
     *
     * @return false when they cannot be used (reported once, {@code d} marked broken)
     */
    boolean enter(DirNode d) {
        if (cur == d) return true;
        leave();
        // O_RDONLY where allowed (O_PATH otherwise): the worker that copies a directory's last entry finishes the
        // directory, and can then set its attributes through these descriptors instead of opening both again.
        int df = dirs.openTargetReadableIfAllowed(d);
        if (df < 0) return false;
        boolean readable = dirs.lastReadable;
        int sf = dirs.openSourceReadableIfAllowed(d);
        if (sf < 0) {
            LibC.close(df);
            return false;
        }
        cur = d;
        curDst = df;
        curSrc = sf;
        curReadable = readable && dirs.lastReadable;
        return true;
    }

    /**
     * Closes what {@link #enter} opened. A worker keeps its last directory open between tasks (the next batch is
     * often of the same directory) and closes it when it moves to another one, or leaves.
     */
    void leave() {
        if (cur == null) return;
        LibC.close(curDst);
        LibC.close(curSrc);
        cur = null;
        curDst = -1;
        curSrc = -1;
        curReadable = false;
    }

    // ================================================================== tasks

    /** Lists a directory: creates its target, finds its entries, queues them. */
    record ListDir(DirNode dir) implements Work.Task {
        @Override
        public void run(Copier c) {
            c.listDir(dir);
        }
    }

    /** Copies entries of one directory. */
    record Batch(List<Entry> entries) implements Work.Task {
        @Override
        public void run(Copier c) {
            c.openAhead(entries);
            try {
                for (Entry e : entries) c.copyEntry(e);
            } finally {
                c.closeAhead();
            }
        }

        @Override
        public int entryCount() {
            return entries.size();
        }
    }

    // ================================================================== reading ahead

    /**
     * Opens the small regular files of {@code entries} (one directory's batch) and asks the kernel to start reading
     * them (POSIX_FADV_WILLNEED starts the reads and returns): from a cold page cache the device then has the batch's
     * files to work on at once instead of one file at a time, and reads them with fewer, larger requests. The copy
     * of each file takes its descriptor over ({@link #takeAhead}); for a file already cached the cost is the advice
     * call. Files of {@link #SEQUENTIAL_ADVICE_MIN} and more are left to the kernel's own readahead.
     */
    void openAhead(List<Entry> entries) {
        if (!ctx.readAhead || entries.size() < 2 || o.dryRun() || ctx.cancelled) return;
        DirNode d = entries.get(0).dir();
        if (d.broken || !enter(d)) return;
        for (Entry e : entries) {
            Meta m = e.meta();
            if (aheadCount == ahead.length) break;
            if (!m.isRegular() || m.size() == 0 || m.size() >= SEQUENTIAL_ADVICE_MIN || e.dir() != d) continue;
            PathBytes.put(s.src, e.srcName());
            int fd = openSource(e);
            if (fd < 0) continue; // the copy opens it again and reports what is wrong
            LibC.posixFadvise(fd, 0, 0, Fcntl.POSIX_FADV_WILLNEED);
            ahead[aheadCount] = e;
            aheadFds[aheadCount++] = fd;
        }
    }

    /** The descriptor {@link #openAhead} opened for {@code e}, now the caller's; -1 when there is none. */
    private int takeAhead(Entry e) {
        for (int i = 0; i < aheadCount; i++) {
            if (ahead[i] == e) {
                ahead[i] = null;
                int fd = aheadFds[i];
                aheadFds[i] = -1;
                return fd;
            }
        }
        return -1;
    }

    /** Closes what was opened ahead and not taken: entries skipped, linked to an earlier copy, or failed before. */
    void closeAhead() {
        for (int i = 0; i < aheadCount; i++) {
            if (ahead[i] != null) LibC.close(aheadFds[i]);
            ahead[i] = null;
        }
        aheadCount = 0;
    }

    /**
     * Opens the source of {@code e}, whose name is in {@code s.src}, in the directory entered: without following a
     * symlink unless the options say so, with O_NOATIME where allowed (the atime is copied). fd or -errno.
     */
    private int openSource(Entry e) {
        DirNode dir = e.dir();
        boolean follow = o.dereference() == CopyOptions.Dereference.ALWAYS
                || (dir.isStandIn() && o.dereference() == CopyOptions.Dereference.COMMAND_LINE);
        int flags = Fcntl.O_RDONLY | Fcntl.O_CLOEXEC | (follow ? 0 : Fcntl.O_NOFOLLOW);
        boolean noatime = ctx.euid == 0 || ctx.euid == e.meta().uid();
        int fd = LibC.openat(curSrc, s.src, flags | (noatime ? Fcntl.O_NOATIME : 0), 0);
        if (fd == -Errno.EPERM && noatime) fd = LibC.openat(curSrc, s.src, flags, 0);
        return fd;
    }

    /** One entry again: a hard link whose first copy finished. */
    record One(Entry entry) implements Work.Task {
        @Override
        public void run(Copier c) {
            c.copyEntry(entry);
        }
    }

    // ================================================================== directories

    /**
     * Lists {@code d} and creates its target; then copies its first batch itself, with the directory's descriptors
     * from the listing, which also serve to finish the directory when its last entry is done here.
     */
    void listDir(DirNode d) {
        Batch own = null;
        try {
            own = listDirUnchecked(d);
        } finally {
            ctx.dirListed();
            if (own == null) childDone(d);
        }
        if (own == null) return;
        // The first batch is copied here, through the directories the listing opened and verified: a batch
        // that another worker takes opens and checks both again (two openat2, two statx, two close).
        try {
            own.run(this);
        } finally {
            childDone(d);
        }
    }

    /**
     * Lists {@code d}, creates its target and queues what it holds; returns a batch of its entries for this worker
     * to copy with {@code d} entered (its descriptors handed to {@link #enter}'s fields), or null.
     */
    private Batch listDirUnchecked(DirNode d) {
        if (d.parent.broken) {
            d.broken = true;
            return null;
        }
        if (ctx.cancelled) {
            d.broken = true;
            return null;
        }
        if (PathBytes.put(s.src, d.src) < 0 || PathBytes.put(s.dst, d.dst) < 0) {
            ctx.fail(d.src, d.dst, new ErrnoException("open", Errno.ENAMETOOLONG, Names.show(d.src)));
            d.broken = true;
            return null;
        }
        // O_NOATIME: listing the directory would otherwise move its atime, which we copy (allowed to the owner).
        boolean noatime = ctx.euid == 0 || ctx.euid == d.meta.uid();
        int fd = dirs.openSourceUnchecked(d, Fcntl.O_RDONLY | (noatime ? Fcntl.O_NOATIME : 0));
        if (fd == -Errno.EPERM && noatime) fd = dirs.openSourceUnchecked(d, Fcntl.O_RDONLY);
        if (fd < 0) {
            if (DirFds.redirected(fd) && o.dereference() != CopyOptions.Dereference.ALWAYS) {
                dirs.replaced(d, d.src, DirFds.SOURCE_REDIRECTED);
                return null;
            }
            // Still create the target, as cp does: the directory exists, we just cannot read it.
            ctx.fail(d.src, d.dst, "open", fd, d.src);
            int dfd = makeTarget(d);
            if (dfd == -1) d.broken = true;
            if (dfd >= 0) LibC.close(dfd);
            return null;
        }
        int dfd = -1;
        try {
            if (!dirs.sameAsListed(fd, d)) {
                dirs.replaced(d, d.src, DirFds.SOURCE_REPLACED);
                return null;
            }
            boolean otherMount = d.parent.isStandIn() || d.parent.meta == null
                    || d.meta.mntId() != d.parent.meta.mntId();
            if (otherMount && refusePseudo(fd, d.src, d.dst)) {
                d.broken = true;
                return null;
            }
            dfd = makeTarget(d);
            if (dfd == -1) {
                d.broken = true;
                return null;
            }
            // -x: the mount point is created (above) and gets its attributes, but what is mounted there is not read.
            if (o.oneFileSystem() && !d.parent.isStandIn() && d.parent.meta != null
                    && d.meta.dev() != d.parent.meta.dev()) {
                return null;
            }
            List<DirNode> subdirs = new ArrayList<>();
            List<Entry> entries = new ArrayList<>();
            readEntries(fd, d, subdirs, entries);
            Batch own = submitChildren(d, subdirs, entries, dfd >= 0);
            if (dfd >= 0) {
                // Both descriptors were verified above (the source against the listing's statx, the target
                // against the copy's own mkdir or adoption): they become the entered directory's, for the batch
                // kept, and for the directory's attributes when it is finished here (no entries, or all in that
                // batch).
                leave();
                cur = d;
                curSrc = fd;
                curDst = dfd;
                curReadable = madeReadable;
                fd = -1;
                dfd = -1;
            }
            return own;
        } finally {
            if (dfd >= 0) LibC.close(dfd);
            if (fd >= 0) LibC.close(fd);
        }
    }

    /** Refuses a directory or file on a pseudo file system; true when refused (and reported). */
    private boolean refusePseudo(int fd, byte[] src, byte[] dst) {
        try (var a = java.lang.foreign.Arena.ofConfined()) {
            MemorySegment sf = a.allocate(Statfs.LAYOUT);
            if (LibC.fstatfs(fd, sf) != 0) return false;
            long magic = Statfs.type(sf);
            if (!Statfs.isPseudo(magic)) return false;
            ctx.fail(src, dst, "refusing to copy from a pseudo file system: path=" + Names.show(src)
                    + " file_system=" + Statfs.name(magic) + " reason=its files' sizes do not describe their "
                    + "content", 0);
            return true;
        }
    }

    /** What {@link #makeTarget} returns for a target made or found without keeping a descriptor (dry run). */
    private static final int NO_FD = -2;

    /**
     * Creates (or adopts) the target directory, by name in its parent's target directory (opened by descriptor),
     * and records which directory it is.
     *
     * @return its descriptor (the caller closes it), {@link #NO_FD} on success without one (dry run), or -1 after
     *         reporting a failure
     */
    private int makeTarget(DirNode d) {
        if (o.dryRun() && d.parent.fresh) {
            return wouldCreate(d) ? NO_FD : -1; // its parent would be new: so would it
        }
        // The parent's target is often open already: this worker listed it or copied entries of it just before.
        boolean parentHeld = cur == d.parent;
        int pfd = parentHeld ? curDst : dirs.openTarget(d.parent, false);
        if (pfd < 0) return -1;
        try {
            PathBytes.put(s.dst, PathBytes.lastComponent(d.dst));
            // A directory to be created where it would be seen (in a directory that existed, or as a top-level
            // target) is built aside and renamed into place when complete; what it holds is then created directly.
            if (ctx.buildAside && !o.dryRun() && !d.parent.fresh && d.parent.aside == null) {
                int st = LibC.statx(pfd, s.dst, Fcntl.AT_SYMLINK_NOFOLLOW, Statx.STATX_TYPE, s.statx2);
                if (st == -Errno.ENOENT) return makeAside(d, pfd);
            }
            if (o.dryRun()) {
                int r = LibC.statx(pfd, s.dst, Fcntl.AT_SYMLINK_NOFOLLOW, Statx.STATX_TYPE, s.statx2);
                if (r == -Errno.ENOENT) return wouldCreate(d) ? NO_FD : -1;
                if (r < 0) {
                    ctx.fail(d.src, d.dst, "statx", r, d.dst);
                    return -1;
                }
            }
            int r = o.dryRun() ? -Errno.EEXIST : LibC.mkdirat(pfd, s.dst, 0700);
            if (r < 0 && r != -Errno.EEXIST) {
                ctx.fail(d.src, d.dst, "mkdir", r, d.dst);
                return -1;
            }
            boolean fresh = r == 0;
            int flags = Fcntl.O_DIRECTORY | Fcntl.O_NOFOLLOW | Fcntl.O_CLOEXEC;
            int fd = LibC.openat(pfd, s.dst, Fcntl.O_RDONLY | flags, 0);
            madeReadable = fd >= 0;
            if (fd == -Errno.EACCES) fd = LibC.openat(pfd, s.dst, Fcntl.O_PATH | flags, 0);
            if (fd == -Errno.ELOOP || fd == -Errno.ENOTDIR) {
                if (fresh) {
                    dirs.replaced(d, d.dst, "the target directory was replaced while copying");
                } else {
                    ctx.fail(d.src, d.dst, "cannot overwrite non-directory with directory: target="
                            + Names.show(d.dst), 0);
                }
                return -1;
            }
            if (fd < 0) {
                ctx.fail(d.src, d.dst, "open", fd, d.dst);
                return -1;
            }
            boolean ok = false;
            try {
                ok = fresh ? madeTarget(d, fd) : adoptTarget(d, fd);
            } finally {
                if (!ok) LibC.close(fd);
            }
            if (!ok) return -1;
            if (!o.dryRun()) return fd;
            LibC.close(fd);
            return NO_FD;
        } finally {
            if (!parentHeld) LibC.close(pfd);
        }
    }

    /**
     * Creates {@code d}'s target under a temporary name next to its final name, in the parent open as {@code pfd},
     * or adopts the one a killed run of the same copy left there ({@link #leftByUs}); a name that is taken by
     * anything else is left alone and a random one tried.
     *
     * @return its descriptor (the caller closes it), or -1 after reporting a failure
     */
    private int makeAside(DirNode d, int pfd) {
        byte[] finalName = PathBytes.lastComponent(d.dst);
        byte[] name = asideName(finalName, d.meta, false);
        for (int attempt = 0; attempt < ASIDE_ATTEMPTS; attempt++) {
            PathBytes.put(s.tmp, name);
            int r = LibC.mkdirat(pfd, s.tmp, 0700);
            if (r < 0 && r != -Errno.EEXIST) {
                ctx.fail(d.src, d.dst, "mkdir (temporary directory)", r, PathBytes.join(d.parent.dst, name));
                return -1;
            }
            int flags = Fcntl.O_DIRECTORY | Fcntl.O_NOFOLLOW | Fcntl.O_CLOEXEC;
            int fd = LibC.openat(pfd, s.tmp, Fcntl.O_RDONLY | flags, 0);
            madeReadable = fd >= 0;
            if (fd == -Errno.EACCES) fd = LibC.openat(pfd, s.tmp, Fcntl.O_PATH | flags, 0);
            if (r == 0 && fd < 0) {
                if (fd == -Errno.ELOOP || fd == -Errno.ENOTDIR) {
                    dirs.replaced(d, PathBytes.join(d.parent.dst, name), "the directory being built was replaced "
                            + "while copying");
                } else {
                    ctx.fail(d.src, d.dst, "open (temporary directory)", fd, PathBytes.join(d.parent.dst, name));
                }
                return -1;
            }
            if (r == 0 || (fd >= 0 && leftByUs(d, fd))) {
                d.aside = d;
                d.tempName = name;
                boolean ok = false;
                try {
                    ok = r == 0 ? madeTarget(d, fd) : adoptTarget(d, fd);
                } finally {
                    if (!ok) LibC.close(fd);
                }
                if (!ok) return -1;
                ctx.asideDirs.add(d);
                if (r != 0) {
                    d.marked = true;
                    d.resumed = true;
                    ctx.listener.onNotice("resuming an interrupted copy of a directory built aside: target="
                            + Names.show(d.dst) + " temporary=" + Names.show(PathBytes.join(d.parent.dst, name)));
                }
                return fd;
            }
            if (fd >= 0) LibC.close(fd);
            name = asideName(finalName, d.meta, true);
        }
        ctx.fail(d.src, d.dst, "mkdir (temporary directory): every name tried was taken: tries=" + ASIDE_ATTEMPTS,
                Errno.EEXIST);
        return -1;
    }

    /** Names {@link #makeAside} tries before it gives up. */
    private static final int ASIDE_ATTEMPTS = 64;

    /**
     * The temporary name of a directory built aside: {@code .NAME.jfio-HEX}, or {@code .jfio-HEX} where NAME is too
     * long to fit. HEX is derived from the source (device, inode) and NAME, so that running the same copy again
     * finds what a killed run left; or random, once that name is taken by something that is not ours.
     */
    static byte[] asideName(byte[] finalName, Meta source, boolean random) {
        long h;
        if (random) {
            h = java.util.concurrent.ThreadLocalRandom.current().nextLong();
        } else {
            h = mix(source.dev() ^ mix(source.ino()));
            for (byte b : finalName) h = mix(h ^ (b & 0xff));
        }
        String suffix = ".jfio-" + java.util.HexFormat.of().toHexDigits(h);
        boolean fits = finalName.length + 1 + suffix.length() <= Fcntl.NAME_MAX;
        byte[] base = fits ? finalName : new byte[0];
        byte[] out = new byte[1 + base.length + suffix.length()];
        out[0] = '.';
        System.arraycopy(base, 0, out, 1, base.length);
        byte[] sb = suffix.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(sb, 0, out, 1 + base.length, sb.length);
        return out;
    }

    /** A 64-bit mixing step (SplitMix64's finalizer): the same input gives the same output in every run. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    /**
     * Whether the directory open as {@code fd}, found at the temporary name {@code d} would be built under, is one
     * a killed run of this copy left: a directory we own that neither group nor others may write and that holds
     * the {@link ResumeMarker} for {@code d}'s source (while it is built it is closed to them; a run killed while
     * finishing it may have given it its final mode), or an empty one closed to group and others (the run was
     * killed between its mkdir and the marker; an empty directory of ours holds nothing to lose). Anything else is
     * not touched.
     */
    private boolean leftByUs(DirNode d, int fd) {
        int st = LibC.statx(fd, s.empty, Fcntl.AT_EMPTY_PATH, Meta.MASK, s.statx2);
        if (st < 0) return false;
        int mode = Statx.mode(s.statx2);
        if ((mode & Fcntl.S_IFMT) != Fcntl.S_IFDIR || Statx.uid(s.statx2) != ctx.euid || (mode & 022) != 0) {
            return false;
        }
        if (ResumeMarker.matches(fd, d.meta)) return true;
        if ((mode & 077) != 0 || !isEmpty(fd)) return false;
        int w = ResumeMarker.write(fd, d.meta);
        return w == 0;
    }

    /** Whether the directory open as {@code fd} (O_RDONLY, not read yet) holds no entry but "." and "..". */
    private boolean isEmpty(int fd) {
        long n = LibC.getdents64(fd, s.dents, Scratch.DENTS_SIZE);
        if (n < 0) return false;
        for (long rec = 0; rec < n; rec += Dirent64.reclen(s.dents, rec)) {
            if (!Dirent64.isDotOrDotDot(s.dents, rec)) return false;
        }
        return true; // read to its end: there is nothing for a later read of it to find anyway
    }

    /**
     * Renames the directory built aside to its final name, which must not exist (RENAME_NOREPLACE; where the file
     * system has no such flag, the final name is made with mkdir, which fails if anything is there, and the
     * directory renamed over that empty directory of ours). When something took the final name meanwhile, nothing
     * is replaced and the complete copy stays under its temporary name, reported.
     *
     * @return true when it has its final name
     */
    private boolean moveIntoPlace(DirNode d) {
        d.renameTried = true;
        DirNode p = d.parent;
        int pfd = p.isStandIn() ? p.rootFd : cur == p ? curDst : dirs.openTarget(p, false);
        if (pfd < 0) return false;
        try {
            byte[] finalName = PathBytes.lastComponent(d.dst);
            PathBytes.put(s.tmp, d.tempName);
            PathBytes.put(s.aux, finalName);
            int r;
            synchronized (d) {
                r = LibC.renameat2(pfd, s.tmp, pfd, s.aux, Fcntl.RENAME_NOREPLACE);
                if (r == -Errno.EINVAL) {
                    r = LibC.mkdirat(pfd, s.aux, 0700);
                    if (r == 0) {
                        r = LibC.renameat2(pfd, s.tmp, pfd, s.aux, 0);
                        if (r < 0) LibC.unlinkat(pfd, s.aux, Fcntl.AT_REMOVEDIR);
                    }
                }
                if (r == 0) d.renamed = true;
            }
            byte[] temp = PathBytes.join(p.dst, d.tempName);
            if (r == -Errno.EEXIST || r == -Errno.ENOTEMPTY) {
                ctx.fail(d.src, d.dst, "the target appeared while copying: target=" + Names.show(d.dst)
                        + "; nothing was replaced, and the copy is kept under its temporary name: path="
                        + Names.show(temp), Errno.EEXIST);
                return false;
            }
            if (r < 0) {
                ctx.fail(d.src, d.dst, new ErrnoException("rename", -r, Names.show(temp) + " -> "
                        + Names.show(d.dst)));
                return false;
            }
            int st = LibC.statx(pfd, s.aux, Fcntl.AT_SYMLINK_NOFOLLOW, Statx.STATX_INO, s.statx2);
            if (st < 0 || Statx.dev(s.statx2) != d.dstDev || Statx.ino(s.statx2) != d.dstIno) {
                dirs.replaced(d, temp, "the directory being built was replaced while copying");
                return false;
            }
            return true;
        } finally {
            if (pfd != p.rootFd && pfd != curDst) LibC.close(pfd);
        }
    }

    /**
     * After a cancel: renames the directories built aside that did not finish into place, as they are, with their
     * resume markers (their files in flight were removed when the workers stopped, so what they hold is whole), so
     * that an interrupted copy looks as it does without building aside and the same command resumes it. Their
     * mode and times are set by the run that finishes them.
     */
    void placeCancelled() {
        for (DirNode d : ctx.asideDirs) {
            if (!d.renamed && !d.renameTried && !d.broken) moveIntoPlace(d);
        }
    }

    /** The directory this run created, open as {@code fd}: checks it is still ours and prepares it. */
    private boolean madeTarget(DirNode d, int fd) {
        DirNode p = d.parent;
        int st = LibC.statx(fd, s.empty, Fcntl.AT_EMPTY_PATH, Meta.MASK, s.statx2);
        if (st < 0) {
            ctx.fail(d.src, d.dst, "statx", st, d.dst);
            return false;
        }
        // Between mkdir and open another user who may write the parent could have put their own directory there.
        // The parent's owner is accepted too: a file system that maps our uid (root_squash) gives new directories
        // the parent's owner, and that owner controls the parent anyway.
        int uid = Statx.uid(s.statx2);
        if (uid != ctx.euid && uid != p.dstUid) {
            dirs.replaced(d, d.dst, "the target directory was replaced by another user's directory while copying");
            return false;
        }
        d.fresh = true;
        d.dstDev = Statx.dev(s.statx2);
        d.dstIno = Statx.ino(s.statx2);
        d.dstUid = uid;
        d.setgid = p.setgid;
        d.newGid = p.setgid ? p.newGid : ctx.egid;
        d.defaultAcl = p.defaultAcl;
        if ((ctx.umask & 0700) != 0) LibC.fchmod(fd, 0700);
        if (ctx.events) {
            ctx.listener.onEntry(new CopyEvent(CopyEvent.Kind.DIRECTORY, CopyEvent.Outcome.CREATED,
                    Names.show(d.src), Names.show(d.dst), null, 0, 0, false, 1));
        }
        if (p.isStandIn() || d.aside == d) {
            int w = ResumeMarker.write(fd, d.meta);
            if (w < 0) {
                ctx.noticeOnce("marker", "resume marker not written: errno=" + Errno.name(w) + " dir="
                        + Names.show(d.dst) + "; rerunning after an interruption would copy into it");
            } else {
                d.marked = true;
            }
        }
        return true;
    }

    /** An existing target directory, open as {@code fd}: copied into, as cp does. */
    private boolean adoptTarget(DirNode d, int fd) {
        int st = LibC.statx(fd, s.empty, Fcntl.AT_EMPTY_PATH, Meta.MASK, s.statx2);
        if (st < 0) {
            ctx.fail(d.src, d.dst, "statx", st, d.dst);
            return false;
        }
        int mode = Statx.mode(s.statx2);
        if (Statx.dev(s.statx2) == d.meta.dev() && Statx.ino(s.statx2) == d.meta.ino()) {
            ctx.fail(d.src, d.dst, "source and target are the same directory: source=" + Names.show(d.src)
                    + " target=" + Names.show(d.dst), 0);
            return false;
        }
        d.fresh = false;
        d.dstDev = Statx.dev(s.statx2);
        d.dstIno = Statx.ino(s.statx2);
        d.dstUid = Statx.uid(s.statx2);
        d.setgid = (mode & Fcntl.S_ISGID) != 0;
        d.newGid = d.setgid ? Statx.gid(s.statx2) : ctx.egid;
        PathBytes.put(s.xattrName, DEFAULT_ACL);
        d.defaultAcl = LibC.fgetxattr(fd, s.xattrName, MemorySegment.NULL, 0) > 0;
        d.marked = d.parent.isStandIn() && ResumeMarker.matches(fd, d.meta);
        if (!o.dryRun()) removeStaleTemps(fd, d);
        if (d.marked) d.resumed = true;
        return true;
    }

    /** Dry run: the target directory does not exist and would be created; nothing below it exists either. */
    private boolean wouldCreate(DirNode d) {
        d.fresh = true;
        if (ctx.events) {
            ctx.listener.onEntry(new CopyEvent(CopyEvent.Kind.DIRECTORY, CopyEvent.Outcome.CREATED,
                    Names.show(d.src), Names.show(d.dst), null, 0, 0, false, 1));
        }
        return true;
    }

    /**
     * Removes temporary files an interrupted earlier run of this copy left in an existing target directory (open as
     * fd): only where that run is being resumed (the directory or one above it holds its marker), and only regular
     * files of ours with a dead run's temporary name. A file of that name anywhere else may be someone's data.
     */
    private void removeStaleTemps(int fd, DirNode d) {
        List<byte[]> stale = null;
        while (true) {
            long n = LibC.getdents64(fd, s.dents, Scratch.DENTS_SIZE);
            if (n <= 0) break;
            for (long rec = 0; rec < n; rec += Dirent64.reclen(s.dents, rec)) {
                if (Dirent64.type(s.dents, rec) != Dirent64.DT_REG
                        && Dirent64.type(s.dents, rec) != Dirent64.DT_UNKNOWN) {
                    continue;
                }
                byte[] name = Dirent64.nameBytes(s.dents, rec);
                // A directory built aside that a killed run renamed but did not finish still holds its marker:
                // removed once this run completes it.
                if (!d.marked && ResumeMarker.isName(name)) d.marked = ResumeMarker.matches(fd, d.meta);
                if (CopyContext.isStaleTemp(name, ctx.pid)) {
                    if (stale == null) stale = new ArrayList<>();
                    stale.add(name);
                }
            }
        }
        if (stale == null || !(d.marked || d.resumed)) return;
        for (byte[] name : stale) {
            if (PathBytes.put(s.aux, name) < 0) continue;
            int r = LibC.statx(fd, s.aux, Fcntl.AT_SYMLINK_NOFOLLOW, Meta.MASK, s.statx2);
            if (r == 0 && (Statx.mode(s.statx2) & Fcntl.S_IFMT) == Fcntl.S_IFREG && Statx.uid(s.statx2) == ctx.euid) {
                LibC.unlinkat(fd, s.aux, 0);
            }
        }
    }

    private void readEntries(int fd, DirNode d, List<DirNode> subdirs, List<Entry> entries) {
        int flags = o.dereference() == CopyOptions.Dereference.ALWAYS ? 0 : Fcntl.AT_SYMLINK_NOFOLLOW;
        while (true) {
            long n = LibC.getdents64(fd, s.dents, Scratch.DENTS_SIZE);
            if (n == 0) return;
            if (n < 0) {
                ctx.fail(d.src, d.dst, "getdents64", (int) n, d.src);
                return;
            }
            for (long rec = 0; rec < n; rec += Dirent64.reclen(s.dents, rec)) {
                if (Dirent64.isDotOrDotDot(s.dents, rec)) continue;
                byte[] name = Dirent64.nameBytes(s.dents, rec);
                MemorySegment nameSeg = s.dents.asSlice(rec + Dirent64.OFF_NAME);
                int r = LibC.statx(fd, nameSeg, flags, Meta.MASK, s.statx);
                if (r < 0) {
                    byte[] src = PathBytes.join(d.src, name);
                    ctx.fail(src, PathBytes.join(d.dst, name), "statx", r, src);
                    continue;
                }
                Meta m = Meta.of(s.statx);
                if (m.isDirectory()) {
                    subdirs.add(new DirNode(d, PathBytes.join(d.src, name), PathBytes.join(d.dst, name), m));
                } else {
                    entries.add(new Entry(d, name, name, m));
                }
            }
        }
    }

    /**
     * Counts and queues {@code d}'s subdirectories and entries; with {@code keep}, returns the first batch (the
     * lowest inodes) instead of queueing it, for the caller to copy, else null.
     */
    private Batch submitChildren(DirNode d, List<DirNode> subdirs, List<Entry> entries, boolean keep) {
        d.pending.addAndGet(subdirs.size() + entries.size());
        long bytes = 0;
        for (Entry e : entries) {
            if (e.meta().isRegular()) bytes += e.meta().size();
        }
        ctx.filesFound.add(entries.size());
        ctx.bytesFound.add(bytes);
        for (DirNode sub : subdirs) {
            if (o.dereference() == CopyOptions.Dereference.ALWAYS && d.hasAncestor(sub.meta.dev(), sub.meta.ino())) {
                ctx.fail(sub.src, sub.dst, "directory loop through a followed symlink: path=" + Names.show(sub.src),
                        Errno.ELOOP);
                childDone(d);
                continue;
            }
            ctx.submitDir(new ListDir(sub));
        }
        // Inode order: on a cold cache the inode tables and, mostly, the data are read in disk order.
        entries.sort(Comparator.comparingLong(e -> e.meta().ino()));
        Batch own = null;
        List<Entry> batch = new ArrayList<>();
        long batchBytes = 0;
        for (Entry e : entries) {
            long size = e.meta().isRegular() ? e.meta().size() : 0;
            if (size >= o.splitThreshold()) {
                ctx.work.submitBatch(new Batch(List.of(e)));
                continue;
            }
            batch.add(e);
            batchBytes += size;
            if (batch.size() >= BATCH_ENTRIES || batchBytes >= BATCH_BYTES) {
                if (keep && own == null) {
                    own = new Batch(batch);
                } else {
                    ctx.work.submitBatch(new Batch(batch));
                }
                batch = new ArrayList<>();
                batchBytes = 0;
            }
        }
        if (!batch.isEmpty()) {
            if (keep && own == null) {
                own = new Batch(batch);
            } else {
                ctx.work.submitBatch(new Batch(batch));
            }
        }
        return own;
    }

    /**
     * One entry of {@code d} is finished: when it was the last, the directory gets its attributes (after its
     * entries, which change its mtime) and its parent hears of it, and so on up.
     */
    void childDone(DirNode d) {
        DirNode n = d;
        while (n != null) {
            if (n.pending.decrementAndGet() != 0) return;
            if (!n.isStandIn() && !n.broken) finishDir(n);
            n = n.parent;
        }
    }

    private void finishDir(DirNode d) {
        if (o.dryRun()) {
            dirDone(d);
            return;
        }
        // The worker that finishes a directory has often just copied its last entry, or listed it and copied all
        // of it: the descriptors it verified then and still holds, when open O_RDONLY, serve here as well.
        boolean held = cur == d && curReadable;
        int fd = held ? curDst : dirs.openTarget(d, true);
        if (fd < 0) return;
        int srcFd = -1;
        try {
            boolean aside = d.aside == d && !d.renamed;
            // The resume marker is removed only when all went well: after failures or a cancel, the same command
            // must still resume here.
            boolean unmark = d.marked && ctx.failureCount.get() == 0 && !ctx.cancelled;
            // In place, the marker goes first (removing it changes the directory's mtime).
            if (unmark && !aside) {
                int r = ResumeMarker.remove(fd, s.tmp, d.meta);
                if (r < 0) ctx.fail(d.src, d.dst, "unlink (resume marker)", r, d.dst);
            }
            // A source directory we may search but not read (its listing failed, reported then) still gives its
            // mode, owner and times, as with cp; its xattrs cannot be read (O_PATH).
            boolean xattrs = o.preserveXattrs();
            if (xattrs) {
                srcFd = held ? curSrc : dirs.openSourceReadableIfAllowed(d);
                if (srcFd < 0) return;
                xattrs = held || dirs.lastReadable;
            }
            Attributes.Failure f = attrs.applyToDir(xattrs ? srcFd : -1, fd, d.meta, d.parent, d.setgid,
                    d.fresh || d.aside != null || o.preserveMode());
            // Built aside, everything happens under the temporary name, the marker last (and the times again, which
            // its removal moved), then the rename, which changes neither: a run killed before the marker goes
            // leaves it for the same command to adopt; one killed after leaves a whole directory under its
            // temporary name, which is not adopted (the copy is made again under another name); neither leaves a
            // target that is visible but not finished without its marker.
            if (f == null && aside && unmark) {
                int r = ResumeMarker.remove(fd, s.tmp, d.meta);
                if (r < 0) {
                    ctx.fail(d.src, d.dst, "unlink (resume marker)", r, d.dst);
                } else if (o.preserveTimestamps()) {
                    f = attrs.times(fd, d.meta);
                }
            }
            if (f != null) {
                ctx.fail(d.src, d.dst, f.call(), f.errno(), d.dst);
                return;
            }
            if (o.fsync()) {
                int r = LibC.fsync(fd);
                if (r < 0) {
                    ctx.fail(d.src, d.dst, "fsync", r, d.dst);
                    return;
                }
            }
            if (aside && !moveIntoPlace(d)) return;
        } finally {
            if (!held) {
                LibC.close(fd);
                if (srcFd >= 0) LibC.close(srcFd);
            }
        }
        dirDone(d);
    }

    private void dirDone(DirNode d) {
        ctx.directories.increment();
        if (ctx.events) {
            ctx.listener.onEntry(new CopyEvent(CopyEvent.Kind.DIRECTORY, CopyEvent.Outcome.COPIED,
                    Names.show(d.src), Names.show(d.dst), null, 0, 0, false, 1));
        }
    }

    // ================================================================== entries

    /** Copies one non-directory entry; tells its directory when done (now, or later for split files and links). */
    void copyEntry(Entry e) {
        DirNode dir = e.dir();
        if (dir.broken || ctx.cancelled) {
            childDone(dir);
            return;
        }
        if (o.dryRun()) {
            boolean ok = false;
            try {
                ok = wouldCopy(e);
            } finally {
                entryDone(e, null, ok);
            }
            return;
        }
        LinkGroup group = null;
        Meta m = e.meta();
        if (linkable(m)) {
            LinkGroup mine = new LinkGroup();
            LinkGroup prev = ctx.links.putIfAbsent(new CopyContext.InodeKey(m.dev(), m.ino()), mine);
            if (prev == null) {
                group = mine;
            } else {
                Entry leader = prev.join(e);
                if (leader == null) return; // queued: the leader's completion hands it back
                if (leader != e) {
                    boolean ok = false;
                    try {
                        ok = linkTo(e, leader);
                    } finally {
                        entryDone(e, null, ok);
                    }
                    return;
                }
                // the names before it gave no copy: this one is copied, and leads the rest
                group = prev;
            }
        }
        LinkGroup g = group;
        java.util.concurrent.atomic.AtomicBoolean called = new java.util.concurrent.atomic.AtomicBoolean();
        // Runs on whichever worker finishes the entry (for a split file, not this one), with that worker's Copier.
        Done done = (c, ok) -> {
            if (called.compareAndSet(false, true)) c.entryDone(e, g, ok);
        };
        try {
            switch (m.type()) {
                case Fcntl.S_IFREG -> copyFile(e, done);
                case Fcntl.S_IFLNK -> done.accept(this, copySymlink(e));
                case Fcntl.S_IFIFO, Fcntl.S_IFCHR, Fcntl.S_IFBLK -> {
                    // cp without -r copies what a FIFO or device named on the command line reads; with -r (and
                    // -a) it makes the node.
                    if (dir.isStandIn() && !o.recursive()) {
                        copyFile(e, done);
                    } else {
                        done.accept(this, copySpecial(e));
                    }
                }
                default -> done.accept(this, copySpecial(e));
            }
        } catch (RuntimeException | Error t) {
            // Every path of the copy calls done itself; should one not (a bug), the directory must still finish.
            ctx.fail(e.srcPath(), e.dstPath(), "internal error: " + t, 0);
            done.accept(this, false);
        }
    }

    /** Dry run: decides about {@code e} as a copy would, and reports it; reads and writes no data. */
    private boolean wouldCopy(Entry e) {
        Meta m = e.meta();
        Decision d = e.dir().fresh ? Decision.ABSENT : names(e) ? decide(e) : Decision.FAIL;
        if (d == Decision.FAIL) return false;
        if (d != Decision.ABSENT && d != Decision.REPLACE) return skipped(e, d);
        // A second name of a file already counted would be a link to its copy, as in a real run (the first name
        // the walk reaches stands for the data).
        if (linkable(m)
                && ctx.links.putIfAbsent(new CopyContext.InodeKey(m.dev(), m.ino()), new LinkGroup()) != null) {
            ctx.hardLinks.increment();
            ctx.event(m.kind(), CopyEvent.Outcome.HARD_LINKED, e, null, 0, false, 1);
            return true;
        }
        switch (m.type()) {
            case Fcntl.S_IFREG -> ctx.files.increment();
            case Fcntl.S_IFLNK -> ctx.symlinks.increment();
            default -> {
                if (e.dir().isStandIn() && !o.recursive()) {
                    ctx.files.increment();
                } else {
                    ctx.specials.increment();
                }
            }
        }
        if (m.isRegular()) {
            // A sparse source's holes are not written (unless --sparse=never): count what it has allocated, which
            // is what the copy writes but for preallocated ranges.
            boolean holes = m.looksSparse() && o.sparse() != CopyOptions.Sparse.NEVER;
            long bytes = holes ? Math.min(m.size(), m.blocks() * 512) : m.size();
            ctx.bytesAccounted.add(bytes);
            ctx.bytesWouldWrite.add(bytes);
        }
        ctx.event(m.kind(), CopyEvent.Outcome.COPIED, e, null, 0, false, 1);
        return true;
    }

    /**
     * Whether the entry may be a second name of a file met before, to be copied as a hard link to its copy: with
     * links kept, a file of several names, or with {@code -L} any file, which a followed symlink may reach again
     * (cp does the same).
     */
    private boolean linkable(Meta m) {
        return o.preserveHardLinks() && !m.isDirectory()
                && (m.nlink() > 1 || o.dereference() == CopyOptions.Dereference.ALWAYS);
    }

    /**
     * Finishes an entry: called once, by the worker that finished it, with its own Copier (its own Scratch);
     * {@code ok} when its target is now a copy of it, to which the file's other names may be linked.
     */
    @FunctionalInterface
    interface Done {
        void accept(Copier copier, boolean ok);
    }

    private void entryDone(Entry e, LinkGroup group, boolean ok) {
        if (group != null) {
            for (Entry f : group.complete(ok ? e : null)) ctx.work.submitUrgent(new One(f));
        }
        ctx.entriesDone.increment();
        childDone(e.dir());
    }

    /** What to do about a target: decided from its statx (in s.statx2) against the source. */
    private enum Decision { ABSENT, REPLACE, SKIP_COMPLETE, SKIP_EXISTS, SKIP_NOT_NEWER, FAIL }

    /** Looks at the target named in s.dst (in the entered directory); reports a failure itself. */
    private Decision decide(Entry e) {
        Meta m = e.meta();
        int r = LibC.statx(curDst, s.dst, Fcntl.AT_SYMLINK_NOFOLLOW, Meta.MASK, s.statx2);
        if (r == -Errno.ENOENT) return Decision.ABSENT;
        if (r < 0) {
            ctx.fail(e.srcPath(), e.dstPath(), "statx", r, e.dstPath());
            return Decision.FAIL;
        }
        int type = Statx.mode(s.statx2) & Fcntl.S_IFMT;
        if (type == Fcntl.S_IFDIR) {
            ctx.fail(e.srcPath(), e.dstPath(), "cannot overwrite directory with non-directory: target="
                    + e.showDst(), Errno.EISDIR);
            return Decision.FAIL;
        }
        if (Statx.dev(s.statx2) == m.dev() && Statx.ino(s.statx2) == m.ino() || pointsToTarget(m, type)) {
            ctx.fail(e.srcPath(), e.dstPath(), "source and target are the same file: source=" + e.showSrc()
                    + " target=" + e.showDst(), 0);
            return Decision.FAIL;
        }
        if (overwrite(e.dir()) == CopyOptions.Overwrite.NEVER) return Decision.SKIP_EXISTS;
        int mtime = m.compareMtime(s.statx2); // the target's against the source's
        if (overwrite(e.dir()) == CopyOptions.Overwrite.UPDATE && mtime >= 0) return Decision.SKIP_NOT_NEWER;
        if (o.skipComplete() && e.dir().resumed && type == m.type() && mtime == 0
                && (type != Fcntl.S_IFREG || Statx.size(s.statx2) == m.size())) {
            return Decision.SKIP_COMPLETE;
        }
        return Decision.REPLACE;
    }

    /**
     * Whether the source (s.src) is a symlink, copied as one, that leads to the target (statx in s.statx2), which is
     * not a symlink: replacing the target by the link would lose the file's data and leave a link that points to
     * itself, so cp refuses this as "the same file". The stat only reads; the link is not followed to write.
     */
    private boolean pointsToTarget(Meta m, int targetType) {
        if (!m.isSymlink() || targetType == Fcntl.S_IFLNK) return false;
        return LibC.statx(curSrc, s.src, 0, Meta.MASK, s.statx) == 0
                && Statx.dev(s.statx) == Statx.dev(s.statx2) && Statx.ino(s.statx) == Statx.ino(s.statx2);
    }

    /**
     * Reports {@code e} skipped. Returns whether its target may stand for a copy of it: other names of its file are
     * linked to a complete target, and to one {@code --update} kept (as cp links them), not to one {@code -n} kept,
     * which may be another file.
     */
    private boolean skipped(Entry e, Decision d) {
        CopyEvent.Outcome out = switch (d) {
            case SKIP_COMPLETE -> CopyEvent.Outcome.SKIPPED_COMPLETE;
            case SKIP_EXISTS -> CopyEvent.Outcome.SKIPPED_EXISTS;
            default -> CopyEvent.Outcome.SKIPPED_NOT_NEWER;
        };
        ctx.skipped.increment();
        if (e.meta().isRegular()) ctx.bytesAccounted.add(e.meta().size());
        ctx.event(e.meta().kind(), out, e, null, 0, false, 1);
        return d != Decision.SKIP_EXISTS;
    }

    /**
     * Opens the entry's directories ({@link #enter}) and puts its source and target names into s.src and s.dst;
     * false when its directory cannot be used (reported once for the directory).
     */
    private boolean names(Entry e) {
        if (!enter(e.dir())) return false;
        PathBytes.put(s.src, e.srcName());
        PathBytes.put(s.dst, e.dstName());
        return true;
    }

    // ------------------------------------------------------------------ regular files

    /**
     * How an existing target in {@code dir} is treated. Inside a directory built aside everything was made by this
     * copy (or by a killed run of it, which may have left a partial file under a final name there), so it is
     * replaced unless complete, whatever {@code -n} or {@code --update} say about the user's own files.
     */
    private CopyOptions.Overwrite overwrite(DirNode dir) {
        return dir.aside != null ? CopyOptions.Overwrite.REPLACE : o.overwrite();
    }

    /** Permission bits to create a file with: the source's, plus owner write where we need it to set xattrs. */
    private int createMode(Meta m) {
        int mode = o.defaultPermissions() ? 0666 : m.permissions() & 0777;
        if (o.preserveXattrs() && ctx.euid != 0 && (mode & 0200) == 0) mode |= 0200;
        return mode;
    }

    private void copyFile(Entry e, Done done) {
        if (!names(e)) {
            done.accept(this, false);
            return;
        }
        Meta m = e.meta();
        DirNode dir = e.dir();
        Decision decision = dir.fresh ? Decision.ABSENT : decide(e);
        switch (decision) {
            case FAIL -> {
                done.accept(this, false);
                return;
            }
            case SKIP_COMPLETE, SKIP_EXISTS, SKIP_NOT_NEWER -> {
                done.accept(this, skipped(e, decision));
                return;
            }
            default -> {
            }
        }
        if (decision == Decision.REPLACE && dir.isStandIn() && isStream(Statx.mode(s.statx2))) {
            done.accept(this, writeInto(e, Statx.dev(s.statx2), Statx.ino(s.statx2), false));
            return;
        }
        if (decision == Decision.REPLACE && dir.isStandIn() && linksToStream()) {
            done.accept(this, writeInto(e, Statx.dev(s.statx), Statx.ino(s.statx), true));
            return;
        }
        int srcFd = takeAhead(e);
        if (srcFd < 0) srcFd = openSource(e);
        if (srcFd < 0) {
            String call = srcFd == -Errno.ENOENT ? "open (the source vanished)" : srcFd == -Errno.ELOOP
                    ? "open (the source was replaced by a symlink)" : "open";
            ctx.fail(e.srcPath(), e.dstPath(), call, srcFd, e.srcPath());
            done.accept(this, false);
            return;
        }
        // The data must be that of the file the listing saw, whose owner, mode and times the copy gets: another
        // user who can write the directory could have put another file (one only root may read) at its name.
        if (othersMayWrite(dir) && !dirs.sameAsListed(srcFd, m)) {
            LibC.close(srcFd);
            ctx.fail(e.srcPath(), e.dstPath(), "the source file was replaced while copying: path=" + e.showSrc()
                    + "; not copied", 0);
            done.accept(this, false);
            return;
        }
        Target t;
        try {
            byte[] inPlace = dir.aside != null && decision == Decision.ABSENT ? e.dstName() : null;
            t = createTarget(dir, createMode(m), inPlace);
        } catch (ErrnoException ex) {
            LibC.close(srcFd);
            ctx.fail(e.srcPath(), e.dstPath(), ex);
            done.accept(this, false);
            return;
        }
        CopyContext.DevPair pair = new CopyContext.DevPair(m.dev(), dir.dstDev);
        boolean ok = false;
        boolean handedOver = false;
        try {
            DataCopy.Result r;
            if (!m.isRegular()) {
                // A FIFO or device: its size says nothing; read it to the end.
                long n = data.copyStream(srcFd, t.fd, e.srcPath(), e.dstPath());
                r = new DataCopy.Result(CopyMethod.READ_WRITE, n, false, false);
            } else if (m.size() > 0 && o.sparse() == CopyOptions.Sparse.AUTO
                    && data.tryReflink(srcFd, t.fd, pair, e.dstPath())) {
                r = new DataCopy.Result(CopyMethod.REFLINK, 0, false, false);
            } else {
                // The data is read and copied: only now are the read-ahead advice and the residency worth a call.
                if (m.size() >= SEQUENTIAL_ADVICE_MIN) {
                    // Read front to back: a larger read-ahead window when the data comes from the device, and
                    // less system time in copy_file_range even when the file is cached (cp does the same).
                    LibC.posixFadvise(srcFd, 0, 0, Fcntl.POSIX_FADV_SEQUENTIAL);
                }
                // Found once for one worker or several: the data ranges, and the target's length where the holes
                // between them are left unwritten.
                boolean findHoles = m.looksSparse() && o.sparse() != CopyOptions.Sparse.NEVER;
                List<DataCopy.Range> ranges = data.ranges(srcFd, m.size(), findHoles, e.srcPath());
                boolean sparse = o.sparse() == CopyOptions.Sparse.ALWAYS && m.size() > 0
                        || findHoles && !(ranges.size() == 1 && ranges.get(0).length() == m.size());
                if (sparse) {
                    int tr = LibC.ftruncate(t.fd, m.size());
                    if (tr < 0) throw new ErrnoException("ftruncate", -tr, t.fd, e.showDst(), ErrnoException.NONE,
                            m.size());
                }
                if (!ctx.sequential && ctx.jobs > 1 && m.size() >= o.splitThreshold()
                        && o.sparse() == CopyOptions.Sparse.AUTO
                        && !mostlyCached(srcFd, m.size())) {
                    // The job owns both descriptors from here and closes them when its last part is done.
                    handedOver = true;
                    SplitJob.start(this, ctx, e, srcFd, t, pair, decision == Decision.REPLACE, done, ranges, sparse);
                    return;
                }
                r = copyData(srcFd, t.fd, m, ranges, sparse, pair, e);
            }
            ok = finishFile(e, srcFd, t, decision == Decision.REPLACE, r, 1);
        } catch (InterruptedIOException ex) {
            // cancelled: not a failure of this file; the temporary file goes away below
        } catch (IOException ex) {
            ctx.fail(e.srcPath(), e.dstPath(), ex instanceof ErrnoException ee ? ee.getMessage() : ex.toString(),
                    ex instanceof ErrnoException ee ? ee.errno() : 0);
        } finally {
            if (!handedOver) {
                discardIfUnpublished(t, dir);
                LibC.close(t.fd);
                LibC.close(srcFd);
                done.accept(this, ok);
            }
        }
    }

    /** A FIFO or a character or block device: a target the data is written into rather than replaced. */
    private static boolean isStream(int mode) {
        int type = mode & Fcntl.S_IFMT;
        return type == Fcntl.S_IFIFO || type == Fcntl.S_IFCHR || type == Fcntl.S_IFBLK;
    }

    /**
     * Whether the target (s.dst, its statx in s.statx2) is a symlink to a FIFO or device: {@code /dev/stdout},
     * {@code /dev/disk/by-id/...}. Named on the command line, cp writes into what it leads to.
     */
    private boolean linksToStream() {
        return (Statx.mode(s.statx2) & Fcntl.S_IFMT) == Fcntl.S_IFLNK
                && LibC.statx(curDst, s.dst, 0, Statx.STATX_TYPE | Statx.STATX_INO, s.statx) == 0
                && isStream(Statx.mode(s.statx));
    }

    /**
     * Writes the source's data into the FIFO or device named as the target on the command line (directly or by a
     * symlink), as cp does ({@code jfio copy image /dev/sdX}, {@code jfio copy log /dev/null}): the target is opened,
     * not replaced, and keeps its own attributes. Only a target named on the command line is treated so; one met
     * inside a tree is replaced like any other file, so a FIFO another user leaves in a target directory cannot make
     * the copy wait. {@code dev} and {@code ino} name the FIFO or device found there; {@code follow}: by a symlink.
     */
    private boolean writeInto(Entry e, long dev, long ino, boolean follow) {
        boolean followSrc = o.dereference() == CopyOptions.Dereference.ALWAYS
                || o.dereference() == CopyOptions.Dereference.COMMAND_LINE;
        int srcFd = LibC.openat(curSrc, s.src, Fcntl.O_RDONLY | Fcntl.O_CLOEXEC
                | (followSrc ? 0 : Fcntl.O_NOFOLLOW), 0);
        if (srcFd < 0) {
            ctx.fail(e.srcPath(), e.dstPath(), "open", srcFd, e.srcPath());
            return false;
        }
        int dstFd = LibC.openat(curDst, s.dst, Fcntl.O_WRONLY | Fcntl.O_CLOEXEC | Fcntl.O_NOCTTY
                | (follow ? 0 : Fcntl.O_NOFOLLOW), 0);
        // What was opened must be the FIFO or device found before, not a file or another device put there since.
        if (dstFd >= 0 && (LibC.statx(dstFd, s.empty, Fcntl.AT_EMPTY_PATH, Statx.STATX_INO, s.statx) < 0
                || Statx.dev(s.statx) != dev || Statx.ino(s.statx) != ino)) {
            LibC.close(dstFd);
            LibC.close(srcFd);
            ctx.fail(e.srcPath(), e.dstPath(), "the target was replaced while copying: target=" + e.showDst()
                    + "; not copied", 0);
            return false;
        }
        if (dstFd < 0) {
            LibC.close(srcFd);
            ctx.fail(e.srcPath(), e.dstPath(), "open (write into the target)", dstFd, e.dstPath());
            return false;
        }
        try {
            long n = data.writeStream(srcFd, dstFd, e.srcPath(), e.dstPath());
            ctx.files.increment();
            ctx.event(CopyEvent.Kind.FILE, CopyEvent.Outcome.COPIED, e, CopyMethod.READ_WRITE, n, false, 1);
            return true;
        } catch (InterruptedIOException ex) {
            return false;
        } catch (IOException ex) {
            ctx.fail(e.srcPath(), e.dstPath(), ex instanceof ErrnoException ee ? ee.getMessage() : ex.toString(),
                    ex instanceof ErrnoException ee ? ee.errno() : 0);
            return false;
        } finally {
            LibC.close(dstFd);
            LibC.close(srcFd);
        }
    }

    /**
     * Whether anyone but us (and root) may have changed the entries of {@code dir}'s source since it was listed:
     * true unless we own it and neither its group nor others may write it (a named user's ACL entry shows in the
     * group bits). Only then can a file at a listed name be another than the listing saw without our doing.
     */
    private boolean othersMayWrite(DirNode dir) {
        return dir.meta == null || dir.meta.uid() != ctx.euid || (dir.meta.mode() & 022) != 0;
    }

    /** Files at least this large are advised POSIX_FADV_SEQUENTIAL (one more system call is nothing to them). */
    static final long SEQUENTIAL_ADVICE_MIN = 1L << 20;

    /**
     * Whether at least half of the source is in the page cache ({@link PageCache#cachedPages}: cachestat(2), Linux
     * 6.5; false where the kernel cannot say), judged by {@value #RESIDENCY_SAMPLES} samples of 1 MiB spread over a
     * source larger than they are.
     * Such a file is not split across workers: its bytes come from memory, and the parts would only take turns on
     * the target's inode lock, which every buffered write to it holds (a 4 GiB file already cached took 1.8-3.5 s
     * and 2.5-4.9 s of system time split in two, 1.9-2.2 s and 1.7-1.9 s in one piece, on the 2-CPU machine).
     * Splitting is for data that must come from the device, where two streams of reads keep more in flight.
     */
    private boolean mostlyCached(int srcFd, long size) {
        int page = LibC.pageSize();
        if (size <= (long) RESIDENCY_SAMPLES * RESIDENCY_SAMPLE_BYTES) {
            long cachedPages = PageCache.cachedPages(srcFd, s.cacheRange, s.cacheStat);
            return cachedPages >= 0 && cachedPages * 2 >= (size + page - 1) / page;
        }
        // Evenly spaced samples, the last ending at the end of the file: asking about the whole of a cached 4 GiB
        // file costs the kernel about 55 ms before the copy can start, the samples well under a millisecond.
        long cached = 0;
        long span = size - RESIDENCY_SAMPLE_BYTES;
        for (int i = 0; i < RESIDENCY_SAMPLES; i++) {
            long off = span / (RESIDENCY_SAMPLES - 1) * i / page * page;
            long n = PageCache.cachedPages(srcFd, off, RESIDENCY_SAMPLE_BYTES, s.cacheRange, s.cacheStat);
            if (n < 0) return false;
            cached += n;
        }
        return cached * 2 >= (long) RESIDENCY_SAMPLES * (RESIDENCY_SAMPLE_BYTES / page);
    }

    /** How many ranges of a large source {@link #mostlyCached} asks about, and how long each is. */
    static final int RESIDENCY_SAMPLES = 16;
    static final long RESIDENCY_SAMPLE_BYTES = 1L << 20;

    /** A target file being written: its descriptor and, unless it is unnamed (O_TMPFILE), its temporary name. */
    static final class Target {
        final int fd;
        final byte[] tempName;
        final int createdMode;
        /** Created under its final name (in a directory built aside): it needs no link or rename. */
        final boolean inPlace;
        boolean published;

        Target(int fd, byte[] tempName, int createdMode, boolean inPlace) {
            this.fd = fd;
            this.tempName = tempName;
            this.createdMode = createdMode;
            this.inPlace = inPlace;
        }
    }

    /** Creates the file the data goes into: unnamed where the file system can, else under a temporary name. */
    Target createTarget(DirNode dir, int mode, byte[] inPlace) throws ErrnoException {
        int access = o.verify() ? Fcntl.O_RDWR : Fcntl.O_WRONLY;
        if (inPlace != null) {
            // In a directory built aside nobody sees the name before the directory is renamed into place, and a
            // killed run's partial file there is replaced by the next (its mtime is not the source's).
            PathBytes.put(s.tmp, inPlace);
            int fd = LibC.openat(curDst, s.tmp, Fcntl.O_CREAT | Fcntl.O_EXCL | Fcntl.O_NOFOLLOW | access
                    | Fcntl.O_CLOEXEC, mode);
            if (fd < 0) throw new ErrnoException("open", -fd, Names.show(PathBytes.join(dir.dst, inPlace)));
            return new Target(fd, inPlace, mode, true);
        }
        if (ctx.tmpfileLinkMode != 2 && !ctx.noTmpfile.contains(dir.dstDev)) {
            Names.putAscii(s.tmp, ".");
            int fd = LibC.openat(curDst, s.tmp, Fcntl.O_TMPFILE | access | Fcntl.O_CLOEXEC, mode);
            if (fd >= 0) return new Target(fd, null, mode, false);
            if (fd == -Errno.EOPNOTSUPP || fd == -Errno.EISDIR || fd == -Errno.EINVAL) {
                if (ctx.noTmpfile.add(dir.dstDev)) {
                    ctx.listener.onNotice("O_TMPFILE unsupported: target_device=" + Storage.showDevice(dir.dstDev)
                            + " errno=" + Errno.name(fd) + "; writing under temporary names (.jfio-PID-N.part)");
                }
            } else {
                throw new ErrnoException("open(O_TMPFILE)", -fd, Names.show(dir.dst));
            }
        }
        while (true) {
            byte[] name = ctx.tempName();
            PathBytes.put(s.tmp, name);
            int fd = LibC.openat(curDst, s.tmp, Fcntl.O_CREAT | Fcntl.O_EXCL | Fcntl.O_NOFOLLOW | access
                    | Fcntl.O_CLOEXEC, mode);
            if (fd >= 0) return new Target(fd, name, mode, false);
            if (fd != -Errno.EEXIST) throw new ErrnoException("open", -fd, Names.show(PathBytes.join(dir.dst, name)));
        }
    }

    /** Removes the temporary name of a target that never got its final name. */
    void discardIfUnpublished(Target t, DirNode dir) {
        if (t.published || t.tempName == null || !enter(dir)) return;
        PathBytes.put(s.tmp, t.tempName);
        LibC.unlinkat(curDst, s.tmp, 0);
    }

    /**
     * Copies all of a file's data ranges into the target (a reflink was not made; where {@code sparse}, its length is
     * set already and the holes stay unwritten); single-threaded.
     */
    private DataCopy.Result copyData(int srcFd, int dstFd, Meta m, List<DataCopy.Range> ranges, boolean sparse,
                                     CopyContext.DevPair pair, Entry e) throws IOException {
        if (m.size() == 0) return new DataCopy.Result(null, 0, false, false);
        byte[] srcPath = e.srcPath();
        byte[] dstPath = e.dstPath();
        CopyMethod first = data.firstMethod(pair);
        CopyMethod[] used = new CopyMethod[1];
        long written = 0;
        boolean shrank = false;
        boolean zerosToHoles = o.sparse() == CopyOptions.Sparse.ALWAYS;
        for (DataCopy.Range range : ranges) {
            long n = zerosToHoles
                    ? data.copyMakingHoles(srcFd, dstFd, range.offset(), range.length(), srcPath, dstPath, used)
                    : data.copyRange(srcFd, dstFd, range.offset(), range.length(), first, pair, srcPath, dstPath,
                    used);
            written += n;
            if (n < range.length()) {
                shrank = true;
                if (sparse) LibC.ftruncate(dstFd, range.offset() + n);
                break;
            }
        }
        return new DataCopy.Result(used[0] != null ? used[0] : first, written, sparse, shrank);
    }

    /**
     * Attributes, fsync, verification and the final name: the file is done. s.src/s.dst need not hold its paths.
     *
     * @return true when the file is in place
     */
    boolean finishFile(Entry e, int srcFd, Target t, boolean replace, DataCopy.Result r, int chunks)
            throws IOException {
        Meta m = e.meta();
        DirNode dir = e.dir();
        ctx.bytesAccounted.add(Math.max(0, m.size() - r.written()));
        if (o.verify() && m.isRegular()) {
            // Before the attributes: reading the copy would otherwise move the atime just set. After an fsync the
            // pages can be dropped, so the comparison reads what the device stored.
            if (o.fsync()) {
                int rr = LibC.fdatasync(t.fd);
                if (rr < 0) throw new ErrnoException("fdatasync", -rr, t.fd, e.showDst(), ErrnoException.NONE,
                        ErrnoException.NONE);
                LibC.posixFadvise(t.fd, 0, 0, Fcntl.POSIX_FADV_DONTNEED);
            }
            long at = data.compare(srcFd, t.fd, m.size(), m.looksSparse(), e.srcPath(), e.dstPath());
            if (at >= 0) {
                ctx.fail(e.srcPath(), e.dstPath(), "verification failed: the copy differs from the source: offset="
                        + at + " path=" + e.showDst(), 0);
                return false;
            }
        }
        Attributes.Failure f = attrs.applyToFd(srcFd, t.fd, m, dir, t.createdMode);
        if (f != null) throw new ErrnoException(f.call(), -f.errno(), t.fd, e.showDst(), ErrnoException.NONE,
                ErrnoException.NONE);
        if (o.fsync()) {
            int rr = LibC.fsync(t.fd);
            if (rr < 0) throw new ErrnoException("fsync", -rr, t.fd, e.showDst(), ErrnoException.NONE,
                    ErrnoException.NONE);
        }
        // A split file's last part may finish on any worker: its directory is opened here.
        if (!enter(dir)) return false;
        PathBytes.put(s.dst, e.dstName());
        Decision published = publish(t, replace, e);
        if (published == Decision.SKIP_EXISTS) return skipped(e, Decision.SKIP_EXISTS);
        ctx.files.increment();
        ctx.event(CopyEvent.Kind.FILE, CopyEvent.Outcome.COPIED, e, r.method(), r.written(), r.sparse(), chunks);
        return true;
    }

    /**
     * Gives the finished target its final name (in s.dst, in the entered directory): links the unnamed file, or
     * renames the temporary one. Never replaces with {@code -n}; otherwise replaces atomically.
     *
     * @return {@link Decision#ABSENT} when in place, {@link Decision#SKIP_EXISTS} when {@code -n} found a target
     */
    private Decision publish(Target t, boolean replace, Entry e) throws ErrnoException {
        if (t.inPlace) {
            t.published = true;
            return Decision.ABSENT;
        }
        boolean noClobber = overwrite(e.dir()) == CopyOptions.Overwrite.NEVER;
        if (t.tempName == null) {
            if (!replace) {
                int r = linkUnnamed(t.fd, s.dst);
                if (r == 0) {
                    t.published = true;
                    return Decision.ABSENT;
                }
                if (r != -Errno.EEXIST) throw new ErrnoException("linkat", -r, e.showDst());
                if (noClobber) return Decision.SKIP_EXISTS;
            }
            // Replace: name it temporarily, then rename over the target (one atomic step for readers).
            while (true) {
                PathBytes.put(s.tmp, ctx.tempName());
                int r = linkUnnamed(t.fd, s.tmp);
                if (r == -Errno.EEXIST) continue;
                if (r < 0) throw new ErrnoException("linkat", -r, e.showDst());
                int rr = LibC.renameat2(curDst, s.tmp, curDst, s.dst, 0);
                if (rr < 0) {
                    LibC.unlinkat(curDst, s.tmp, 0);
                    throw new ErrnoException("rename", -rr, e.showDst());
                }
                t.published = true;
                return Decision.ABSENT;
            }
        }
        PathBytes.put(s.tmp, t.tempName);
        int r = LibC.renameat2(curDst, s.tmp, curDst, s.dst, noClobber ? Fcntl.RENAME_NOREPLACE : 0);
        if (r == -Errno.EINVAL && noClobber) {
            // No RENAME_NOREPLACE on this file system: link (which never replaces), then drop the temporary name.
            r = LibC.linkat(curDst, s.tmp, curDst, s.dst, 0);
            if (r == 0) LibC.unlinkat(curDst, s.tmp, 0);
        }
        if (r == -Errno.EEXIST && noClobber) return Decision.SKIP_EXISTS;
        if (r < 0) throw new ErrnoException("rename", -r, e.showDst());
        t.published = true;
        return Decision.ABSENT;
    }

    /** linkat of an unnamed (O_TMPFILE) file to {@code name} in the entered directory. */
    private int linkUnnamed(int fd, MemorySegment name) {
        if (ctx.tmpfileLinkMode == 0) {
            Names.putAscii(s.aux, "/proc/self/fd/" + fd);
            return LibC.linkat(Fcntl.AT_FDCWD, s.aux, curDst, name, Fcntl.AT_SYMLINK_FOLLOW);
        }
        int r = LibC.linkat(fd, s.empty, curDst, name, Fcntl.AT_EMPTY_PATH);
        if ((r == -Errno.ENOENT || r == -Errno.EPERM) && Files.isDirectory(Path.of("/proc/self/fd"))) {
            // Without CAP_DAC_READ_SEARCH (root in a user namespace, say) AT_EMPTY_PATH says ENOENT: use /proc.
            ctx.tmpfileLinkMode = 0;
            return linkUnnamed(fd, name);
        }
        return r;
    }

    // ------------------------------------------------------------------ hard links

    /** Makes {@code e}'s target a hard link to the copy of {@code leader}, the first name of the same inode. */
    private boolean linkTo(Entry e, Entry leader) {
        if (!names(e)) return false;
        int lfd = leader.dir() == e.dir() ? curDst : dirs.openTarget(leader.dir(), false);
        if (lfd < 0) return false; // reported for the leader's directory
        try {
            PathBytes.put(s.aux, leader.dstName());
            return linkAt(e, lfd);
        } finally {
            if (lfd != curDst) LibC.close(lfd);
        }
    }

    /** Links s.aux in {@code lfd} as s.dst in the entered directory, replacing what is there as the options say. */
    private boolean linkAt(Entry e, int lfd) {
        boolean replace = false;
        if (!e.dir().fresh) {
            int r = LibC.statx(curDst, s.dst, Fcntl.AT_SYMLINK_NOFOLLOW, Meta.MASK, s.statx2);
            if (r == 0) {
                int lr = LibC.statx(lfd, s.aux, Fcntl.AT_SYMLINK_NOFOLLOW, Meta.MASK, s.statx);
                if (lr == 0 && Statx.dev(s.statx) == Statx.dev(s.statx2) && Statx.ino(s.statx) == Statx.ino(s.statx2)) {
                    return skipped(e, Decision.SKIP_COMPLETE);
                }
                if ((Statx.mode(s.statx2) & Fcntl.S_IFMT) == Fcntl.S_IFDIR) {
                    ctx.fail(e.srcPath(), e.dstPath(), "cannot overwrite directory with non-directory: target="
                            + e.showDst(), Errno.EISDIR);
                    return false;
                }
                if (overwrite(e.dir()) == CopyOptions.Overwrite.NEVER) return skipped(e, Decision.SKIP_EXISTS);
                if (overwrite(e.dir()) == CopyOptions.Overwrite.UPDATE
                        && e.meta().compareMtime(s.statx2) >= 0) {
                    return skipped(e, Decision.SKIP_NOT_NEWER);
                }
                replace = true;
            } else if (r != -Errno.ENOENT) {
                ctx.fail(e.srcPath(), e.dstPath(), "statx", r, e.dstPath());
                return false;
            }
        }
        int r = replace ? -Errno.EEXIST : LibC.linkat(lfd, s.aux, curDst, s.dst, 0);
        if (r == -Errno.EEXIST) {
            if (overwrite(e.dir()) == CopyOptions.Overwrite.NEVER) return skipped(e, Decision.SKIP_EXISTS);
            r = replaceWith(() -> LibC.linkat(lfd, s.aux, curDst, s.tmp, 0));
        }
        if (r < 0) {
            ctx.fail(e.srcPath(), e.dstPath(), "link", r, e.dstPath());
            return false;
        }
        ctx.hardLinks.increment();
        ctx.event(e.meta().kind(), CopyEvent.Outcome.HARD_LINKED, e, null, 0, false, 1);
        return true;
    }

    /**
     * Creates something under a temporary name (s.tmp) in the entered directory with {@code create}, then renames
     * it over s.dst.
     */
    private int replaceWith(java.util.function.IntSupplier create) {
        while (true) {
            PathBytes.put(s.tmp, ctx.tempName());
            int r = create.getAsInt();
            if (r == -Errno.EEXIST) continue;
            if (r < 0) return r;
            r = LibC.renameat2(curDst, s.tmp, curDst, s.dst, 0);
            if (r < 0) LibC.unlinkat(curDst, s.tmp, 0);
            return r;
        }
    }

    // ------------------------------------------------------------------ symlinks and special files

    private boolean copySymlink(Entry e) {
        if (!names(e)) return false;
        long n = LibC.readlinkat(curSrc, s.src, s.aux, Fcntl.PATH_MAX);
        if (n == -Errno.EINVAL) {
            ctx.fail(e.srcPath(), e.dstPath(), "the source symlink was replaced while copying: path=" + e.showSrc()
                    + "; not copied", 0);
            return false;
        }
        if (n < 0) {
            ctx.fail(e.srcPath(), e.dstPath(), "readlink", (int) n, e.srcPath());
            return false;
        }
        s.aux.set(java.lang.foreign.ValueLayout.JAVA_BYTE, n, (byte) 0);
        Decision d = e.dir().fresh ? Decision.ABSENT : decide(e);
        if (d == Decision.SKIP_COMPLETE && !sameLinkTarget(n)) d = Decision.REPLACE;
        if (d == Decision.FAIL) return false;
        if (d != Decision.ABSENT && d != Decision.REPLACE) return skipped(e, d);
        int r = d == Decision.REPLACE ? -Errno.EEXIST : LibC.symlinkat(s.aux, curDst, s.dst);
        if (r == -Errno.EEXIST) {
            if (overwrite(e.dir()) == CopyOptions.Overwrite.NEVER) return skipped(e, Decision.SKIP_EXISTS);
            r = replaceWith(() -> LibC.symlinkat(s.aux, curDst, s.tmp));
        }
        if (r < 0) {
            ctx.fail(e.srcPath(), e.dstPath(), "symlink", r, e.dstPath());
            return false;
        }
        Attributes.Failure f = attrs.applyToEntry(curSrc, s.src, curDst, s.dst, e.meta(), e.dir(), 0777);
        if (f != null) {
            ctx.fail(e.srcPath(), e.dstPath(), f.call(), f.errno(), e.dstPath());
            return false;
        }
        ctx.symlinks.increment();
        ctx.event(CopyEvent.Kind.SYMLINK, CopyEvent.Outcome.COPIED, e, null, 0, false, 1);
        return true;
    }

    /** True when the existing target symlink (s.dst) holds the {@code n} bytes now in s.aux. */
    private boolean sameLinkTarget(long n) {
        long m = LibC.readlinkat(curDst, s.dst, s.tmp, Fcntl.PATH_MAX);
        return m == n && MemorySegment.mismatch(s.aux, 0, n, s.tmp, 0, n) < 0;
    }

    private boolean copySpecial(Entry e) {
        if (!names(e)) return false;
        Meta m = e.meta();
        Decision d = e.dir().fresh ? Decision.ABSENT : decide(e);
        if (d == Decision.FAIL) return false;
        if (d != Decision.ABSENT && d != Decision.REPLACE) return skipped(e, d);
        int mode = createMode(m);
        int r = d == Decision.REPLACE ? -Errno.EEXIST : LibC.mknodat(curDst, s.dst, m.type() | mode, m.rdev());
        if (r == -Errno.EEXIST) {
            if (overwrite(e.dir()) == CopyOptions.Overwrite.NEVER) return skipped(e, Decision.SKIP_EXISTS);
            r = replaceWith(() -> LibC.mknodat(curDst, s.tmp, m.type() | mode, m.rdev()));
        }
        if (r < 0) {
            ctx.fail(e.srcPath(), e.dstPath(), "mknod", r, e.dstPath());
            return false;
        }
        Attributes.Failure f = attrs.applyToEntry(curSrc, s.src, curDst, s.dst, m, e.dir(), mode);
        if (f != null) {
            ctx.fail(e.srcPath(), e.dstPath(), f.call(), f.errno(), e.dstPath());
            return false;
        }
        ctx.specials.increment();
        ctx.event(m.kind(), CopyEvent.Outcome.COPIED, e, null, 0, false, 1);
        return true;
    }

    /**
     * {@code --parents}: a directory created on the way to a source's copy gets its source's mode, owner and times
     * as the options say; not its extended attributes, which cp does not copy to these either.
     */
    Attributes.Failure applyToParent(int dstFd, Meta m) {
        DirNode standIn = new DirNode(null, new byte[0], new byte[0], null);
        standIn.newGid = -1;
        // made with mkdir and not changed since: it has setgid where it inherited it
        int r = LibC.statx(dstFd, s.empty, Fcntl.AT_EMPTY_PATH, Statx.STATX_MODE, s.statx2);
        if (r < 0) return new Attributes.Failure("statx", r);
        return attrs.applyToDir(-1, dstFd, m, standIn, (Statx.mode(s.statx2) & Fcntl.S_ISGID) != 0, true);
    }

    // ------------------------------------------------------------------ for split files

    DataCopy data() {
        return data;
    }

}
