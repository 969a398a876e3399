package io.jfio.cli;

import io.jfio.bench.copy.CopyBench;
import io.jfio.bench.copy.CopyBenchOptions;
import io.jfio.bench.copy.CopyBenchResult;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code jfio bench copy}: jfio copy against cp -a, fcp and xcp on a tree of small files and one large file, cold
 * and hot. Runs {@link CopyBench}; jfio is run the way a user runs it ({@code bin/jfio} where it is found next to
 * the jar, else {@code java -jar}).
 *
 * <p>Not thread-safe; one instance per command line. Exits {@link ExitCodes#OK} when every copy succeeded and jfio's
 * copies equal their sources (the targets' PASS/FAIL lines are results, not errors), {@link ExitCodes#FAILED} when a
 * copy failed or jfio's copy differs, {@link ExitCodes#USAGE} for bad options or an unusable {@code --dir}.
 */
@Command(name = "copy", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {
            "jfio copy against cp -a (and fcp, xcp where installed): a tree of small files and a large file, page "
                    + "cache cold and hot.",
            "",
            "Generates the data (20,000 files of 512 B to 64 KiB, about 324 MB, and a 4 GiB file; --quick: 4,000 "
                    + "files and 1 GiB) in a jfio-bench-copy-* directory under --dir, installs fcp and xcp with "
                    + "cargo when they are missing and cargo is there, times each tool as a process on fresh "
                    + "destinations, checks page cache residency before every run, compares jfio's copies with the "
                    + "sources, prints a Markdown table with ratios to cp -a and the targets' PASS/FAIL lines, and "
                    + "removes everything again (also on Ctrl-C). Needs about 20 GB free (--quick: 4 GB): the tree "
                    + "copies are kept until the tree runs are over. "
                    + "Progress goes to stderr, results to stdout.",
        })
public final class CopyBenchCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--dir", paramLabel = "DIR", description = "Where to create the work directory (default: the "
            + "current directory). Not tmpfs.")
    private Path dir;

    @Option(names = "--files", paramLabel = "N", description = "Files in the tree (default 20000; --quick: 4000).")
    private Integer files;

    @Option(names = "--size", paramLabel = "SIZE", description = "Size of the large file, e.g. 4GiB, 512MiB "
            + "(g, m are GiB, MiB; GB, MB are powers of 1000; see docs/units.md; default 4GiB; --quick: 1GiB).")
    private String size;

    @Option(names = "--reps", paramLabel = "N", description = "Repetitions per cell; the median is reported "
            + "(default 3).")
    private Integer reps;

    @Option(names = "--seed", paramLabel = "N", description = "Seed of the generated data (default 20250101).")
    private Long seed;

    @Option(names = "--tools", paramLabel = "LIST", description = "Contenders (default cp,jfio,fcp,xcp; those not "
            + "installed are left out).")
    private String tools;

    @Option(names = "--workloads", paramLabel = "LIST", description = "tree, big (default both).")
    private String workloads;

    @Option(names = "--modes", paramLabel = "LIST", description = "cold, hot (default both).")
    private String modes;

    @Option(names = "--jfio-variant", paramLabel = "ARGS", description = "An extra jfio row: ARGS added to copy -a "
            + "(e.g. '--sequential', '-j 2'); repeatable. For comparing jfio's strategies in one run.")
    private List<String> variants;

    @Option(names = "--no-install", description = "Do not install fcp and xcp when they are missing.")
    private boolean noInstall;

    @Option(names = "--quick", description = "A smaller tree and a 1 GiB file, for a first look.")
    private boolean quick;

    @Override
    public Integer call() {
        CliException.requireSupportedPlatform();
        CopyBenchOptions options = options();
        try {
            CopyBenchResult r = CopyBench.run(options, spec.commandLine().getOut(), spec.commandLine().getErr());
            if (!r.copiesCorrect()) throw new CliException(ExitCodes.FAILED, "jfio's copy differs from the source");
            if (r.anyFailed()) throw new CliException(ExitCodes.FAILED, "some copies failed; see above");
            return ExitCodes.OK;
        } catch (IllegalArgumentException e) {
            throw new CliException(ExitCodes.USAGE, e.getMessage());
        } catch (IOException e) {
            throw new CliException(ExitCodes.FAILED, "benchmark failed: " + e.getMessage());
        }
    }

    CopyBenchOptions options() {
        try {
            CopyBenchOptions.Builder b = CopyBenchOptions.builder().quick(quick).install(!noInstall)
                    .jfio(jfioCommand());
            if (dir != null) b.dir(dir);
            if (files != null) b.files(files);
            if (size != null) b.bigSize(UnitOptions.size("--size", size));
            if (reps != null) b.reps(reps);
            if (seed != null) b.seed(seed);
            if (tools != null) b.contenders(CopyBenchOptions.parseList(tools));
            if (workloads != null) b.workloads(CopyBenchOptions.parseList(workloads));
            if (modes != null) b.modes(CopyBenchOptions.parseList(modes));
            if (variants != null) b.variants(variants);
            return b.build();
        } catch (IllegalArgumentException e) {
            throw new CliException(ExitCodes.USAGE, e.getMessage());
        }
    }

    /**
     * How a user runs jfio here: {@code bin/jfio} of the checkout the jar was built in, else {@code java -jar} with
     * this JVM, else (running from classes, as in tests) {@code java -cp} with this class path.
     */
    static List<String> jfioCommand() {
        String java = ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"),
                "bin", "java").toString());
        try {
            Path where = Path.of(Main.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            if (Files.isRegularFile(where) && where.toString().endsWith(".jar")) {
                Path launcher = where.getParent() == null || where.getParent().getParent() == null ? null
                        : where.getParent().getParent().getParent().resolve("bin/jfio");
                if (launcher != null && Files.isExecutable(launcher)) return List.of(launcher.toString());
                return List.of(java, "--enable-native-access=ALL-UNNAMED", "-jar", where.toString());
            }
        } catch (URISyntaxException | RuntimeException e) {
            // fall through to the class path
        }
        List<String> c = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED", "-cp",
                System.getProperty("java.class.path"), Main.class.getName()));
        return c;
    }
}
