package io.jfio.core.sys;

/**
 * Flags for open, *at calls, lseek, fallocate, posix_fadvise, sync_file_range, splice and eventfd, from the Linux
 * UAPI headers (asm-generic/fcntl.h, linux/fcntl.h, linux/falloc.h, linux/fadvise.h). The few that differ between
 * x86_64 and aarch64 are resolved when this class loads.
 *
 * <p>Thread-safe; constants only.
 */
public final class Fcntl {
    public static final int O_RDONLY = 0;                                  // O_RDONLY in asm-generic/fcntl.h
    public static final int O_WRONLY = 1;                                  // O_WRONLY
    public static final int O_RDWR = 2;                                    // O_RDWR
    public static final int O_ACCMODE = 3;                                 // O_ACCMODE
    public static final int O_CREAT = 0100;                                // O_CREAT
    public static final int O_EXCL = 0200;                                 // O_EXCL
    public static final int O_NOCTTY = 0400;                               // O_NOCTTY
    public static final int O_TRUNC = 01000;                               // O_TRUNC
    public static final int O_APPEND = 02000;                              // O_APPEND
    public static final int O_NONBLOCK = 04000;                            // O_NONBLOCK
    public static final int O_DSYNC = 010000;                              // O_DSYNC
    public static final int O_DIRECT = Platform.isX86() ? 040000 : 0200000;      // O_DIRECT (arm64: asm/fcntl.h)
    public static final int F_GETFL = 3;                                   // F_GETFL in asm-generic/fcntl.h
    public static final int RWF_NOWAIT = 0x8;                              // RWF_NOWAIT in linux/fs.h (4.14)
    public static final int O_LARGEFILE = Platform.isX86() ? 0100000 : 0400000;  // O_LARGEFILE
    public static final int O_DIRECTORY = Platform.isX86() ? 0200000 : 040000;   // O_DIRECTORY
    public static final int O_NOFOLLOW = Platform.isX86() ? 0400000 : 0100000;   // O_NOFOLLOW
    public static final int O_NOATIME = 01000000;                          // O_NOATIME
    public static final int O_CLOEXEC = 02000000;                          // O_CLOEXEC
    public static final int O_SYNC = 04000000 | O_DSYNC;                   // __O_SYNC | O_DSYNC
    public static final int O_PATH = 010000000;                            // O_PATH
    public static final int O_TMPFILE = 020000000 | O_DIRECTORY;           // __O_TMPFILE | O_DIRECTORY

    public static final int RESOLVE_NO_SYMLINKS = 0x04;                    // RESOLVE_NO_SYMLINKS
    public static final int RESOLVE_BENEATH = 0x08;                        // RESOLVE_BENEATH
    public static final int OPEN_HOW_SIZE = 24;                            // sizeof(struct open_how)

    public static final int AT_FDCWD = -100;                               // AT_FDCWD in linux/fcntl.h
    public static final int AT_SYMLINK_NOFOLLOW = 0x100;                   // AT_SYMLINK_NOFOLLOW
    public static final int AT_REMOVEDIR = 0x200;                          // AT_REMOVEDIR
    public static final int AT_SYMLINK_FOLLOW = 0x400;                     // AT_SYMLINK_FOLLOW
    public static final int AT_NO_AUTOMOUNT = 0x800;                       // AT_NO_AUTOMOUNT
    public static final int AT_EMPTY_PATH = 0x1000;                        // AT_EMPTY_PATH

    public static final int SEEK_SET = 0;                                  // SEEK_SET in linux/fs.h
    public static final int SEEK_CUR = 1;                                  // SEEK_CUR
    public static final int SEEK_END = 2;                                  // SEEK_END
    public static final int SEEK_DATA = 3;                                 // SEEK_DATA
    public static final int SEEK_HOLE = 4;                                 // SEEK_HOLE

    public static final int FALLOC_FL_KEEP_SIZE = 0x01;                    // FALLOC_FL_KEEP_SIZE in linux/falloc.h
    public static final int FALLOC_FL_PUNCH_HOLE = 0x02;                   // FALLOC_FL_PUNCH_HOLE
    public static final int FALLOC_FL_ZERO_RANGE = 0x10;                   // FALLOC_FL_ZERO_RANGE

    public static final int POSIX_FADV_NORMAL = 0;                         // POSIX_FADV_NORMAL in linux/fadvise.h
    public static final int POSIX_FADV_RANDOM = 1;                         // POSIX_FADV_RANDOM
    public static final int POSIX_FADV_SEQUENTIAL = 2;                     // POSIX_FADV_SEQUENTIAL
    public static final int POSIX_FADV_WILLNEED = 3;                       // POSIX_FADV_WILLNEED
    public static final int POSIX_FADV_DONTNEED = 4;                       // POSIX_FADV_DONTNEED (not s390x's 6)
    public static final int POSIX_FADV_NOREUSE = 5;                        // POSIX_FADV_NOREUSE

    public static final int SYNC_FILE_RANGE_WAIT_BEFORE = 1;               // SYNC_FILE_RANGE_WAIT_BEFORE in linux/fs.h
    public static final int SYNC_FILE_RANGE_WRITE = 2;                     // SYNC_FILE_RANGE_WRITE
    public static final int SYNC_FILE_RANGE_WAIT_AFTER = 4;                // SYNC_FILE_RANGE_WAIT_AFTER

    public static final int SPLICE_F_MOVE = 1;                             // SPLICE_F_MOVE in linux/splice.h
    public static final int SPLICE_F_NONBLOCK = 2;                         // SPLICE_F_NONBLOCK
    public static final int SPLICE_F_MORE = 4;                             // SPLICE_F_MORE

    public static final int EFD_SEMAPHORE = 1;                             // EFD_SEMAPHORE in sys/eventfd.h
    public static final int EFD_NONBLOCK = O_NONBLOCK;                     // EFD_NONBLOCK
    public static final int EFD_CLOEXEC = O_CLOEXEC;                       // EFD_CLOEXEC

    public static final int S_IFMT = 0170000;                              // S_IFMT in linux/stat.h
    public static final int S_IFREG = 0100000;                             // S_IFREG
    public static final int S_IFDIR = 0040000;                             // S_IFDIR
    public static final int S_IFLNK = 0120000;                             // S_IFLNK
    public static final int S_IFIFO = 0010000;                             // S_IFIFO
    public static final int S_IFCHR = 0020000;                             // S_IFCHR
    public static final int S_IFBLK = 0060000;                             // S_IFBLK
    public static final int S_IFSOCK = 0140000;                            // S_IFSOCK
    public static final int S_ISUID = 04000;                               // S_ISUID
    public static final int S_ISGID = 02000;                               // S_ISGID
    public static final int S_ISVTX = 01000;                               // S_ISVTX

    public static final int RENAME_NOREPLACE = 1 << 0;                     // RENAME_NOREPLACE in linux/fs.h
    public static final int RENAME_EXCHANGE = 1 << 1;                      // RENAME_EXCHANGE
    public static final int RENAME_WHITEOUT = 1 << 2;                      // RENAME_WHITEOUT

    /** ioctl FICLONE = _IOW(0x94, 9, int), the same on x86_64 and aarch64 (asm-generic/ioctl.h). */
    public static final long FICLONE = 0x40049409L;                        // FICLONE in linux/fs.h

    public static final int XATTR_CREATE = 0x1;                            // XATTR_CREATE in linux/xattr.h
    public static final int XATTR_REPLACE = 0x2;                           // XATTR_REPLACE
    public static final int XATTR_SIZE_MAX = 65536;                        // XATTR_SIZE_MAX in linux/limits.h
    public static final int XATTR_LIST_MAX = 65536;                        // XATTR_LIST_MAX

    public static final long UTIME_NOW = (1L << 30) - 1;                   // UTIME_NOW in linux/stat.h
    public static final long UTIME_OMIT = (1L << 30) - 2;                  // UTIME_OMIT

    public static final int PATH_MAX = 4096;                               // PATH_MAX in linux/limits.h
    public static final int NAME_MAX = 255;                                // NAME_MAX

    public static final int LOCK_SH = 1;                                   // LOCK_SH in asm-generic/fcntl.h
    public static final int LOCK_EX = 2;                                   // LOCK_EX
    public static final int LOCK_NB = 4;                                   // LOCK_NB
    public static final int LOCK_UN = 8;                                   // LOCK_UN

    public static final int POLLIN = 0x001;                                // POLLIN in asm-generic/poll.h
    public static final int POLLOUT = 0x004;                               // POLLOUT
    public static final int POLLERR = 0x008;                               // POLLERR
    public static final int POLLHUP = 0x010;                               // POLLHUP

    private Fcntl() {
    }
}
