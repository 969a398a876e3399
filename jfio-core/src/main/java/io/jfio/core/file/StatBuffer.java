package io.jfio.core.file;

import io.jfio.core.sys.Errno;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.FileNames;
import io.jfio.core.sys.LibC;
import io.jfio.core.sys.Statx;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Not thread-safe: one per thread. A reusable statx(2) result for code that looks at many files and must not
 * allocate per look: {@link #ofPath}, {@link #ofPathNoFollow} or {@link #ofFd} fills the native buffer with one
 * system call, and the getters read the fields of the last successful call from it. {@link FileStat} is the
 * immutable snapshot of the same fields ({@link #toFileStat}).
 *
 * <p>The calls return 0 or the negated errno value, for example -2 ({@code ENOENT}) when a path does not exist,
 * instead of throwing: a scan expects files to vanish under it. After a failed call the getters read the fields of
 * the last successful one.
 *
 * <p>Paths are strings in jfio's lossless form of file names: a name's bytes decoded as UTF-8, each byte that is
 * not valid UTF-8 written as the lone surrogate {@code U+DC80..U+DCFF} of the same low byte. Every valid UTF-8 name
 * is its own string.
 */
public final class StatBuffer {
    private static final int MASK = Statx.STATX_BASIC_STATS | Statx.STATX_BTIME;

    private final MemorySegment buf;
    private final MemorySegment pathBuf;
    private final MemorySegment empty;

    /**
     * A buffer whose native memory lives as long as {@code arena}.
     *
     * @param arena allocates the statx buffer and room for one path
     */
    public StatBuffer(Arena arena) {
        buf = arena.allocate(Statx.LAYOUT);
        pathBuf = arena.allocate(Fcntl.PATH_MAX + 1);
        empty = arena.allocate(1);
    }

    /**
     * Reads the metadata of the file at {@code path}, following symbolic links (like a path a user names).
     *
     * @param path a path, absolute or relative to the working directory
     * @return 0, or the negated errno value
     */
    public int ofPath(String path) {
        return ofPath(path, 0);
    }

    /**
     * Reads the metadata of {@code path} itself: a symbolic link at the end of the path is not followed.
     *
     * @param path a path, absolute or relative to the working directory
     * @return 0, or the negated errno value
     */
    public int ofPathNoFollow(String path) {
        return ofPath(path, Fcntl.AT_SYMLINK_NOFOLLOW);
    }

    private int ofPath(String path, int flags) {
        byte[] b = FileNames.encode(path);
        if (b.length >= Fcntl.PATH_MAX) {
            return -Errno.ENAMETOOLONG;
        }
        MemorySegment.copy(b, 0, pathBuf, ValueLayout.JAVA_BYTE, 0, b.length);
        pathBuf.set(ValueLayout.JAVA_BYTE, b.length, (byte) 0);
        return LibC.statx(Fcntl.AT_FDCWD, pathBuf, flags, MASK, buf);
    }

    /**
     * Reads the metadata of an open file descriptor: about the file that was opened, whatever its name is now.
     *
     * @param fd an open file descriptor
     * @return 0, or the negated errno value
     */
    public int ofFd(int fd) {
        return LibC.statx(fd, empty, Fcntl.AT_EMPTY_PATH, MASK, buf);
    }

    /**
     * The device ID ({@code st_dev}, glibc's {@code makedev} encoding, as {@link FileIdentity#device}).
     *
     * @return the device ID
     */
    public long device() {
        return Statx.dev(buf);
    }

    /**
     * The inode number.
     *
     * @return the inode number
     */
    public long inode() {
        return Statx.ino(buf);
    }

    /**
     * Device and inode as a {@link FileIdentity}; allocates it.
     *
     * @return a new identity
     */
    public FileIdentity identity() {
        return new FileIdentity(device(), inode());
    }

    /**
     * The size in bytes.
     *
     * @return the size in bytes
     */
    public long size() {
        return Statx.size(buf);
    }

    /**
     * The owner's user ID.
     *
     * @return the user ID
     */
    public int uid() {
        return Statx.uid(buf);
    }

    /**
     * The group ID.
     *
     * @return the group ID
     */
    public int gid() {
        return Statx.gid(buf);
    }

    /**
     * The number of hard links; 0 once the file is deleted but still open.
     *
     * @return the link count
     */
    public long nlink() {
        return Statx.nlink(buf);
    }

    /**
     * The file type and permission bits ({@code st_mode}).
     *
     * @return the mode bits
     */
    public int mode() {
        return Statx.mode(buf);
    }

    /**
     * The modification time, nanoseconds since the epoch.
     *
     * @return nanoseconds since 1970-01-01T00:00Z; {@link Long#MIN_VALUE} before 1677-09-21 and {@link Long#MAX_VALUE}
     *         after 2262-04-11, which a long cannot hold
     */
    public long mtimeNanos() {
        return Statx.mtimeNanos(buf);
    }

    /**
     * The creation time, nanoseconds since the epoch, where the file system keeps it (ext4, XFS, Btrfs, tmpfs); -1
     * where it does not (the kernel left {@code STATX_BTIME} out of the result's mask).
     *
     * @return nanoseconds since 1970-01-01T00:00Z, or -1
     */
    public long birthNanos() {
        return (Statx.mask(buf) & Statx.STATX_BTIME) != 0 ? Statx.timeNanos(buf, Statx.OFF_BTIME) : -1;
    }

    /**
     * Whether the file is a regular file.
     *
     * @return true for a regular file
     */
    public boolean isRegularFile() {
        return type() == Fcntl.S_IFREG;
    }

    /**
     * Whether the file is a directory.
     *
     * @return true for a directory
     */
    public boolean isDirectory() {
        return type() == Fcntl.S_IFDIR;
    }

    /**
     * Whether the file is a symbolic link (seen only by {@link #ofPathNoFollow}).
     *
     * @return true for a symbolic link
     */
    public boolean isSymbolicLink() {
        return type() == Fcntl.S_IFLNK;
    }

    /**
     * A word for the file's type, for messages: {@code file}, {@code directory}, {@code symlink}, {@code fifo},
     * {@code socket}, {@code char-device}, {@code block-device} or {@code unknown}.
     *
     * @return the type's word
     */
    public String typeName() {
        return switch (type()) {
            case Fcntl.S_IFDIR -> "directory";
            case Fcntl.S_IFIFO -> "fifo";
            case Fcntl.S_IFSOCK -> "socket";
            case Fcntl.S_IFCHR -> "char-device";
            case Fcntl.S_IFBLK -> "block-device";
            case Fcntl.S_IFLNK -> "symlink";
            case Fcntl.S_IFREG -> "file";
            default -> "unknown";
        };
    }

    /**
     * The fields as an immutable {@link FileStat}; allocates it. The direct I/O alignments are not read here and
     * are 0.
     *
     * @return a new {@link FileStat}
     */
    public FileStat toFileStat() {
        return new FileStat(identity(), mode(), nlink(), size(), Statx.blocks(buf), Statx.blksize(buf),
                mtimeNanos(), 0, 0);
    }

    private int type() {
        return Statx.mode(buf) & Fcntl.S_IFMT;
    }
}
