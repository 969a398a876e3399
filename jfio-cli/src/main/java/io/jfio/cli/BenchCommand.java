package io.jfio.cli;

import io.jfio.bench.suite.Comparison;
import io.jfio.bench.suite.ExperimentResult;
import io.jfio.bench.suite.Experiments;
import io.jfio.bench.suite.Report;
import io.jfio.bench.suite.SuiteOptions;
import io.jfio.bench.suite.SuiteResult;
import io.jfio.bench.suite.SuiteRunner;
import io.jfio.bench.suite.WhatWins;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code jfio bench [NAME...]}: runs the experiment suite ({@link SuiteRunner}), all experiments by default, and
 * writes the report directory. {@code jfio bench uring} with its own options stays the standalone io_uring
 * benchmark ({@link UringBenchCommand}); the suite runs the same code as its {@code uring} experiment.
 * {@code jfio bench copy} is the copy benchmark against cp -a, fcp and xcp ({@link CopyBenchCommand}); {@code jfio
 * bench ship} the shipper's benchmark against rsyslog ({@link ShipBenchCommand}).
 *
 * <p>Not thread-safe; one instance per command line. Exits {@link ExitCodes#OK} when every experiment ran or was
 * skipped with a reason, {@link ExitCodes#FAILED} when one failed, {@link ExitCodes#USAGE} for an unknown
 * experiment or an unusable {@code --dir} (tmpfs, unwritable, too little space), {@link ExitCodes#ENVIRONMENT} off
 * Linux.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {
            "Measure which file I/O strategy wins on this machine: every experiment by default, or the NAMEs given.",
            "",
            "Experiments: load-types, alignment, readahead, buffers, transfer, mmap, metadata, memcpy, uring, watch,"
                    + " copy-tuning (see docs/bench.md). Test files go in a jfio-bench-suite-* directory under --dir "
                    + "and are removed at the end, on errors and on Ctrl-C/SIGTERM. The report (report.md, "
                    + "report.html, one PNG per experiment, results.json) goes to --out. Progress goes to stderr.",
        },
        subcommands = {UringBenchCommand.class, CopyBenchCommand.class, ShipBenchCommand.class})
public final class BenchCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Parameters(paramLabel = "NAME", arity = "0..*", description = "Experiments to run (default: all).")
    private List<String> names = new ArrayList<>();

    @Option(names = "--only", paramLabel = "NAME", split = ",", arity = "1..*",
            description = "Experiments to run, like the NAME arguments.")
    private List<String> only = new ArrayList<>();

    @Option(names = "--quick", description = "Small sizes, about 3 minutes in all (the default).")
    private boolean quick;

    @Option(names = "--full", description = "The source documents' sizes (1 to 8 GiB files): long, needs space.")
    private boolean full;

    @Option(names = "--dir", paramLabel = "PATH", description = "Where the test files go (default: the current "
            + "directory). Must not be tmpfs unless --allow-tmpfs.")
    private Path dir;

    @Option(names = "--allow-tmpfs", description = "Measure on tmpfs anyway (cold numbers then mean nothing).")
    private boolean allowTmpfs;

    @Option(names = "--out", paramLabel = "DIR", description = "Report directory (default: "
            + "jfio-report/<timestamp>).")
    private Path out;

    @Option(names = "--json", description = "Print results.json to stdout instead of the summary.")
    private boolean json;

    @Option(names = "--no-fio", description = "Do not run fio cross-checks.")
    private boolean noFio;

    @Option(names = "--no-install", description = "Do not install fio when it is missing.")
    private boolean noInstall;

    @Option(names = "--seed", paramLabel = "N", description = "Seed of every random offset sequence (default: "
            + "random, printed in the report).")
    private Long seed;

    @Option(names = "--repeat-until-stable", description = "Keep adding interleaved repetitions to each workload of "
            + "\"What wins here\" whose verdict is undecided, until it is decided (a winner, or equal within 10%%), it "
            + "has " + SuiteOptions.MAX_REPS
            + " repetitions, or --stable-budget is spent.")
    private boolean repeatUntilStable;

    @Option(names = "--stable-budget", paramLabel = "D", description = "Time the extra repetitions of "
            + "--repeat-until-stable may take in all (default: 5m), e.g. 90s, 10m.")
    private String stableBudget;

    @Option(names = "--compare", paramLabel = "RESULTS", arity = "1..2", description = "Compare two runs: with one "
            + "results.json, this run against it (also written to compare.md in the report); with two, those two "
            + "(old, new) without measuring anything.")
    private List<Path> compare = new ArrayList<>();

    @Override
    public Integer call() {
        CliException.requireSupportedPlatform();
        if (quick && full) throw new CliException(ExitCodes.USAGE, "--quick and --full exclude each other");
        PrintWriter out0 = spec.commandLine().getOut();
        if (stableBudget != null && !repeatUntilStable) {
            throw new CliException(ExitCodes.USAGE, "--stable-budget needs --repeat-until-stable");
        }
        try {
            if (compare.size() == 2) {
                for (String l : Comparison.of(compare.get(0), compare.get(1)).console()) out0.println(l);
                out0.flush();
                return ExitCodes.OK;
            }
            if (compare.size() == 1) Comparison.check(compare.get(0));
        } catch (SuiteRunner.BadInputException e) {
            throw new CliException(ExitCodes.USAGE, e.getMessage());
        }
        Duration budget = !repeatUntilStable ? Duration.ZERO : stableBudget == null ? Duration.ofMinutes(5)
                : UnitOptions.duration("--stable-budget", stableBudget);
        if (repeatUntilStable && budget.isZero()) {
            throw new CliException(ExitCodes.USAGE, "--stable-budget must be more than 0");
        }
        List<String> selected = new ArrayList<>(names);
        selected.addAll(only);
        long s = seed != null ? seed : new SplittableRandom().nextLong() & 0x7fff_ffff_ffffL;
        SuiteOptions o = SuiteOptions.defaults(dir != null ? dir : Path.of("."), s)
                .withScale(full ? SuiteOptions.Scale.FULL : SuiteOptions.Scale.QUICK).withOnly(selected)
                .withAllowTmpfs(allowTmpfs).withFio(!noFio, !noInstall).withStableBudget(budget);
        Path outDir = out != null ? out : Path.of("jfio-report",
                LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        PrintWriter err = spec.commandLine().getErr();
        PrintWriter stdout = spec.commandLine().getOut();
        try {
            SuiteResult r = SuiteRunner.run(o, outDir, err, System.console() != null);
            Comparison c = null;
            if (compare.size() == 1) {
                // the comparison goes beside the report in every mode; the console shows it unless --json
                c = Comparison.of(compare.get(0), outDir.resolve("results.json"));
                Files.writeString(outDir.resolve("compare.md"), c.markdown());
            }
            if (json) {
                stdout.print(Files.readString(outDir.resolve("results.json")));
            } else {
                for (String l : WhatWins.console(r.verdicts())) stdout.println(l);
                stdout.println();
                for (ExperimentResult e : r.results()) {
                    stdout.printf(Locale.ROOT, "%-12s %s%s%n", e.name(), e.status().name().toLowerCase(Locale.ROOT),
                            e.reason().isEmpty() ? "" : ": " + e.reason());
                }
                if (c != null) {
                    stdout.println();
                    for (String l : c.console()) stdout.println(l);
                    stdout.println("comparison: " + outDir.resolve("compare.md"));
                }
                stdout.println("report: " + outDir.resolve("report.md") + " (also report.html, results.json schema v"
                        + Report.SCHEMA_VERSION + ", PNGs) in " + Math.round(r.seconds()) + " s");
            }
            stdout.flush();
            if (r.failed() > 0) {
                throw new CliException(ExitCodes.FAILED, r.failed() + " experiment(s) failed; see the report");
            }
            return ExitCodes.OK;
        } catch (SuiteRunner.BadInputException e) {
            throw new CliException(ExitCodes.USAGE, e.getMessage());
        } catch (IOException e) {
            throw new CliException(ExitCodes.FAILED, "benchmark failed: " + e.getMessage());
        }
    }

    /** The experiment names, for the help text and tests. */
    static String experimentNames() {
        return Experiments.names();
    }
}
