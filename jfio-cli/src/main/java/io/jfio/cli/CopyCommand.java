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
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.EnumSet;
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
 * with its reason), 130 or 143 (128 + the signal's number, from the JVM) when SIGINT or SIGTERM stopped it,
 * {@link ExitCodes#USAGE} for bad options or an impossible request, {@link ExitCodes#ENVIRONMENT} when
 * {@code --method=uring} is forced without io_uring.
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

    @Parameters(arity = "1..*", paramLabel = "PATH", description = "Sources, then the target (SRC... DST); with "
            + "-t DIR, sources only.")
    private List<String> paths;

    @Option(names = {"-r", "-R", "--recursive"}, description = "Copy directories and their contents.")
    private boolean recursive;

    @Option(names = {"-a", "--archive"}, description = "Like cp -a: recursive; keep mode, ownership (where "
            + "permitted), access and modification times (ns), symlinks as symlinks, hard links, xattrs, FIFOs.")
    private boolean archive;

    @Option(names = "-p", description = "Keep mode, ownership and timestamps (--preserve=mode,ownership,timestamps).%n"
            + "  e.g. jfio copy -p report.pdf /backup/")
    private boolean preserveDefault;

    // Lists: given twice, --preserve and --no-preserve add up, as with cp.
    @Option(names = "--preserve", paramLabel = "LIST", arity = "0..1", fallbackValue = "mode,ownership,timestamps",
            description = "Keep these attributes: mode, ownership, timestamps, links (hard links as hard links), "
                    + "xattr (extended attributes, ACLs too with mode), all. Without LIST: mode,ownership,"
                    + "timestamps. -a keeps all.%n  e.g. jfio copy -r --preserve=mode,links photos /backup/")
    private List<String> preserve;

    @Option(names = "--no-preserve", paramLabel = "LIST", description = "Do not keep these attributes (names as "
            + "for --preserve); applied after -a, -p and --preserve.%n  e.g. jfio copy -a --no-preserve=ownership "
            + "src dst")
    private List<String> noPreserve;

    @Option(names = {"-t", "--target-directory"}, paramLabel = "DIR", description = "Copy every PATH into DIR, "
            + "which must be a directory.%n  e.g. find . -name '*.log' -print0 | xargs -0 jfio copy -t /backup")
    private String targetDirectory;

    @Option(names = {"-T", "--no-target-directory"}, description = "Treat DST as a name, even when it is a "
            + "directory: copy SRC as DST (a directory's contents into DST) rather than into it.%n"
            + "  e.g. jfio copy -rT site /srv/www   (site/index.html becomes /srv/www/index.html)")
    private boolean noTargetDirectory;

    @Option(names = "--parents", description = "Copy each SRC under DIR by its whole name, creating the "
            + "directories on the way.%n  e.g. jfio copy --parents a/b/c.txt DIR   (creates DIR/a/b/c.txt)")
    private boolean parents;

    @Option(names = {"-x", "--one-file-system"}, description = "Stay on the file system of each SRC: a directory "
            + "on another one (a mount point) is created, but not what is mounted there.%n"
            + "  e.g. jfio copy -ax / /mnt/rootcopy")
    private boolean oneFileSystem;

    @Option(names = "--sparse", paramLabel = "WHEN", description = "auto (default): keep the source's holes; "
            + "always: also make holes of blocks of zeros; never: write holes as zeros.%n"
            + "  e.g. jfio copy --sparse=always disk.img /backup/")
    private String sparse;

    @Option(names = {"-v", "--verbose"}, description = "Print 'SRC' -> 'DST' for every file, link and created "
            + "directory (to stdout; as cp -v, in the order they are done).%n  e.g. jfio copy -av photos /backup/")
    private boolean verbose;

    @Option(names = "--dry-run", description = "Change nothing: print what would be copied, one line per entry as "
            + "with -v but prefixed 'would copy' (what -n or -u would skip is left out).%n"
            + "  e.g. jfio copy -a --dry-run photos /backup/")
    private boolean dryRun;

    /** Which of -L, -P and -H came last (null: none), as with cp, where the last one wins. */
    private CopyOptions.Dereference deref;

    @Option(names = {"-L", "--dereference"}, description = "Follow every symlink in the sources.")
    private void dereference(boolean v) {
        if (v) deref = CopyOptions.Dereference.ALWAYS;
    }

    @Option(names = {"-P", "--no-dereference"}, description = "Copy symlinks as symlinks, also those on the "
            + "command line (the default with -r and -a).")
    private void noDereference(boolean v) {
        if (v) deref = CopyOptions.Dereference.NEVER;
    }

    @Option(names = "-H", description = "Follow symlinks named on the command line only (the last of -L, -P and -H "
            + "given counts).")
    private void commandLineDereference(boolean v) {
        if (v) deref = CopyOptions.Dereference.COMMAND_LINE;
    }

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

    @Option(names = "--build-aside", description = "Build each directory the copy creates as .NAME.jfio-HEX next "
            + "to NAME, create its files directly under their names (no unnamed file, no link), and rename it to "
            + "NAME once complete. After a kill the target is not there yet; the same command adopts what was "
            + "built and finishes it.")
    private boolean buildAside;

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
     * <p>Accepted: the flags and short-flag clusters ({@code -aL}) of the options above, flags as often as given; the
     * options with a value as {@code --name=value} or {@code --name value} ({@code -j N}; {@code --reflink} only with
     * {@code =}, as its value is optional); numbers as plain decimal digits; {@code --} before paths; at least two
     * paths, all in one run. Declined: help, version, anything unknown, an option with a value given twice, a value
     * that looks like an option, an argument starting with {@code @} (picocli reads it as an argument file), a lone
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
                         "--update", "--verify", "--fsync", "--build-aside", "--debug", "--sequential",
                         "--no-sequential" -> true;
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
        // A flag given twice means what it means once (cp -a -v -v); --sequential against --no-sequential is
        // left to picocli.
        if (opt.endsWith("sequential") && !seen.add("--sequential")) return false;
        switch (opt) {
            case "--recursive" -> recursive = true;
            case "--archive" -> archive = true;
            case "--dereference" -> deref = CopyOptions.Dereference.ALWAYS;
            case "--no-dereference" -> deref = CopyOptions.Dereference.NEVER;
            case "-H" -> deref = CopyOptions.Dereference.COMMAND_LINE;
            case "--no-clobber" -> noClobber = true;
            case "--update" -> update = true;
            case "--verify" -> verify = true;
            case "--fsync" -> fsync = true;
            case "--build-aside" -> buildAside = true;
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
        List<String> srcArgs = targetDirectory != null ? paths : paths.subList(0, paths.size() - 1);
        List<Path> sources = new ArrayList<>();
        for (String p : srcArgs) sources.add(path(p));
        Path target = targetDirectory != null ? targetDirectory(targetDirectory) : path(paths.get(paths.size() - 1));
        CopyVerbosePrinter lines = verbose || dryRun
                ? new CopyVerbosePrinter(dryRun, parents ? srcArgs : List.of()) : null;
        CopyProgressPrinter.Mode mode = progressMode(err);
        // The names the copy's own refusals may hold, to quote them there.
        String[] names = java.util.stream.Stream.concat(sources.stream(), java.util.stream.Stream.of(target))
                .map(Path::toString).toArray(String[]::new);

        CopyProgressPrinter[] printer = new CopyProgressPrinter[1];
        CopyListener listener = new CopyListener() {
            @Override
            public boolean wantsEntries() {
                return debug || lines != null;
            }

            @Override
            public void onEntry(CopyEvent event) {
                String line = lines == null ? null : lines.line(event);
                if (!debug && line == null) return;
                synchronized (out) {
                    if (debug) out.println(event);
                    if (line != null) out.println(line);
                }
            }

            @Override
            public void onFailure(CopyFailure f) {
                printer[0].println(name + ": cannot copy: " + failure(f));
            }

            @Override
            public void onNotice(String message) {
                if (debug) printer[0].println(name + ": debug: " + Quote.message(message));
            }
        };
        TreeCopy copy;
        try {
            copy = TreeCopy.of(sources, target, options, listener);
        } catch (IllegalArgumentException e) {
            throw new CliException(ExitCodes.USAGE, Quote.message(e.getMessage(), names));
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
            throw new CliException(ExitCodes.USAGE, Quote.message(e.getMessage(), names));
        } catch (IllegalStateException e) {
            throw new CliException(ExitCodes.ENVIRONMENT, e.getMessage());
        } finally {
            printer[0].stop();
            if (hooked) removeHook(hook);
        }
        String summary = CopyProgressPrinter.summary(result);
        err.println(name + ": " + (dryRun ? "dry run, nothing changed: " + summary.replaceFirst("^copied ",
                "would copy ") : summary));
        err.flush();
        out.flush();
        finished.countDown();
        // -v, --dry-run and --debug lines that could not be written (a full disk, a closed pipe) fail the command,
        // as with cp: whoever reads them would miss some.
        if (out.checkError()) {
            err.println(name + ": write error: the output (stdout) could not be written");
            err.flush();
            return ExitCodes.FAILED;
        }
        return result.ok() ? ExitCodes.OK : ExitCodes.FAILED;
    }

    /** A failure as one line, its names quoted as -v quotes them. */
    static String failure(CopyFailure f) {
        String reason = Quote.message(f.message(), f.source(), f.target());
        return "source=" + Quote.name(f.source()) + (f.target() != null ? " target=" + Quote.name(f.target()) : "")
                + " reason=" + reason;
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

    /** The path an argument names, by the argument's exact bytes ({@link RawArgs}). */
    private static Path path(String p) {
        try {
            return RawArgs.path(p);
        } catch (InvalidPathException e) {
            throw new CliException(ExitCodes.USAGE, "invalid path: path=" + Quote.name(p) + " reason=" + e.getReason());
        }
    }

    /**
     * A bare {@code --preserve} takes no value, as with cp ({@code cp --preserve SRC DST}): it is spelled out as
     * {@code --preserve=mode,ownership,timestamps}, so that picocli, which would take the next argument as the
     * optional value, reads SRC as a path. Arguments after {@code --} are paths and left alone.
     */
    static String[] withPreserveValues(String[] args) {
        String[] out = args;
        for (int i = 1; i < args.length && !args[i].equals("--"); i++) {
            if (args[i].equals("--preserve")) {
                if (out == args) out = args.clone();
                out[i] = "--preserve=mode,ownership,timestamps";
            }
        }
        return out;
    }

    /** {@code -t DIR}: it must be a directory now, as cp requires. */
    private static Path targetDirectory(String dir) {
        // The JDK reads "" as the working directory; cp, like the kernel, finds no such directory.
        if (dir.isEmpty()) throw usage("-t: target directory does not exist: target='' (an empty name)");
        Path p = path(dir);
        if (!Files.exists(p)) throw usage("-t: target directory does not exist: target=" + Quote.name(dir));
        if (!Files.isDirectory(p)) throw usage("-t: target is not a directory: target=" + Quote.name(dir));
        return p;
    }

    /** The options as given; contradictions and bad values are usage errors naming them. */
    CopyOptions options() {
        if (targetDirectory != null && noTargetDirectory) {
            throw usage("-t (--target-directory) and -T (--no-target-directory) contradict each other: choose one");
        }
        if (targetDirectory == null && paths.size() < 2) {
            throw usage("missing the target after " + Quote.name(paths.get(0)) + ": give SRC... DST, or -t DIR SRC...");
        }
        if (noTargetDirectory && paths.size() > 2) {
            throw usage("-T copies one SRC as DST: extra operand " + Quote.name(paths.get(2)));
        }
        if (parents && noTargetDirectory) {
            throw usage("--parents and -T contradict each other: --parents copies into a directory");
        }
        if (noClobber && update) throw usage("-n and --update contradict each other: choose one");
        try {
            CopyOptions.Builder b = archive ? CopyOptions.archive() : CopyOptions.builder().recursive(recursive);
            if (deref != null) b.dereference(deref);
            if (noClobber) b.overwrite(CopyOptions.Overwrite.NEVER);
            if (update) b.overwrite(CopyOptions.Overwrite.UPDATE);
            b.verify(verify).fsync(fsync).sequential(sequential);
            if (buildAside) b.buildAside(true);
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
            preserve(b);
            if (sparse != null) {
                CopyOptions.Sparse sp = sparse(sparse);
                if (sp != CopyOptions.Sparse.AUTO && (b.build().reflink() == CopyOptions.Reflink.ALWAYS
                        || b.build().method() == CopyMethod.REFLINK)) {
                    throw usage("--sparse=" + sparse + " and --reflink=always contradict each other: a reflink "
                            + "shares the source's blocks as they are");
                }
                b.sparse(sp);
            }
            b.noTargetDirectory(noTargetDirectory).parents(parents).oneFileSystem(oneFileSystem).dryRun(dryRun);
            return b.build();
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
    }

    /** -a keeps all; -p and --preserve add; --no-preserve takes away, whatever the order on the command line. */
    private void preserve(CopyOptions.Builder b) {
        Set<PreserveList.Attr> keep = archive ? EnumSet.allOf(PreserveList.Attr.class)
                : EnumSet.noneOf(PreserveList.Attr.class);
        if (preserveDefault) keep.addAll(PreserveList.DEFAULT);
        if (preserve != null) {
            for (String l : preserve) keep.addAll(PreserveList.parse("--preserve", l));
        }
        if (noPreserve != null) {
            for (String l : noPreserve) keep.removeAll(PreserveList.parse("--no-preserve", l));
        }
        b.preserveMode(keep.contains(PreserveList.Attr.MODE))
                .preserveOwnership(keep.contains(PreserveList.Attr.OWNERSHIP))
                .preserveTimestamps(keep.contains(PreserveList.Attr.TIMESTAMPS))
                .preserveHardLinks(keep.contains(PreserveList.Attr.LINKS))
                .preserveXattrs(keep.contains(PreserveList.Attr.XATTR))
                // cp: a mode explicitly not kept is the default one (0666 or 0777 less the umask)
                .defaultPermissions(noPreserve != null && !keep.contains(PreserveList.Attr.MODE));
    }

    private static CopyOptions.Sparse sparse(String v) {
        return switch (v.trim().toLowerCase(Locale.ROOT)) {
            case "auto" -> CopyOptions.Sparse.AUTO;
            case "always" -> CopyOptions.Sparse.ALWAYS;
            case "never" -> CopyOptions.Sparse.NEVER;
            default -> throw usage("invalid --sparse: sparse=" + v + " expected=auto|always|never");
        };
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
