package io.jfio.core.watch;

import io.jfio.core.sys.FileNames;
import java.nio.file.Path;
import java.util.Objects;

/**
 * One change seen by a {@link FileWatcher}.
 *
 * <p>Immutable. {@code dir} is the watched path the event is reported against: the directory holding the entry for
 * events on an entry ({@code name} is the entry's name), or the watched object itself for events on it
 * ({@code name} is empty: a watched file was modified, a watched directory was deleted, ...). {@link #path()} joins
 * the two. A {@link Kind#MOVED} event is reported at its destination and carries the source in {@code from};
 * {@code from} is null for every other kind. {@link Kind#OVERFLOW} concerns the whole watcher: {@code dir} is null.
 * {@code name} is decoded without loss by {@link FileNames#decode} (UTF-8, with bytes that are not valid UTF-8 kept as
 * escapes), so {@link #path()} names the entry whatever its bytes.
 *
 * @param kind      what happened
 * @param dir       the watched directory (or watched file) the event belongs to; null for {@link Kind#OVERFLOW}
 * @param name      the entry's name within {@code dir}, or empty for an event on {@code dir} itself
 * @param directory true when the entry (or the watched object) is a directory
 * @param from      for {@link Kind#MOVED}: the full path the entry had before the rename; else null
 */
public record FileEvent(Kind kind, Path dir, String name, boolean directory, Path from) {

    /** The kinds of change. */
    public enum Kind {
        /** Data was written to a file ({@code IN_MODIFY}; the polling watcher: size or mtime changed). */
        MODIFY,
        /** A file open for writing was closed ({@code IN_CLOSE_WRITE}); inotify only: polling cannot see it. */
        CLOSE_WRITE,
        /** An entry appeared ({@code IN_CREATE}); also each entry found in a directory that joins a watched tree. */
        CREATE,
        /** An entry was removed ({@code IN_DELETE}). */
        DELETE,
        /** The watched object itself was deleted ({@code IN_DELETE_SELF}); {@link #UNWATCHED} follows. */
        DELETE_SELF,
        /**
         * The watched object itself was renamed ({@code IN_MOVE_SELF}). Where the rename was seen inside the watched
         * set the watch follows it and the event names the new path; otherwise the new name is unknown, the watch is
         * removed, and {@link #UNWATCHED} follows.
         */
        MOVE_SELF,
        /** Metadata changed: mode, owner, times, link count, extended attributes ({@code IN_ATTRIB}). */
        ATTRIB,
        /**
         * A rename within the watched set: {@code IN_MOVED_FROM} and {@code IN_MOVED_TO} joined by their cookie, or
         * (polling) the same inode gone under one name and present under another. {@link #from()} is the old path.
         */
        MOVED,
        /** An entry was renamed to somewhere outside the watched set (an {@code IN_MOVED_FROM} without a pair). */
        MOVED_FROM,
        /** An entry was renamed into the watched set from outside (an {@code IN_MOVED_TO} without a pair). */
        MOVED_TO,
        /** The kernel's event queue overflowed ({@code IN_Q_OVERFLOW}): events were lost; the caller must rescan. */
        OVERFLOW,
        /** A watch the caller added is gone ({@code IN_IGNORED}): its object was deleted, moved away or unmounted. */
        UNWATCHED
    }

    /**
     * Checks the event's fields.
     *
     * @throws NullPointerException     if {@code kind} or {@code name} is null, or {@code dir} is null for an event
     *                                  other than OVERFLOW
     * @throws IllegalArgumentException if {@code from} is given for an event other than MOVED, or missing for MOVED
     */
    public FileEvent {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(name, "name");
        if (kind != Kind.OVERFLOW) Objects.requireNonNull(dir, "dir");
        if ((kind == Kind.MOVED) != (from != null)) {
            throw new IllegalArgumentException("from is required for MOVED and only for MOVED: kind=" + kind);
        }
    }

    /** An event without a source path. */
    static FileEvent of(Kind kind, Path dir, String name, boolean directory) {
        return new FileEvent(kind, dir, name, directory, null);
    }

    /**
     * The full path of the entry ({@code dir/name}), or {@code dir} itself for events on it; null for OVERFLOW.
     *
     * @return the path, or null
     */
    public Path path() {
        if (dir == null) return null;
        return name.isEmpty() ? dir : FileNames.resolve(dir, name);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(kind.name());
        if (from != null) sb.append(' ').append(from).append(" ->");
        if (dir != null) sb.append(' ').append(path());
        if (directory) sb.append(" (dir)");
        return sb.toString();
    }
}
