package io.jfio.cli;

import io.jfio.core.copy.CopyEvent;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The lines of {@code -v} and {@code --dry-run}: cp's {@code 'SRC' -> 'DST'} for every file, link and special file
 * copied and every directory created; with {@code --parents}, cp's unquoted {@code SRC -> DST} for the directories
 * made on the way to a source. A dry run prefixes each line with {@code would copy}. Names are quoted as GNU cp's
 * {@code -v} shows them ({@link Quote}).
 *
 * <p>Thread-safe (immutable).
 */
final class CopyVerbosePrinter {
    private final boolean dryRun;
    /** With --parents: the sources as given (their leading directories are shown as cp shows them); else empty. */
    private final List<String> parentsSources;

    CopyVerbosePrinter(boolean dryRun, List<String> parentsSources) {
        this.dryRun = dryRun;
        this.parentsSources = parentsSources.stream().map(CopyVerbosePrinter::withoutDots).toList();
    }

    /**
     * A source without empty and {@code .} components ({@code a/./b//c} as {@code a/b/c}), as the directories made
     * on its way are named in their events.
     */
    private static String withoutDots(String source) {
        String joined = Arrays.stream(source.split("/")).filter(p -> !p.isEmpty() && !p.equals("."))
                .collect(Collectors.joining("/"));
        return source.startsWith("/") ? "/" + joined : joined;
    }

    /** The line for {@code e}, or null when cp prints none for it (skipped entries, finished directories). */
    String line(CopyEvent e) {
        boolean dir = e.kind() == CopyEvent.Kind.DIRECTORY;
        String line;
        if (dir && e.outcome() == CopyEvent.Outcome.CREATED) {
            line = leadingDirectory(e.source()) ? e.source() + " -> " + e.target()
                    : quote(e.source()) + " -> " + quote(e.target());
        } else if (!dir && (e.outcome() == CopyEvent.Outcome.COPIED || e.outcome() == CopyEvent.Outcome.HARD_LINKED)) {
            line = quote(e.source()) + " -> " + quote(e.target());
        } else {
            return null;
        }
        return dryRun ? "would copy " + line : line;
    }

    private boolean leadingDirectory(String source) {
        for (String s : parentsSources) {
            if (s.startsWith(source + "/") || s.startsWith("/" + source + "/")) return true;
        }
        return false;
    }

    private static String quote(String name) {
        return Quote.name(name);
    }
}
