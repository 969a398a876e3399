package io.jfio.core.sys;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct statfs} as the fstatfs system call fills it ({@link LibC#fstatfs}, the raw call) on 64-bit Linux:
 * the kernel's layout, which is the C library's too there (x86_64 and aarch64 alike: every word is 64 bits,
 * {@code __fsword_t} and {@code fsblkcnt_t} included), and the magic numbers of the pseudo file systems from
 * linux/magic.h.
 *
 * {@snippet lang = c:
 * struct statfs {
 *     __fsword_t f_type;     // 0x00: file system magic, e.g. EXT4_SUPER_MAGIC
 *     __fsword_t f_bsize;    // 0x08
 *     fsblkcnt_t f_blocks;   // 0x10
 *     fsblkcnt_t f_bfree;    // 0x18
 *     fsblkcnt_t f_bavail;   // 0x20
 *     fsfilcnt_t f_files;    // 0x28
 *     fsfilcnt_t f_ffree;    // 0x30
 *     fsid_t     f_fsid;     // 0x38: two ints
 *     __fsword_t f_namelen;  // 0x40
 *     __fsword_t f_frsize;   // 0x48
 *     __fsword_t f_flags;    // 0x50
 *     __fsword_t f_spare[4]; // 0x58
 * };                         // 0x78 = 120 bytes
 * }
 *
 * <p>Thread-safe; static accessors over caller-owned segments.
 */
public final class Statfs {
    public static final long EXT4_SUPER_MAGIC = 0xEF53L;        // EXT4_SUPER_MAGIC (also ext2, ext3)
    public static final long XFS_SUPER_MAGIC = 0x58465342L;     // XFS_SUPER_MAGIC
    public static final long BTRFS_SUPER_MAGIC = 0x9123683EL;   // BTRFS_SUPER_MAGIC
    public static final long TMPFS_MAGIC = 0x01021994L;         // TMPFS_MAGIC
    public static final long PROC_SUPER_MAGIC = 0x9fa0L;        // PROC_SUPER_MAGIC
    public static final long SYSFS_MAGIC = 0x62656572L;         // SYSFS_MAGIC
    public static final long CGROUP_SUPER_MAGIC = 0x27e0ebL;    // CGROUP_SUPER_MAGIC
    public static final long CGROUP2_SUPER_MAGIC = 0x63677270L; // CGROUP2_SUPER_MAGIC
    public static final long DEBUGFS_MAGIC = 0x64626720L;       // DEBUGFS_MAGIC
    public static final long TRACEFS_MAGIC = 0x74726163L;       // TRACEFS_MAGIC
    public static final long SECURITYFS_MAGIC = 0x73636673L;    // SECURITYFS_MAGIC
    public static final long CONFIGFS_MAGIC = 0x62656570L;      // CONFIGFS_MAGIC
    public static final long PSTOREFS_MAGIC = 0x6165676CL;      // PSTOREFS_MAGIC
    public static final long BPF_FS_MAGIC = 0xcafe4a11L;        // BPF_FS_MAGIC
    public static final long EFIVARFS_MAGIC = 0xde5e81e4L;      // EFIVARFS_MAGIC
    public static final long OVERLAYFS_SUPER_MAGIC = 0x794c7630L; // OVERLAYFS_SUPER_MAGIC
    // Network and user-space file systems: changes made elsewhere (another client, the server, the FUSE daemon's
    // backing store) never reach the local inotify, so the watcher polls them.
    public static final long NFS_SUPER_MAGIC = 0x6969L;         // NFS_SUPER_MAGIC
    public static final long FUSE_SUPER_MAGIC = 0x65735546L;    // FUSE_SUPER_MAGIC
    public static final long SMB_SUPER_MAGIC = 0x517BL;         // SMB_SUPER_MAGIC
    public static final long CIFS_SUPER_MAGIC = 0xFF534D42L;    // CIFS_SUPER_MAGIC
    public static final long SMB2_SUPER_MAGIC = 0xFE534D42L;    // SMB2_SUPER_MAGIC
    public static final long V9FS_MAGIC = 0x01021997L;          // V9FS_MAGIC
    public static final long CEPH_SUPER_MAGIC = 0x00c36400L;    // CEPH_SUPER_MAGIC
    public static final long AFS_SUPER_MAGIC = 0x5346414FL;     // AFS_SUPER_MAGIC
    public static final long AFS_FS_MAGIC = 0x6B414653L;        // AFS_FS_MAGIC
    public static final long CODA_SUPER_MAGIC = 0x73757245L;    // CODA_SUPER_MAGIC

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("f_type"),
            JAVA_LONG.withName("f_bsize"),
            JAVA_LONG.withName("f_blocks"),
            JAVA_LONG.withName("f_bfree"),
            JAVA_LONG.withName("f_bavail"),
            JAVA_LONG.withName("f_files"),
            JAVA_LONG.withName("f_ffree"),
            MemoryLayout.sequenceLayout(2, JAVA_INT).withName("f_fsid"),
            JAVA_LONG.withName("f_namelen"),
            JAVA_LONG.withName("f_frsize"),
            JAVA_LONG.withName("f_flags"),
            MemoryLayout.sequenceLayout(4, JAVA_LONG).withName("f_spare"));

    public static final long OFF_TYPE = 0x00;
    public static final long OFF_BSIZE = 0x08;
    public static final long OFF_BLOCKS = 0x10;
    public static final long OFF_BFREE = 0x18;
    public static final long OFF_BAVAIL = 0x20;
    public static final long OFF_FILES = 0x28;
    public static final long OFF_FFREE = 0x30;
    public static final long OFF_FSID = 0x38;
    public static final long OFF_NAMELEN = 0x40;
    public static final long OFF_FRSIZE = 0x48;
    public static final long OFF_FLAGS = 0x50;

    private Statfs() {
    }

    /** The file system's magic number (unsigned 32-bit values read back as non-negative longs). */
    public static long type(MemorySegment s) {
        return s.get(JAVA_LONG, OFF_TYPE) & 0xffff_ffffL;
    }

    public static long bsize(MemorySegment s) {
        return s.get(JAVA_LONG, OFF_BSIZE);
    }

    public static long blocks(MemorySegment s) {
        return s.get(JAVA_LONG, OFF_BLOCKS);
    }

    public static long bfree(MemorySegment s) {
        return s.get(JAVA_LONG, OFF_BFREE);
    }

    /** Blocks available to an unprivileged user. */
    public static long bavail(MemorySegment s) {
        return s.get(JAVA_LONG, OFF_BAVAIL);
    }

    public static long namelen(MemorySegment s) {
        return s.get(JAVA_LONG, OFF_NAMELEN);
    }

    /**
     * True for the kernel's pseudo file systems (procfs, sysfs and those mounted under /sys): their files report
     * sizes that say nothing about their content, so copying them as files gives wrong results.
     */
    public static boolean isPseudo(long magic) {
        return magic == PROC_SUPER_MAGIC || magic == SYSFS_MAGIC || magic == CGROUP_SUPER_MAGIC
                || magic == CGROUP2_SUPER_MAGIC || magic == DEBUGFS_MAGIC || magic == TRACEFS_MAGIC
                || magic == SECURITYFS_MAGIC || magic == CONFIGFS_MAGIC || magic == PSTOREFS_MAGIC
                || magic == BPF_FS_MAGIC || magic == EFIVARFS_MAGIC;
    }

    /**
     * True for file systems whose changes do not all pass through this kernel's VFS (NFS, SMB/CIFS, 9p, Ceph, AFS,
     * Coda, FUSE): inotify there reports only what this machine itself did, so a watcher must poll.
     */
    public static boolean isRemote(long magic) {
        return magic == NFS_SUPER_MAGIC || magic == FUSE_SUPER_MAGIC || magic == SMB_SUPER_MAGIC
                || magic == CIFS_SUPER_MAGIC || magic == SMB2_SUPER_MAGIC || magic == V9FS_MAGIC
                || magic == CEPH_SUPER_MAGIC || magic == AFS_SUPER_MAGIC || magic == AFS_FS_MAGIC
                || magic == CODA_SUPER_MAGIC;
    }

    /** A name for a magic number, for messages: {@code "proc"}, {@code "ext4"}, or the hex value. */
    public static String name(long magic) {
        if (magic == EXT4_SUPER_MAGIC) return "ext4";
        if (magic == XFS_SUPER_MAGIC) return "xfs";
        if (magic == BTRFS_SUPER_MAGIC) return "btrfs";
        if (magic == TMPFS_MAGIC) return "tmpfs";
        if (magic == PROC_SUPER_MAGIC) return "proc";
        if (magic == SYSFS_MAGIC) return "sysfs";
        if (magic == CGROUP_SUPER_MAGIC) return "cgroup";
        if (magic == CGROUP2_SUPER_MAGIC) return "cgroup2";
        if (magic == DEBUGFS_MAGIC) return "debugfs";
        if (magic == TRACEFS_MAGIC) return "tracefs";
        if (magic == SECURITYFS_MAGIC) return "securityfs";
        if (magic == CONFIGFS_MAGIC) return "configfs";
        if (magic == PSTOREFS_MAGIC) return "pstore";
        if (magic == BPF_FS_MAGIC) return "bpf";
        if (magic == EFIVARFS_MAGIC) return "efivarfs";
        if (magic == OVERLAYFS_SUPER_MAGIC) return "overlay";
        if (magic == NFS_SUPER_MAGIC) return "nfs";
        if (magic == FUSE_SUPER_MAGIC) return "fuse";
        if (magic == SMB_SUPER_MAGIC) return "smb";
        if (magic == CIFS_SUPER_MAGIC) return "cifs";
        if (magic == SMB2_SUPER_MAGIC) return "smb2";
        if (magic == V9FS_MAGIC) return "9p";
        if (magic == CEPH_SUPER_MAGIC) return "ceph";
        if (magic == AFS_SUPER_MAGIC || magic == AFS_FS_MAGIC) return "afs";
        if (magic == CODA_SUPER_MAGIC) return "coda";
        return "0x" + Long.toHexString(magic);
    }
}
