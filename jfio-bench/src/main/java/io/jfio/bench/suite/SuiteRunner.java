package io.jfio.bench.suite;

import io.jfio.bench.BenchFile;
import io.jfio.bench.CpuUsage;
import io.jfio.bench.verdict.Noise;
import io.jfio.bench.system.SystemInfo;
import io.jfio.bench.Units;
import io.jfio.bench.fio.Fio;
import io.jfio.core.sys.Platform;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileStore;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Runs {@code jfio bench}: checks the directory (not tmpfs unless allowed, writable, enough free space for the
 * largest experiment, said before anything is written), runs the chosen experiments one after another in a
 * {@code jfio-bench-suite-*} scratch directory that is emptied after each and removed at the end (also on an
 * exception, Ctrl-C or SIGTERM), and writes the report directory.
 *
 * <p>Not thread-safe; one run at a time.
 */
public final class SuiteRunner {
    /** Kept free beyond the test files, so no experiment fills the file system to the brim. */
    public static final long SPACE_MARGIN = 256L << 20;

    private SuiteRunner() {
    }

    /** The bad-input errors the CLI maps to exit code 2 (usage) with the message as it is. */
    public static final class BadInputException extends IllegalArgumentException {
        public BadInputException(String message) {
            super(message);
        }
    }

    /** The experiments selected by {@code only} (all when empty), in the canonical order. */
    public static List<Experiment> select(List<String> only) {
        List<Experiment> all = Experiments.all();
        if (only.isEmpty()) return all;
        List<Experiment> sel = new ArrayList<>();
        for (String n : only) {
            Experiment e = Experiments.byName(n).orElseThrow(() -> new BadInputException("unknown experiment '" + n
                    + "': expected one of " + Experiments.names()));
            if (!sel.contains(e)) sel.add(e);
        }
        sel.sort(java.util.Comparator.comparingInt(all::indexOf));
        return sel;
    }

    /** Bytes of free space the run needs: the largest experiment's files plus {@link #SPACE_MARGIN}. */
    public static long bytesNeeded(List<Experiment> experiments, SuiteOptions.Scale scale) {
        long max = 0;
        for (Experiment e : experiments) max = Math.max(max, e.bytesNeeded(scale));
        return max + SPACE_MARGIN;
    }

    /**
     * Runs the suite and writes the report into {@code outDir}.
     *
     * @param err progress and warnings
     * @param live a live progress line (a terminal)
     * @throws BadInputException for an unknown experiment, tmpfs, an unwritable directory or too little space
     */
    public static SuiteResult run(SuiteOptions options, Path outDir, PrintWriter err, boolean live)
            throws IOException {
        Platform.requireSupported();
        List<Experiment> experiments = select(options.only());
        Progress progress = new Progress(err, live);
        List<String> warnings = new ArrayList<>();
        Path dir = options.dir().toAbsolutePath();
        try {
            Files.createDirectories(dir);
        } catch (FileSystemException e) {
            throw new BadInputException("cannot create the test directory " + dir + ": " + reason(e)
                    + "; pass --dir on a writable disk-backed file system");
        }
        if (!Files.isDirectory(dir)) throw new BadInputException("--dir is not a directory: " + dir);
        FileStore store = Files.getFileStore(dir);
        if (!options.allowTmpfs()) {
            try {
                BenchFile.checkFileSystem(dir);
            } catch (IllegalArgumentException e) {
                throw new BadInputException(e.getMessage() + ", or --allow-tmpfs to measure it anyway");
            }
        }
        long needed = bytesNeeded(experiments, options.scale());
        long usable = store.getUsableSpace();
        if (store.getTotalSpace() == 0) {
            // ramfs reports no size at all (0 blocks): its limit is the memory the kernel can give it
            usable = BenchFile.memAvailable();
        }
        if (usable < needed) {
            throw new BadInputException("not enough free space in " + dir + ": the " + options.scaleName()
                    + " run needs " + Units.formatSize(needed) + " (largest experiment's files + "
                    + Units.formatSize(SPACE_MARGIN) + " margin), there are " + Units.formatSize(usable)
                    + "; free some, pass another --dir, or run fewer experiments with --only");
        }
        try {
            Files.createDirectories(outDir);
        } catch (FileSystemException e) {
            throw new BadInputException("cannot create the report directory " + outDir + ": " + reason(e)
                    + "; pass --out DIR");
        }
        double load = SystemInfo.load1();
        int cpus = Runtime.getRuntime().availableProcessors();
        if (load >= 1.0) {
            warnings.add(String.format(Locale.ROOT, "1-minute load average %.2f on %d CPUs at the start: other "
                    + "processes competed for CPU and disk, expect noisy numbers", load, cpus));
            progress.println("WARNING " + warnings.get(warnings.size() - 1));
        }
        long t0 = System.nanoTime();
        String started = LocalDateTime.now().format(DateTimeFormatter.ISO_LOCAL_DATE_TIME);
        Scratch scratch;
        try {
            scratch = Scratch.create(dir, new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.err),
                    true));
        } catch (AccessDeniedException e) {
            throw new BadInputException("cannot write test files in " + dir + ": permission denied; pass --dir on a "
                    + "writable file system");
        } catch (FileSystemException e) {
            throw new BadInputException("cannot write test files in " + dir + ": " + reason(e) + "; pass --dir");
        }
        Optional<Fio> fio = Optional.empty();
        Thread fioKiller = null;
        try (scratch) {
            boolean wantFio = options.fio() && experiments.stream().anyMatch(Experiment::fioExpressible);
            if (wantFio) {
                PrintWriter log = new PrintWriter(new java.io.StringWriter());
                fio = Fio.findOrInstall(options.installFio(), log);
                if (fio.isEmpty()) warnings.add("fio is not available: no jfio/fio ratios (install fio to get them)");
                Optional<Fio> f = fio;
                fioKiller = new Thread(() -> f.ifPresent(Fio::destroyRunning), "jfio-bench-fio-stop");
                Runtime.getRuntime().addShutdownHook(fioKiller);
            }
            SystemInfo sys = SystemInfo.collect(scratch.dir());
            List<String> setup = new ArrayList<>();
            setup.add("scale: " + options.scaleName() + "; " + SuiteOptions.REPS + " measured repetitions after one "
                    + "warm-up per cell; values are the median, spread = (max-min)/median");
            setup.add("seed: " + options.seed() + " (every random offset sequence derives from it; rerun with --seed)");
            setup.add("test files: " + scratch.dir() + " (removed at the end)");
            DirectIo directIo = DirectIo.probe(scratch.dir());
            setup.add("O_DIRECT: " + directIo.detail() + "; cold = fdatasync + POSIX_FADV_DONTNEED, residency "
                    + "checked with mincore before each cell (cold <= " + Math.round(CacheState.COLD_MAX * 100)
                    + "%, hot >= " + Math.round(CacheState.HOT_MIN * 100) + "%)");
            setup.add("fio: " + fio.map(f -> f.version() + " at " + f.executable())
                    .orElse(options.fio() ? "not available" : "not run (--no-fio)"));
            List<ExperimentResult> results = new ArrayList<>();
            long[] stableLeft = {options.stableBudget().toNanos()};
            for (int i = 0; i < experiments.size(); i++) {
                Experiment e = experiments.get(i);
                progress.status(String.format(Locale.ROOT, "[%d/%d] %s: %s", i + 1, experiments.size(), e.name(),
                        e.description()));
                SuiteContext ctx = new SuiteContext(options, scratch, progress, fio, sys, directIo,
                        String.format(Locale.ROOT, "[%d/%d] %s", i + 1, experiments.size(), e.name()),
                        e.quickBudget(), stableLeft);
                long s0 = System.nanoTime();
                CpuUsage cpu0 = CpuUsage.now();
                double load0 = SystemInfo.load1();
                ExperimentResult r;
                try {
                    r = e.run(ctx);
                } catch (InterruptedIOException ex) {
                    throw ex;
                } catch (Exception | Error ex) {
                    if (scratch.stopping()) throw new InterruptedIOException("stopped: the JVM is shutting down");
                    r = ExperimentResult.failed(e, ex.toString());
                    progress.println("FAILED " + e.name() + ": " + ex);
                } finally {
                    scratch.clear();
                }
                r.seconds((System.nanoTime() - s0) / 1e9);
                r.noise(Noise.between(cpu0, CpuUsage.now(), load0, SystemInfo.load1(), cpus));
                progress.println(String.format(Locale.ROOT, "%s: %s in %.1f s (%s)", e.name(),
                        r.status().name().toLowerCase(Locale.ROOT) + (r.reason().isEmpty() ? "" : " (" + r.reason()
                                + ")"), r.seconds(), r.noise().text()));
                results.add(r);
            }
            progress.done();
            SuiteResult result = new SuiteResult(options, sys, setup, results, warnings, started,
                    (System.nanoTime() - t0) / 1e9);
            Report.write(result, outDir);
            return result;
        } finally {
            if (fioKiller != null) {
                try {
                    Runtime.getRuntime().removeShutdownHook(fioKiller);
                } catch (IllegalStateException e) {
                    // shutting down: the hook runs anyway
                }
            }
        }
    }

    private static String reason(FileSystemException e) {
        return e.getReason() != null ? e.getReason() : e.getClass().getSimpleName();
    }
}
