package io.jfio.cli;

import io.jfio.core.copy.CopyEvent;
import io.jfio.core.copy.CopyFailure;
import io.jfio.core.copy.CopyListener;
import io.jfio.core.copy.CopyMethod;
import io.jfio.core.copy.CopyOptions;
import io.jfio.core.copy.CopyResult;
import io.jfio.core.copy.TreeCopy;
import io.jfio.core.sys.LibC;
import java.io.PrintWriter;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code jfio copy [OPTIONS] SRC... DST}: copies files and trees like {@code cp}, in parallel and atomically, through
 * {@link TreeCopy}.
 *
 * <p>Not thread-safe; one instance per command line. Progress, failures and the summary go to the err writer; with
 * {@code --debug}, one line per entry (the method chosen) goes to the out writer and notices to err. Exits
 * {@link ExitCodes#OK} when everything was copied, {@link ExitCodes#FAILED} when some entries failed (each is listed
 * with its reason) or the copy was interrupted, {@link ExitCodes#USAGE} for bad options or an impossible request,
 * {@link ExitCodes#ENVIRONMENT} when {@code --method=uring} is forced without io_uring.
 */
@Command(name = "copy", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        sortOptions = false,
        description = {
            "Copy files and directory trees, like cp, as fast as the storage allows.",
            "",
            "SRC... DST has cp's meaning: several sources, or a DST that is an existing directory, are copied into "
                    + "DST; one source is otherwise copied as DST. Files are written unnamed (O_TMPFILE) or under a "
                    + "temporary name and only then get their final name, so an interrupted copy never leaves a "
                    + "partial file behind a final name; running the same command again skips what is complete "
                    + "(same size and modification time, with -a) and finishes the rest.",
            "",
            "Data moves by reflink where the file system can, else copy_file_range (in the kernel), else io_uring, "
                    + "else read/write; --debug shows the choice per file. Holes in sparse files are kept. Files "
                    + "and directories are copied by several workers (one per CPU, more while the CPUs wait for "
                    + "the disk), large files split across them; on a rotational disk (queue/rotational=1; not "
                    + "trusted on virtio and Xen disks, whose driver cannot know) the copy is sequential unless -j "
                    + "or --no-sequential says otherwise.",
        })
public final class CopyCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Parameters(arity = "2..*", paramLabel = "PATH", description = "Sources, then the target (SRC... DST).")
    private List<String> paths;

    @Option(names = {"-r", "-R", "--recursive"}, description = "Copy directories and their contents.")
    private boolean recursive;

    @Option(names = {"-a", "--archive"}, description = "Like cp -a: recursive; keep mode, ownership (where "
            + "permitted), access and modification times (ns), symlinks as symlinks, hard links, xattrs, FIFOs.")
    private boolean archive;

    @Option(names = {"-L", "--dereference"}, description = "Follow every symlink in the sources.")
    private boolean dereference;

    @Option(names = {"-P", "--no-dereference"}, description = "Copy symlinks as symlinks, also those on the "
            + "command line (the default with -r and -a).")
    private boolean noDereference;

    @Option(names = "-H", description = "Follow symlinks named on the command line only.")
    private boolean commandLineDereference;

    @Option(names = {"-n", "--no-clobber"}, description = "Never overwrite an existing target.")
    private boolean noClobber;

    @Option(names = {"-u", "--update"}, description = "Replace a target only when the source is newer.")
    private boolean update;

    @Option(names = "--verify", description = "Read both sides back after copying each file and compare them byte "
            + "for byte (after --fsync, the target is read from the device); a mismatch fails the file, which "
            + "then never gets its final name.")
    private boolean verify;

    @Option(names = "--fsync", description = "fsync each file before it gets its name, each directory, and the "
            + "directory that receives the new names.")
    private boolean fsync;

    @Option(names = {"-j", "--jobs"}, paramLabel = "N", description = "Worker threads (default: one per CPU, more "
            + "while the CPUs wait for the disk, up to 8 per CPU; 1 on rotational storage).")
    private Integer jobs;

    @Option(names = "--reflink", paramLabel = "WHEN", arity = "0..1", fallbackValue = "always",
            description = "auto (default): reflink where the file system can; always: fail files that cannot be "
                    + "reflinked; never: always copy the data.")
    private String reflink;

    @Option(names = "--sequential", negatable = true, description = "Force one worker and no split files "
            + "(--sequential), or parallel copying even on rotational storage (--no-sequential).")
    private Boolean sequential;

    @Option(names = "--method", paramLabel = "METHOD", description = "Force the data method: copy_file_range, "
            + "uring, read_write or reflink (default: the best that works, per pair of devices).")
    private String method;

    @Option(names = "--block-size", paramLabel = "SIZE", description = "Bytes per request for uring and "
            + "read_write: a power of two from 4KiB to 64MiB, e.g. 256KiB (default 1MiB). Sizes: 4096, 64KiB, 1MiB "
            + "(k, m are KiB, MiB); kB, MB are powers of 1000. See docs/units.md.")
    private String blockSize;

    @Option(names = "--queue-depth", paramLabel = "N", description = "io_uring requests in flight per file "
            + "(default 8).")
    private Integer queueDepth;

    @Option(names = "--progress", paramLabel = "WHEN", description = "auto (default): a bar on a terminal, a "
            + "line every 5 s otherwise; bar; lines; none.")
    private String progress;

    @Option(names = "--debug", description = "Print the method chosen for every file (to stdout) and what jfio "
            + "noticed: workers, fallbacks (to stderr).")
    private boolean debug;

    @Override
    public Integer call() {
        return run(spec.qualifiedName(), spec.commandLine().getOut(), spec.commandLine().getErr());
    }

    /**
     * Reads {@code args[from..]} into this command's fields without picocli, as picocli would, or says it cannot be
     * sure: then the caller hands the whole command line to picocli.
     *
     * <p>Accepted: the flags and short-flag clusters ({@code -aL}) of the options above, each at most once; the
     * options with a value as {@code --name=value} or {@code --name value} ({@code -j N}; {@code --reflink} only with
     * {@code =}, as its value is optional); numbers as plain decimal digits; {@code --} before paths; at least two
     * paths, all in one run. Declined: help, version, anything unknown or repeated, a value that
     * looks like an option, an argument starting with {@code @} (picocli reads it as an argument file), a lone
     * {@code -}.
     *
     * @param args the command line
     * @param from the index of the first argument after {@code copy}
     * @return true when the fields hold the command line; false when picocli must parse it (fields then undefined)
     */
    boolean parse(String[] args, int from) {
        List<String> positional = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        boolean optionsEnd = false;
        boolean pathsEnded = false;
        for (int i = from; i < args.length; i++) {
            String a = args[i];
            if (a.startsWith("@")) return false;
            if (optionsEnd || !a.startsWith("-")) {
                if (pathsEnded) return false;
                positional.add(a);
                continue;
            }
            // picocli applies the arity (2..*) to each run of paths: one path alone between options is an error
            // there, so only command lines with all paths in one run are read here.
            if (!positional.isEmpty()) {
                if (positional.size() == 1) return false;
                pathsEnded = true;
            }
            if (a.equals("--")) {
                optionsEnd = true;
                continue;
            }
            if (a.equals("-")) return false;
            if (a.startsWith("--")) {
                int eq = a.indexOf('=');
                String opt = eq < 0 ? a : a.substring(0, eq);
                String value = eq < 0 ? null : a.substring(eq + 1);
                boolean flag = switch (opt) {
                    case "--recursive", "--archive", "--dereference", "--no-dereference", "--no-clobber",
                         "--update", "--verify", "--fsync", "--debug", "--sequential", "--no-sequential" -> true;
                    case "--jobs", "--method", "--block-size", "--queue-depth", "--progress" -> false;
                    case "--reflink" -> {
                        if (value == null) yield true; // "--reflink x": picocli decides whether x is its value
                        yield false;
                    }
                    default -> true;
                };
                if (flag) {
                    if (value != null) return false;
                    if (!setFlag(opt, seen)) return false;
                    continue;
                }
                if (value == null) {
                    if (i + 1 >= args.length || args[i + 1].startsWith("-") || args[i + 1].startsWith("@")) {
                        return false;
                    }
                    value = args[++i];
                }
                if (!setValue(opt, value, seen)) return false;
                continue;
            }
            if (a.equals("-j")) {
                if (i + 1 >= args.length || args[i + 1].startsWith("-") || args[i + 1].startsWith("@")) return false;
                if (!setValue("--jobs", args[++i], seen)) return false;
                continue;
            }
            for (int k = 1; k < a.length(); k++) {
                String opt = switch (a.charAt(k)) {
                    case 'r', 'R' -> "--recursive";
                    case 'a' -> "--archive";
                    case 'L' -> "--dereference";
                    case 'P' -> "--no-dereference";
                    case 'H' -> "-H";
                    case 'n' -> "--no-clobber";
                    case 'u' -> "--update";
                    default -> null;
                };
                if (opt == null || !setFlag(opt, seen)) return false;
            }
        }
        if (positional.size() < 2) return false;
        paths = positional;
        return true;
    }

    private boolean setFlag(String opt, Set<String> seen) {
        if (!seen.add(opt.equals("--no-sequential") ? "--sequential" : opt)) return false;
        switch (opt) {
            case "--recursive" -> recursive = true;
            case "--archive" -> archive = true;
            case "--dereference" -> dereference = true;
            case "--no-dereference" -> noDereference = true;
            case "-H" -> commandLineDereference = true;
            case "--no-clobber" -> noClobber = true;
            case "--update" -> update = true;
            case "--verify" -> verify = true;
            case "--fsync" -> fsync = true;
            case "--debug" -> debug = true;
            case "--sequential" -> sequential = Boolean.TRUE;
            case "--no-sequential" -> sequential = Boolean.FALSE;
            default -> {
                return false;
            }
        }
        return true;
    }

    private boolean setValue(String opt, String value, Set<String> seen) {
        if (!seen.add(opt)) return false;
        switch (opt) {
            case "--jobs", "--queue-depth" -> {
                // Only what every parser reads alike; picocli reports anything else.
                if (value.isEmpty() || value.length() > 9) return false;
                for (int k = 0; k < value.length(); k++) {
                    if (value.charAt(k) < '0' || value.charAt(k) > '9') return false;
                }
                if (opt.equals("--jobs")) {
                    jobs = Integer.parseInt(value);
                } else {
                    queueDepth = Integer.parseInt(value);
                }
            }
            case "--method" -> method = value;
            case "--block-size" -> blockSize = value;
            case "--progress" -> progress = value;
            case "--reflink" -> reflink = value;
            default -> {
                return false;
            }
        }
        return true;
    }

    /**
     * Runs the copy the fields describe.
     *
     * @param name the command's name for messages ({@code jfio copy})
     * @param out where {@code --debug} lines go
     * @param err where progress, failures and the summary go
     * @return the exit code
     */
    int run(String name, PrintWriter out, PrintWriter err) {
        CliException.requireSupportedPlatform();
        CopyOptions options = options();
        List<Path> sources = new ArrayList<>();
        for (String p : paths.subList(0, paths.size() - 1)) sources.add(path(p));
        Path target = path(paths.get(paths.size() - 1));
        CopyProgressPrinter.Mode mode = progressMode(err);

        CopyProgressPrinter[] printer = new CopyProgressPrinter[1];
        CopyListener listener = new CopyListener() {
            @Override
            public boolean wantsEntries() {
                return debug;
            }

            @Override
            public void onEntry(CopyEvent event) {
                synchronized (out) {
                    out.println(event);
                }
            }

            @Override
            public void onFailure(CopyFailure f) {
                printer[0].println(name + ": cannot copy: " + f);
            }

            @Override
            public void onNotice(String message) {
                if (debug) printer[0].println(name + ": debug: " + message);
            }
        };
        TreeCopy copy;
        try {
            copy = TreeCopy.of(sources, target, options, listener);
        } catch (IllegalArgumentException e) {
            throw new CliException(ExitCodes.USAGE, e.getMessage());
        }
        printer[0] = new CopyProgressPrinter(copy, err, mode, name);

        // Ctrl-C: stop the workers (nothing partial gets a final name) and say what was done, then let the JVM exit.
        CountDownLatch finished = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            copy.cancel();
            try {
                finished.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "jfio-copy-interrupt");
        boolean hooked = addHook(hook);
        CopyResult result;
        printer[0].start();
        try {
            result = copy.run();
        } catch (IllegalArgumentException e) {
            throw new CliException(ExitCodes.USAGE, e.getMessage());
        } catch (IllegalStateException e) {
            throw new CliException(ExitCodes.ENVIRONMENT, e.getMessage());
        } finally {
            printer[0].stop();
            if (hooked) removeHook(hook);
        }
        err.println(name + ": " + CopyProgressPrinter.summary(result));
        err.flush();
        out.flush();
        finished.countDown();
        return result.ok() ? ExitCodes.OK : ExitCodes.FAILED;
    }

    private static boolean addHook(Thread hook) {
        try {
            Runtime.getRuntime().addShutdownHook(hook);
            return true;
        } catch (IllegalStateException e) {
            return false; // already shutting down
        }
    }

    private static void removeHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // shutting down: the hook is running and waits for us
        }
    }

    private static Path path(String p) {
        try {
            return Path.of(p);
        } catch (InvalidPathException e) {
            throw new CliException(ExitCodes.USAGE, "invalid path: path=" + p + " reason=" + e.getReason());
        }
    }

    /** The options as given; contradictions and bad values are usage errors naming them. */
    CopyOptions options() {
        if (noClobber && update) throw usage("-n and --update contradict each other: choose one");
        int derefs = (dereference ? 1 : 0) + (noDereference ? 1 : 0) + (commandLineDereference ? 1 : 0);
        if (derefs > 1) throw usage("-L, -P and -H contradict each other: choose one");
        try {
            CopyOptions.Builder b = archive ? CopyOptions.archive() : CopyOptions.builder().recursive(recursive);
            if (dereference) b.dereference(CopyOptions.Dereference.ALWAYS);
            if (noDereference) b.dereference(CopyOptions.Dereference.NEVER);
            if (commandLineDereference) b.dereference(CopyOptions.Dereference.COMMAND_LINE);
            if (noClobber) b.overwrite(CopyOptions.Overwrite.NEVER);
            if (update) b.overwrite(CopyOptions.Overwrite.UPDATE);
            b.verify(verify).fsync(fsync).sequential(sequential);
            if (jobs != null) {
                if (jobs < 1 || jobs > CopyOptions.MAX_JOBS) {
                    throw usage("-j out of range: jobs=" + jobs + " expected=1.." + CopyOptions.MAX_JOBS);
                }
                b.jobs(jobs);
            }
            if (reflink != null) b.reflink(reflink(reflink));
            if (method != null) b.method(CopyMethod.parse(method));
            if (blockSize != null) b.blockSize(UnitOptions.positiveIntSize("--block-size", blockSize));
            if (queueDepth != null) b.queueDepth(queueDepth);
            return b.build();
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
    }

    private static CopyOptions.Reflink reflink(String v) {
        return switch (v.trim().toLowerCase(Locale.ROOT)) {
            case "auto" -> CopyOptions.Reflink.AUTO;
            case "always" -> CopyOptions.Reflink.ALWAYS;
            case "never" -> CopyOptions.Reflink.NEVER;
            default -> throw new IllegalArgumentException("invalid --reflink: reflink=" + v
                    + " expected=auto|always|never");
        };
    }

    private CopyProgressPrinter.Mode progressMode(PrintWriter err) {
        String p = progress == null ? "auto" : progress.trim().toLowerCase(Locale.ROOT);
        return switch (p) {
            case "bar" -> CopyProgressPrinter.Mode.BAR;
            case "lines" -> CopyProgressPrinter.Mode.LINES;
            case "none" -> CopyProgressPrinter.Mode.NONE;
            case "auto" -> stderrIsTerminal(err) ? CopyProgressPrinter.Mode.BAR : CopyProgressPrinter.Mode.LINES;
            default -> throw usage("invalid --progress: progress=" + progress + " expected=auto|bar|lines|none");
        };
    }

    /** A bar only where stderr is a terminal that can redraw a line, and only when we write to stderr. */
    private static boolean stderrIsTerminal(PrintWriter err) {
        if (!Main.isProcessErr(err)) return false;
        String term = System.getenv("TERM");
        return LibC.isatty(2) == 1 && term != null && !term.equals("dumb");
    }

    private static CliException usage(String message) {
        return new CliException(ExitCodes.USAGE, message);
    }
}
