package io.jfio.cli;

import io.jfio.bench.system.EngineChoice;
import io.jfio.bench.system.PathProbe;
import io.jfio.bench.system.Report;
import io.jfio.bench.system.SystemProbe;
import io.jfio.bench.system.UringProbe;
import io.jfio.core.engine.Engines;
import io.jfio.core.sys.ErrnoException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.FileSystemException;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code jfio info [PATH] [--json]}: what jfio finds on this machine (kernel, CPU, memory, JDK), whether io_uring
 * works and which engine will run, and the storage facts of PATH (file system, device, queue, O_DIRECT). The probes
 * are jfio-bench's {@code io.jfio.bench.system}, which the benchmark reports use too.
 *
 * <p>Not thread-safe; one instance per command line. Exits {@link ExitCodes#USAGE} for a missing path and
 * {@link ExitCodes#ENVIRONMENT} when no engine can be created (io_uring forced but unavailable), after printing
 * the report, which says why.
 */
@Command(name = "info", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {
            "Show the system, io_uring, the engine jfio will use, and the storage at PATH.",
            "",
            "Prints the kernel, CPU, memory and JDK; whether io_uring works, with its setup flags, features and "
                    + "opcodes; which engine jfio will use and why; and for PATH its file system, mount, device, "
                    + "queue settings, O_DIRECT alignment and whether O_DIRECT works there.",
            "",
            "The engine is chosen with -Djfio.engine=auto|uring|threads (with bin/jfio: "
                    + "JFIO_JAVA_OPTS=-Djfio.engine=...). Exits 3 if io_uring is forced but unavailable.",
        })
public final class InfoCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "PATH", defaultValue = ".",
            description = "File or directory to describe (default: the current directory). For a directory, "
                    + "O_DIRECT is tested on a temporary file that is removed again.")
    private String path;

    @Option(names = "--json", description = "Print one JSON object with stable snake_case keys.")
    private boolean json;

    @Override
    public Integer call() {
        CliException.requireSupportedPlatform();
        Path real = resolve(path);
        Report report = new Report();
        report.section("jfio", "jfio").put("version", "version", VersionProvider.version());
        SystemProbe.describe(report);
        UringProbe uring = UringProbe.run();
        uring.describe(report);
        EngineChoice engine = EngineChoice.decide(Engines.configured(), uring);
        engine.describe(report);
        try {
            PathProbe.describe(report, path, real);
        } catch (ErrnoException e) {
            throw new CliException(ExitCodes.FAILED, "cannot stat path: " + e.getMessage());
        }

        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            report.printJson(out);
        } else {
            report.printText(out);
        }
        out.flush();
        if (engine.error() != null) throw new CliException(ExitCodes.ENVIRONMENT, engine.error());
        return ExitCodes.OK;
    }

    /** The real path of what the user gave, or a usage error naming it. */
    static Path resolve(String given) {
        try {
            return Path.of(given).toRealPath();
        } catch (NoSuchFileException e) {
            throw new CliException(ExitCodes.USAGE, "no such path: path=" + given);
        } catch (InvalidPathException e) {
            throw new CliException(ExitCodes.USAGE, "invalid path: path=" + given + " reason=" + e.getReason());
        } catch (FileSystemException e) {
            String why = e.getReason() != null ? e.getReason() : e.getClass().getSimpleName();
            throw new CliException(ExitCodes.USAGE, "cannot resolve path: path=" + given + " reason=" + why);
        } catch (IOException e) {
            throw new CliException(ExitCodes.USAGE, "cannot resolve path: path=" + given + " reason=" + e);
        }
    }
}
