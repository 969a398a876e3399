package io.jfio.core.copy;

import java.util.Locale;

/**
 * How the data of a regular file is moved, from the cheapest to the most general. {@link TreeCopy} picks per file
 * the first that works between the two file systems and remembers what failed, so only the first file of a pair of
 * devices pays for a probe.
 */
public enum CopyMethod {
    /** {@code ioctl(FICLONE)}: the copy shares the source's extents (btrfs, xfs, bcachefs, ...). No data moves. */
    REFLINK,
    /** {@code copy_file_range(2)} in chunks of at most 1 GiB: the kernel copies, no bytes cross into user space. */
    COPY_FILE_RANGE,
    /** io_uring reads and writes of {@code blockSize} bytes, {@code queueDepth} in flight, through jfio's engine. */
    URING,
    /** Plain pread(2)/pwrite(2) through one buffer. Works everywhere. */
    READ_WRITE;

    /**
     * The lower-case name used on the command line and in messages ({@code copy_file_range}).
     *
     * @return the label
     */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Parses a {@link #label()} (case-insensitive, '-' accepted for '_').
     *
     * @param s a label, e.g. {@code copy-file-range}
     * @return the method
     * @throws IllegalArgumentException if {@code s} names no method
     */
    public static CopyMethod parse(String s) {
        String t = s.trim().toUpperCase(Locale.ROOT).replace('-', '_');
        for (CopyMethod m : values()) {
            if (m.name().equals(t)) return m;
        }
        throw new IllegalArgumentException("unknown copy method: method=" + s
                + " expected=reflink|copy_file_range|uring|read_write");
    }
}
