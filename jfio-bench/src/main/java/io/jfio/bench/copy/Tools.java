package io.jfio.bench.copy;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Finding and running the programs the benchmark needs.
 *
 * <p>Thread-safe; stateless.
 */
final class Tools {
    private Tools() {
    }

    /** {@code name} on PATH, else in {@code extra} (may be null); null when found nowhere. */
    static Path find(String name, Path extra) {
        String path = System.getenv("PATH");
        if (path != null) {
            for (String d : path.split(File.pathSeparator)) {
                if (d.isEmpty()) continue;
                Path p = Path.of(d, name);
                if (Files.isRegularFile(p) && Files.isExecutable(p)) return p;
            }
        }
        if (extra != null) {
            Path p = extra.resolve(name);
            if (Files.isRegularFile(p) && Files.isExecutable(p)) return p;
        }
        return null;
    }

    /** Runs a command, discarding its output; fails unless it exits 0 within {@code timeoutSeconds}. */
    static void run(List<String> command, long timeoutSeconds) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        try {
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("timed out: command=" + String.join(" ", command));
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted: command=" + String.join(" ", command), e);
        }
        if (p.exitValue() != 0) {
            throw new IOException("failed: command=" + String.join(" ", command) + " exit=" + p.exitValue());
        }
    }

    /** Removes a tree (rm -rf: it removes hundreds of thousands of files faster than a Java walk). */
    static void removeTree(Path p) throws IOException {
        if (!Files.exists(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) return;
        run(List.of("rm", "-rf", "--one-file-system", "--", p.toString()), 3600);
    }
}
