package io.jfio.cli;

import io.jfio.core.copy.CopyEvent;
import java.util.List;

/**
 * The lines of {@code -v} and {@code --dry-run}: cp's {@code 'SRC' -> 'DST'} for every file, link and special file
 * copied and every directory created; with {@code --parents}, cp's unquoted {@code SRC -> DST} for the directories
 * made on the way to a source. A dry run prefixes each line with {@code would copy}. Names are quoted as GNU cp's
 * {@code -v} shows them (gnulib's shell-escape-always style): {@code 'a b'}, a name with a single quote in double
 * quotes ({@code "it's"}), control characters as {@code $'\n'} pieces.
 *
 * <p>Thread-safe (immutable).
 */
final class CopyVerbosePrinter {
    private final boolean dryRun;
    /** With --parents: the sources as given (their leading directories are shown as cp shows them); else empty. */
    private final List<String> parentsSources;

    CopyVerbosePrinter(boolean dryRun, List<String> parentsSources) {
        this.dryRun = dryRun;
        this.parentsSources = List.copyOf(parentsSources);
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

    /** {@code name} quoted so that a shell reads it back as the same name. */
    private static String quote(String name) {
        boolean control = false;
        boolean single = false;
        boolean doubleSpecial = false;
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c < 0x20 || c == 0x7f) control = true;
            if (c == '\'') single = true;
            if (c == '"' || c == '$' || c == '`' || c == '\\') doubleSpecial = true;
        }
        if (!control && !single) return "'" + name + "'";
        if (!control && !doubleSpecial) return "\"" + name + "\"";
        StringBuilder sb = new StringBuilder("'");
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c == '\'') {
                sb.append("'\\''");
            } else if (c < 0x20 || c == 0x7f) {
                sb.append("'$'").append(escape(c)).append("''");
            } else {
                sb.append(c);
            }
        }
        String s = sb.append('\'').toString();
        // An empty '' piece at either end carries nothing: gnulib leaves it out.
        if (s.startsWith("''")) s = s.substring(2);
        if (s.endsWith("''") && s.length() > 2) s = s.substring(0, s.length() - 2);
        return s;
    }

    private static String escape(char c) {
        return switch (c) {
            case '\n' -> "\\n";
            case '\t' -> "\\t";
            case '\r' -> "\\r";
            case 0x1b -> "\\E";
            default -> String.format(java.util.Locale.ROOT, "\\%03o", (int) c);
        };
    }
}
