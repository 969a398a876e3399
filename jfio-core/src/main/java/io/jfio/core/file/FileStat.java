package io.jfio.core.file;

import io.jfio.core.sys.Fcntl;

/**
 * A snapshot of a file's metadata from statx(2).
 *
 * @param identity       device and inode
 * @param mode           file type and permission bits
 * @param nlink          hard links
 * @param size           size in bytes
 * @param blocks         allocated 512-byte blocks (less than size/512 for sparse files)
 * @param blockSize      preferred I/O size
 * @param mtimeNanos     modification time, nanoseconds since the epoch (before 1677 {@link Long#MIN_VALUE}, after
 *                       2262 {@link Long#MAX_VALUE})
 * @param dioMemAlign    O_DIRECT buffer alignment, 0 if not reported
 * @param dioOffsetAlign O_DIRECT offset and length alignment, 0 if not reported
 */
public record FileStat(FileIdentity identity, int mode, long nlink, long size, long blocks, int blockSize,
                       long mtimeNanos, int dioMemAlign, int dioOffsetAlign) {

    /**
     * Whether the file is a regular file.
     *
     * @return true for a regular file
     */
    public boolean isRegularFile() {
        return (mode & Fcntl.S_IFMT) == Fcntl.S_IFREG;
    }

    /**
     * Whether the file is a directory.
     *
     * @return true for a directory
     */
    public boolean isDirectory() {
        return (mode & Fcntl.S_IFMT) == Fcntl.S_IFDIR;
    }
}
