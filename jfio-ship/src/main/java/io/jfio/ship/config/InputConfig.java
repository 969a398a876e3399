package io.jfio.ship.config;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One input: the files it names and how their bytes become records.
 *
 * @param name           the input's name (logs, metrics, the batch's {@code input})
 * @param paths          absolute paths or globs ({@code *}, {@code ?}, {@code [..]}, {@code {a,b}}, recursive
 *                       {@code **})
 * @param exclude        globs of files to leave out: a pattern without {@code /} matches the file name, one with
 *                       {@code /} the whole path
 * @param framing        lines or raw bytes
 * @param start          where files never seen before start (files found by the first scan only)
 * @param partialTimeout after how long without growth an unterminated last line ships anyway; {@code null}: never
 * @param sink           the name of the sink this input ships to
 * @param followSymlinks whether symlinks the globs find (files, and directories a glob walks into) are followed; a
 *                       link is followed only when it is owned by root, by the shipper's user or by the owner of
 *                       what it points to
 * @param owners         the user IDs whose files may be shipped; empty: any owner
 * @param ignoreOlder    a file never shipped whose last modification is older than this when it is found starts at
 *                       its end: its old content is left out, what is appended to it later is shipped; {@code null}:
 *                       every file is shipped whole
 * @param multiline      how lines are joined into multiline records; {@code null}: each line is a record
 * @param fields         static fields of this input's records (ndjson, kafka headers), in order
 * @param includeLines   when not empty, only records that one of these expressions matches are shipped
 * @param excludeLines   records that one of these expressions matches are left out (after {@code includeLines})
 * @param readGz         files whose name ends in {@code .gz} are decompressed and shipped once, from their start
 * @param ownDirs        the shipper's own directories (its state directory, its directory sinks'): nothing in them
 *                       is shipped, wherever the globs reach, so that the shipper never ships its own output
 */
public record InputConfig(String name, List<String> paths, List<String> exclude, Framing framing, Start start,
                          Duration partialTimeout, String sink, boolean followSymlinks, Set<Integer> owners,
                          Duration ignoreOlder, Multiline multiline, Map<String, String> fields,
                          List<String> includeLines, List<String> excludeLines, boolean readGz,
                          List<java.nio.file.Path> ownDirs) {

    public InputConfig {
        if (multiline != null && framing != Framing.LINES) {
            throw new IllegalArgumentException("multiline needs framing lines: input=" + name);
        }
        if (ignoreOlder != null && (ignoreOlder.isNegative() || ignoreOlder.isZero())) {
            throw new IllegalArgumentException("ignore-older must be positive: " + ignoreOlder);
        }
        paths = List.copyOf(paths);
        exclude = List.copyOf(exclude);
        owners = Set.copyOf(owners);
        fields = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(fields));
        includeLines = List.copyOf(includeLines);
        excludeLines = List.copyOf(excludeLines);
        ownDirs = List.copyOf(ownDirs);
    }

    /** An input that may ship from any directory the globs reach. */
    public InputConfig(String name, List<String> paths, List<String> exclude, Framing framing, Start start,
                       Duration partialTimeout, String sink, boolean followSymlinks, Set<Integer> owners,
                       Duration ignoreOlder, Multiline multiline, Map<String, String> fields,
                       List<String> includeLines, List<String> excludeLines, boolean readGz) {
        this(name, paths, exclude, framing, start, partialTimeout, sink, followSymlinks, owners, ignoreOlder,
                multiline, fields, includeLines, excludeLines, readGz, List.of());
    }

    /** This input, with {@code dirs} as the shipper's own directories. */
    public InputConfig withOwnDirs(List<java.nio.file.Path> dirs) {
        return new InputConfig(name, paths, exclude, framing, start, partialTimeout, sink, followSymlinks, owners,
                ignoreOlder, multiline, fields, includeLines, excludeLines, readGz, dirs);
    }

    /** An input without fields and line filters. */
    public InputConfig(String name, List<String> paths, List<String> exclude, Framing framing, Start start,
                       Duration partialTimeout, String sink, boolean followSymlinks, Set<Integer> owners,
                       Duration ignoreOlder, Multiline multiline) {
        this(name, paths, exclude, framing, start, partialTimeout, sink, followSymlinks, owners, ignoreOlder,
                multiline, Map.of(), List.of(), List.of(), false);
    }

    /** Whether the file at {@code path} is read as gzip: {@code readGz} and a name that ends in {@code .gz}. */
    public boolean gzip(String path) {
        return readGz && path.endsWith(".gz");
    }

    /** Whether records are filtered by their content. */
    public boolean filtersLines() {
        return !includeLines.isEmpty() || !excludeLines.isEmpty();
    }

    /** Whether a file never shipped, last modified at {@code mtimeNanos} (since the epoch), starts at its end. */
    public boolean ignoredAsOlder(long mtimeNanos, long nowMillis) {
        // Compared, not subtracted: a time held at Long.MIN_VALUE (before 1677) is older than any limit.
        return ignoreOlder != null && mtimeNanos < nowMillis * 1_000_000L - ignoreOlder.toNanos();
    }

    /** An input whose lines are each a record. */
    public InputConfig(String name, List<String> paths, List<String> exclude, Framing framing, Start start,
                       Duration partialTimeout, String sink, boolean followSymlinks, Set<Integer> owners,
                       Duration ignoreOlder) {
        this(name, paths, exclude, framing, start, partialTimeout, sink, followSymlinks, owners, ignoreOlder, null);
    }

    /**
     * How long a file's last multiline record ({@code record}) or its unterminated last line waits, without growth of
     * the file, before it ships without what would end it; null: until it is ended.
     */
    public Duration pendingTimeout(boolean record) {
        return record && multiline != null ? multiline.timeout() : partialTimeout;
    }

    /** An input that follows no symlinks and ships files of any owner (the defaults). */
    public InputConfig(String name, List<String> paths, List<String> exclude, Framing framing, Start start,
                       Duration partialTimeout, String sink) {
        this(name, paths, exclude, framing, start, partialTimeout, sink, false, Set.of(), null, null);
    }
}
