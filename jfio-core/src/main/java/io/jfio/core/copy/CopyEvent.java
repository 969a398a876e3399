package io.jfio.core.copy;

/**
 * What happened to one entry of the tree: given to {@link CopyListener#onEntry} when the listener asks for entries
 * (for {@code --debug} output).
 *
 * @param kind    what the source is
 * @param outcome what was done
 * @param source  the source path (a byte that is not valid UTF-8 held as {@link io.jfio.core.sys.FileNames}' escape)
 * @param target  the target path (likewise)
 * @param method  how the data moved, for {@link Outcome#COPIED} regular files; null otherwise
 * @param bytes   data bytes written (0 for reflinks, links and skipped entries)
 * @param size    the source's size
 * @param sparse  true when holes were preserved with SEEK_DATA/SEEK_HOLE
 * @param chunks  how many workers shared the file (1 unless it was split)
 */
public record CopyEvent(Kind kind, Outcome outcome, String source, String target, CopyMethod method, long bytes,
                        long size, boolean sparse, int chunks) {

    /** The type of the source entry. */
    public enum Kind {
        /** A regular file. */
        FILE,
        /** A directory. */
        DIRECTORY,
        /** A symbolic link. */
        SYMLINK,
        /** A named pipe. */
        FIFO,
        /** A Unix domain socket. */
        SOCKET,
        /** A character device. */
        CHAR_DEVICE,
        /** A block device. */
        BLOCK_DEVICE
    }

    /** What was done with it. */
    public enum Outcome {
        /** Data copied (files) or the entry created (links, FIFOs, devices, directories). */
        COPIED,
        /** A target directory was created (its entries follow; {@link #COPIED} says when it is complete). */
        CREATED,
        /** A hard link to an earlier copy of the same source inode. */
        HARD_LINKED,
        /** Skipped: the target already had the same type, size and modification time. */
        SKIPPED_COMPLETE,
        /** Skipped: the target exists and overwriting was not allowed ({@code -n}). */
        SKIPPED_EXISTS,
        /** Skipped: the target is not older than the source ({@code --update}). */
        SKIPPED_NOT_NEWER
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(kind.name().toLowerCase(java.util.Locale.ROOT)).append(' ')
                .append(outcome.name().toLowerCase(java.util.Locale.ROOT)).append(": source=")
                .append(io.jfio.core.sys.FileNames.show(source)).append(" target=")
                .append(io.jfio.core.sys.FileNames.show(target));
        if (method != null) sb.append(" method=").append(method.label());
        if (kind == Kind.FILE) sb.append(" size=").append(size).append(" written=").append(bytes);
        if (sparse) sb.append(" sparse=yes");
        if (chunks > 1) sb.append(" chunks=").append(chunks);
        return sb.toString();
    }
}
