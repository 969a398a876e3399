package io.jfio.bench.suite;

import io.jfio.core.sys.Errno;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether the test directory's file system takes {@code open(O_DIRECT)}, probed once per run on a small file. Cells
 * that bypass the page cache run only where it does; every other cold cell goes cold with fdatasync +
 * POSIX_FADV_DONTNEED, which needs no O_DIRECT. Some file systems refuse O_DIRECT at open with EINVAL (ramfs, FUSE
 * mounts without direct_io, tmpfs before Linux 6.6).
 *
 * <p>Immutable.
 *
 * @param supported true when the probe's open with O_DIRECT succeeded
 * @param detail    what the probe saw, for the report: "supported", or the failure with its errno name and meaning
 */
public record DirectIo(boolean supported, String detail) {
    /** Supported. */
    public static final DirectIo SUPPORTED = new DirectIo(true, "supported");

    /**
     * The verdict for an {@code open(O_DIRECT)} that failed with {@code errno}: EINVAL is how the kernel says the
     * file system does not support O_DIRECT; anything else is an error of its own and named as such.
     */
    public static DirectIo fromOpenErrno(int errno) {
        String why = errno == Errno.EINVAL ? "the file system does not support O_DIRECT"
                : "the probe could not open a file with O_DIRECT";
        return new DirectIo(false, "unsupported here: open(O_DIRECT) failed with " + Errno.name(errno) + " (" + why
                + ")");
    }

    /** Opens a 4 KiB file written in {@code dir} with O_DIRECT, and removes it. */
    public static DirectIo probe(Path dir) {
        Path p = dir.resolve("odirect-probe");
        try {
            Files.write(p, new byte[4096]);
            int fd = LibC.openat(Fcntl.AT_FDCWD, p.toString(), Fcntl.O_RDONLY | Fcntl.O_DIRECT | Fcntl.O_CLOEXEC, 0);
            if (fd < 0) return fromOpenErrno(-fd);
            LibC.close(fd);
            return SUPPORTED;
        } catch (IOException e) {
            return new DirectIo(false, "unknown: the probe file could not be written (" + e.getMessage() + ")");
        } finally {
            try {
                Files.deleteIfExists(p);
            } catch (IOException e) {
                // the scratch directory is removed at the end anyway
            }
        }
    }

    /**
     * The note a cell that wanted O_DIRECT puts in the report when it cannot have it: what was not run, why, and
     * what the cold cells do instead.
     */
    public String skippedNote(String what) {
        return what + " not run: O_DIRECT " + detail + "; the cold cells go cold with fdatasync + "
                + "POSIX_FADV_DONTNEED instead (residency checked with mincore), which needs no O_DIRECT";
    }
}
