package io.jfio.ship.pipeline;

import io.jfio.core.sys.FileNames;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.PathMatcher;

/**
 * One path pattern of an input: the directory to start from (the leading segments without glob characters), how
 * deep to look under it ({@code **} is any depth), and the matcher for whole paths. A pattern without glob
 * characters is a literal path.
 *
 * <p>Immutable; thread-safe.
 */
final class Glob {
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
