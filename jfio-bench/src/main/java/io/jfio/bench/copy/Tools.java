package io.jfio.bench.copy;

import io.jfio.bench.Processes;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Finding the programs the benchmark needs, and removing trees with one of them ({@code rm}).
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

    /** Removes a tree (rm -rf: it removes hundreds of thousands of files faster than a Java walk). */
    static void removeTree(Path p) throws IOException {
        if (!Files.exists(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) return;
        Processes.run(List.of("rm", "-rf", "--one-file-system", "--", p.toString()), 3600);
    }
}
