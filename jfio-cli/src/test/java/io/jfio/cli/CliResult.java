package io.jfio.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

/**
 * Thread-safe (immutable). A jfio command line run in this JVM through the same picocli setup as {@code Main}: its
 * exit code and what it printed to standard output and standard error.
 */
record CliResult(int exit, String out, String err) {
    /** Runs {@code args} ({@code "ship", "--from", ...}) and keeps its exit code and output. */
    static CliResult run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = Cli.commandLine(new PrintWriter(out), new PrintWriter(err)).execute(args);
        return new CliResult(exit, out.toString(), err.toString());
    }
}
