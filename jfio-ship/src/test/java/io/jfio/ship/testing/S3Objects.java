package io.jfio.ship.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.luben.zstd.ZstdInputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;

/**
 * Checks what an s3 sink put into a bucket: objects decoded by their Content-Encoding, their keys parsed (the
 * default template's {@code FILE.START-END.SEQ.log[.gz|.zst]}), and each source's ranges compared with the source:
 * every byte in exactly one object.
 *
 * <p>Not thread-safe.
 */
public final class S3Objects {
    private static final Pattern KEY = Pattern.compile(
            ".*/(?<file>[^/]+)\\.(?<start>\\d{16})-(?<end>\\d{16})\\.(?<seq>\\d{16})\\.log(?<ext>\\.gz|\\.zst)?");

    private S3Objects() {
    }

    /**
     * One object, decoded.
     *
     * @param key   its key
     * @param file  the source's name in the key
     * @param start the first source offset
     * @param end   the offset past its last byte
     * @param bytes its source bytes
     */
    public record Piece(String key, String file, long start, long end, byte[] bytes) {
    }

    /**
     * What the check found.
     *
     * @param objects    objects in the bucket
     * @param bytes      source bytes expected
     * @param lost       bytes of the sources in no object
     * @param duplicated bytes in more than one object
     */
    public record Tally(int objects, long bytes, long lost, long duplicated) {
        @Override
        public String toString() {
            return "objects=" + objects + " bytes=" + bytes + " lost=" + lost + " duplicated=" + duplicated;
        }
    }

    /** The objects' decoded bytes with their keys parsed; checks that each key's range matches its bytes. */
    public static List<Piece> pieces(List<Minio.Stored> objects) {
        List<Piece> out = new ArrayList<>();
        for (Minio.Stored o : objects) {
            Matcher m = KEY.matcher(o.key());
            assertTrue(m.matches(), "key not of the template: " + o.key());
            String ext = m.group("ext") == null ? "" : m.group("ext");
            String want = ext.equals(".gz") ? "gzip" : ext.equals(".zst") ? "zstd" : null;
            assertEquals(want, o.encoding(), "Content-Encoding of " + o.key());
            byte[] b = decode(o.encoding(), o.bytes());
            long start = Long.parseLong(m.group("start"));
            long end = Long.parseLong(m.group("end"));
            assertEquals(end - start, b.length, "bytes of " + o.key());
            out.add(new Piece(o.key(), m.group("file"), start, end, b));
        }
        return out;
    }

    /** Decodes an object's bytes by its Content-Encoding. */
    public static byte[] decode(String encoding, byte[] bytes) {
        try (InputStream in = encoding == null ? new ByteArrayInputStream(bytes)
                : encoding.equals("gzip") ? new GZIPInputStream(new ByteArrayInputStream(bytes))
                : new ZstdInputStream(new ByteArrayInputStream(bytes))) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Compares the pieces with the sources (by file name): counts the source bytes in no piece and in more than one,
     * and fails on any byte that differs.
     */
    public static Tally tally(List<Piece> pieces, Map<String, byte[]> sources) {
        long lost = 0;
        long dup = 0;
        long bytes = 0;
        Map<String, List<Piece>> byFile = new LinkedHashMap<>();
        for (Piece p : pieces) byFile.computeIfAbsent(p.file(), k -> new ArrayList<>()).add(p);
        for (String f : byFile.keySet()) assertTrue(sources.containsKey(f), "object of no source: " + f);
        for (Map.Entry<String, byte[]> s : sources.entrySet()) {
            byte[] src = s.getValue();
            bytes += src.length;
            int[] cover = new int[src.length];
            for (Piece p : byFile.getOrDefault(s.getKey(), List.of())) {
                assertTrue(p.end() <= src.length, p.key() + " past the source's end " + src.length);
                for (long i = p.start(); i < p.end(); i++) {
                    if (p.bytes()[(int) (i - p.start())] != src[(int) i]) {
                        throw new AssertionError(p.key() + " differs from " + s.getKey() + " at offset " + i);
                    }
                    cover[(int) i]++;
                }
            }
            for (int c : cover) {
                if (c == 0) lost++;
                if (c > 1) dup += c - 1;
            }
        }
        return new Tally(pieces.size(), bytes, lost, dup);
    }

    /** Every piece's bytes, the pieces ordered by file, start offset and number: for {@link Records#parse}. */
    public static String text(List<Piece> pieces) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        pieces.stream().sorted(Comparator.comparing(Piece::key)).forEach(p -> b.writeBytes(p.bytes()));
        return b.toString(StandardCharsets.US_ASCII);
    }

    /**
     * Mirrors the bucket into {@code dir} as one dir-sink segment (decoded objects concatenated), replaced atomically:
     * what lets the {@link Writer} wait for records to reach the sink before it rotates.
     */
    public static void mirror(Minio minio, String bucket, String prefix, Path dir) throws IOException {
        byte[] all = text(pieces(minio.objects(bucket, prefix))).getBytes(StandardCharsets.US_ASCII);
        Files.createDirectories(dir);
        Path tmp = dir.resolve("mirror.tmp");
        Files.write(tmp, all);
        Files.move(tmp, dir.resolve(io.jfio.ship.sink.DirSink.segmentName(1)), StandardCopyOption.ATOMIC_MOVE,
                StandardCopyOption.REPLACE_EXISTING);
    }
}
