package io.jfio.core.copy;

/**
 * What a {@link TreeCopy} copies and how. Immutable; build with {@link #builder()} ({@code cp -r}) or
 * {@link #archive()} ({@code cp -a}).
 *
 * @param recursive          copy directories and what they hold ({@code -r}); without it a directory source fails
 * @param dereference        which symlinks are followed instead of copied as links
 * @param preserveMode       permission bits, setuid/setgid/sticky included; without it new files get the source's
 *                           permissions less the umask, like {@code cp}
 * @param preserveOwnership  owner and group where permitted (as non-root, EPERM is ignored like {@code cp -a})
 * @param preserveTimestamps access and modification times, to the nanosecond, set after the data
 * @param preserveHardLinks  sources with several names in the tree get one inode with several names in the copy
 * @param preserveXattrs     extended attributes (ACLs, the {@code system.posix_acl_*} ones, only with the mode)
 * @param overwrite          what to do with targets that exist
 * @param skipComplete       skip a regular file whose target already has the same size and modification time (only
 *                           meaningful with preserved timestamps: it is how a rerun finishes an interrupted copy)
 * @param verify             read both sides back after copying and compare them byte for byte; a mismatch fails the
 *                           file, which is then never put under its final name
 * @param fsync              fsync each file before it gets its final name, each directory after its entries, and the
 *                           directories that receive the top-level names
 * @param jobs               worker threads; 0 chooses (see {@link TreeCopy})
 * @param reflink            whether to try {@code FICLONE}
 * @param method             force one data method (for tests and measurements); null chooses per file
 * @param sequential         true: one worker and no split files; false: parallel even on rotational disks; null:
 *                           sequential when a source or target device reports {@code queue/rotational = 1}
 * @param blockSize          bytes per request for the io_uring and read/write methods
 * @param queueDepth         requests in flight per file for the io_uring method
 * @param splitThreshold     regular files at least this large are split across workers (when not sequential, and
 *                           unless at least half of the file is in the page cache: such a file is copied in one piece)
 * @param chunkSize          the part of a split file one worker copies at a time
 * @param noTargetDirectory  treat the target as a name to copy to even when it is a directory ({@code cp -T}): a
 *                           directory source is copied into it, as its contents
 * @param parents            copy each source under the target directory by its whole name ({@code cp --parents}),
 *                           creating the directories on the way
 * @param oneFileSystem      do not descend into directories on other file systems; their mount points are still
 *                           created ({@code cp -x})
 * @param sparse             how holes are made in the copies ({@code cp --sparse})
 * @param dryRun             decide everything and report it as events, but create, change and remove nothing
 * @param defaultPermissions without preserveMode: new entries get 0666 (directories 0777) less the umask rather
 *                           than the source's permissions less the umask ({@code cp --no-preserve=mode})
 * @param buildAside         build each directory the copy creates where it would be seen under a temporary name next
 *                           to it, with its files created directly under their names (no unnamed file, no link), and
 *                           rename it into place once complete (see {@link TreeCopy#ASIDE_PROP}); a killed copy then
 *                           shows nothing of that directory under its final name until a rerun finishes it
 */
public record CopyOptions(boolean recursive, Dereference dereference, boolean preserveMode,
                          boolean preserveOwnership, boolean preserveTimestamps, boolean preserveHardLinks,
                          boolean preserveXattrs, Overwrite overwrite, boolean skipComplete, boolean verify,
                          boolean fsync, int jobs, Reflink reflink, CopyMethod method, Boolean sequential,
                          int blockSize, int queueDepth, long splitThreshold, long chunkSize,
                          boolean noTargetDirectory, boolean parents, boolean oneFileSystem, Sparse sparse,
                          boolean dryRun, boolean defaultPermissions, boolean buildAside) {

    /** Default bytes per io_uring or read/write request. */
    public static final int BLOCK_SIZE_DEFAULT = 1 << 20;
    /** Default io_uring requests in flight per file. */
    public static final int QUEUE_DEPTH_DEFAULT = 8;
    /** Default size from which a file is split across workers. */
    public static final long SPLIT_THRESHOLD_DEFAULT = 256L << 20;
    /** Default part of a split file. */
    public static final long CHUNK_SIZE_DEFAULT = 256L << 20;
    /** The most worker threads a copy will start. */
    public static final int MAX_JOBS = 256;

    /** Which symlinks are followed. */
    public enum Dereference {
        /** Copy every symlink as a symlink ({@code -P}; the default with {@code -r}). */
        NEVER,
        /** Follow symlinks named on the command line, copy the others as links ({@code -H}; default without -r). */
        COMMAND_LINE,
        /** Follow every symlink ({@code -L}). */
        ALWAYS
    }

    /** What to do when a target exists. */
    public enum Overwrite {
        /** Replace it (atomically, by rename), unless it is complete already ({@code skipComplete}). */
        REPLACE,
        /** Leave it ({@code -n}). */
        NEVER,
        /** Replace it only when the source's modification time is newer ({@code --update}). */
        UPDATE
    }

    /** Reflink policy ({@code --reflink}). */
    public enum Reflink {
        /** Try it; fall back to copying where the file system cannot. */
        AUTO,
        /** Require it: a file that cannot be reflinked fails. */
        ALWAYS,
        /** Never: always copy the data. */
        NEVER
    }

    /** How holes are made in the copies ({@code --sparse}). */
    public enum Sparse {
        /** Keep the holes the source has (found with SEEK_DATA/SEEK_HOLE); write all its data. */
        AUTO,
        /** Keep the source's holes, and make a hole of every block of zeros in its data too. */
        ALWAYS,
        /** Make no holes: write the source's holes as zeros (no reflink, plain reads and writes). */
        NEVER
    }

    /**
     * Checks the options.
     *
     * @throws IllegalArgumentException if an enum is null or a number is out of its range (the message names the
     *     value), or {@code method} is {@link CopyMethod#REFLINK} with {@code reflink} {@link Reflink#NEVER}
     */
    public CopyOptions {
        if (sparse == null) throw new IllegalArgumentException("sparse must be set");
        if (sparse != Sparse.AUTO && (reflink == Reflink.ALWAYS || method == CopyMethod.REFLINK)) {
            throw new IllegalArgumentException("sparse=" + sparse.name().toLowerCase(java.util.Locale.ROOT)
                    + " needs the data copied, which contradicts reflink=always");
        }
        if (parents && noTargetDirectory) {
            throw new IllegalArgumentException("parents contradicts no_target_directory: --parents copies into "
                    + "the target directory");
        }
        if (dereference == null) throw new IllegalArgumentException("dereference must be set");
        if (overwrite == null) throw new IllegalArgumentException("overwrite must be set");
        if (reflink == null) throw new IllegalArgumentException("reflink must be set");
        if (jobs < 0 || jobs > MAX_JOBS) {
            throw new IllegalArgumentException("jobs out of range: jobs=" + jobs + " expected=0.." + MAX_JOBS);
        }
        if (blockSize < 4096 || Integer.bitCount(blockSize) != 1 || blockSize > (64 << 20)) {
            throw new IllegalArgumentException("block size must be a power of two from 4 KiB to 64 MiB: block_size="
                    + blockSize);
        }
        if (queueDepth < 1 || queueDepth > 128) {
            throw new IllegalArgumentException("queue depth out of range: queue_depth=" + queueDepth
                    + " expected=1..128");
        }
        if (chunkSize < (1 << 20)) {
            throw new IllegalArgumentException("chunk size below 1 MiB: chunk_size=" + chunkSize);
        }
        if (splitThreshold < chunkSize) {
            throw new IllegalArgumentException("split threshold below chunk size: split_threshold=" + splitThreshold
                    + " chunk_size=" + chunkSize);
        }
        if (method == CopyMethod.REFLINK && reflink == Reflink.NEVER) {
            throw new IllegalArgumentException("method=reflink contradicts reflink=never");
        }
    }

    /**
     * A builder with {@code cp -r}'s defaults when {@code recursive(true)}, plain {@code cp}'s otherwise.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * {@code cp -a}: recursive, no symlink followed, mode, ownership, timestamps, hard links and xattrs kept.
     *
     * @return a new builder with {@code cp -a}'s options set
     */
    public static Builder archive() {
        return new Builder().recursive(true).dereference(Dereference.NEVER).preserveMode(true)
                .preserveOwnership(true).preserveTimestamps(true).preserveHardLinks(true).preserveXattrs(true);
    }

    /** Builds {@link CopyOptions}; not thread-safe. */
    public static final class Builder {
        private boolean recursive;
        private Dereference dereference;
        private boolean preserveMode;
        private boolean preserveOwnership;
        private boolean preserveTimestamps;
        private boolean preserveHardLinks;
        private boolean preserveXattrs;
        private Overwrite overwrite = Overwrite.REPLACE;
        private boolean buildAside = Boolean.parseBoolean(System.getProperty(TreeCopy.ASIDE_PROP,
                Boolean.toString(TreeCopy.ASIDE_DEFAULT)));
        private Boolean skipComplete;
        private boolean verify;
        private boolean fsync;
        private int jobs;
        private Reflink reflink = Reflink.AUTO;
        private CopyMethod method;
        private Boolean sequential;
        private int blockSize = BLOCK_SIZE_DEFAULT;
        private int queueDepth = QUEUE_DEPTH_DEFAULT;
        private long splitThreshold = SPLIT_THRESHOLD_DEFAULT;
        private long chunkSize = CHUNK_SIZE_DEFAULT;
        private boolean noTargetDirectory;
        private boolean parents;
        private boolean oneFileSystem;
        private Sparse sparse = Sparse.AUTO;
        private boolean dryRun;
        private boolean defaultPermissions;

        private Builder() {
        }

        /**
         * Sets {@link CopyOptions#recursive()}: copy directories and their contents.
         *
         * @param v true for {@code -r}
         * @return this builder
         */
        public Builder recursive(boolean v) {
            recursive = v;
            return this;
        }

        /**
         * Default: {@link Dereference#NEVER} when recursive, {@link Dereference#COMMAND_LINE} otherwise.
         *
         * @param v which symlinks to follow
         * @return this builder
         */
        public Builder dereference(Dereference v) {
            dereference = v;
            return this;
        }

        /**
         * Sets {@link CopyOptions#preserveMode()}: keep permission bits.
         *
         * @param v true to keep them
         * @return this builder
         */
        public Builder preserveMode(boolean v) {
            preserveMode = v;
            return this;
        }

        /**
         * Sets {@link CopyOptions#preserveOwnership()}: keep owner and group where permitted.
         *
         * @param v true to keep them
         * @return this builder
         */
        public Builder preserveOwnership(boolean v) {
            preserveOwnership = v;
            return this;
        }

        /**
         * Sets {@link CopyOptions#preserveTimestamps()}: keep access and modification times.
         *
         * @param v true to keep them
         * @return this builder
         */
        public Builder preserveTimestamps(boolean v) {
            preserveTimestamps = v;
            return this;
        }

        /**
         * Sets {@link CopyOptions#preserveHardLinks()}: keep hard links as links.
         *
         * @param v true to keep them
         * @return this builder
         */
        public Builder preserveHardLinks(boolean v) {
            preserveHardLinks = v;
            return this;
        }

        /**
         * Sets {@link CopyOptions#preserveXattrs()}: keep extended attributes.
         *
         * @param v true to keep them
         * @return this builder
         */
        public Builder preserveXattrs(boolean v) {
            preserveXattrs = v;
            return this;
        }

        /**
         * Sets {@link CopyOptions#overwrite()}: what to do with targets that exist; default {@link Overwrite#REPLACE}.
         *
         * @param v the policy
         * @return this builder
         */
        public Builder overwrite(Overwrite v) {
            overwrite = v;
            return this;
        }

        /**
         * Default: true when timestamps are preserved (a size and mtime match means a complete earlier copy).
         *
         * @param v true to skip complete targets
         * @return this builder
         */
        public Builder skipComplete(boolean v) {
            skipComplete = v;
            return this;
        }

        /**
         * Sets {@link CopyOptions#verify()}: compare both sides after copying; default false.
         *
         * @param v true to verify
         * @return this builder
         */
        public Builder verify(boolean v) {
            verify = v;
            return this;
        }

        /**
         * Sets {@link CopyOptions#buildAside()}: build new directories under a temporary name and rename them into
         * place once complete; default {@link TreeCopy#ASIDE_DEFAULT}, or the system property
         * {@link TreeCopy#ASIDE_PROP}.
         *
         * @param v build new directories aside
         * @return this builder
         */
        public Builder buildAside(boolean v) {
            buildAside = v;
            return this;
        }

        /**
         * Sets {@link CopyOptions#fsync()}: make each file and directory durable before it is named; default false.
         *
         * @param v true to sync
         * @return this builder
         */
        public Builder fsync(boolean v) {
            fsync = v;
            return this;
        }

        /**
         * Sets {@link CopyOptions#jobs()}: worker threads; default 0, which chooses.
         *
         * @param v 0 to choose, or 1 to {@link CopyOptions#MAX_JOBS}
         * @return this builder
         */
        public Builder jobs(int v) {
            jobs = v;
            return this;
        }

        /**
         * Sets {@link CopyOptions#reflink()}: whether to clone instead of copying; default {@link Reflink#AUTO}.
         *
         * @param v the policy
         * @return this builder
         */
        public Builder reflink(Reflink v) {
            reflink = v;
            return this;
        }

        /**
         * Sets {@link CopyOptions#method()}: one data method for every file; default null, which chooses per file.
         *
         * @param v the method, or null
         * @return this builder
         */
        public Builder method(CopyMethod v) {
            method = v;
            return this;
        }

        /**
         * Sets {@link CopyOptions#sequential()}: one worker and no split files, or not; default null, which decides by
         * the devices.
         *
         * @param v true, false, or null to decide
         * @return this builder
         */
        public Builder sequential(Boolean v) {
            sequential = v;
            return this;
        }

        /**
         * Sets {@link CopyOptions#blockSize()}: bytes per request; default {@link CopyOptions#BLOCK_SIZE_DEFAULT}.
         *
         * @param v a power of two from 4 KiB to 64 MiB
         * @return this builder
         */
        public Builder blockSize(int v) {
            blockSize = v;
            return this;
        }

        /**
         * Sets {@link CopyOptions#queueDepth()}: io_uring requests in flight per file; default
         * {@link CopyOptions#QUEUE_DEPTH_DEFAULT}.
         *
         * @param v the depth
         * @return this builder
         */
        public Builder queueDepth(int v) {
            queueDepth = v;
            return this;
        }

        /**
         * Sets {@link CopyOptions#splitThreshold()}: the size from which files are split; default
         * {@link CopyOptions#SPLIT_THRESHOLD_DEFAULT}.
         *
         * @param v bytes, at least the chunk size
         * @return this builder
         */
        public Builder splitThreshold(long v) {
            splitThreshold = v;
            return this;
        }

        /**
         * Sets {@link CopyOptions#chunkSize()}: the part of a split file a worker copies at a time; default
         * {@link CopyOptions#CHUNK_SIZE_DEFAULT}.
         *
         * @param v bytes, at least 1 MiB
         * @return this builder
         */
        public Builder chunkSize(long v) {
            chunkSize = v;
            return this;
        }

        /**
         * Treats the target as a file name, never as a directory to copy into ({@code -T}).
         *
         * @param v true to treat the target as a file name
         * @return this builder
         */
        public Builder noTargetDirectory(boolean v) {
            noTargetDirectory = v;
            return this;
        }

        /**
         * Copies each source under the target directory by its full name ({@code --parents}).
         *
         * @param v true to copy each source under the target directory by its full name
         * @return this builder
         */
        public Builder parents(boolean v) {
            parents = v;
            return this;
        }

        /**
         * Does not descend into directories on other file systems ({@code -x}); their mount points are made.
         *
         * @param v true to stay on the file systems of the sources
         * @return this builder
         */
        public Builder oneFileSystem(boolean v) {
            oneFileSystem = v;
            return this;
        }

        /**
         * How holes are made in the copies ({@code --sparse}).
         *
         * @param v how holes are made
         * @return this builder
         */
        public Builder sparse(Sparse v) {
            sparse = v;
            return this;
        }

        /**
         * Decides everything a copy would and changes nothing ({@code --dry-run}).
         *
         * @param v true to decide everything a copy would and change nothing
         * @return this builder
         */
        public Builder dryRun(boolean v) {
            dryRun = v;
            return this;
        }

        /**
         * Gives copies default permissions (0666 or 0777 less the umask), as {@code --no-preserve=mode} does.
         *
         * @param v true to give new entries default permissions
         * @return this builder
         */
        public Builder defaultPermissions(boolean v) {
            defaultPermissions = v;
            return this;
        }

        /**
         * The options; invalid combinations fail with {@link IllegalArgumentException} naming the value.
         *
         * @return the options
         * @throws IllegalArgumentException if an option is out of range or contradicts another
         */
        public CopyOptions build() {
            Dereference d = dereference != null ? dereference
                    : recursive ? Dereference.NEVER : Dereference.COMMAND_LINE;
            boolean skip = skipComplete != null ? skipComplete : preserveTimestamps;
            return new CopyOptions(recursive, d, preserveMode, preserveOwnership, preserveTimestamps,
                    preserveHardLinks, preserveXattrs, overwrite, skip, verify, fsync, jobs, reflink, method,
                    sequential, blockSize, queueDepth, splitThreshold, chunkSize, noTargetDirectory, parents,
                    oneFileSystem, sparse, dryRun, defaultPermissions && !preserveMode, buildAside && !dryRun);
        }
    }
}
