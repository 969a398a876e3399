package io.jfio.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code jfio bench}: the group of benchmarks, each a subcommand ({@code jfio bench uring}). Alone it prints the
 * list and exits {@link ExitCodes#USAGE}.
 *
 * <p>Not thread-safe; one instance per command line.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Measure file I/O strategies on this machine, with fio as the reference where it can express "
                + "the same workload.",
        subcommands = {UringBenchCommand.class})
public final class BenchCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        err.println(spec.qualifiedName() + ": missing benchmark");
        spec.commandLine().usage(err);
        return ExitCodes.USAGE;
    }
}
