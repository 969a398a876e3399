package io.jfio.cli;

/**
 * Quotes a file name the way GNU cp's {@code -v} shows it (gnulib's shell-escape-always style): {@code 'a b'}, a
 * name with a single quote in double quotes ({@code "it's"}), and control characters as {@code $'\n'} pieces.
 *
 * <p>Thread-safe (stateless).
 */
final class ShellQuote {
    private ShellQuote() {
    }

    /** {@code name} quoted so that a shell reads it back as the same name. */
    static String quote(String name) {
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
