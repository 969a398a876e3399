package io.jfio.cli;

import io.jfio.core.engine.Engines;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.Spec;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * The {@code jfio} command: the top of the command tree and the one factory of {@link CommandLine}s, used by
 * {@link Main} and by the tests alike so that both see the same exit codes and messages.
 *
 * <p>Not thread-safe; one instance per command line.
 */
@Command(name = "jfio", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Fast, correct Linux file I/O for the JVM: tools.",
        subcommands = {InfoCommand.class, CopyCommand.class, ShipCommand.class, ReceiveCommand.class,
            BenchCommand.class, CommandLine.HelpCommand.class},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:ok",
            "1:some work failed",
            "2:bad usage or input",
            "3:environment: missing JDK or kernel feature, io_uring forced but unavailable",
        },
        footer = {"", "The engine is chosen with -Djfio.engine=auto|uring|threads; with bin/jfio, pass it in "
                + "JFIO_JAVA_OPTS."})
public final class Cli implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    /**
     * A command line for {@code jfio} that writes to {@code out} and {@code err}.
     *
     * <p>Usage errors (unknown options, bad parameters, an invalid {@code -Djfio.engine}) end with
     * {@link ExitCodes#USAGE} and one message; a {@link CliException} ends with its exit code and message; any other
     * exception is a bug and ends with {@link ExitCodes#FAILED} and its stack trace.
     *
     * @param out where commands print their results
     * @param err where errors and usage help for errors go
     * @return the command line; call {@link CommandLine#execute} with the arguments
     */
    public static CommandLine commandLine(PrintWriter out, PrintWriter err) {
        CommandLine cmd = new CommandLine(new Cli());
        // Set after the subcommands exist so that every subcommand inherits the writers and handlers.
        cmd.setOut(out);
        cmd.setErr(err);
        setExitCodes(cmd);
        // "jfio bench --only uring" names the uring experiment, not the "bench uring" subcommand.
        cmd.setAllowSubcommandsAsOptionParameters(true);
        cmd.setParameterExceptionHandler(Cli::handleParameterException);
        cmd.setExecutionExceptionHandler((ex, commandLine, parseResult) -> handleExecutionException(ex, commandLine));
        cmd.setExecutionStrategy(Cli::execute);
        return cmd;
    }

    /** Exit codes live in each command's spec, so they are set on every command of the tree. */
    private static void setExitCodes(CommandLine cmd) {
        cmd.getCommandSpec().exitCodeOnInvalidInput(ExitCodes.USAGE);
        cmd.getCommandSpec().exitCodeOnExecutionException(ExitCodes.FAILED);
        for (CommandLine sub : cmd.getSubcommands().values()) setExitCodes(sub);
    }

    @Override
    public Integer call() {
        // "jfio" alone: there is nothing to do, so show what there is and count it as a usage error.
        PrintWriter err = spec.commandLine().getErr();
        err.println("jfio: missing command");
        spec.commandLine().usage(err);
        return ExitCodes.USAGE;
    }

    private static int execute(ParseResult parseResult) {
        Integer helpExit = CommandLine.executeHelpRequest(parseResult);
        if (helpExit != null) return helpExit;
        List<CommandLine> parsed = parseResult.asCommandLineList();
        CommandLine last = parsed.get(parsed.size() - 1);
        if (!(last.getCommand() instanceof CommandLine.HelpCommand)) {
            // Checked before any command runs, so that a typo in -Djfio.engine never silently means "auto".
            try {
                Engines.configured();
            } catch (IllegalArgumentException e) {
                last.getErr().println(last.getCommandSpec().qualifiedName() + ": " + e.getMessage());
                return ExitCodes.USAGE;
            }
        }
        return new CommandLine.RunLast().execute(parseResult);
    }

    private static int handleParameterException(ParameterException ex, String[] args) {
        CommandLine cmd = ex.getCommandLine();
        PrintWriter err = cmd.getErr();
        String name = cmd.getCommandSpec().qualifiedName();
        err.println(name + ": " + ex.getMessage());
        UnmatchedArgumentException.printSuggestions(ex, err);
        err.println("Try '" + name + " --help' for more information.");
        return cmd.getCommandSpec().exitCodeOnInvalidInput();
    }

    private static int handleExecutionException(Exception ex, CommandLine cmd) {
        PrintWriter err = cmd.getErr();
        String name = cmd.getCommandSpec().qualifiedName();
        if (ex instanceof CliException ce) {
            err.println(name + ": " + ce.getMessage());
            return ce.exitCode();
        }
        err.println(name + ": failed unexpectedly: " + ex);
        ex.printStackTrace(err);
        return ExitCodes.FAILED;
    }
}
