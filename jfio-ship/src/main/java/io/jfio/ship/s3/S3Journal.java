package io.jfio.ship.s3;

import io.jfio.ship.log.ShipLog;
import io.jfio.ship.state.Checkpoint;
import io.jfio.ship.state.StateDir;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;

/**
 * Thread-safe (every method is synchronized); written by the upload thread, read by the pipeline thread.
 *
 * <p>The s3 sink's journal in the state directory: what the bucket holds, as far as this sink knows, made durable
 * before anyone relies on it. Each object is written as an <em>intent</em> (its number, key, source content and
 * byte range) and fdatasynced BEFORE its upload starts, and as <em>done</em> (fdatasynced) after the server
 * acknowledged it and before the pipeline is told. The done records are the source positions the pipeline resumes
 * from ({@link #positions()}), the way the directory sink's commit log is: an intent without done after a crash is
 * uploaded again under the same key with the same range (the pipeline re-sends from the done position; the sink
 * re-cuts the object at the intent's end), so an object that did reach the bucket before the crash is overwritten
 * by the same bytes, and no byte ends up in two objects.
 *
 * <p>Format: text lines, each {@code CRC32C-HEX SP BODY LF}, the CRC over the body. Bodies: {@code I seq dev ino
 * fp-length fp-hash start end millis key-hex path-hex kind obsolete-key-hex [gzip-size]} (intent; kind {@code s} for
 * one request, {@code m} for a multipart upload whose end is planned; {@code gzip-size} only for an object of a gzip
 * file's decompressed bytes, whose {@code start} and {@code end} are then decompressed offsets), {@code R seq end
 * key-hex} (a multipart object cut before its planned end: its new end and key), {@code D seq millis} (done), {@code X
 * seq} (abandoned: its source content is gone), {@code P dev ino fp-length fp-hash offset seen-at path-hex} (a
 * position, in a snapshot), {@code G dev ino fp-length fp-hash offset seen-at path-hex gzip-size} (a gzip file's
 * position in its decompressed bytes, in a snapshot, or when the file is gone before all of it was stored) and {@code
 * N next-seq}. A line whose CRC fails (the torn last line a crash left) is skipped and logged. The file is created
 * 0600 and never opened through a symbolic link; compaction writes a snapshot (the positions, the open intents, the
 * next number) to a temporary created exclusively, fdatasyncs it, renames it over the journal and fsyncs the
 * directory: at every open and when the appended lines outgrow the last snapshot by {@link #COMPACT_MIN}. Positions
 * not touched for 7 days and intents older than that are dropped then.
 */
final class S3Journal implements AutoCloseable {
    /** Lines appended past the last snapshot before compaction. */
    static final long COMPACT_MIN = 1 << 20;
    private static final long FORGET_MILLIS = TimeUnit.DAYS.toMillis(7);
    private static final FileAttribute<Set<PosixFilePermission>> PRIVATE =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));
    private static final HexFormat HEX = HexFormat.of();

    /**
     * An object decided: its number, key, source and range.
     *
     * @param seq    its number
     * @param key    its key
     * @param device the source's {@code st_dev}
     * @param inode  its {@code st_ino}
     * @param fpLen  its fingerprint's length
     * @param fpHash its fingerprint
     * @param path   its path when the object was cut
     * @param start  the first source offset
     * @param end    the source offset just past the last byte
     * @param millis when its first byte arrived (epoch ms)
     * @param multipart whether it is uploaded in parts while it fills: then {@code end} is where it is planned to
     *                  end, and {@link #replan} records where it ends when it is cut before that
     * @param obsolete  a key to delete (its incomplete uploads aborted) before this object is done, or null: the key
     *                  a multipart object was planned under, when it was cut before its planned end
     * @param gzipSize  -1 when the source is a plain file; else the source is a gzip file, {@code start} and {@code
     *                  end} are offsets in its decompressed bytes, and this is their number
     */
    record Intent(long seq, String key, long device, long inode, int fpLen, long fpHash, String path, long start,
                  long end, long millis, boolean multipart, String obsolete, long gzipSize) {
        /** A single-request object. */
        Intent(long seq, String key, long device, long inode, int fpLen, long fpHash, String path, long start,
               long end, long millis) {
            this(seq, key, device, inode, fpLen, fpHash, path, start, end, millis, false, null, -1);
        }

        /** An object of a plain file. */
        Intent(long seq, String key, long device, long inode, int fpLen, long fpHash, String path, long start,
               long end, long millis, boolean multipart, String obsolete) {
            this(seq, key, device, inode, fpLen, fpHash, path, start, end, millis, multipart, obsolete, -1);
        }

        /** Whether its range is of a gzip file's decompressed bytes. */
        boolean gzip() {
            return gzipSize >= 0;
        }

        /** This single-request object ending at {@code at} instead, under the same key. */
        Intent ending(long at) {
            return new Intent(seq, key, device, inode, fpLen, fpHash, path, start, at, millis, multipart, obsolete,
                    gzipSize);
        }

        /**
         * This object taken over by a copy of its source (same content, another inode): the same number, key, range
         * and bytes, its source now the copy, so that its done places the copy, which is what a later start resumes.
         */
        Intent movedTo(long newDevice, long newInode, String newPath) {
            return new Intent(seq, key, newDevice, newInode, fpLen, fpHash, newPath, start, end, millis, multipart,
                    obsolete, gzipSize);
        }

        /** This multipart object cut at {@code at}: key {@code newKey}, stored by completing it and copying. */
        Intent replanned(long at, String newKey) {
            return new Intent(seq, newKey, device, inode, fpLen, fpHash, path, start, at, millis, false, key,
                    gzipSize);
        }
    }

    /**
     * Where a gzip file's objects end, in its decompressed bytes.
     *
     * @param at   the position: the file's identity, the decompressed offset its objects end at, when, the path
     * @param size the file's decompressed size: the file is all in the bucket when {@code at.offset() == size}
     */
    record GzipPosition(Checkpoint at, long size) {
        /** Whether objects hold all of the file. */
        boolean complete() {
            return at.offset() >= size;
        }
    }

    private final long compactMin;
    private final Path file;
    private final Path temp;
    /** The journal's path in messages: its directory as configured, not the descriptor's path it is reached by. */
    private final Path shownFile;
    private final Path dir;
    private final ShipLog log;
    private final Map<List<Long>, Checkpoint> positions = new LinkedHashMap<>();
    private final Map<Long, Intent> open = new LinkedHashMap<>();
    /** The gzip files' positions (decompressed offsets): kept apart, the pipeline's positions are the files' own. */
    private final Map<List<Long>, GzipPosition> gzipPositions = new LinkedHashMap<>();
    private long nextSeq = 1;
    private FileChannel out;
    private long snapshotSize;
    private long size;

    /**
     * Opens (creating it when missing) the journal {@code name} in {@code dir}, replays and compacts it.
     *
     * @throws IOException when it cannot be read or written (a symbolic link at its name is refused)
     */
    S3Journal(Path dir, String name, ShipLog log) throws IOException {
        this(dir, dir, name, log, COMPACT_MIN);
    }

    /**
     * As above, in the state directory the shipper opened: its files are reached through the directory's descriptor,
     * so a directory renamed or swapped for a symbolic link after the start is not followed.
     */
    S3Journal(StateDir dir, String name, ShipLog log) throws IOException {
        this(dir, name, log, COMPACT_MIN);
    }

    /** As above with the compaction bound given: for tests. */
    S3Journal(StateDir dir, String name, ShipLog log, long compactMin) throws IOException {
        this(dir.reach(), dir.path(), name, log, compactMin);
    }

    /** As above with the compaction bound given: for tests. */
    S3Journal(Path dir, String name, ShipLog log, long compactMin) throws IOException {
        this(dir, dir, name, log, compactMin);
    }

    /** {@code reach}: the path the directory is reached by; {@code shown}: its name in messages. */
    private S3Journal(Path reach, Path shown, String name, ShipLog log, long compactMin) throws IOException {
        this.compactMin = compactMin;
        this.dir = reach;
        this.file = reach.resolve(name);
        this.temp = reach.resolve(name + ".tmp");
        this.shownFile = shown.resolve(name);
        this.log = log;
        if (Files.isSymbolicLink(temp)) throw new IOException("refusing a symbolic link: path=" + shown(temp));
        Files.deleteIfExists(temp);
        replay(read());
        compact();
    }

    /** Replays without writing ({@code dryRun} only tells this constructor from the others): for {@code --dry-run}. */
    private S3Journal(Path dir, String name, ShipLog log, boolean dryRun) throws IOException {
        this.compactMin = COMPACT_MIN;
        this.dir = dir;
        this.file = dir.resolve(name);
        this.temp = dir.resolve(name + ".tmp");
        this.shownFile = file;
        this.log = log;
        replay(read());
    }

    /** {@code p} (the journal or its temporary) as messages name it. */
    private Path shown(Path p) {
        return p.equals(file) ? shownFile : shownFile.resolveSibling(p.getFileName());
    }

    /**
     * The positions of the journal {@code name} in {@code dir}, read without changing anything (no compaction, no
     * lock): for {@code --dry-run}. Empty when there is no journal.
     */
    static List<Checkpoint> readPositions(Path dir, String name, ShipLog log) throws IOException {
        return new S3Journal(dir, name, log, true).positions();
    }

    private byte[] read() throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            long n = ch.size();
            if (n > Integer.MAX_VALUE - 16) {
                throw new IOException("journal too large: path=" + shownFile + " size=" + n);
            }
            ByteBuffer b = ByteBuffer.allocate((int) n);
            while (b.hasRemaining() && ch.read(b) >= 0) {
                // reads to the end
            }
            return b.array();
        } catch (NoSuchFileException e) {
            return new byte[0];
        } catch (IOException e) {
            if (Files.isSymbolicLink(file)) throw new IOException("refusing a symbolic link: path=" + shownFile, e);
            throw e;
        }
    }

    private void replay(byte[] bytes) {
        int bad = 0;
        int start = 0;
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] != '\n') continue;
            if (!apply(bytes, start, i)) bad++;
            start = i + 1;
        }
        if (start < bytes.length) bad++; // the torn last line of a crash: its object was never relied on
        if (bad > 0) {
            log.warn("s3-journal-lines-skipped", "path", shownFile, "lines", bad,
                    "why", "bad checksum or a torn last line (a crash during a write)",
                    "consequence", "none: a line is relied on only after it was synced whole");
        }
    }

    /** Applies the line {@code bytes[from, to)}; false when it is damaged. */
    private boolean apply(byte[] bytes, int from, int to) {
        try {
            String line = new String(bytes, from, to - from, StandardCharsets.US_ASCII);
            int sp = line.indexOf(' ');
            if (sp != 8) return false;
            String body = line.substring(9);
            if (Integer.parseUnsignedInt(line.substring(0, 8), 16) != crc(body)) return false;
            String[] f = body.split(" ");
            switch (f[0]) {
                case "I" -> {
                    // Fields 11 and 12 (multipart, obsolete key) are absent from lines written before they existed;
                    // field 13 (a gzip source's decompressed size) is there only for a gzip file's object.
                    Intent in = new Intent(Long.parseLong(f[1]), str(f[9]), Long.parseLong(f[2]), Long.parseLong(f[3]),
                            Integer.parseInt(f[4]), Long.parseLong(f[5]), str(f[10]), Long.parseLong(f[6]),
                            Long.parseLong(f[7]), Long.parseLong(f[8]), f.length > 11 && f[11].equals("m"),
                            f.length > 12 && !f[12].equals("-") ? str(f[12]) : null,
                            f.length > 13 ? Long.parseLong(f[13]) : -1);
                    open.put(in.seq(), in);
                    nextSeq = Math.max(nextSeq, in.seq() + 1);
                }
                case "D" -> {
                    Intent in = open.remove(Long.parseLong(f[1]));
                    if (in != null) position(in, Long.parseLong(f[2]));
                }
                case "X" -> open.remove(Long.parseLong(f[1]));
                case "R" -> {
                    long seq = Long.parseLong(f[1]);
                    Intent in = open.get(seq);
                    if (in != null) open.put(seq, in.replanned(Long.parseLong(f[2]), str(f[3])));
                }
                case "P" -> {
                    Checkpoint c = new Checkpoint(Long.parseLong(f[1]), Long.parseLong(f[2]), Integer.parseInt(f[3]),
                            Long.parseLong(f[4]), Long.parseLong(f[5]), Long.parseLong(f[6]), str(f[7]));
                    positions.put(List.of(c.device(), c.inode()), c);
                }
                case "G" -> {
                    Checkpoint c = new Checkpoint(Long.parseLong(f[1]), Long.parseLong(f[2]), Integer.parseInt(f[3]),
                            Long.parseLong(f[4]), Long.parseLong(f[5]), Long.parseLong(f[6]), str(f[7]));
                    gzipPositions.put(List.of(c.device(), c.inode()), new GzipPosition(c, Long.parseLong(f[8])));
                }
                case "N" -> nextSeq = Math.max(nextSeq, Long.parseLong(f[1]));
                default -> {
                    return false;
                }
            }
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    private void position(Intent in, long millis) {
        if (in.gzip()) {
            gzipPositions.put(List.of(in.device(), in.inode()), new GzipPosition(new Checkpoint(in.device(),
                    in.inode(), in.fpLen(), in.fpHash(), in.end(), millis, in.path()), in.gzipSize()));
            return;
        }
        positions.put(List.of(in.device(), in.inode()), new Checkpoint(in.device(), in.inode(), in.fpLen(),
                in.fpHash(), in.end(), millis, in.path()));
    }

    /** The next object number (each call takes one). */
    synchronized long takeSeq() {
        return nextSeq++;
    }

    /** The intents without done, oldest first. */
    synchronized List<Intent> openIntents() {
        return new ArrayList<>(open.values());
    }

    /** Where every source content's objects end: the positions the pipeline resumes from. */
    synchronized List<Checkpoint> positions() {
        return new ArrayList<>(positions.values());
    }

    /**
     * Where the objects of the gzip file {@code (device, inode)} with that fingerprint end, in its decompressed bytes;
     * 0 when none of it is done.
     */
    synchronized long gzipPosition(long device, long inode, int fpLen, long fpHash) {
        GzipPosition p = gzipPositions.get(List.of(device, inode));
        return p != null && p.at().fpLength() == fpLen && p.at().fpHash() == fpHash ? p.at().offset() : 0;
    }

    /** The gzip files' positions. */
    synchronized List<GzipPosition> gzipPositions() {
        return new ArrayList<>(gzipPositions.values());
    }

    /**
     * Records durably that nothing more of the gzip file {@code (device, inode)} will be stored (it is gone): its
     * position is complete from now on, so that it is reported once.
     */
    synchronized void gzipGone(long device, long inode) throws IOException {
        GzipPosition p = gzipPositions.get(List.of(device, inode));
        if (p == null || p.complete()) return;
        GzipPosition done = new GzipPosition(p.at(), p.at().offset());
        append(gzipLine(done));
        gzipPositions.put(List.of(device, inode), done);
    }

    private static String gzipLine(GzipPosition p) {
        Checkpoint c = p.at();
        return "G " + c.device() + " " + c.inode() + " " + c.fpLength() + " " + c.fpHash() + " " + c.offset() + " "
                + c.seenAt() + " " + hex(c.path()) + " " + p.size();
    }

    /** Records {@code in} durably, before its upload (again after a crash: nothing new is written then). */
    synchronized void intent(Intent in) throws IOException {
        intents(List.of(in));
    }

    /**
     * Records {@code ins} durably, in order, with one fdatasync. Those already open as they are are not written again;
     * an open one given with another end (a redone object whose last record no longer ends where it did: {@link
     * S3Sink}) is written again, and its new end is the one a replay keeps.
     */
    synchronized void intents(List<Intent> ins) throws IOException {
        List<String> bodies = new ArrayList<>(ins.size());
        for (Intent in : ins) {
            if (!in.equals(open.get(in.seq()))) bodies.add(body(in));
        }
        if (bodies.isEmpty()) return;
        append(bodies);
        for (Intent in : ins) open.put(in.seq(), in);
    }

    /**
     * Records durably, before the multipart object {@code seq} is completed short of its planned end, that it ends at
     * {@code end} under {@code key}: it is completed under its planned key, copied to {@code key} and the planned key
     * deleted, and after a crash anywhere in that the next start finishes it or uploads the range again under
     * {@code key}.
     */
    synchronized void replan(long seq, long end, String key) throws IOException {
        Intent in = open.get(seq);
        if (in == null || !in.multipart()) throw new IllegalStateException("not an open multipart intent: " + seq);
        append("R " + seq + " " + end + " " + hex(key));
        open.put(seq, in.replanned(end, key));
    }

    private static String body(Intent in) {
        return "I " + in.seq() + " " + in.device() + " " + in.inode() + " " + in.fpLen() + " " + in.fpHash() + " "
                + in.start() + " " + in.end() + " " + in.millis() + " " + hex(in.key()) + " " + hex(in.path()) + " "
                + (in.multipart() ? "m" : "s") + " " + (in.obsolete() == null ? "-" : hex(in.obsolete()))
                + (in.gzip() ? " " + in.gzipSize() : "");
    }

    /** Records that object {@code seq} is in the bucket, durably; its end becomes its source's position. */
    synchronized void done(long seq, long millis) throws IOException {
        done(List.of(seq), millis);
    }

    /** Records that the objects {@code seqs} are in the bucket, in order, with one fdatasync. */
    synchronized void done(List<Long> seqs, long millis) throws IOException {
        List<String> bodies = new ArrayList<>(seqs.size());
        for (long seq : seqs) bodies.add("D " + seq + " " + millis);
        append(bodies);
        for (long seq : seqs) {
            Intent in = open.remove(seq);
            if (in != null) position(in, millis);
        }
        if (size - snapshotSize > Math.max(compactMin, snapshotSize)) compact();
    }

    /** Drops intent {@code seq}: its source content will not be sent again (truncated, replaced or gone). */
    synchronized void abandon(long seq) throws IOException {
        append("X " + seq);
        open.remove(seq);
    }

    private void append(String body) throws IOException {
        append(List.of(body));
    }

    /** Appends the lines of {@code bodies} in one write, then one fdatasync. */
    private void append(List<String> bodies) throws IOException {
        java.io.ByteArrayOutputStream lines = new java.io.ByteArrayOutputStream();
        for (String body : bodies) lines.writeBytes(line(body));
        ByteBuffer b = ByteBuffer.wrap(lines.toByteArray());
        int n = b.remaining();
        while (b.hasRemaining()) out.write(b);
        out.force(false);
        size += n;
    }

    /** Rewrites the journal as one snapshot: positions, open intents, the next number. */
    private void compact() throws IOException {
        long now = System.currentTimeMillis();
        positions.values().removeIf(c -> now - c.seenAt() > FORGET_MILLIS);
        open.values().removeIf(in -> now - in.millis() > FORGET_MILLIS);
        gzipPositions.values().removeIf(p -> now - p.at().seenAt() > FORGET_MILLIS);
        StringBuilder b = new StringBuilder();
        for (Checkpoint c : positions.values()) {
            b.append(new String(line("P " + c.device() + " " + c.inode() + " " + c.fpLength() + " " + c.fpHash() + " "
                    + c.offset() + " " + c.seenAt() + " " + hex(c.path())), StandardCharsets.US_ASCII));
        }
        for (GzipPosition p : gzipPositions.values()) {
            b.append(new String(line(gzipLine(p)), StandardCharsets.US_ASCII));
        }
        for (Intent in : open.values()) {
            b.append(new String(line(body(in)), StandardCharsets.US_ASCII));
        }
        b.append(new String(line("N " + nextSeq), StandardCharsets.US_ASCII));
        byte[] snap = b.toString().getBytes(StandardCharsets.US_ASCII);
        OpenOption[] create = {StandardOpenOption.WRITE, StandardOpenOption.CREATE_NEW, LinkOption.NOFOLLOW_LINKS};
        try (FileChannel t = FileChannel.open(temp, Set.of(create), PRIVATE)) {
            ByteBuffer bb = ByteBuffer.wrap(snap);
            while (bb.hasRemaining()) t.write(bb);
            t.force(false);
        } catch (FileAlreadyExistsException e) {
            throw new IOException("journal temporary exists (another writer, or a link): path=" + shown(temp), e);
        }
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        }
        if (out != null) out.close();
        out = FileChannel.open(file, Set.of(StandardOpenOption.WRITE, StandardOpenOption.APPEND,
                LinkOption.NOFOLLOW_LINKS), PRIVATE);
        snapshotSize = snap.length;
        size = snap.length;
    }

    private static byte[] line(String body) {
        return (HEX.toHexDigits(crc(body)) + " " + body + "\n").getBytes(StandardCharsets.US_ASCII);
    }

    private static int crc(String body) {
        CRC32C c = new CRC32C();
        c.update(body.getBytes(StandardCharsets.US_ASCII));
        return (int) c.getValue();
    }

    private static String hex(String s) {
        byte[] b = io.jfio.core.sys.FileNames.encode(s);
        return b.length == 0 ? "-" : HEX.formatHex(b);
    }

    private static String str(String hex) {
        return hex.equals("-") ? "" : io.jfio.core.sys.FileNames.decode(HEX.parseHex(hex));
    }

    /** The journal file, as messages name it. */
    Path file() {
        return shownFile;
    }

    @Override
    public synchronized void close() throws IOException {
        if (out != null) out.close();
    }
}
