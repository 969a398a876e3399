package io.jfio.ship.s3;

import io.jfio.core.file.StatBuffer;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import io.jfio.ship.harvest.Fingerprint;
import io.jfio.ship.log.ShipLog;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Not thread-safe; used once, at the sink's start, before the pipeline reads anything.
 *
 * <p>Finds the gzip files whose decompressed bytes are not all in the bucket (open intents after a crash, or a
 * position short of the file's decompressed size) and that are gone: no file of their device and inode is in the
 * directory they were read in (logrotate renames a rotated file within its directory, {@code app.log.1.gz} to
 * {@code app.log.2.gz}, so the name itself is not looked for). Their missing bytes can never be read again: each
 * such file is reported once ({@code level=error event=s3-redo-source-gone}, {@code
 * jfio_ship_errors_total{kind="s3"}}), its intents are abandoned and its position is recorded complete, so that
 * nothing waits for it and the next start does not report it again. A plain file is not looked for: a plain log
 * deleted while the shipper was stopped loses its unshipped end whatever the sink.
 */
final class GoneGzipFiles {
    /** One gzip file the journal has not seen all of. */
    private static final class Source {
        final long device;
        final long inode;
        final int fpLen;
        final long fpHash;
        final String path;
        final long size;
        long from = Long.MAX_VALUE;
        final List<S3Journal.Intent> intents = new ArrayList<>();

        Source(long device, long inode, int fpLen, long fpHash, String path, long size) {
            this.device = device;
            this.inode = inode;
            this.fpLen = fpLen;
            this.fpHash = fpHash;
            this.path = path;
            this.size = size;
        }
    }

    private GoneGzipFiles() {
    }

    /**
     * Reports and settles the gone gzip files of {@code journal}.
     *
     * @return how many were gone
     * @throws IOException when the journal cannot be written
     */
    static int settle(S3Journal journal, String sink, ShipLog log, S3Metrics metrics) throws IOException {
        Map<List<Long>, Source> incomplete = new LinkedHashMap<>();
        for (S3Journal.GzipPosition p : journal.gzipPositions()) {
            if (p.complete()) continue;
            Source s = incomplete.computeIfAbsent(List.of(p.at().device(), p.at().inode()),
                    k -> new Source(p.at().device(), p.at().inode(), p.at().fpLength(), p.at().fpHash(), p.at().path(),
                            p.size()));
            s.from = Math.min(s.from, p.at().offset());
        }
        for (S3Journal.Intent in : journal.openIntents()) {
            if (!in.gzip()) continue;
            Source s = incomplete.computeIfAbsent(List.of(in.device(), in.inode()),
                    k -> new Source(in.device(), in.inode(), in.fpLen(), in.fpHash(), in.path(), in.gzipSize()));
            s.from = Math.min(s.from, in.start());
            s.intents.add(in);
        }
        if (incomplete.isEmpty()) return 0;
        int gone = 0;
        try (Arena arena = Arena.ofConfined()) {
            StatBuffer stx = new StatBuffer(arena);
            for (Source s : incomplete.values()) {
                if (present(s, stx)) continue;
                gone++;
                log.error("s3-redo-source-gone", "sink", sink, "path", s.path, "range", s.from + "-" + s.size,
                        "objects", s.intents.size(), "why", "the gzip file was deleted before all of its "
                                + "decompressed bytes were stored",
                        "consequence", "its decompressed bytes " + s.from + "-" + s.size + " are not in the bucket");
                metrics.error("s3");
                for (S3Journal.Intent in : s.intents) journal.abandon(in.seq());
                journal.gzipGone(s.device, s.inode);
            }
        }
        return gone;
    }

    /**
     * Whether a file of {@code s}'s device, inode and fingerprint (a new file may have the inode of one deleted) is
     * in the directory it was read in; true too when the directory
     * cannot be read for another reason than its absence (nothing is given up on a guess).
     */
    private static boolean present(Source s, StatBuffer stx) {
        Path dir;
        try {
            dir = Path.of(s.path).getParent();
        } catch (RuntimeException e) {
            return true;
        }
        if (dir == null) return true;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path e : entries) {
                if (stx.ofPathNoFollow(e.toString()) == 0 && stx.isRegularFile() && stx.device() == s.device
                        && stx.inode() == s.inode && sameHead(e, s, stx)) {
                    return true;
                }
            }
            return false;
        } catch (NoSuchFileException e) {
            return false;
        } catch (IOException | RuntimeException e) {
            return true;
        }
    }

    /**
     * Whether {@code file} is still {@code s}'s file: opened without following a link and without blocking (a FIFO
     * put in its place), its device and inode checked on the descriptor, its first bytes hashed to {@code s}'s
     * fingerprint. True when it cannot be read for another reason than a mismatch (nothing is given up on a guess).
     */
    private static boolean sameHead(Path file, Source s, StatBuffer stx) {
        int fd = LibC.openat(Fcntl.AT_FDCWD, file.toString(), Fcntl.O_RDONLY | Fcntl.O_CLOEXEC | Fcntl.O_NONBLOCK
                | Fcntl.O_NOFOLLOW, 0);
        if (fd < 0) return true;
        try (Arena arena = Arena.ofConfined()) {
            if (stx.ofFd(fd) != 0) return true;
            if (!stx.isRegularFile() || stx.device() != s.device || stx.inode() != s.inode) return false;
            long h = Fingerprint.of(fd, s.fpLen, arena.allocate(Math.max(s.fpLen, Fingerprint.SIZE)));
            return h != Long.MIN_VALUE && h == s.fpHash;
        } finally {
            LibC.close(fd);
        }
    }
}
