package io.jfio.core.copy;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.Statx;
import java.lang.foreign.MemorySegment;

/**
 * What statx(2) said about a source entry, copied out of the native buffer: everything the copy needs to create and
 * finish the target, and to decide whether an existing target is complete.
 *
 * @param mode   type and permission bits
 * @param uid    owner
 * @param gid    group
 * @param nlink  hard links
 * @param size   bytes
 * @param blocks allocated 512-byte blocks
 * @param atimeSec  access time, seconds since the epoch (negative: before 1970)
 * @param atimeNsec its nanoseconds, 0 to 999,999,999
 * @param mtimeSec  modification time, seconds since the epoch
 * @param mtimeNsec its nanoseconds
 * @param dev    device (dev_t encoding)
 * @param ino    inode
 * @param rdev   the device a device node stands for (dev_t encoding)
 * @param mntId  mount ID (0 if not reported)
 */
record Meta(int mode, int uid, int gid, long nlink, long size, long blocks, long atimeSec, int atimeNsec,
            long mtimeSec, int mtimeNsec, long dev, long ino, long rdev, long mntId) {

    /** The statx mask the copy asks for. */
    static final int MASK = Statx.STATX_BASIC_STATS | Statx.STATX_MNT_ID;

    static Meta of(MemorySegment sx) {
        long rdev = Statx.makedev(sx.get(JAVA_INT, Statx.OFF_RDEV_MAJOR), sx.get(JAVA_INT, Statx.OFF_RDEV_MINOR));
        long mnt = (Statx.mask(sx) & Statx.STATX_MNT_ID) != 0 ? Statx.mntId(sx) : 0;
        return new Meta(Statx.mode(sx), Statx.uid(sx), Statx.gid(sx), Statx.nlink(sx), Statx.size(sx),
                Statx.blocks(sx), Statx.timeSec(sx, Statx.OFF_ATIME), Statx.timeNsec(sx, Statx.OFF_ATIME),
                Statx.timeSec(sx, Statx.OFF_MTIME), Statx.timeNsec(sx, Statx.OFF_MTIME), Statx.dev(sx),
                Statx.ino(sx), rdev, mnt);
    }

    /**
     * Compares the modification time in statx buffer {@code sx} with this one's: negative, zero or positive as it
     * is older, the same or newer. Seconds and nanoseconds are compared apart (as one count of nanoseconds they
     * would overflow after 2262 and before 1677).
     */
    int compareMtime(MemorySegment sx) {
        int c = Long.compare(Statx.timeSec(sx, Statx.OFF_MTIME), mtimeSec);
        return c != 0 ? c : Integer.compare(Statx.timeNsec(sx, Statx.OFF_MTIME), mtimeNsec);
    }

    int type() {
        return mode & Fcntl.S_IFMT;
    }

    int permissions() {
        return mode & 07777;
    }

    boolean isDirectory() {
        return type() == Fcntl.S_IFDIR;
    }

    boolean isRegular() {
        return type() == Fcntl.S_IFREG;
    }

    boolean isSymlink() {
        return type() == Fcntl.S_IFLNK;
    }

    /** Allocated less than its size: it has holes worth looking for with SEEK_DATA/SEEK_HOLE. */
    boolean looksSparse() {
        return size > 0 && blocks * 512 < size;
    }

    CopyEvent.Kind kind() {
        return switch (type()) {
            case Fcntl.S_IFDIR -> CopyEvent.Kind.DIRECTORY;
            case Fcntl.S_IFLNK -> CopyEvent.Kind.SYMLINK;
            case Fcntl.S_IFIFO -> CopyEvent.Kind.FIFO;
            case Fcntl.S_IFSOCK -> CopyEvent.Kind.SOCKET;
            case Fcntl.S_IFCHR -> CopyEvent.Kind.CHAR_DEVICE;
            case Fcntl.S_IFBLK -> CopyEvent.Kind.BLOCK_DEVICE;
            default -> CopyEvent.Kind.FILE;
        };
    }
}
