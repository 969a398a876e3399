package io.jfio.cli;

import io.jfio.core.sys.FileNames;
import java.util.Locale;

/**
 * File names quoted as GNU cp shows them in {@code -v} lines and in its messages (gnulib's shell-escape-always
 * style), so that a shell reads each back as the same name and no name can break a line: {@code 'a b'}, a name with a
 * single quote in double quotes ({@code "it's"}), control characters and bytes that are not UTF-8 as {@code $'\n'}
 * and {@code $'\377'} pieces.
 *
 * <p>Thread-safe; stateless.
 */
final class Quote {
    private Quote() {
    }

    /**
     * {@code name} quoted so that a shell reads it back as the same name; a byte that is not valid UTF-8, held as
     * {@link FileNames}' escape, is quoted as that byte.
     */
    static String name(String name) {
        int[] units = new int[name.length()];
        for (int i = 0; i < units.length; i++) {
            units[i] = FileNames.isEscape(name, i) ? -1 - (name.charAt(i) & 0xff) : name.charAt(i);
        }
        return quote(units);
    }

    /** A name given as bytes (UTF-8 where valid), quoted so that a shell reads it back as the same bytes. */
    static String name(byte[] name) {
        return name(FileNames.decode(name));
    }

    /**
     * {@code message} with each of {@code names} in it quoted ({@link #name(String)}), and any other control
     * character escaped, so that a message holding a name is one line and cannot pass for another.
     */
    static String message(String message, String... names) {
        String m = message;
        String[] sorted = names.clone();
        // Longest first: a name inside a longer one (a directory in a path) must not split it.
        java.util.Arrays.sort(sorted, java.util.Comparator.nullsLast(
                java.util.Comparator.comparingInt(String::length).reversed()));
        StringBuilder out = new StringBuilder(m.length() + 16);
        int i = 0;
        outer:
        while (i < m.length()) {
            for (String n : sorted) {
                if (n != null && !n.isEmpty() && m.startsWith(n, i) && boundary(m, i, n.length())) {
                    out.append(name(n));
                    i += n.length();
                    continue outer;
                }
            }
            int c = FileNames.isEscape(m, i) ? -1 - (m.charAt(i) & 0xff) : m.charAt(i);
            i++;
            if (control(c)) {
                out.append(escape(c));
            } else {
                out.append((char) c);
            }
        }
        return out.toString();
    }

    /** A name counts only as a whole value: after {@code =}, a space or the start, and before a space or the end. */
    private static boolean boundary(String m, int at, int length) {
        boolean before = at == 0 || m.charAt(at - 1) == '=' || m.charAt(at - 1) == ' ';
        int end = at + length;
        boolean after = end == m.length() || m.charAt(end) == ' ';
        return before && after;
    }

    /** A piece of a name is a char, or (below zero) a byte that is not part of valid UTF-8, as {@code -1 - byte}. */
    private static boolean control(int u) {
        return u < 0 || u < 0x20 || u == 0x7f;
    }

    private static String quote(int[] name) {
        boolean control = false;
        boolean single = false;
        boolean doubleSpecial = false;
        for (int c : name) {
            if (control(c)) control = true;
            if (c == '\'') single = true;
            if (c == '"' || c == '$' || c == '`' || c == '\\') doubleSpecial = true;
        }
        if (!control && !single) return "'" + chars(name) + "'";
        if (!control && !doubleSpecial) return "\"" + chars(name) + "\"";
        StringBuilder sb = new StringBuilder("'");
        boolean inEscapes = false; // a run of escapes shares one $'...' piece, as gnulib writes it
        for (int c : name) {
            if (control(c)) {
                sb.append(inEscapes ? "" : "'$'").append(escape(c));
                inEscapes = true;
                continue;
            }
            if (inEscapes) sb.append("''");
            inEscapes = false;
            if (c == '\'') {
                sb.append("'\\''");
            } else {
                sb.append((char) c);
            }
        }
        if (inEscapes) sb.append("''");
        String s = sb.append('\'').toString();
        // An empty '' piece at either end carries nothing: gnulib leaves it out.
        if (s.startsWith("''")) s = s.substring(2);
        if (s.endsWith("''") && s.length() > 2) s = s.substring(0, s.length() - 2);
        return s;
    }

    private static String chars(int[] name) {
        StringBuilder sb = new StringBuilder(name.length);
        for (int c : name) sb.append((char) c);
        return sb.toString();
    }

    private static String escape(int c) {
        if (c < 0) return String.format(Locale.ROOT, "\\%03o", -1 - c);
        return switch (c) {
            case '\n' -> "\\n";
            case '\t' -> "\\t";
            case '\r' -> "\\r";
            case 0x1b -> "\\E";
            default -> String.format(Locale.ROOT, "\\%03o", c);
        };
    }
}
