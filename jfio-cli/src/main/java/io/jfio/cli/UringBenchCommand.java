package io.jfio.cli;

import io.jfio.bench.uring.UringBench;
import io.jfio.bench.uring.UringBenchOptions;
import io.jfio.bench.uring.UringBenchResult;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code jfio bench uring}: 4 KiB random reads at queue depths 1, 32 and 128, page cache hot, cold and bypassed
 * (O_DIRECT), through jfio's io_uring and thread engines, FileChannel, RandomAccessFile and mmap, with fio on the
 * same file in the same run as the reference. Runs {@link UringBench}.
 *
 * <p>Not thread-safe; one instance per command line. Exits {@link ExitCodes#OK} when every read was right (the
 * targets' PASS/FAIL lines are results, not errors), {@link ExitCodes#FAILED} when reads failed or returned wrong
 * data, {@link ExitCodes#USAGE} for bad options or an unusable {@code --dir} (tmpfs, too little space), and
 * {@link ExitCodes#ENVIRONMENT} off Linux.
 */
@Command(name = "uring", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {
            "4 KiB random reads: jfio io_uring and thread engines, FileChannel, RandomAccessFile, mmap and fio.",
            "",
            "Creates a data file of --size in a jfio-bench-* directory under --dir (not tmpfs), reads it at each "
                    + "queue depth with the page cache hot (verified with mincore), cold (evicted before every "
                    + "repetition) and bypassed (O_DIRECT), runs fio with the same parameters when it is "
                    + "installed (installing it with apt-get as root when missing), prints a Markdown table with "
                    + "jfio/fio ratios and the targets' PASS/FAIL lines, and removes the file again (also on "
                    + "Ctrl-C). Progress goes to stderr, results to stdout.",
        })
public final class UringBenchCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--dir", paramLabel = "DIR", description = "Where to create the data directory (default: the "
            + "current directory). Must not be tmpfs.")
    private Path dir;

    @Option(names = "--size", paramLabel = "SIZE", description = "Data file size, e.g. 1GiB, 512MiB (g, m are "
            + "GiB, MiB; GB, MB are powers of 1000; see docs/units.md; default 1GiB; --quick: 256MiB).")
    private String size;

    @Option(names = "--duration", paramLabel = "D", description = "One measured repetition, e.g. 1s, 500ms "
            + "(default 1s; --quick: 250ms).")
    private String duration;

    @Option(names = "--warmup", paramLabel = "D", description = "Unmeasured run before each cell (default: half "
            + "the duration).")
    private String warmup;

    @Option(names = "--reps", paramLabel = "N", description = "Measured repetitions per cell (default 5; --quick: "
            + "3).")
    private Integer reps;

    @Option(names = "--depths", paramLabel = "LIST", split = ",", description = "Queue depths (default 1,32,128).")
    private List<Integer> depths;

    @Option(names = "--modes", paramLabel = "LIST", description = "Cache modes: hot,cold,direct (default all).")
    private String modes;

    @Option(names = "--methods", paramLabel = "LIST", description = "Methods (default all): uring, uring_fixed, "
            + "threads, filechannel, filechannel_threads, raf, mmap, fio_uring, fio_psync; fio = both fio rows.")
    private String methods;

    @Option(names = "--fc-threads", paramLabel = "N", description = "Threads of the multi-threaded FileChannel row "
            + "(default 32).")
    private Integer fcThreads;

    @Option(names = "--seed", paramLabel = "N", description = "Seed of the random offsets (default: random, "
            + "printed).")
    private Long seed;

    @Option(names = "--no-fio", description = "Do not run fio.")
    private boolean noFio;

    @Option(names = "--no-install", description = "Do not install fio when it is missing.")
    private boolean noInstall;

    @Option(names = "--no-scaling", description = "Do not run the scaling table (hot reads by the io_uring engine "
            + "and by plain threads, each in a JVM confined with taskset to 1 CPU and to all CPUs).")
    private boolean noScaling;

    @Option(names = "--json", paramLabel = "PATH", description = "Also write the results as JSON to PATH.")
    private Path json;

    @Option(names = "--quick", description = "Shorter defaults for a first look (numbers not for quoting).")
    private boolean quick;

    @Override
    public Integer call() {
        CliException.requireSupportedPlatform();
        UringBenchOptions options = options();
        try {
            UringBenchResult r = UringBench.run(options, spec.commandLine().getOut(), spec.commandLine().getErr());
            if (r.errors() > 0) {
                throw new CliException(ExitCodes.FAILED, r.errors() + " reads failed or returned wrong data; see "
                        + "the errors column and the notes");
            }
            return ExitCodes.OK;
        } catch (IllegalArgumentException e) {
            // An unusable --dir: tmpfs, or too little free space. The message says what to do.
            throw new CliException(ExitCodes.USAGE, e.getMessage());
        } catch (IOException e) {
            throw new CliException(ExitCodes.FAILED, "benchmark failed: " + e.getMessage());
        }
    }

    /** The options as given, defaults filled in; a bad value is a usage error naming it. */
    UringBenchOptions options() {
        try {
            UringBenchOptions.Builder b = UringBenchOptions.builder().quick(quick).fio(!noFio)
                    .installFio(!noInstall).scaling(!noScaling);
            if (dir != null) b.dir(dir);
            if (size != null) b.fileSize(UnitOptions.size("--size", size));
            if (duration != null) b.duration(UnitOptions.duration("--duration", duration));
            if (warmup != null) b.warmup(UnitOptions.duration("--warmup", warmup));
            if (reps != null) b.reps(reps);
            if (depths != null) b.depths(depths);
            if (modes != null) b.modes(UringBenchOptions.parseModes(modes));
            if (methods != null) b.methods(UringBenchOptions.parseMethods(methods));
            if (fcThreads != null) b.fileChannelThreads(fcThreads);
            if (seed != null) b.seed(seed);
            if (json != null) b.json(json);
            return b.build();
        } catch (IllegalArgumentException e) {
            throw new CliException(ExitCodes.USAGE, e.getMessage());
        }
    }
}
