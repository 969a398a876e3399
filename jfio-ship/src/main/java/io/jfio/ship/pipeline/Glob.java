package io.jfio.ship.pipeline;

import io.jfio.core.sys.FileNames;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.regex.PatternSyntaxException;

/**
 * One path pattern of an input: the directory to start from (the leading segments without glob characters), how
 * deep to look under it ({@code **} is any depth), and the matcher for whole paths. A pattern without glob
 * characters is a literal path. The syntax is the JDK's glob ({@code *}, {@code ?}, {@code [..]}, {@code {a,b}}),
 * which has no groups inside groups: {@code {a,{b,c}}} is refused, {@code {a,b,c}} says the same.
 *
 * <p>Immutable; thread-safe. The configuration checks every pattern with {@link #problem} and
 * {@link #excludeProblem}, so that building them later cannot fail.
 */
public final class Glob {
    final String pattern;
    final Path base;
    final int maxDepth;
    final boolean literal;
    private final PathMatcher matcher;

    private Glob(String pattern, Path base, int maxDepth, boolean literal, PathMatcher matcher) {
        this.pattern = pattern;
        this.base = base;
        this.maxDepth = maxDepth;
        this.literal = literal;
        this.matcher = matcher;
    }

    static Glob of(String pattern) {
        String p = FileNames.of(FileNames.path(pattern).normalize());
        String[] parts = p.split("/");
        StringBuilder base = new StringBuilder();
        int i = 0;
        for (; i < parts.length; i++) {
            if (hasMeta(parts[i])) break;
            if (!parts[i].isEmpty()) base.append('/').append(parts[i]);
        }
        if (i == parts.length) {
            return new Glob(p, FileNames.path(p), 0, true, null);
        }
        boolean recursive = p.contains("**");
        int depth = recursive ? Integer.MAX_VALUE : parts.length - i;
        PathMatcher full = FileSystems.getDefault().getPathMatcher("glob:" + p);
        PathMatcher m = full;
        if (p.contains("/**/")) {
            // "a/**/b" also means "a/b", as in gitignore; Java's glob wants at least one directory there.
            PathMatcher zero = FileSystems.getDefault().getPathMatcher("glob:" + p.replace("/**/", "/"));
            m = path -> full.matches(path) || zero.matches(path);
        }
        return new Glob(p, FileNames.path(base.isEmpty() ? "/" : base.toString()), depth, false, m);
    }

    /** The matcher of an exclude pattern: of the file name when it has no {@code /}, else of the whole path. */
    static PathMatcher exclude(String pattern) {
        return FileSystems.getDefault().getPathMatcher("glob:" + pattern);
    }

    /** Why {@code pattern} cannot be an input's path or glob, in words for its author; null when it can. */
    public static String problem(String pattern) {
        try {
            of(pattern);
            return null;
        } catch (PatternSyntaxException e) {
            return describe(e);
        } catch (IllegalArgumentException e) { // InvalidPathException: a NUL byte
            return e.getMessage();
        }
    }

    /** Why {@code pattern} cannot be an exclude pattern, in words for its author; null when it can. */
    public static String excludeProblem(String pattern) {
        try {
            exclude(pattern);
            return null;
        } catch (PatternSyntaxException e) {
            return describe(e);
        }
    }

    private static String describe(PatternSyntaxException e) {
        String d = e.getDescription();
        return switch (d) {
            case "Missing ']" -> "a '[' without its closing ']'";
            case "Missing '}" -> "a '{' without its closing '}'";
            case "Cannot nest groups" -> "a {..} inside another {..}: list every alternative in one, as {a,b,c}";
            case "Explicit 'name separator' in class" -> "a '/' inside [..]";
            case "Invalid range" -> "a range in [..] whose first character comes after its last";
            case "No character to escape" -> "a '\\' at the end, with nothing to escape";
            case "Unclosed character class" -> "a [..] without a character in it";
            default -> d;
        };
    }

    static boolean hasMeta(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '*' || c == '?' || c == '[' || c == '{') return true;
        }
        return false;
    }

    boolean matches(Path path) {
        return literal ? FileNames.of(path).equals(pattern) : matcher.matches(path);
    }

    @Override
    public String toString() {
        return pattern;
    }
}
