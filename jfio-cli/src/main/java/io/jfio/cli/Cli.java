package io.jfio.cli;

import io.jfio.core.engine.Engines;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:ok",
            "1:some work failed",
            "2:bad usage or input",
            "3:environment: missing JDK or kernel feature, io_uring forced but unavailable",
            "4:jfio ship --once: a pattern matched no file",
        },
        footer = {"", "The engine is chosen with -Djfio.engine=auto|uring|threads; with bin/jfio, pass it in "
                + "JFIO_JAVA_OPTS."})
public final class Cli implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    /**
     * The commands, in the order help lists them, in a holder of their own: naming picocli's {@code HelpCommand}
     * loads it from the jar (the AOT cache cannot hold picocli's classes), which the copy fast path never needs.
     */
    private static final class Commands {
        static final Map<String, Class<?>> ALL = ordered();

        private static Map<String, Class<?>> ordered() {
            Map<String, Class<?>> m = new LinkedHashMap<>();
            m.put("info", InfoCommand.class);
            m.put("copy", CopyCommand.class);
            m.put("ship", ShipCommand.class);
            m.put("receive", ReceiveCommand.class);
            m.put("bench", BenchCommand.class);
            m.put("help", CommandLine.HelpCommand.class);
            return m;
        }
    }

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
        return commandLine(out, err, null);
    }

    /**
     * Like {@link #commandLine(PrintWriter, PrintWriter)}, but when {@code first} (the first argument) names a
     * command, only that command is built.
     *
     * <p>Building a command costs picocli a reflective pass over its class and every option; for the whole tree
     * (ship and bench have dozens of options) that was most of a short {@code jfio copy}'s start (about 0.25 s of
     * CPU). Anything else as the first argument ({@code --help}, {@code help}, a typo) builds the whole tree, so
     * help lists every command and a typo gets suggestions.
     *
     * @param out where commands print their results
     * @param err where errors and usage help for errors go
     * @param first the first command-line argument, or null
     * @return the command line; call {@link CommandLine#execute} with the arguments
     */
    public static CommandLine commandLine(PrintWriter out, PrintWriter err, String first) {
        CommandLine cmd = new CommandLine(new Cli());
        Class<?> only = first == null || first.equals("help") ? null : Commands.ALL.get(first);
        if (only != null) {
            cmd.addSubcommand(first, only);
        } else {
            for (Map.Entry<String, Class<?>> e : Commands.ALL.entrySet()) cmd.addSubcommand(e.getKey(), e.getValue());
        }
        // Set after the subcommands exist so that every subcommand inherits the writers and handlers.
        cmd.setOut(out);
        cmd.setErr(err);
        setExitCodes(cmd);
        // cp takes a flag given twice (cp -a -v -v) and the last of contradicting ones (-L ... -P).
        CommandLine copy = cmd.getSubcommands().get("copy");
        if (copy != null) copy.setOverwrittenOptionsAllowed(true);
        // "jfio bench --only uring" names the uring experiment, not the "bench uring" subcommand.
        cmd.setAllowSubcommandsAsOptionParameters(true);
        cmd.setParameterExceptionHandler(Cli::handleParameterException);
        cmd.setExecutionExceptionHandler((ex, commandLine, parseResult) -> handleExecutionException(ex, commandLine));
        cmd.setExecutionStrategy(Cli::execute);
        return cmd;
    }

    /**
     * Runs {@code jfio args}: the one way {@link Main} (and the tests) run a command line.
     *
     * <p>{@code jfio copy} with plain options runs without picocli: picocli's classes are compiled for Java 5, which
     * the JDK's AOT cache cannot hold, and building a command from its annotations (reflection, an annotation proxy
     * class per annotation type) cost about 0.2 s of CPU, as much as copying a small tree. The fast path accepts only
     * command lines it is sure picocli would read the same way ({@link CopyCommand#parse}); anything else, help and
     * every error included, goes through picocli, so messages and exit codes do not depend on the path taken.
     *
     * @param out where commands print their results
     * @param err where errors and usage help for errors go
     * @param args the command line, e.g. {@code copy -a src dst}
     * @return the exit code ({@link ExitCodes})
     */
    public static int run(PrintWriter out, PrintWriter err, String... args) {
        String first = args.length > 0 ? args[0] : null;
        if ("copy".equals(first)) {
            args = CopyCommand.withPreserveValues(args);
            CopyCommand copy = new CopyCommand();
            if (copy.parse(args, 1)) {
                String name = "jfio copy";
                try {
                    Engines.configured();
                } catch (IllegalArgumentException e) {
                    err.println(name + ": " + e.getMessage());
                    return ExitCodes.USAGE;
                }
                try {
                    return copy.run(name, out, err);
                } catch (Exception e) {
                    return failed(e, name, err);
                }
            }
        }
        return commandLine(out, err, first).execute(args);
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
        return failed(ex, cmd.getCommandSpec().qualifiedName(), cmd.getErr());
    }

    private static int failed(Exception ex, String name, PrintWriter err) {
        if (ex instanceof CliException ce) {
            // Names in messages are quoted where they are put in; any control character left is escaped.
            err.println(name + ": " + Quote.message(ce.getMessage()));
            return ce.exitCode();
        }
        err.println(name + ": failed unexpectedly: " + ex);
        ex.printStackTrace(err);
        return ExitCodes.FAILED;
    }
}
