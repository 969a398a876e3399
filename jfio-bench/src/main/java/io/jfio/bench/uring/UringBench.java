package io.jfio.bench.uring;

import io.jfio.bench.BenchFile;
import io.jfio.bench.CpuUsage;
import io.jfio.bench.Offsets;
import io.jfio.bench.Stats;
import io.jfio.bench.system.SystemInfo;
import io.jfio.bench.Units;
import io.jfio.bench.fio.Fio;
import io.jfio.bench.fio.FioJob;
import io.jfio.bench.fio.FioResult;
import io.jfio.core.engine.ThreadEngine;
import io.jfio.core.engine.UringEngine;
import io.jfio.core.file.BufferPool;
import io.jfio.core.file.PageCache;
import io.jfio.core.sys.Errno;
import io.jfio.core.sys.ErrnoException;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import io.jfio.core.sys.Platform;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.HdrHistogram.Histogram;

/**
 * {@code jfio bench uring}: 4 KiB random reads of one file at several queue depths, with the page cache hot, cold
 * and bypassed (O_DIRECT), through jfio's io_uring engine, jfio's thread engine, FileChannel (one thread and many),
 * RandomAccessFile and mmap; and fio with the same parameters on the same file in the same run as the reference.
 *
 * <p>Use {@link #run(UringBenchOptions, PrintWriter, PrintWriter)} from code (the CLI does); {@link #main} is a
 * stand-alone entry point. Not thread-safe: one run at a time per instance; the run owns its file, engines and
 * threads and releases all of them, on Ctrl-C and SIGTERM too (shutdown hooks).
 *
 * <p>How a cell is measured: an unmeasured warm-up run, then {@code reps} repetitions of {@code duration}; the
 * reported IOPS is the median repetition, with min and max beside it. Latency is from submission to completion of
 * each read, over all repetitions. Every read is checked (byte count and the block's stamp), so a fast wrong answer
 * shows up as errors, not as speed.
 */
public final class UringBench {
    /** Bytes per read. */
    public static final int BLOCK = BenchFile.BLOCK;
    /**
     * jfio's recommended io_uring path, the one the targets are checked with: registered buffers (a
     * {@link BufferPool} registered with {@link BufferPool#registerWith}, reads as {@code IoOp.readFixed}). The kernel
     * then neither pins (O_DIRECT) nor maps the user buffer on every request; the plain {@code IoOp.read} row is
     * printed beside it for comparison.
     */
    public static final Method RECOMMENDED = Method.URING_FIXED;
    /** Residency at least this counts as hot. */
    static final double HOT_MIN = 0.99;
    /** Residency at most this counts as cold. */
    static final double COLD_MAX = 0.01;
    /** Average CPUs used by others (or stolen) during the run beyond which the result carries a warning. */
    static final double OTHERS_MAX = 0.25;

    private final UringBenchOptions options;
    private final PrintWriter out;
    private final PrintWriter err;
    private final List<String> warnings = new ArrayList<>();
    private final List<CellResult> cells = new ArrayList<>();
    private BenchFile file;
    private Offsets offsets;
    private UringEngine uring;
    private String uringDescription;
    private boolean registered;
    private BufferPool pool;
    private Optional<Fio> fio = Optional.empty();
    private CpuUsage cpuStart;
    private CpuUsage.Delta cpu;

    private MoreRounds more = (mode, depth, iops) -> false;

    /** Most repetitions a group may grow to through {@link MoreRounds}. */
    public static final int MAX_REPS = 30;

    /**
     * Asked after a group's repetitions (one cache mode, one depth, its cells interleaved) whether to run one more
     * round of all of them; {@code iops} holds each Java cell's repetitions so far (fio left out), in round order.
     */
    @FunctionalInterface
    public interface MoreRounds {
        boolean more(CacheMode mode, int depth, java.util.Map<Method, double[]> iops);
    }

    private UringBench(UringBenchOptions options, PrintWriter out, PrintWriter err) {
        this.options = options;
        this.out = out;
        this.err = err;
    }

    /**
     * {@link #run(UringBenchOptions, PrintWriter, PrintWriter)} that, after each group's repetitions, adds rounds
     * while {@code more} asks for them (at most {@link #MAX_REPS} repetitions).
     */
    public static UringBenchResult run(UringBenchOptions options, PrintWriter out, PrintWriter err, MoreRounds more)
            throws IOException {
        Platform.requireSupported();
        UringBench b = new UringBench(options, out, err);
        b.more = more;
        return b.finish(b.execute());
    }

    /**
     * Runs the benchmark: prints progress to {@code err}, then the header, the Markdown table, the fio flags and the
     * target checks to {@code out}, writes JSON if {@link UringBenchOptions#json()} is set, and returns the result.
     * The data file is removed before this returns (or by a shutdown hook if the JVM stops first).
     *
     * @throws IllegalArgumentException for a directory on tmpfs or without enough free space (the message says why)
     * @throws IOException              when the file cannot be created or the JSON cannot be written
     */
    public static UringBenchResult run(UringBenchOptions options, PrintWriter out, PrintWriter err)
            throws IOException {
        Platform.requireSupported();
        UringBench b = new UringBench(options, out, err);
        return b.finish(b.execute());
    }

    private UringBenchResult finish(UringBenchResult r) throws IOException {
        out.print(r.markdown());
        out.flush();
        if (options.json() != null) {
            Path parent = options.json().toAbsolutePath().getParent();
            if (parent != null) Files.createDirectories(parent);
            Files.writeString(options.json(), r.toJson(), StandardCharsets.UTF_8);
            err.println("wrote " + options.json());
            err.flush();
        }
        return r;
    }

    private UringBenchResult execute() throws IOException {
        long t0 = System.nanoTime();
        err.printf(Locale.ROOT, "jfio bench uring: %s, %d x %s per cell (warm-up %s), depths %s, modes %s, seed=%d%n",
                Units.formatSize(options.fileSize()), options.reps(), Units.formatDuration(options.duration()),
                Units.formatDuration(options.warmup()), options.depths(), options.modeOrder(), options.seed());
        err.flush();
        checkLoad("start");
        // Refuse tmpfs before anything slow happens (installing fio, creating the file).
        Files.createDirectories(options.dir());
        if (!options.allowMemoryFs()) BenchFile.checkFileSystem(options.dir());
        if (options.fio()) fio = Fio.findOrInstall(options.installFio(), err);
        Thread fioKiller = new Thread(() -> fio.ifPresent(Fio::destroyRunning), "jfio-bench-fio-stop");
        Runtime.getRuntime().addShutdownHook(fioKiller);
        try (BenchFile f = BenchFile.create(options.dir(), options.fileSize(), options.seed(), err,
                options.allowMemoryFs())) {
            file = f;
            offsets = new Offsets(f.blocks(), BLOCK, options.seed());
            SystemInfo sys = SystemInfo.collect(f.path());
            int maxDepth = Math.max(options.fileChannelThreads(), options.depths().get(options.depths().size() - 1));
            pool = new BufferPool(maxDepth, BLOCK, BLOCK);
            try {
                startUring(maxDepth);
                cpuStart = CpuUsage.now();
                for (CacheMode mode : options.modeOrder()) runMode(mode);
                cpu = CpuUsage.now().since(cpuStart);
            } finally {
                if (uring != null) uring.close();
                pool.close();
            }
            List<Scaling.Row> scaling = List.of();
            if (options.scaling() && options.modes().contains(CacheMode.HOT)) {
                int depth = options.depths().contains(UringBenchResult.TARGET_DEPTH) ? UringBenchResult.TARGET_DEPTH
                        : options.depths().get(options.depths().size() - 1);
                scaling = new Scaling(f.path(), f.blocks(), options.seed(), depth, options.duration(),
                        options.warmup(), options.reps(), err).run(warnings);
            }
            List<String> setup = setupLines();
            if (cpu != null) {
                setup.add("cpu use while measuring: " + cpu.describe());
                if (cpu.others() > OTHERS_MAX || cpu.steal() > OTHERS_MAX) {
                    warn(String.format(Locale.ROOT, "other processes (%.2f CPUs) or the hypervisor (steal %.2f CPUs)"
                            + " took CPU time during the measurements: expect noisy numbers", cpu.others(),
                            cpu.steal()));
                }
            }
            return new UringBenchResult(options, sys, setup, cells, warnings,
                    (System.nanoTime() - t0) / 1e9, scaling);
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(fioKiller);
            } catch (IllegalStateException e) {
                // shutting down: the hook runs anyway
            }
        }
    }

    private void startUring(int maxDepth) throws IOException {
        int entries = Integer.highestOneBit(Math.max(2, maxDepth) * 2 - 1);
        entries = Math.max(entries, UringEngine.DEFAULT_ENTRIES);
        try {
            uring = new UringEngine(entries, UringEngine.DEFAULT_FLAGS);
            uringDescription = uring.toString(); // before close() adds " closed"
        } catch (IOException e) {
            // Engines.create() falls back to the thread engine on the same errors; here the rows just go.
            warn("io_uring is unavailable here (" + e.getMessage() + "): jfio io_uring rows are skipped");
            uring = null;
            return;
        }
        try {
            pool.registerWith(uring);
            registered = true;
        } catch (IOException e) {
            warn("registering buffers failed (" + e.getMessage() + "): the readFixed rows are skipped");
        }
    }

    private List<String> setupLines() {
        List<String> l = new ArrayList<>();
        l.add(String.format(Locale.ROOT, "file: %s, %s, %d blocks of 4 KiB; offsets: a seeded random permutation of "
                        + "the blocks (each read once per pass, like fio's random map), the same sequence for every "
                        + "method; seed=%d", file.path(), Units.formatSize(file.size()), file.blocks(),
                options.seed()));
        l.add(String.format(Locale.ROOT, "runs: warm-up %s, then %d x %s per cell; IOPS = median repetition (min – "
                        + "max, spread = (max-min)/median); latency p50/p99 from submission to completion over all "
                        + "repetitions (HdrHistogram; fio: --lat_percentiles=1, median repetition)",
                Units.formatDuration(options.warmup()), options.reps(), Units.formatDuration(options.duration())));
        if (uring != null) {
            l.add("jfio io_uring: " + uringDescription + ", registered ring fd=" + uring.registeredRingFd()
                    + ", features=0x" + Integer.toHexString(uring.features()) + ", submit early every "
                    + Integer.getInteger(UringEngine.SUBMIT_BATCH_PROP, UringEngine.SUBMIT_BATCH_DEFAULT)
                    + " callback submissions while a ring is busy, every "
                    + Integer.getInteger(UringEngine.IDLE_BATCH_PROP, UringEngine.IDLE_BATCH_DEFAULT)
                    + " while it has time to spare; one submitting thread (the ring thread): every "
                    + "completion callback checks its block and submits the next read; recommended path: "
                    + RECOMMENDED + " (BufferPool.registerWith + IoOp.readFixed), plain IoOp.read shown beside it");
        }
        l.add("jfio threads: ThreadEngine(threads = depth), driven by the same completion callbacks; both jfio "
                + "engines read through one descriptor advised POSIX_FADV_RANDOM (buffered modes)");
        l.add("FileChannel: read(direct ByteBuffer, position), 1 thread and " + options.fileChannelThreads()
                + " platform threads sharing one channel (no read-ahead hint: the JDK has no fadvise); O_DIRECT via"
                + " ExtendedOpenOption.DIRECT, 4 KiB-aligned buffers");
        l.add("RandomAccessFile: seek + readFully(byte[4096]), 1 thread; mmap: fresh mapping per repetition,"
                + " MADV_RANDOM (no fault read-ahead), one 4 KiB copy per touch, 1 thread (cold = page faults)");
        l.add("hot: file read into the page cache, residency >= " + Math.round(HOT_MIN * 100) + "% checked with "
                + "mincore before every repetition; cold: fdatasync + POSIX_FADV_DONTNEED before every repetition, "
                + "residency <= " + Math.round(COLD_MAX * 100) + "% checked, each block read at most once, residency"
                + " after the run shown; direct: O_DIRECT, 4 KiB-aligned buffers from a BufferPool");
        l.add(fio.map(f -> "fio: " + f.version() + " at " + f.executable() + ": --ioengine=io_uring|psync "
                + "--rw=randread --bs=4k --iodepth=N --direct=0|1 --time_based --runtime="
                + options.duration().toMillis() + "ms --randseed=" + options.seed() + " --readonly on the same file,"
                + " interleaved with the jfio cells rep by rep; io_uring with fio's default --fadvise_hint=1"
                + " (POSIX_FADV_RANDOM, as jfio), psync with --fadvise_hint=0 (as FileChannel); cold: evicted before"
                + " each run (and --invalidate=1); hot: pre-warmed, --invalidate=0")
                .orElse(options.fio() ? "fio: not available, no ratios" : "fio: not run (--no-fio)"));
        return l;
    }

    /** Warns when other processes keep the CPUs busy: the numbers are then noisy and the ratios suspect. */
    private void checkLoad(String when) {
        double load = SystemInfo.load1();
        int cpus = Runtime.getRuntime().availableProcessors();
        if (load >= cpus) {
            warn(String.format(Locale.ROOT, "the 1-minute load average at the %s of the run was %.2f on %d CPUs: "
                    + "other processes competed for the CPUs, so expect noisy numbers", when, load, cpus));
        }
    }

    private void warn(String w) {
        warnings.add(w);
        err.println("WARNING " + w);
        err.flush();
    }

    // ------------------------------------------------------------------ one cache mode

    /**
     * Runs every cell of one cache mode, grouped by depth. The cells of a group run interleaved, repetition by
     * repetition (jfio, then fio, then jfio again...), so that a slow drift of the device (a virtual disk shares its
     * host) weighs on all of them alike and their ratios stay fair.
     */
    private void runMode(CacheMode mode) throws IOException {
        err.println("== " + mode);
        err.flush();
        if (mode == CacheMode.HOT) {
            PageCache.Residency r = PageCache.warm(file.path());
            if (r.fraction() < HOT_MIN) {
                warn("hot: only " + Units.formatPercent(r.fraction()) + " of the file stayed in the page cache after"
                        + " warming (memory pressure?)");
            }
        } else {
            PageCache.evict(file.path());
        }
        boolean direct = mode == CacheMode.DIRECT;
        int fd = LibC.openat(Fcntl.AT_FDCWD, file.path().toString(),
                Fcntl.O_RDONLY | Fcntl.O_CLOEXEC | (direct ? Fcntl.O_DIRECT : 0), 0);
        if (fd < 0) {
            warn(mode + ": cannot open the file" + (direct ? " with O_DIRECT" : "") + ": "
                    + new ErrnoException("open", -fd, file.path().toString()).getMessage() + "; mode skipped");
            return;
        }
        try {
            if (!direct) {
                // Random reads want no read-ahead: jfio's engines give the hint (IoFile.advise(RANDOM) does the same),
                // as fio does by default (--fadvise_hint=1). Without it, once part of the file is cached, the
                // kernel's context read-ahead takes cached neighbours for a sequential stream and reads ahead.
                int r = LibC.posixFadvise(fd, 0, 0, Fcntl.POSIX_FADV_RANDOM);
                if (r != 0) warn(mode + ": posix_fadvise(RANDOM) failed: errno=" + Errno.name(Math.abs(r)));
            }
            int fcThreads = options.fileChannelThreads();
            List<Integer> groups = new ArrayList<>(options.depths());
            if (!groups.contains(1)) groups.add(0, 1);
            if (!groups.contains(fcThreads)) groups.add(fcThreads);
            groups.sort(null);
            for (int depth : groups) {
                List<CellRun> group = new ArrayList<>();
                if (options.depths().contains(depth)) {
                    if (uring != null) {
                        add(group, mode, Method.URING, depth, () -> engineWorkload(uring, fd, depth, false, null));
                        if (registered) {
                            add(group, mode, Method.URING_FIXED, depth,
                                    () -> engineWorkload(uring, fd, depth, true, null));
                        }
                    }
                    add(group, mode, Method.THREADS, depth, () -> {
                        ThreadEngine te = new ThreadEngine(depth);
                        return engineWorkload(te, fd, depth, false, te);
                    });
                    if (fio.isPresent() && options.methods().contains(Method.FIO_URING)) {
                        group.add(new FioRun(mode, Method.FIO_URING, depth));
                    }
                }
                if (depth == 1) {
                    add(group, mode, Method.FILECHANNEL, 1, () -> new ThreadedWorkload("filechannel", 1,
                            ThreadedWorkload.fileChannel(file.path(), direct)));
                    if (!direct) {
                        add(group, mode, Method.RAF, 1, () -> new ThreadedWorkload("raf", 1,
                                ThreadedWorkload.randomAccessFile(file.path())));
                        add(group, mode, Method.MMAP, 1, () -> new ThreadedWorkload("mmap", 1,
                                ThreadedWorkload.mmap(file.path(), file.size())));
                    }
                    if (fio.isPresent() && options.methods().contains(Method.FIO_PSYNC)) {
                        group.add(new FioRun(mode, Method.FIO_PSYNC, 1));
                    }
                }
                if (depth == fcThreads) {
                    add(group, mode, Method.FILECHANNEL_THREADS, fcThreads, () -> new ThreadedWorkload(
                            "filechannel", fcThreads, ThreadedWorkload.fileChannel(file.path(), direct)));
                }
                runGroup(mode, depth, group);
            }
        } finally {
            LibC.close(fd);
        }
    }

    private void add(List<CellRun> group, CacheMode mode, Method method, int depth, WorkloadFactory factory) {
        if (options.methods().contains(method)) group.add(new JavaRun(mode, method, depth, factory));
    }

    private Workload engineWorkload(io.jfio.core.engine.IoEngine engine, int fd, int depth, boolean fixed,
                                    AutoCloseable onClose) {
        MemorySegment[] bufs = new MemorySegment[depth];
        MemorySegment slab = pool.slab();
        for (int i = 0; i < depth; i++) bufs[i] = slab.asSlice((long) i * BLOCK, BLOCK);
        return new EngineWorkload(engine, fd, bufs, fixed, onClose);
    }

    private interface WorkloadFactory {
        Workload open() throws IOException;
    }

    private void runGroup(CacheMode mode, int depth, List<CellRun> group) {
        if (group.isEmpty()) return;
        err.printf(Locale.ROOT, "  %s depth %d: %d cells x %d reps ", mode, depth, group.size(), options.reps());
        err.flush();
        try {
            for (CellRun c : group) c.guard(c::start);
            int r = 0;
            for (; r < options.reps(); r++) {
                for (CellRun c : group) {
                    int rep = r;
                    c.guard(() -> c.rep(rep));
                }
                err.print('.');
                err.flush();
            }
            while (r < MAX_REPS && more.more(mode, depth, samples(group, r))) {
                for (CellRun c : group) {
                    int rep = r;
                    c.guard(() -> c.rep(rep));
                }
                r++;
                err.print('+');
                err.flush();
            }
        } finally {
            for (CellRun c : group) c.stopQuietly();
        }
        err.println();
        for (CellRun c : group) {
            if (c.failure != null) {
                warn(mode + " " + c.name() + " depth " + c.depth + " failed: " + c.failure);
                continue;
            }
            CellResult res = c.result();
            cells.add(res);
            err.printf(Locale.ROOT, "    %-26s %s IOPS (%s – %s), p50 %s µs, p99 %s µs%s%s%n", c.name(),
                    Units.formatCount(res.medianIops()), Units.formatCount(res.summary().min()),
                    Units.formatCount(res.summary().max()), Units.formatMicros(res.latency().p50()),
                    Units.formatMicros(res.latency().p99()),
                    mode == CacheMode.DIRECT ? "" : ", cache " + Units.formatPercent(res.residencyBefore()) + " → "
                            + Units.formatPercent(res.residencyAfter()),
                    res.errors() > 0 ? ", " + res.errors() + " ERRORS: " + res.notes() : "");
        }
        err.flush();
    }

    /** The first {@code reps} repetitions of each Java cell of a group that has not failed. */
    private static java.util.Map<Method, double[]> samples(List<CellRun> group, int reps) {
        java.util.Map<Method, double[]> m = new java.util.EnumMap<>(Method.class);
        for (CellRun c : group) {
            if (c.failure == null && !c.method.isFio()) m.put(c.method, java.util.Arrays.copyOf(c.iops, reps));
        }
        return m;
    }

    /** {@code a} with {@code v} at {@code i}, grown when {@code i} is past its end. */
    private static double[] put(double[] a, int i, double v) {
        double[] b = i < a.length ? a : java.util.Arrays.copyOf(a, Math.max(i + 1, a.length * 2));
        b[i] = v;
        return b;
    }

    // ------------------------------------------------------------------ one cell

    /** Before a repetition: makes the cache state what the mode promises and returns the residency (NaN: direct). */
    private double prepare(CacheMode mode, List<String> notes) throws IOException {
        switch (mode) {
            case HOT -> {
                double r = PageCache.residency(file.path()).fraction();
                if (r < HOT_MIN) r = PageCache.warm(file.path()).fraction();
                if (r < HOT_MIN) addOnce(notes, "not fully hot: residency " + Units.formatPercent(r));
                return r;
            }
            case COLD -> {
                PageCache.evict(file.path());
                double r = PageCache.residency(file.path()).fraction();
                if (r > COLD_MAX) {
                    PageCache.evict(file.path());
                    r = PageCache.residency(file.path()).fraction();
                }
                if (r > COLD_MAX) addOnce(notes, "not fully cold: residency " + Units.formatPercent(r));
                return r;
            }
            default -> {
                return Double.NaN;
            }
        }
    }

    private static void addOnce(List<String> notes, String n) {
        if (!notes.contains(n)) notes.add(n);
    }

    private double residencyAfter(CacheMode mode) throws IOException {
        return mode == CacheMode.DIRECT ? Double.NaN : PageCache.residency(file.path()).fraction();
    }

    private interface Step {
        void run() throws Exception;
    }

    /** One cell being measured: started (and warmed up), then one repetition at a time, then stopped. */
    private abstract class CellRun {
        final CacheMode mode;
        final Method method;
        final int depth;
        final List<String> notes = new ArrayList<>();
        double[] iops = new double[options.reps()];
        /** Repetitions done: the first {@code reps} values of the arrays are measurements. */
        int reps;
        double before = Double.NaN;
        double after = Double.NaN;
        long ops;
        Throwable failure;

        CellRun(CacheMode mode, Method method, int depth) {
            this.mode = mode;
            this.method = method;
            this.depth = depth;
        }

        String name() {
            return method == Method.FILECHANNEL_THREADS ? "FileChannel " + depth + " threads" : method.label();
        }

        /** Runs a step unless the cell already failed; a failure ends the cell, not the benchmark. */
        void guard(Step s) {
            if (failure != null) return;
            try {
                s.run();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                if (failure == null) failure = e;
            } catch (Exception e) {
                if (failure == null) failure = e;
            }
        }

        /** Stops the cell whether or not it failed; a failure to stop is recorded like any other. */
        void stopQuietly() {
            try {
                stop();
            } catch (Exception e) {
                if (failure == null) failure = e;
            }
        }

        abstract void start() throws Exception;

        abstract void rep(int r) throws Exception;

        abstract void stop() throws Exception;

        abstract CellResult result();

        void residency(int r, double b, double a) {
            boolean hot = mode == CacheMode.HOT;
            before = r == 0 ? b : hot ? Math.min(before, b) : Math.max(before, b);
            after = r == 0 ? a : hot ? Math.min(after, a) : Math.max(after, a);
        }
    }

    /** A Java method: a {@link Workload} run in this JVM. */
    private final class JavaRun extends CellRun {
        private final WorkloadFactory factory;
        private final Histogram all = Stats.newLatencyHistogram();
        private Workload workload;
        private long errors;

        JavaRun(CacheMode mode, Method method, int depth, WorkloadFactory factory) {
            super(mode, method, depth);
            this.factory = factory;
        }

        private boolean onePass() {
            return mode == CacheMode.COLD;
        }

        @Override
        void start() throws Exception {
            workload = factory.open();
            if (!options.warmup().isZero()) {
                prepare(mode, new ArrayList<>());
                workload.run(offsets.cursor(onePass()), options.warmup().toNanos());
            }
        }

        @Override
        void rep(int r) throws Exception {
            long nanos = options.duration().toNanos();
            double b = prepare(mode, notes);
            Offsets.Cursor cursor = offsets.cursor(onePass());
            Workload.Rep rep = workload.run(cursor, nanos);
            residency(r, b, residencyAfter(mode));
            iops = put(iops, r, rep.iops());
            reps = Math.max(reps, r + 1);
            all.add(rep.histogram());
            ops += rep.ops();
            errors += rep.errors();
            if (rep.firstError() != null) addOnce(notes, rep.firstError());
            if (onePass() && cursor.handedOut() >= offsets.length() && rep.nanos() < nanos * 0.95) {
                addOnce(notes, "the file ran out of unread blocks before the duration ended: use a larger --size");
            }
        }

        @Override
        void stop() throws Exception {
            if (workload != null) workload.close();
            workload = null;
        }

        @Override
        CellResult result() {
            double[] v = java.util.Arrays.copyOf(iops, reps);
            return new CellResult(mode, method, depth, v, Stats.summarize(v), Stats.Latency.of(all), before,
                    after, ops, errors, notes);
        }
    }

    /** fio with the same parameters, one process per repetition. */
    private final class FioRun extends CellRun {
        private double[] p50 = new double[options.reps()];
        private double[] p99 = new double[options.reps()];
        private double[] p999 = new double[options.reps()];

        FioRun(CacheMode mode, Method method, int depth) {
            super(mode, method, depth);
        }

        @Override
        void start() {
        }

        @Override
        void rep(int r) throws Exception {
            double b = prepare(mode, notes);
            // fio io_uring keeps fio's default POSIX_FADV_RANDOM hint, as jfio's engines give it; fio psync, the
            // cross-check of FileChannel, goes without, as FileChannel has no way to give it.
            boolean uringJob = method == Method.FIO_URING;
            FioJob job = new FioJob(file.path(), file.size(), uringJob ? "io_uring" : "psync", depth,
                    mode == CacheMode.DIRECT, options.duration(), mode != CacheMode.HOT, BLOCK, options.seed(),
                    uringJob);
            FioResult res = fio.orElseThrow().run(job);
            residency(r, b, residencyAfter(mode));
            iops = put(iops, r, res.iops());
            p50 = put(p50, r, res.p50Ns());
            p99 = put(p99, r, res.p99Ns());
            p999 = put(p999, r, res.p999Ns());
            reps = Math.max(reps, r + 1);
            ops += res.ios();
            if (!res.latencyKind().equals("lat")) addOnce(notes, "latency: fio's " + res.latencyKind() + "_ns");
        }

        @Override
        void stop() {
        }

        @Override
        CellResult result() {
            Stats.Latency lat = new Stats.Latency(ops, Stats.median(java.util.Arrays.copyOf(p50, reps)),
                    Stats.median(java.util.Arrays.copyOf(p99, reps)), Stats.median(java.util.Arrays.copyOf(p999,
                    reps)), Double.NaN, Double.NaN);
            double[] v = java.util.Arrays.copyOf(iops, reps);
            return new CellResult(mode, method, depth, v, Stats.summarize(v), lat, before, after, ops, 0, notes);
        }
    }

    // ------------------------------------------------------------------ stand-alone entry point

    /** Exit codes, as the CLI names them. */
    static final int EXIT_OK = 0;
    static final int EXIT_FAILED = 1;
    static final int EXIT_USAGE = 2;
    static final int EXIT_ENVIRONMENT = 3;

    /**
     * Runs from the command line; see {@link #usage()}. Exits 0, 1 (failed reads), 2 (usage, unusable --dir), 3
     * (not Linux).
     */
    public static void main(String[] args) {
        PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
        PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
        int rc = main(args, out, err);
        out.flush();
        err.flush();
        System.exit(rc);
    }

    /** {@link #main(String[])} without exiting, for tests: returns the exit code. */
    static int main(String[] args, PrintWriter out, PrintWriter err) {
        UringBenchOptions o;
        try {
            o = parse(args);
        } catch (IllegalArgumentException e) {
            err.println("jfio bench uring: " + e.getMessage());
            err.println(usage());
            return EXIT_USAGE;
        }
        if (o == null) {
            out.println(usage());
            return EXIT_OK;
        }
        try {
            UringBenchResult r = run(o, out, err);
            return r.errors() > 0 ? EXIT_FAILED : EXIT_OK;
        } catch (IllegalArgumentException e) {
            // An unusable --dir (tmpfs, too little space): bad input, and the message says what to do.
            err.println("jfio bench uring: " + e.getMessage());
            return EXIT_USAGE;
        } catch (Platform.UnsupportedPlatformException e) {
            err.println("jfio bench uring: " + e.getMessage());
            return EXIT_ENVIRONMENT;
        } catch (IOException e) {
            err.println("jfio bench uring: " + e.getMessage());
            return EXIT_FAILED;
        }
    }

    /** Usage text of the stand-alone entry point. */
    static String usage() {
        return """
                usage: UringBench [--dir DIR] [--size SIZE] [--duration D] [--warmup D] [--reps N]
                                  [--depths 1,32,128] [--modes hot,cold,direct] [--fc-threads N]
                                  [--methods LIST] [--seed N] [--no-fio] [--no-install] [--no-scaling]
                                  [--json PATH] [--quick]
                  --dir DIR       where to create the jfio-bench-* data directory (default: .); not tmpfs
                  --size SIZE     data file size (default 1g; --quick: 256m)
                  --duration D    one repetition (default 1s; --quick: 250ms)
                  --warmup D      warm-up before each cell (default: half the duration)
                  --reps N        repetitions per cell (default 5; --quick: 3)
                  --depths LIST   queue depths (default 1,32,128)
                  --modes LIST    cache modes (default hot,cold,direct)
                  --methods LIST  methods (default all): uring,uring_fixed,threads,filechannel,
                                  filechannel_threads,raf,mmap,fio_uring,fio_psync (fio = both fio rows)
                  --fc-threads N  threads of the multi-threaded FileChannel row (default 32)
                  --seed N        offset sequence seed (default: random, printed)
                  --no-fio        do not run fio
                  --no-install    do not install fio when it is missing
                  --no-scaling    do not run the scaling table (hot reads under taskset on 1 CPU and on all)
                  --json PATH     also write the results as JSON
                  --quick         shorter defaults for a first look""";
    }

    /** Parses the stand-alone arguments; returns null for --help. */
    static UringBenchOptions parse(String[] args) {
        UringBenchOptions.Builder b = UringBenchOptions.builder();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String v = null;
            int eq = a.indexOf('=');
            if (a.startsWith("--") && eq > 0) {
                v = a.substring(eq + 1);
                a = a.substring(0, eq);
            }
            switch (a) {
                case "-h", "--help" -> {
                    return null;
                }
                case "--no-fio" -> b.fio(false);
                case "--no-scaling" -> b.scaling(false);
                case "--no-install" -> b.installFio(false);
                case "--quick" -> b.quick(true);
                case "--dir", "--size", "--duration", "--warmup", "--reps", "--depths", "--modes", "--fc-threads",
                     "--seed", "--json", "--methods" -> {
                    if (v == null) {
                        if (i + 1 >= args.length) throw new IllegalArgumentException(a + " needs a value");
                        v = args[++i];
                    }
                    apply(b, a, v);
                }
                default -> throw new IllegalArgumentException("unknown argument '" + args[i] + "'");
            }
        }
        return b.build();
    }

    private static void apply(UringBenchOptions.Builder b, String opt, String v) {
        try {
            switch (opt) {
                case "--dir" -> b.dir(Path.of(v));
                case "--size" -> b.fileSize(io.jfio.core.units.Units.parseSize(v));
                case "--duration" -> b.duration(io.jfio.core.units.Units.parseDuration(v));
                case "--warmup" -> b.warmup(io.jfio.core.units.Units.parseDuration(v));
                case "--reps" -> b.reps(Integer.parseInt(v));
                case "--depths" -> b.depths(UringBenchOptions.parseDepths(v));
                case "--modes" -> b.modes(UringBenchOptions.parseModes(v));
                case "--fc-threads" -> b.fileChannelThreads(Integer.parseInt(v));
                case "--seed" -> b.seed(Long.parseLong(v));
                case "--json" -> b.json(Path.of(v));
                case "--methods" -> b.methods(UringBenchOptions.parseMethods(v));
                default -> throw new IllegalArgumentException("unknown option " + opt);
            }
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("invalid value for " + opt + ": '" + v + "'");
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(opt + ": " + e.getMessage(), e);
        }
    }
}
