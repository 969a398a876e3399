package io.jfio.ship.state;

import io.jfio.core.sys.Errno;
import io.jfio.core.sys.ErrnoException;
import io.jfio.core.sys.FileNames;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import io.jfio.ship.log.ShipLog;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The checkpoints of one sink, in one small file rewritten whole: written to a temporary file, fsynced, renamed over
 * the old one, and the directory fsynced. A crash at any point leaves either the old or the new file, never a mix.
 *
 * <p>Format (big-endian): magic {@code JFIOCKP1}, int version 1, long written-at (epoch ms), int entry count; per
 * entry an int body length, the body (long dev, long ino, int fingerprint length, long fingerprint hash, long
 * offset, long seen-at, short path length, path bytes UTF-8) and an int CRC32C of the body; last an int CRC32C of
 * everything before it. A file whose whole-file CRC fails is corrupt: the entries whose own CRC still holds are kept,
 * the file is renamed aside ({@code .corrupt-TIMESTAMP}), and {@link Loaded#corrupt()} tells the pipeline to start
 * files it has no entry for at their beginning (never at the end): some bytes may be sent twice, none are lost.
 *
 * <p>Files are created, renamed, removed and synced relative to the state directory's descriptor and never through
 * a symbolic link ({@link StateDir}).
 *
 * <p>Not thread-safe; owned by one pipeline thread.
 */
public final class CheckpointStore {
    private static final byte[] MAGIC = "JFIOCKP1".getBytes(StandardCharsets.US_ASCII);
    private static final int VERSION = 1;

    private final Path file;
    private final String name;
    private final String tempName;
    /** The opened state directory the file is in; null: the file's directory is opened for each load and write. */
    private final StateDir dir;

    /**
     * A store at {@code file} (its directory must exist), whose directory is opened ({@code O_NOFOLLOW}) for each
     * load and write: for a look at the state or a change made under its lock by another command.
     *
     * @param file the checkpoint file, e.g. {@code state/checkpoints-main.bin}
     */
    public CheckpointStore(Path file) {
        this(null, file.toAbsolutePath());
    }

    /**
     * A store at {@code name} in the opened directory {@code dir}: every create, rename, removal and sync goes
     * through the directory's descriptor, never through its path again.
     *
     * @param dir  the state directory, opened while the store is used
     * @param name the checkpoint file's name in it, e.g. {@code checkpoints-main.bin}
     */
    public CheckpointStore(StateDir dir, String name) {
        this(dir, dir.path().resolve(name));
    }

    private CheckpointStore(StateDir dir, Path file) {
        this.dir = dir;
        this.file = file;
        this.name = file.getFileName().toString();
        this.tempName = name + ".tmp";
    }

    /** The checkpoint file. */
    public Path file() {
        return file;
    }

    /**
     * What a load found.
     *
     * @param entries the checkpoints read (all of them, or those that survived corruption)
     * @param corrupt whether the file was damaged (and moved aside)
     * @param problem what was wrong, for the log; null when nothing was
     */
    public record Loaded(List<Checkpoint> entries, boolean corrupt, String problem) {
    }

    /**
     * Reads the checkpoints; a missing file is an empty store. A damaged file is moved aside when {@code repair}
     * (not in a dry run) and reported in the result and the log.
     */
    public Loaded load(ShipLog log, boolean repair) throws IOException {
        StateDir d;
        try {
            d = openDir();
        } catch (ErrnoException e) {
            if (e.errno() == Errno.ENOENT) return new Loaded(List.of(), false, null); // no state directory yet
            throw e;
        }
        try (Arena arena = Arena.ofConfined()) {
            int dirFd = d.fd();
            if (repair) unlink(dirFd, tempName, arena); // a write that never reached its rename; the old file stands
            byte[] b = read(dirFd);
            if (b == null) return new Loaded(List.of(), false, null);
            List<Checkpoint> entries = new ArrayList<>();
            String problem = parse(b, entries);
            if (problem == null) return new Loaded(entries, false, null);
            String asideName = name + ".corrupt-" + Instant.now().toEpochMilli();
            Path aside = file.resolveSibling(asideName);
            if (repair) {
                int r = LibC.renameat2(dirFd, cString(arena, name), dirFd, cString(arena, asideName), 0);
                ErrnoException.check(r, "rename", -1, file.toString());
            }
            log.error("checkpoint-corrupt", "file", file, "problem", problem, "kept", entries.size(),
                    "moved-to", repair ? aside : "(dry run: left in place)",
                    "recovery", "files without a valid entry start at their beginning; some bytes may be sent again");
            return new Loaded(entries, true, problem);
        } finally {
            release(d);
        }
    }

    /** The opened state directory, or the file's directory opened for one operation ({@link #release} it). */
    private StateDir openDir() throws IOException {
        return dir != null ? dir : StateDir.open(file.getParent());
    }

    private void release(StateDir d) {
        if (d != dir) d.close();
    }

    /** The checkpoint file's bytes, read relative to {@code dirFd} without following a link; null when absent. */
    private byte[] read(int dirFd) throws IOException {
        int fd = LibC.openat(dirFd, name, Fcntl.O_RDONLY | Fcntl.O_NOFOLLOW | Fcntl.O_CLOEXEC, 0);
        if (fd == -Errno.ENOENT) return null;
        ErrnoException.check(fd, "open", -1, file.toString());
        try (Arena arena = Arena.ofConfined()) {
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            MemorySegment buf = arena.allocate(1 << 16);
            while (true) {
                long n = LibC.read(fd, buf, buf.byteSize());
                if (n == -Errno.EINTR) continue;
                ErrnoException.check(n, "read", fd, file.toString(), out.size(), buf.byteSize());
                if (n == 0) return out.toByteArray();
                out.write(buf.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE));
            }
        } finally {
            LibC.close(fd);
        }
    }

    /** unlinkat of {@code fileName} in {@code dirFd} (never follows a link); a name that is not there is fine. */
    private void unlink(int dirFd, String fileName, Arena arena) throws IOException {
        int r = LibC.unlinkat(dirFd, cString(arena, fileName), 0);
        if (r != -Errno.ENOENT) ErrnoException.check(r, "unlink", -1, file.resolveSibling(fileName).toString());
    }

    private static MemorySegment cString(Arena arena, String fileName) {
        byte[] b = FileNames.encode(fileName);
        MemorySegment seg = arena.allocate(b.length + 1L);
        MemorySegment.copy(b, 0, seg, ValueLayout.JAVA_BYTE, 0, b.length);
        return seg;
    }

    /** Parses {@code b} into {@code out}; returns null when the file is intact, else what is wrong. */
    static String parse(byte[] b, List<Checkpoint> out) {
        ByteBuffer buf = ByteBuffer.wrap(b);
        if (b.length < MAGIC.length + 4 + 8 + 4 + 4) return "too short: bytes=" + b.length;
        for (int i = 0; i < MAGIC.length; i++) {
            if (buf.get() != MAGIC[i]) return "bad magic";
        }
        int version = buf.getInt();
        if (version != VERSION) return "unknown version: version=" + version;
        buf.getLong();
        int count = buf.getInt();
        String problem = null;
        CRC32C whole = new CRC32C();
        whole.update(b, 0, b.length - 4);
        int stored = ByteBuffer.wrap(b, b.length - 4, 4).getInt();
        if ((int) whole.getValue() != stored) problem = "file checksum mismatch";
        for (int i = 0; i < count; i++) {
            if (buf.remaining() < 8) return "truncated at entry " + i + (problem == null ? "" : "; " + problem);
            int len = buf.getInt();
            if (len < 46 || len > buf.remaining() - 4 - 4 || len > 70_000) {
                return "bad entry length at entry " + i + (problem == null ? "" : "; " + problem);
            }
            int start = buf.position();
            CRC32C crc = new CRC32C();
            crc.update(b, start, len);
            long dev = buf.getLong();
            long ino = buf.getLong();
            int fpLen = buf.getInt();
            long fpHash = buf.getLong();
            long offset = buf.getLong();
            long seen = buf.getLong();
            int pathLen = Short.toUnsignedInt(buf.getShort());
            if (pathLen != len - 46) {
                buf.position(start + len + 4);
                problem = "bad path length at entry " + i;
                continue;
            }
            byte[] path = new byte[pathLen];
            buf.get(path);
            int entryCrc = buf.getInt();
            if ((int) crc.getValue() != entryCrc || offset < 0 || fpLen < 0) {
                problem = "entry checksum mismatch at entry " + i;
                continue;
            }
            out.add(new Checkpoint(dev, ino, fpLen, fpHash, offset, seen, FileNames.decode(path)));
        }
        if (problem == null && buf.remaining() != 4) problem = "trailing bytes: bytes=" + (buf.remaining() - 4);
        return problem;
    }

    private static final String NAME_PREFIX = "checkpoints-";
    private static final String NAME_SUFFIX = ".bin";
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    /**
     * The checkpoint file's name for sink {@code sink}: {@code checkpoints-NAME.bin} where NAME keeps ASCII letters,
     * digits, '.' and '-' and writes every other byte of the name's UTF-8 as {@code _XX} (hex). Two sink names never
     * share a file, and no name reaches outside the state directory; {@link #sinkOf} reads it back.
     */
    public static String fileName(String sink) {
        StringBuilder b = new StringBuilder(NAME_PREFIX);
        for (byte c : sink.getBytes(StandardCharsets.UTF_8)) {
            if (c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-') {
                b.append((char) c);
            } else {
                b.append('_').append(HEX[(c >> 4) & 0xF]).append(HEX[c & 0xF]);
            }
        }
        return b.append(NAME_SUFFIX).toString();
    }

    /** The sink whose checkpoint file {@code fileName} is ({@link #fileName} read back), or null when it is none. */
    static String sinkOf(String fileName) {
        if (!fileName.startsWith(NAME_PREFIX) || !fileName.endsWith(NAME_SUFFIX)) return null;
        String enc = fileName.substring(NAME_PREFIX.length(), fileName.length() - NAME_SUFFIX.length());
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream(enc.length());
        for (int i = 0; i < enc.length(); i++) {
            char c = enc.charAt(i);
            int hi = c == '_' && i + 2 < enc.length() ? Character.digit(enc.charAt(i + 1), 16) : -1;
            int lo = hi >= 0 ? Character.digit(enc.charAt(i + 2), 16) : -1;
            if (lo >= 0) {
                b.write(hi << 4 | lo);
                i += 2;
            } else if (c != '_' && c < 0x80) {
                b.write(c);
            } else {
                return null;
            }
        }
        return FileNames.decode(b.toByteArray());
    }

    /** Encodes entries in the file format (on the heap; {@link #write} encodes into native memory instead). */
    static byte[] encode(Collection<Checkpoint> entries) {
        try (Arena arena = Arena.ofConfined()) {
            return encode(entries, arena).toArray(ValueLayout.JAVA_BYTE);
        }
    }

    /**
     * Encodes entries in the file format into native memory of {@code arena}. A shipper of many files writes a file
     * of a megabyte or more every checkpoint interval: built on the heap, the whole file (and its copies) would be
     * large arrays that a young collection during the write's fsync promotes, growing the old generation for
     * garbage. Here each entry passes through one small heap buffer.
     */
    static MemorySegment encode(Collection<Checkpoint> entries, Arena arena) {
        byte[][] paths = new byte[entries.size()][];
        long size = HEADER + 4;
        int k = 0;
        int longest = 0;
        for (Checkpoint c : entries) {
            // An ASCII path (most) is its chars: no array per entry and write (a few a second, each of every file).
            paths[k] = ascii(c.path()) ? null : pathBytes(c);
            int length = pathLength(c, paths[k++]);
            longest = Math.max(longest, length);
            size += ENTRY_FIXED + length;
        }
        MemorySegment seg = arena.allocate(size);
        ByteBuffer out = seg.asByteBuffer(); // big-endian, as the reader expects
        out.put(MAGIC).putInt(VERSION).putLong(System.currentTimeMillis()).putInt(entries.size());
        ByteBuffer body = ByteBuffer.allocate(46 + longest); // the longest entry, not the longest possible one
        CRC32C crc = new CRC32C();
        k = 0;
        for (Checkpoint c : entries) {
            byte[] path = paths[k++];
            int length = pathLength(c, path);
            body.clear();
            body.putLong(c.device()).putLong(c.inode()).putInt(c.fpLength()).putLong(c.fpHash())
                    .putLong(c.offset()).putLong(c.seenAt()).putShort((short) length);
            if (path != null) {
                body.put(path);
            } else {
                for (int i = 0; i < length; i++) body.put((byte) c.path().charAt(i));
            }
            body.flip();
            crc.reset();
            crc.update(body.array(), 0, body.limit());
            out.putInt(body.limit()).put(body).putInt((int) crc.getValue());
        }
        CRC32C whole = new CRC32C();
        whole.update(seg.asSlice(0, out.position()).asByteBuffer());
        out.putInt((int) whole.getValue());
        return seg;
    }

    /** The magic, version, time and count before the entries. */
    private static final int HEADER = 8 + 4 + 8 + 4;
    /** An entry's bytes besides its path: length, the fixed fields, path length, checksum. */
    private static final int ENTRY_FIXED = 4 + 46 + 4;

    /** Whether every char of {@code path} is ASCII (then its UTF-8 bytes are its chars). */
    private static boolean ascii(String path) {
        for (int i = 0; i < path.length(); i++) {
            if (path.charAt(i) >= 0x80) return false;
        }
        return true;
    }

    /** The stored length of an entry's path: of its bytes, or of its chars when it is ASCII ({@code bytes} null). */
    private static int pathLength(Checkpoint c, byte[] bytes) {
        return bytes != null ? bytes.length : Math.min(c.path().length(), 65_535);
    }

    private static byte[] pathBytes(Checkpoint c) {
        byte[] path = FileNames.encode(c.path());
        return path.length > 65_535 ? java.util.Arrays.copyOf(path, 65_535) : path;
    }

    /**
     * Replaces the stored checkpoints with {@code entries}, durably (temp + fsync + rename + directory fsync); the
     * temporary is created O_EXCL|O_NOFOLLOW, mode 0600.
     */
    public void write(Collection<Checkpoint> entries) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            write(encode(entries, arena));
        }
    }

    private void write(MemorySegment seg) throws IOException {
        StateDir d = openDir();
        try (Arena arena = Arena.ofConfined()) {
            write(d.fd(), seg, arena);
        } finally {
            release(d);
        }
    }

    private void write(int dirFd, MemorySegment seg, Arena arena) throws IOException {
        long length = seg.byteSize();
        String tempPath = file.resolveSibling(tempName).toString();
        // A temporary left by a write that never reached its rename, or anything planted at its name: unlink never
        // follows a link. Then O_EXCL|O_NOFOLLOW, so that this write (as root) never goes through a link.
        unlink(dirFd, tempName, arena);
        MemorySegment temp = cString(arena, tempName);
        int fd = LibC.openat(dirFd, temp, Fcntl.O_WRONLY | Fcntl.O_CREAT | Fcntl.O_EXCL | Fcntl.O_NOFOLLOW
                | Fcntl.O_CLOEXEC, 0600);
        ErrnoException.check(fd, "open", -1, tempPath);
        boolean renamed = false;
        try {
            try {
                long done = 0;
                while (done < length) {
                    long n = LibC.pwrite(fd, seg.asSlice(done), length - done, done);
                    if (n == -Errno.EINTR) continue;
                    ErrnoException.check(n, "pwrite", fd, tempPath, done, length - done);
                    done += n;
                }
                ErrnoException.check(LibC.fsync(fd), "fsync", fd, tempPath);
            } finally {
                LibC.close(fd);
            }
            ErrnoException.check(LibC.renameat2(dirFd, temp, dirFd, cString(arena, name), 0), "rename", -1,
                    tempPath);
            renamed = true;
        } finally {
            // A write that failed (a full disk) gives back the space its partial temporary took; the old file stands.
            if (!renamed) LibC.unlinkat(dirFd, temp, 0); // else the next write removes it first
        }
        ErrnoException.check(LibC.fsync(dirFd), "fsync", dirFd, file.getParent().toString());
    }

    /** fsync of a directory, so that a rename or a new name in it survives a crash of the machine. */
    public static void syncDirectory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }
}
