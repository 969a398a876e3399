package io.jfio.bench.copy;

import io.jfio.bench.BenchFile;
import io.jfio.bench.CpuUsage;
import io.jfio.bench.Processes;
import io.jfio.core.file.PageCache;
import io.jfio.core.sys.LibC;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code jfio bench copy}: jfio copy against {@code cp -a} (and fcp and xcp where installed) on a generated tree of
 * small files and on one large file, with the page cache cold and hot, in the same run.
 *
 * <p>Not thread-safe; one run at a time. The sequence:
 * <ol>
 *   <li>Checks the directory (not tmpfs: "cold" would mean nothing) and its free space; finds the peers and, where
 *       cargo exists, installs the missing ones once ({@code cargo install fcp xcp}; reused from ~/.cargo/bin).</li>
 *   <li>Generates the tree and the large file from the seed ({@link TreeGenerator}), and syncs them.</li>
 *   <li>For each workload, cache mode and repetition, runs every contender in turn (the order rotates each
 *       repetition) as a process, timing it from start to exit. Before each run: sync; cold: the page cache is
 *       dropped ({@code echo 3 > /proc/sys/vm/drop_caches} as root, which also drops inodes and directories, else
 *       {@link PageCache#evict} per file), then each tool is run once on a tiny tree so that its own binary (the
 *       JVM for jfio) is not what is cold; hot: every source file is read first (the large file only when less
 *       than 98% of it is cached, so that a tool starts right after the previous copy was freed: see the
 *       comment at the warm-up). Residency of a sample of source
 *       files is checked with {@link PageCache#residency} before every run.</li>
 *   <li>Every copy goes to a fresh destination. Large-file copies are removed between runs. Tree copies are moved
 *       aside and removed when the tree runs are over: on ext4 without a journal the inode allocator skips inodes
 *       freed in the last 60 s, 360 s (60 + 300) while their inode table block is dirty (recently_deleted), so
 *       removing the previous tree before a run slows that run several times over, measuring the removal instead
 *       of the copy.</li>
 *   <li>The first jfio copy of each workload is compared with the source (content, size, mtime).</li>
 *   <li>Prints a Markdown table (median seconds, MB/s, ratio to cp -a) and the targets' PASS/FAIL lines; removes
 *       everything, also on Ctrl-C.</li>
 * </ol>
 */
public final class CopyBench {
    private static final long RUN_TIMEOUT_SECONDS = 900;
    private static final int SAMPLE = 64;
    private static final double COLD_MAX = 0.02;
    private static final double HOT_MIN = 0.98;

    private final CopyBenchOptions o;
    private final PrintWriter out;
    private final PrintWriter err;
    private final AtomicReference<Process> running = new AtomicReference<>();
    private Path work;
    private int trash;

    private CopyBench(CopyBenchOptions o, PrintWriter out, PrintWriter err) {
        this.o = o;
        this.out = out;
        this.err = err;
    }

    /** One tool, and how to run it on a source and destination. */
    record Contender(String name, String label, List<String> prefix, List<String> suffix) {
        List<String> command(Path src, Path dst) {
            List<String> c = new ArrayList<>(prefix);
            c.add(src.toString());
            c.add(dst.toString());
            c.addAll(suffix);
            return c;
        }
    }

    /**
     * Runs the benchmark: progress on {@code err}, the table and verdicts on {@code out}.
     *
     * @throws IllegalArgumentException for an unusable directory (tmpfs, too little space) or a missing tool
     *                                  that was asked for by name
     */
    public static CopyBenchResult run(CopyBenchOptions options, PrintWriter out, PrintWriter err) throws IOException {
        return new CopyBench(options, out, err).run();
    }

    private CopyBenchResult run() throws IOException {
        Path dir = o.dir().toAbsolutePath();
        checkFileSystem(dir);
        List<Contender> contenders = contenders();
        if (contenders.stream().noneMatch(c -> c.name().equals("cp"))) {
            err.println("bench copy: note: cp is not among the contenders: no ratios, no verdicts");
        }
        long treeBytesEstimate = (long) o.files() * 16_200;
        long need = needSpace(contenders.size(), treeBytesEstimate);
        FileStore store = Files.getFileStore(dir);
        if (store.getUsableSpace() < need) {
            throw new IllegalArgumentException("not enough free space: dir=" + dir + " free=" + mb(store
                    .getUsableSpace()) + " needed=" + mb(need) + " (use --quick or a smaller --files/--size)");
        }
        work = Files.createTempDirectory(dir, "jfio-bench-copy-");
        Thread hook = new Thread(this::interrupted, "jfio-bench-copy-cleanup");
        Runtime.getRuntime().addShutdownHook(hook);
        String loadBefore = load();
        long stealBefore = steal();
        long started = System.nanoTime();
        try {
            CopyBenchResult r = measure(contenders);
            String loadAfter = load();
            double stealPct = stealPercent(stealBefore, steal(), System.nanoTime() - started);
            r = r.withEnvironment(loadBefore, loadAfter, stealPct);
            r.print(out);
            out.flush();
            return r;
        } finally {
            cleanup();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // already shutting down; the hook runs cleanup again, harmlessly
            }
        }
    }

    private long needSpace(int contenders, long treeBytes) {
        int modes = o.modes().size();
        long need = 1L << 30; // slack
        if (o.workloads().contains("tree")) {
            // the source, plus every tree copy until the tree runs are over (4 KiB per file of allocation overhead)
            long perTree = treeBytes + (long) o.files() * 4096;
            need += perTree * (1 + (long) contenders * modes * o.reps());
        }
        if (o.workloads().contains("big")) need += 2 * o.bigSize();
        return need;
    }

    private static void checkFileSystem(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) throw new IllegalArgumentException("not a directory: dir=" + dir);
        BenchFile.checkFileSystem(dir); // tmpfs, ramfs and the like: a cold page cache means nothing there
    }

    // ================================================================== contenders

    private List<Contender> contenders() throws IOException {
        List<Contender> list = new ArrayList<>();
        Path home = Path.of(System.getProperty("user.home"), ".cargo", "bin");
        boolean wantFcp = o.contenders().contains("fcp");
        boolean wantXcp = o.contenders().contains("xcp");
        Path fcp = Tools.find("fcp", home);
        Path xcp = Tools.find("xcp", home);
        List<String> missing = new ArrayList<>();
        if (wantFcp && fcp == null) missing.add("fcp");
        if (wantXcp && xcp == null) missing.add("xcp");
        if (!missing.isEmpty()) {
            Path cargo = Tools.find("cargo", home);
            if (!o.install()) {
                err.println("bench copy: not installed: " + String.join(", ", missing) + " (--no-install)");
            } else if (cargo == null) {
                err.println("bench copy: not installed and no cargo to install them: " + String.join(", ", missing));
            } else {
                err.println("bench copy: installing " + String.join(" ", missing) + " with " + cargo
                        + " install (compiles for a few minutes, once; reused from " + home + ")");
                List<String> cmd = new ArrayList<>(List.of(cargo.toString(), "install"));
                cmd.addAll(missing);
                String failed;
                try {
                    // A timeout kills cargo's rustc processes too.
                    int exit = Processes.run(new ProcessBuilder(cmd).redirectErrorStream(true)
                            .redirectOutput(ProcessBuilder.Redirect.DISCARD), 30 * 60);
                    failed = exit == 0 ? null : "exit=" + exit;
                } catch (IOException e) {
                    if (e.getCause() instanceof InterruptedException) {
                        throw new IOException("interrupted while installing peers", e);
                    }
                    failed = e.getMessage();
                }
                if (failed != null) {
                    err.println("bench copy: cargo install failed: " + failed + "; continuing without "
                            + String.join(", ", missing));
                }
                fcp = Tools.find("fcp", home);
                xcp = Tools.find("xcp", home);
            }
        }
        for (String name : o.contenders()) {
            switch (name) {
                case "cp" -> {
                    Path cp = Tools.find("cp", null);
                    if (cp == null) throw new IllegalArgumentException("cp not found on PATH");
                    list.add(new Contender("cp", "cp -a", List.of(cp.toString(), "-a"), List.of()));
                }
                case "jfio" -> {
                    List<String> c = new ArrayList<>(o.jfio());
                    c.addAll(List.of("copy", "-a", "--progress=none"));
                    list.add(new Contender("jfio", "jfio copy -a", c, List.of()));
                    int n = 0;
                    for (String v : o.variants()) {
                        List<String> cv = new ArrayList<>(c);
                        cv.addAll(List.of(v.trim().split("\\s+")));
                        list.add(new Contender("jfio-" + ++n, "jfio copy -a " + v.trim(), cv, List.of()));
                    }
                }
                case "fcp" -> {
                    if (fcp != null) list.add(new Contender("fcp", "fcp", List.of(fcp.toString()), List.of()));
                }
                case "xcp" -> {
                    if (xcp != null) {
                        list.add(new Contender("xcp", "xcp -r -o", List.of(xcp.toString(), "-r", "-o",
                                "--no-progress"), List.of()));
                    }
                }
                default -> throw new IllegalStateException(name);
            }
        }
        return list;
    }

    // ================================================================== measuring

    private CopyBenchResult measure(List<Contender> contenders) throws IOException {
        long t0 = System.nanoTime();
        Path src = work.resolve("src");
        TreeGenerator.Tree tree = null;
        Path big = work.resolve("big.bin");
        if (o.workloads().contains("tree")) {
            err.println("bench copy: generating " + String.format(Locale.ROOT, "%,d", o.files()) + " files (seed "
                    + o.seed() + ")");
            tree = TreeGenerator.tree(src, o.files(), o.seed());
        }
        if (o.workloads().contains("big")) {
            err.println("bench copy: generating a " + mb(o.bigSize()) + " file");
            TreeGenerator.bigFile(big, o.bigSize(), o.seed());
        }
        Processes.sync();
        err.printf(Locale.ROOT, "bench copy: data ready in %.1f s; cold cache by %s%n", (System.nanoTime() - t0)
                / 1e9, canDropCaches() ? "echo 3 > /proc/sys/vm/drop_caches (data, inodes, directories)"
                : "PageCache.evict per file (data only; not root)");
        err.flush();
        Path tiny = tinyTree();
        // Every tool runs once before anything is measured: first runs pay for what later runs do not (bin/jfio
        // builds its AOT cache on its first copy after a build).
        for (Contender c : contenders) warmTool(c, tiny);
        CopyBenchResult result = new CopyBenchResult(o, contenders, tree == null ? 0 : tree.bytes(),
                tree == null ? 0 : tree.files().size(), o.bigSize(), canDropCaches());
        for (String workload : o.workloads()) {
            boolean isTree = workload.equals("tree");
            Path source = isTree ? src : big;
            List<Path> sample = isTree ? sample(tree.files()) : List.of(big);
            List<Path> all = isTree ? tree.files() : List.of(big);
            for (String mode : o.modes()) {
                boolean cold = mode.equals("cold");
                for (int rep = 0; rep < o.reps(); rep++) {
                    for (int k = 0; k < contenders.size(); k++) {
                        Contender c = contenders.get((k + rep) % contenders.size());
                        Path dst = work.resolve("dst-" + c.name() + (isTree ? "" : ".bin"));
                        Processes.sync();
                        if (cold) {
                            dropCaches(all);
                            warmTool(c, tiny);
                        } else if (isTree || residency(all) < HOT_MIN) {
                            // The large file is read again only when it is not already cached: the tool then
                            // starts at once after the previous copy was deleted, not a second later. Where the
                            // VM hands freed memory back to its host (virtio-balloon free page reporting, about
                            // 2 s after the free), memory the host must give again is written several times
                            // slower, so a pause here would favour whichever tool starts its copy first.
                            for (Path f : all) PageCache.warm(f);
                        }
                        double resident = residency(sample);
                        if (cold ? resident > COLD_MAX : resident < HOT_MIN) {
                            result.note(String.format(Locale.ROOT, "%s %s rep %d %s: source %.1f%% resident, "
                                    + "expected %s", workload, mode, rep + 1, c.name(), resident * 100,
                                    cold ? "<= 2%" : ">= 98%"));
                        }
                        double[] run = time(c, source, dst, workload + "-" + mode + "-" + (rep + 1));
                        double secs = run[0];
                        err.printf(Locale.ROOT, "bench copy: %-4s %-4s rep %d/%d  %-10s %s%n", workload, mode,
                                rep + 1, o.reps(), c.name(), Double.isNaN(secs) ? "FAILED" : String.format(
                                        Locale.ROOT, "%.3f s (resident %.0f%%)", secs, resident * 100));
                        err.flush();
                        result.add(workload, mode, c.name(), secs);
                        if (!Double.isNaN(secs) && !Double.isNaN(run[1])) {
                            result.addCpu(workload, mode, c.name(), run[1], run[2]);
                        }
                        if (c.name().equals("jfio") && !Double.isNaN(secs) && !result.verified(workload)) {
                            result.verify(workload, verify(source, dst, isTree, tree));
                        }
                        if (isTree) {
                            moveAside(dst);
                        } else {
                            Files.deleteIfExists(dst);
                        }
                    }
                }
            }
            if (isTree) emptyTrash();
        }
        return result;
    }

    private List<Path> sample(List<Path> files) {
        SplittableRandom r = new SplittableRandom(o.seed());
        List<Path> s = new ArrayList<>();
        for (int i = 0; i < Math.min(SAMPLE, files.size()); i++) s.add(files.get(r.nextInt(files.size())));
        return s;
    }

    private static double residency(List<Path> files) throws IOException {
        long resident = 0;
        long total = 0;
        for (Path f : files) {
            PageCache.Residency r = PageCache.residency(f);
            resident += r.residentPages();
            total += r.totalPages();
        }
        return total == 0 ? 1 : (double) resident / total;
    }

    /**
     * Runs one copy as a process and times it from start to exit. Its CPU time is the rise of this JVM's cutime and
     * cstime across the run ({@link CpuUsage.ProcessTimes}): the kernel adds the tool's user and system time, its
     * children's included, when the JDK has waited for it, and no other child of this JVM is reaped meanwhile (one
     * tool runs at a time; sync and rm run before and after, waited for).
     *
     * @return {seconds, user seconds, system seconds}; seconds NaN when the run failed, CPU NaN when unknown
     */
    private double[] time(Contender c, Path src, Path dst, String cell) throws IOException {
        Path log = work.resolve("log-" + c.name() + "-" + cell + ".txt");
        ProcessBuilder pb = new ProcessBuilder(c.command(src, dst)).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        CpuUsage.ProcessTimes before = CpuUsage.ProcessTimes.self();
        long t0 = System.nanoTime();
        Process p = pb.start();
        running.set(p);
        try {
            if (!p.waitFor(RUN_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                Processes.kill(p);
                err.println("bench copy: timed out: " + String.join(" ", c.command(src, dst)));
                return new double[] {Double.NaN, Double.NaN, Double.NaN};
            }
        } catch (InterruptedException e) {
            Processes.kill(p);
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } finally {
            running.set(null);
        }
        long t1 = System.nanoTime();
        CpuUsage.ProcessTimes after = CpuUsage.ProcessTimes.self();
        if (p.exitValue() != 0) {
            String text = Files.readString(log, StandardCharsets.UTF_8);
            err.println("bench copy: failed (exit " + p.exitValue() + "): " + String.join(" ", c.command(src, dst))
                    + "\n" + text.substring(Math.max(0, text.length() - 2000)));
            return new double[] {Double.NaN, Double.NaN, Double.NaN};
        }
        Files.deleteIfExists(log);
        if (before == null || after == null) return new double[] {(t1 - t0) / 1e9, Double.NaN, Double.NaN};
        return new double[] {(t1 - t0) / 1e9, (after.childUser() - before.childUser()) / CpuUsage.TICKS_PER_SECOND,
            (after.childSystem() - before.childSystem()) / CpuUsage.TICKS_PER_SECOND};
    }

    /** Runs a tool once on a tiny tree, so that what a cold run reads from disk is the source, not the tool. */
    private void warmTool(Contender c, Path tiny) throws IOException {
        Path dst = work.resolve("warm-" + c.name());
        time(c, tiny, dst, "warm");
        Tools.removeTree(dst);
    }

    private Path tinyTree() throws IOException {
        Path t = Files.createDirectories(work.resolve("tiny/sub"));
        for (int i = 0; i < 3; i++) Files.writeString(t.resolve("f" + i), "warm " + i);
        Files.write(work.resolve("tiny/big"), new byte[3 << 20]);
        return work.resolve("tiny");
    }

    private static boolean canDropCaches() {
        return LibC.geteuid() == 0 && Files.isWritable(Path.of("/proc/sys/vm/drop_caches"));
    }

    private static void dropCaches(List<Path> files) throws IOException {
        if (canDropCaches()) {
            Files.writeString(Path.of("/proc/sys/vm/drop_caches"), "3\n");
        } else {
            for (Path f : files) PageCache.evict(f);
        }
    }

    /** Compares the copy with the source: names, sizes, mtimes and bytes of every file. */
    private static String verify(Path src, Path dst, boolean isTree, TreeGenerator.Tree tree) throws IOException {
        List<Path> files = isTree ? tree.files() : List.of(src);
        for (Path f : files) {
            Path c = isTree ? dst.resolve(src.relativize(f)) : dst;
            if (!Files.exists(c)) return "missing in the copy: " + c;
            if (Files.size(c) != Files.size(f)) return "size differs: " + c;
            if (!Files.getLastModifiedTime(c).equals(Files.getLastModifiedTime(f))) return "mtime differs: " + c;
            long m = Files.mismatch(f, c);
            if (m >= 0) return "content differs at offset " + m + ": " + c;
        }
        return null;
    }

    private void moveAside(Path dst) throws IOException {
        if (!Files.exists(dst)) return;
        Path t = Files.createDirectories(work.resolve("trash"));
        Files.move(dst, t.resolve("t" + trash++));
    }

    private void emptyTrash() throws IOException {
        Path t = work.resolve("trash");
        if (Files.exists(t)) {
            err.println("bench copy: removing the tree copies");
            Tools.removeTree(t);
        }
    }

    // ================================================================== cleaning up

    private void interrupted() {
        Process p = running.get();
        if (p != null) Processes.kill(p);
        cleanup();
    }

    private synchronized void cleanup() {
        if (work == null) return;
        try {
            Tools.removeTree(work);
        } catch (IOException e) {
            err.println("bench copy: could not remove " + work + ": " + e.getMessage());
        }
        work = null;
    }

    // ================================================================== the machine

    private static String load() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return String.join(" ", Arrays.copyOf(f, 3));
        } catch (IOException e) {
            return "?";
        }
    }

    /** Steal time in clock ticks from /proc/stat (CPU time the hypervisor gave to others). */
    private static long steal() {
        try {
            for (String l : Files.readAllLines(Path.of("/proc/stat"))) {
                if (l.startsWith("cpu ")) {
                    String[] f = l.trim().split("\\s+");
                    return f.length > 8 ? Long.parseLong(f[8]) : 0;
                }
            }
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
        return -1;
    }

    private static double stealPercent(long before, long after, long nanos) {
        if (before < 0 || after < 0) return Double.NaN;
        double ticks = (after - before);
        double available = nanos / 1e9 * CpuUsage.TICKS_PER_SECOND * Runtime.getRuntime().availableProcessors();
        return available <= 0 ? Double.NaN : 100 * ticks / available;
    }

    static String mb(long bytes) {
        return String.format(Locale.ROOT, "%,.0f MB", bytes / 1e6);
    }

    /** For the report: what each contender preserves. */
    static Map<String, String> notes() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("cp", "GNU coreutils; -a keeps mode, owner, times, links, xattrs");
        m.put("jfio", "the same attributes as cp -a; each file written unnamed and linked into place when complete");
        m.put("fcp", "sets the mode only (no times, no owner, no xattrs)");
        m.put("xcp", "mode, times and owner (-o)");
        return m;
    }
}
