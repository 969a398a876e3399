package io.jfio.bench.system;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One line of {@code /proc/self/mountinfo} (see proc(5)):
 * {@code 36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue}.
 *
 * <p>Immutable.
 *
 * @param id           the mount ID, the same number statx reports as {@code stx_mnt_id}
 * @param parentId     the parent mount's ID
 * @param major        major device number of {@code st_dev} for files on this mount
 * @param minor        minor device number
 * @param root         the directory of the file system that forms this mount's root
 * @param mountPoint   where it is mounted, unescaped
 * @param options      per-mount options
 * @param fsType       the file system type, e.g. {@code ext4}
 * @param source       the mount source, e.g. {@code /dev/sda1}, {@code tmpfs}
 * @param superOptions per-superblock options
 */
record MountInfo(int id, int parentId, int major, int minor, String root, String mountPoint, String options,
                 String fsType, String source, String superOptions) {

    static final Path SELF = Path.of("/proc/self/mountinfo");

    /** Parses mountinfo lines; lines that do not have the documented shape are skipped. */
    static List<MountInfo> parse(List<String> lines) {
        List<MountInfo> mounts = new ArrayList<>(lines.size());
        for (String line : lines) {
            MountInfo m = parseLine(line);
            if (m != null) mounts.add(m);
        }
        return mounts;
    }

    /** One line, or null if it is malformed. */
    static MountInfo parseLine(String line) {
        String[] f = line.strip().split(" ");
        // Six fixed fields, zero or more optional fields, the "-" separator, then three more.
        int sep = -1;
        for (int i = 6; i < f.length; i++) {
            if (f[i].equals("-")) {
                sep = i;
                break;
            }
        }
        if (sep < 0 || f.length < sep + 3) return null;
        String[] dev = f[2].split(":");
        if (dev.length != 2) return null;
        try {
            return new MountInfo(Integer.parseInt(f[0]), Integer.parseInt(f[1]), Integer.parseInt(dev[0]),
                    Integer.parseInt(dev[1]), unescape(f[3]), unescape(f[4]), f[5], unescape(f[sep + 1]),
                    unescape(f[sep + 2]), sep + 3 < f.length ? f[sep + 3] : "");
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** Undoes the kernel's octal escapes ({@code \040} for a space, {@code \011}, {@code \012}, {@code \134}). */
    static String unescape(String s) {
        if (s.indexOf('\\') < 0) return s;
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && isOctal(s, i + 1)) {
                sb.append((char) Integer.parseInt(s.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    private static boolean isOctal(String s, int from) {
        if (from + 3 > s.length()) return false;
        for (int i = from; i < from + 3; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '7') return false;
        }
        return true;
    }

    /**
     * The mount that holds {@code realPath}. With a mount ID from statx ({@code mntId >= 0}) that mount is the
     * answer, since it stays right where mounts are stacked or bind-mounted; otherwise the mount with the longest
     * mount point that contains the path, the last one listed when several are stacked on the same point (the
     * one on top).
     */
    static Optional<MountInfo> find(List<MountInfo> mounts, Path realPath, long mntId) {
        if (mntId >= 0) {
            for (MountInfo m : mounts) {
                if (m.id() == mntId) return Optional.of(m);
            }
        }
        MountInfo best = null;
        int bestDepth = -1;
        for (MountInfo m : mounts) {
            Path mp;
            try {
                mp = Path.of(m.mountPoint());
            } catch (InvalidPathException e) {
                continue;
            }
            if (!realPath.startsWith(mp)) continue;
            int depth = mp.getNameCount();
            if (depth >= bestDepth) {
                best = m;
                bestDepth = depth;
            }
        }
        return Optional.ofNullable(best);
    }
}
