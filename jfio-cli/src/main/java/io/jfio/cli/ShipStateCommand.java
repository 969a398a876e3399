package io.jfio.cli;

import io.jfio.ship.log.OsReason;
import io.jfio.ship.state.StateLock;
import io.jfio.ship.state.StateReport;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code jfio ship state}: lists the checkpoints of a state directory, or forgets one file's.
 *
 * <p>Not thread-safe; one per invocation.
 */
@Command(name = "state", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, sortOptions = false,
        description = {
            "List the checkpoints in a state directory: for each sink, each file's device, inode, the offset "
                    + "shipping resumes at, the file's size now and the lag (bytes not shipped yet); or forget "
                    + "one file's checkpoints so that it is shipped again from its beginning.",
            "",
            "Listing changes nothing and works while a shipper runs. --forget refuses while a shipper holds the "
                    + "state directory. A directory or s3 sink also records where each file resumes (the "
                    + "directory's commit log, the s3 journal: what makes them exactly once): --forget does not "
                    + "change that record, so a file shipped to such a sink still resumes where the sink has it.",
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:listed, or forgotten",
            "1:--forget named a file that has no checkpoint",
            "2:invalid options; the state directory does not exist or is not a directory",
            "3:--forget while a shipper holds the state directory; a directory or file that cannot be used",
        })
public final class ShipStateCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--state", required = true, paramLabel = "DIR", description = "The shipper's state directory.")
    private Path state;

    @Option(names = "--json", description = "Print one JSON object instead of a table.")
    private boolean json;

    @Option(names = "--forget", paramLabel = "PATH", description = "Remove the checkpoints of the file at PATH (as "
            + "the list shows it).")
    private String forget;

    @Option(names = "--sink", paramLabel = "NAME", description = "With --forget: only this sink's checkpoint.")
    private String sink;

    @Override
    public Integer call() {
        CliException.requireSupportedPlatform();
        PrintWriter out = spec.commandLine().getOut();
        if (sink != null && forget == null) {
            throw new CliException(ExitCodes.USAGE, "--sink goes with --forget");
        }
        try {
            if (forget != null) {
                int n = StateReport.forget(state, forget, sink);
                if (n == 0) {
                    throw new CliException(ExitCodes.FAILED, "no checkpoint of " + forget + " in " + state
                            + (sink != null ? " for sink " + sink : ""));
                }
                out.println("forgot " + n + " checkpoint" + (n == 1 ? "" : "s") + " of " + forget);
                out.flush();
                return ExitCodes.OK;
            }
            StateReport r = StateReport.read(state);
            out.print(json ? r.json() : r.table());
            out.flush();
            return ExitCodes.OK;
        } catch (NoSuchFileException e) {
            throw new CliException(ExitCodes.USAGE, "no state directory: " + state + " (--state)");
        } catch (NotDirectoryException e) {
            throw new CliException(ExitCodes.USAGE, "not a directory: " + state + " (--state)");
        } catch (StateLock.LockedException e) {
            throw new CliException(ExitCodes.ENVIRONMENT, "cannot forget while a shipper runs: " + e.getMessage());
        } catch (IOException e) {
            throw new CliException(ExitCodes.ENVIRONMENT, "cannot use state directory " + state + ": "
                    + OsReason.withPath(e));
        }
    }
}
