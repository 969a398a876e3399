package io.jfio.core.copy;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import io.jfio.core.sys.Errno;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import io.jfio.core.sys.PathBytes;
import io.jfio.core.sys.Statx;
import io.jfio.core.sys.Timespec;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

/**
 * Carries ownership, extended attributes, permission bits and timestamps from a source entry to its copy, in the
 * order that keeps each one: owner first (chown clears setuid and setgid), then xattrs (an ACL rewrites the group
 * bits), then the mode, and the times last (after the data, which moves mtime).
 *
 * <p>Not thread-safe; one per worker, using its {@link Scratch}. A failure to keep ownership as non-root is ignored,
 * like {@code cp -a}, and then, like cp, a file loses its setuid, setgid and sticky bits, a directory its setuid and
 * setgid bits; extended attributes the target cannot hold (EOPNOTSUPP, or EPERM for a namespace we may not
 * write) are reported once as a notice; anything else fails the entry.
 */
final class Attributes {
    /** The prefix of the ACLs' names: system.posix_acl_access and system.posix_acl_default. */
    private static final byte[] ACL_PREFIX = "system.posix_acl_".getBytes(StandardCharsets.US_ASCII);
    private final CopyContext ctx;
    private final Scratch s;

    Attributes(CopyContext ctx, Scratch s) {
        this.ctx = ctx;
        this.s = s;
    }

    /** An attribute could not be set: the call, and the negative errno. */
    record Failure(String call, int errno) {
    }

    // ------------------------------------------------------------------ open descriptors (regular files)

    /**
     * Applies what the options ask for to an open target file, given the source's metadata and descriptor.
     *
     * @param createdMode the permission bits the file was created with (before the umask)
     * @return null, or the first failure
     */
    Failure applyToFd(int srcFd, int dstFd, Meta m, DirNode dir, int createdMode) {
        CopyOptions o = ctx.options;
        boolean chmod = false;
        int perms = m.permissions();
        if (o.preserveOwnership() && (m.uid() != ctx.euid || m.gid() != dir.newGid)) {
            int r = LibC.fchown(dstFd, m.uid(), m.gid());
            if (r == -Errno.EPERM) {
                r = ownershipDenied(LibC.fchown(dstFd, -1, m.gid()));
                // Owner or group not kept: drop setuid and setgid, which would lend the copy's owner or group to
                // whoever runs it, and the sticky bit with them, as cp does.
                perms &= ~07000;
            }
            if (r < 0) return new Failure("fchown", r);
            chmod = (m.mode() & (Fcntl.S_ISUID | Fcntl.S_ISGID)) != 0;
        }
        if (o.preserveXattrs()) {
            int n = copyXattrs(srcFd, dstFd, null, null);
            if (n < 0) return new Failure("fsetxattr", n);
            if (n > 0) chmod = true; // an ACL may have changed the group bits
        }
        if (o.preserveMode()) {
            chmod |= (perms & 07000) != 0 || (createdMode & ctx.umask) != 0 || dir.defaultAcl
                    || createdMode != (perms & 0777);
            if (chmod) {
                int r = LibC.fchmod(dstFd, perms);
                if (r < 0) return new Failure("fchmod", r);
            }
        }
        return o.preserveTimestamps() ? times(dstFd, m) : null;
    }

    /** {@code m}'s access and modification times, in the scratch timespec pair. */
    private MemorySegment times(Meta m) {
        Timespec.set(s.times, 0, m.atimeSec(), m.atimeNsec());
        Timespec.set(s.times, 1, m.mtimeSec(), m.mtimeNsec());
        return s.times;
    }

    /** Sets {@code m}'s times on the file or directory open as {@code fd}; null or the failure. */
    Failure times(int fd, Meta m) {
        int r = LibC.futimens(fd, times(m));
        return r < 0 ? new Failure("futimens", r) : null;
    }

    // ------------------------------------------------------------------ directories

    /**
     * Applies what the options ask for to a target directory open as {@code dstFd} ({@code O_RDONLY}), the source
     * directory being open as {@code srcFd} (-1 when extended attributes are not kept).
     *
     * @param dir       the directory it is in (whose rules gave it its group)
     * @param setgid    whether the target directory has the setgid bit (made in a setgid directory, or found so)
     * @param mustChmod set the mode even where it should be right already (created 0700 so that we could fill it)
     */
    Failure applyToDir(int srcFd, int dstFd, Meta m, DirNode dir, boolean setgid, boolean mustChmod) {
        CopyOptions o = ctx.options;
        boolean chmod = mustChmod;
        int special = 07000; // the setuid, setgid and sticky bits kept
        if (o.preserveOwnership() && (m.uid() != ctx.euid || m.gid() != dir.newGid)) {
            int r = LibC.fchown(dstFd, m.uid(), m.gid());
            if (r == -Errno.EPERM) {
                r = ownershipDenied(LibC.fchown(dstFd, -1, m.gid()));
                // Owner or group not kept: like cp, drop setuid and setgid (setgid would give new entries a group
                // the copy does not have); the sticky bit stays.
                special = Fcntl.S_ISVTX;
            }
            if (r < 0) return new Failure("fchown", r);
            chmod |= (m.mode() & (Fcntl.S_ISUID | Fcntl.S_ISGID)) != 0;
        }
        if (o.preserveXattrs() && srcFd >= 0) {
            int n = copyXattrs(srcFd, dstFd, null, null);
            if (n < 0) return new Failure("fsetxattr", n);
            if (n > 0) chmod = true;
        }
        // Without -p, what cp's mkdir(2) with the source's mode gives: the permission bits (or 0777 with
        // --no-preserve=mode) less the umask, the source's sticky bit, and setgid only where the parent has it.
        // With -p, cp sets the permission bits alone (through the ACL) unless the source has one of setuid, setgid
        // or sticky, so an inherited setgid stays then too.
        int perms = o.preserveMode() ? m.permissions() & (0777 | special)
                : (o.defaultPermissions() ? 0777 : m.permissions() & 0777) & ~ctx.umask
                        | m.permissions() & Fcntl.S_ISVTX;
        if (setgid && (!o.preserveMode() || (perms & 07000) == 0)) perms |= Fcntl.S_ISGID;
        chmod |= o.preserveMode() && ((perms & 07000) != 0 || (0700 & ctx.umask) != 0 || dir.defaultAcl
                || (perms & 0777) != 0700);
        if (chmod) {
            int r = LibC.fchmod(dstFd, perms);
            if (r < 0) return new Failure("fchmod", r);
        }
        return o.preserveTimestamps() ? times(dstFd, m) : null;
    }

    // ------------------------------------------------------------------ symlinks, FIFOs, sockets, devices

    /**
     * Applies what the options ask for to the entry {@code dstName} in the target directory open as
     * {@code dstDirFd}, without following a symlink, the source being {@code srcName} in {@code srcDirFd}. The
     * permission bits go through a descriptor of the entry itself ({@code fchmodat} would follow a symlink that
     * replaced it), extended attributes through {@code /proc/self/fd/DIR/name} (the directory by descriptor).
     *
     * @param dir         the directory it is in (whose rules gave it its group)
     * @param createdMode the permission bits the entry was created with (before the umask)
     */
    Failure applyToEntry(int srcDirFd, MemorySegment srcName, int dstDirFd, MemorySegment dstName, Meta m,
                         DirNode dir, int createdMode) {
        CopyOptions o = ctx.options;
        boolean symlink = m.isSymlink();
        boolean chmod = false;
        if (o.preserveOwnership() && (m.uid() != ctx.euid || m.gid() != dir.newGid)) {
            int r = LibC.fchownat(dstDirFd, dstName, m.uid(), m.gid(), Fcntl.AT_SYMLINK_NOFOLLOW);
            if (r == -Errno.EPERM) {
                r = ownershipDenied(LibC.fchownat(dstDirFd, dstName, -1, m.gid(), Fcntl.AT_SYMLINK_NOFOLLOW));
            }
            if (r < 0) return new Failure("lchown", r);
            chmod |= (m.mode() & (Fcntl.S_ISUID | Fcntl.S_ISGID)) != 0;
        }
        if (o.preserveXattrs()) {
            procPath(s.procSrc, srcDirFd, srcName);
            procPath(s.procDst, dstDirFd, dstName);
            int n = copyXattrs(-1, -1, s.procSrc, s.procDst);
            if (n < 0) return new Failure("lsetxattr", n);
            if (n > 0) chmod = true;
        }
        if (!symlink) { // Linux has no permission bits on symlinks to set
            int perms = o.preserveMode() ? m.permissions()
                    : (o.defaultPermissions() ? createdMode : m.permissions()) & 0777 & ~ctx.umask;
            chmod |= o.preserveMode() && ((perms & 07000) != 0 || (createdMode & ctx.umask) != 0 || dir.defaultAcl
                    || createdMode != (perms & 0777));
            if (chmod) {
                int r = chmodEntry(dstDirFd, dstName, m.type(), perms);
                if (r < 0) return new Failure("chmod", r);
            }
        }
        if (o.preserveTimestamps()) {
            int r = LibC.utimensat(dstDirFd, dstName, times(m), Fcntl.AT_SYMLINK_NOFOLLOW);
            if (r < 0) return new Failure("utimensat", r);
        }
        return null;
    }

    /**
     * Sets the permission bits of a FIFO, socket or device node through an {@code O_PATH} descriptor of it (what
     * glibc's fchmodat does for AT_SYMLINK_NOFOLLOW): the entry must still be of {@code type}, not a symlink.
     */
    private int chmodEntry(int dirFd, MemorySegment name, int type, int perms) {
        int fd = LibC.openat(dirFd, name, Fcntl.O_PATH | Fcntl.O_NOFOLLOW | Fcntl.O_CLOEXEC, 0);
        if (fd < 0) return fd;
        try {
            int r = LibC.statx(fd, s.empty, Fcntl.AT_EMPTY_PATH, Statx.STATX_TYPE, s.statx2);
            if (r < 0) return r;
            if ((Statx.mode(s.statx2) & Fcntl.S_IFMT) != type) return -Errno.ELOOP;
            Names.putAscii(s.procDst, "/proc/self/fd/" + fd);
            return LibC.fchmodat(Fcntl.AT_FDCWD, s.procDst, perms);
        } finally {
            LibC.close(fd);
        }
    }

    /** Writes {@code /proc/self/fd/DIRFD/NAME} into {@code seg}. */
    private static void procPath(MemorySegment seg, int dirFd, MemorySegment name) {
        byte[] n = PathBytes.cString(name, 0, Fcntl.NAME_MAX + 1);
        Names.put(seg, ("/proc/self/fd/" + dirFd).getBytes(java.nio.charset.StandardCharsets.US_ASCII), n);
    }

    /**
     * As non-root we may not give files away, and may only set groups we are in: cp -a ignores that (the caller
     * drops the special mode bits).
     */
    private int ownershipDenied(int r) {
        if (r == -Errno.EPERM) {
            ctx.noticeOnce("chown", "ownership not preserved where not permitted (not root): errno=EPERM");
            return 0;
        }
        return r;
    }

    /**
     * Copies every extended attribute, by descriptor when {@code srcFd >= 0}, else by path without following
     * symlinks.
     *
     * @return how many were set, or -errno of the first that failed for a reason other than "the target cannot
     *         hold it"
     */
    private int copyXattrs(int srcFd, int dstFd, MemorySegment srcSeg, MemorySegment dstSeg) {
        MemorySegment names = s.xattrNames;
        long len = srcFd >= 0 ? LibC.flistxattr(srcFd, names, names.byteSize())
                : LibC.llistxattr(srcSeg, names, names.byteSize());
        if (len == -Errno.EOPNOTSUPP || len == 0) return 0;
        if (len < 0) return (int) len;
        int set = 0;
        long at = 0;
        while (at < len) {
            long end = at;
            while (end < len && names.get(JAVA_BYTE, end) != 0) end++;
            int nameLen = (int) (end - at);
            // An ACL is part of the mode, as with cp: without the mode kept the copy gets the default permissions
            // (or the source's less the umask), not the source's grants.
            boolean acl = nameLen >= ACL_PREFIX.length && MemorySegment.mismatch(names, at, at + ACL_PREFIX.length,
                    MemorySegment.ofArray(ACL_PREFIX), 0, ACL_PREFIX.length) < 0;
            if (nameLen > 0 && !(acl && !ctx.options.preserveMode())) {
                MemorySegment name = s.xattrName;
                MemorySegment.copy(names, at, name, 0, nameLen);
                name.set(JAVA_BYTE, nameLen, (byte) 0);
                long vlen = srcFd >= 0 ? LibC.fgetxattr(srcFd, name, s.xattrValue, s.xattrValue.byteSize())
                        : LibC.lgetxattr(srcSeg, name, s.xattrValue, s.xattrValue.byteSize());
                if (vlen == -Errno.ENODATA) {
                    at = end + 1; // removed since it was listed
                    continue;
                }
                if (vlen < 0) return (int) vlen;
                int r = dstFd >= 0 ? LibC.fsetxattr(dstFd, name, s.xattrValue, vlen, 0)
                        : LibC.lsetxattr(dstSeg, name, s.xattrValue, vlen, 0);
                if (r == 0) {
                    set++;
                } else if (r == -Errno.EOPNOTSUPP || r == -Errno.EPERM || r == -Errno.EACCES) {
                    String n = new String(PathBytes.cString(name, 0, nameLen + 1),
                            java.nio.charset.StandardCharsets.UTF_8);
                    int dot = n.indexOf('.');
                    String ns = dot > 0 ? n.substring(0, dot) : n;
                    ctx.noticeOnce("xattr:" + ns + ":" + r, "extended attributes not preserved: namespace=" + ns
                            + " errno=" + Errno.name(r) + (r == -Errno.EOPNOTSUPP
                            ? " (the target file system does not support them)" : ""));
                } else {
                    return r;
                }
            }
            at = end + 1;
        }
        return set;
    }
}
