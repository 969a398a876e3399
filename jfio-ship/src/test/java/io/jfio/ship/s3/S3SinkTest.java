package io.jfio.ship.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.ship.Shipper;
import io.jfio.ship.StartException;
import io.jfio.ship.log.ShipLog;
import io.jfio.ship.pipeline.Pipeline;
import io.jfio.ship.testing.MinioServer;
import io.jfio.ship.testing.S3Objects;
import io.jfio.ship.testing.ShipRun;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The s3 sink against a real MinIO server on 127.0.0.1: every codec stores every source byte in exactly one object,
 * byte for byte; keys, Content-Encoding and the journal are as documented; wrong credentials and a missing bucket
 * are one clear error at start, and nothing is lost by them.
 */
class S3SinkTest {
    private static final String BUCKET = "ship";

    @RegisterExtension
    static final MinioServer SERVER = new MinioServer(BUCKET);
    @TempDir
    Path tmp;

    /** Lines of varied length: {@code n} of them, from a seeded random source. */
    static byte[] lines(long seed, int n) {
        SplittableRandom r = new SplittableRandom(seed);
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            b.append("line ").append(i).append(' ').append("abcdefghij".repeat(r.nextInt(30))).append(r.nextLong())
                    .append('\n');
        }
        return b.toString().getBytes(StandardCharsets.US_ASCII);
    }

    private Map<String, String> settings(String prefix, Map<String, String> more) {
        Map<String, String> m = new HashMap<>(SERVER.minio().settings());
        m.put("to", "s3://" + BUCKET + "/" + prefix);
        m.putAll(more);
        return m;
    }

    @ParameterizedTest
    @ValueSource(strings = {"none", "gzip", "zstd"})
    void shouldStoreEverySourceByteInExactlyOneObjectWithEachCodec(String codec) throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Map<String, byte[]> sources = new LinkedHashMap<>();
        // One file over the object size (several objects), one small, one empty.
        sources.put("big.log", lines(1, 60_000));
        sources.put("small.log", lines(2, 10));
        sources.put("empty.log", new byte[0]);
        for (var e : sources.entrySet()) Files.write(logs.resolve(e.getKey()), e.getValue());
        String prefix = "codec-" + codec;
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        var cfg = ShipRun.config(List.of(logs.resolve("*.log").toString()), null, tmp.resolve("state"),
                settings(prefix, Map.of("s3.compression", codec, "s3.object-size", "1MiB")));
        assertTrue(ShipRun.once(cfg, log), log.toString(StandardCharsets.UTF_8));

        List<S3Objects.Piece> pieces = S3Objects.pieces(SERVER.minio().objects(BUCKET, prefix + "/"));
        S3Objects.Tally t = S3Objects.tally(pieces, sources);
        assertEquals(0, t.lost(), t.toString());
        assertEquals(0, t.duplicated(), t.toString());
        assertTrue(t.objects() >= 3, "big.log spans several objects: " + t);
        String ext = codec.equals("gzip") ? ".gz" : codec.equals("zstd") ? ".zst" : "";
        for (S3Objects.Piece p : pieces) assertTrue(p.key().endsWith(".log" + ext), p.key());

        // The journal: private, and it says where every source ends.
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(
                journal(tmp.resolve("state")))));
        // A second run ships nothing again: the positions come from the journal.
        ByteArrayOutputStream log2 = new ByteArrayOutputStream();
        assertTrue(ShipRun.once(cfg, log2), log2.toString(StandardCharsets.UTF_8));
        assertEquals(t.objects(), SERVER.minio().objects(BUCKET, prefix + "/").size(),
                log2.toString(StandardCharsets.UTF_8));
        // --dry-run reads the journal (changing nothing): without checkpoints, files resume where their objects end.
        Files.delete(tmp.resolve("state").resolve("checkpoints-main.bin"));
        Files.write(logs.resolve("big.log"), lines(5, 10), java.nio.file.StandardOpenOption.APPEND);
        List<String> dry = Shipper.dryRun(cfg, quiet());
        assertTrue(dry.stream().anyMatch(l -> l.contains("/big.log ") && l.contains(" from="
                + sources.get("big.log").length + " ") && l.contains("why=resumed")), String.join("\n", dry));
    }

    /**
     * A crash after an upload reached the bucket and before its done was recorded, then, while the shipper is stopped,
     * copytruncate: the file holds a new content, its copy the old one. The object is in the bucket, so the next start
     * takes it as done (it asks the bucket) and the copy resumes after it: its range is not uploaded again, whichever
     * of the two files is read first.
     */
    @Test
    void shouldTakeAnInterruptedObjectThatReachedTheBucketAsDoneSoThatACopyDoesNotUploadItAgain() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path app = logs.resolve("app.log");
        byte[] old = lines(11, 20_000); // several objects: earlier ones done, the last one interrupted
        Files.write(app, old);
        String prefix = "interrupted";
        Path state = tmp.resolve("state");
        var cfg = ShipRun.config(List.of(logs.resolve("app.log*").toString()), null, state,
                settings(prefix, Map.of("s3.object-size", "1MiB")));
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        assertTrue(ShipRun.once(cfg, log), log.toString(StandardCharsets.UTF_8));
        int objects = SERVER.minio().objects(BUCKET, prefix + "/").size();
        assertTrue(objects >= 2, "shipped: " + objects);
        // The crash: the last object's done never reached the journal, nor the checkpoint.
        undone(journal(state), -1);
        Files.delete(state.resolve("checkpoints-main.bin"));
        // copytruncate while stopped: the copy holds the old content, the file a new one.
        Files.write(logs.resolve("app.log.1"), old);
        byte[] fresh = lines(12, 10);
        Files.write(app, fresh);

        ByteArrayOutputStream log2 = new ByteArrayOutputStream();
        assertTrue(ShipRun.once(cfg, log2), log2.toString(StandardCharsets.UTF_8));
        String second = log2.toString(StandardCharsets.UTF_8);
        assertTrue(second.contains("event=s3-upload-found"), second);
        assertEquals(old.length, oldBytesStored(prefix, old),
                "the old content's bytes are in the bucket exactly once: " + second);
    }

    /**
     * A crash before an object's upload, then copytruncate while stopped: the next run's copy takes the interrupted
     * object over (same key, same range) and uploads it, and a crash comes after that upload and before its done,
     * while the copy's own checkpoint still says the object's start. The start after that finds the object in the
     * bucket: its done must place the copy (its inode, not the original's, which holds another content now), or the
     * copy resumes at its checkpoint and stores the range a second time under another key.
     */
    @Test
    void shouldPlaceAnObjectACopyTookOverOnTheCopySoThatItsRangeIsNotStoredAgain() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path app = logs.resolve("app.log");
        byte[] old = lines(13, 20_000);
        Files.write(app, old);
        String prefix = "copy-took-over";
        Path state = tmp.resolve("state");
        var cfg = ShipRun.config(List.of(logs.resolve("app.log*").toString()), null, state,
                settings(prefix, Map.of("s3.object-size", "1MiB")));
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        assertTrue(ShipRun.once(cfg, log), log.toString(StandardCharsets.UTF_8));
        // The first crash: the last object's intent without done, the object not in the bucket, no checkpoint.
        Path journal = journal(state);
        String[] intent = undone(journal, -1);
        long seq = Long.parseLong(intent[1]);
        String key = new String(java.util.HexFormat.of().parseHex(intent[9]), StandardCharsets.UTF_8);
        try (var c = SERVER.minio().client()) {
            c.deleteObject(r -> r.bucket(BUCKET).key(key));
        }
        Files.delete(state.resolve("checkpoints-main.bin"));
        // copytruncate while stopped, and nothing written since: the file is empty, so nothing of its new content
        // comes first and abandons the interrupted object as another content's.
        Files.write(logs.resolve("app.log.1"), old);
        Files.write(app, new byte[0]);
        // The copy takes the object over and uploads it.
        ByteArrayOutputStream log2 = new ByteArrayOutputStream();
        assertTrue(ShipRun.once(cfg, log2), log2.toString(StandardCharsets.UTF_8));
        String second = log2.toString(StandardCharsets.UTF_8);
        assertTrue(!second.contains("s3-redo-abandoned"), second);
        assertEquals(old.length, oldBytesStored(prefix, old), second);
        // The second crash: after that upload, before its done; the copy's checkpoint at the object's start.
        undone(journal, seq);
        Path copy = logs.resolve("app.log.1");
        new io.jfio.ship.state.CheckpointStore(state.resolve("checkpoints-main.bin")).write(List.of(
                new io.jfio.ship.state.Checkpoint((Long) Files.getAttribute(copy, "unix:dev"),
                        (Long) Files.getAttribute(copy, "unix:ino"), Integer.parseInt(intent[4]),
                        Long.parseLong(intent[5]), Long.parseLong(intent[6]), System.currentTimeMillis(),
                        copy.toString())));
        ByteArrayOutputStream log3 = new ByteArrayOutputStream();
        assertTrue(ShipRun.once(cfg, log3), log3.toString(StandardCharsets.UTF_8));
        String third = log3.toString(StandardCharsets.UTF_8);
        assertTrue(third.contains("event=s3-upload-found"), third);
        assertEquals(old.length, oldBytesStored(prefix, old), "the old content's bytes, each in one object: " + third);
    }

    /** The s3 journal in {@code state}. */
    private static Path journal(Path state) throws java.io.IOException {
        try (var files = Files.list(state)) {
            return files.filter(f -> f.getFileName().toString().startsWith("s3-journal-")).findFirst().orElseThrow();
        }
    }

    /**
     * Removes the done record of object {@code seq} (-1: the last done record) from the journal, as a crash before
     * it was written would have left it; returns the fields of that object's last intent record.
     */
    private static String[] undone(Path journal, long seq) throws java.io.IOException {
        List<String> lines = new java.util.ArrayList<>(Files.readAllLines(journal, StandardCharsets.US_ASCII));
        int at = -1;
        for (int i = 0; i < lines.size(); i++) {
            String[] f = lines.get(i).substring(9).split(" ");
            if (f[0].equals("D") && (seq < 0 || Long.parseLong(f[1]) == seq)) at = i;
        }
        assertTrue(at >= 0, "no done record of " + seq + ": " + lines);
        long done = Long.parseLong(lines.get(at).substring(9).split(" ")[1]);
        lines.remove(at);
        Files.write(journal, lines, StandardCharsets.US_ASCII);
        String[] intent = null;
        for (String l : lines) {
            String[] f = l.substring(9).split(" ");
            if (f[0].equals("I") && Long.parseLong(f[1]) == done) intent = f;
        }
        assertTrue(intent != null, "no intent of " + done);
        return intent;
    }

    /** How many bytes of {@code old} the bucket holds under {@code prefix}, in pieces that match it where they say. */
    private static long oldBytesStored(String prefix, byte[] old) {
        return S3Objects.pieces(SERVER.minio().objects(BUCKET, prefix + "/")).stream()
                .filter(p -> p.end() <= old.length && java.util.Arrays.equals(p.bytes(),
                        java.util.Arrays.copyOfRange(old, (int) p.start(), (int) p.end())))
                .mapToLong(p -> p.end() - p.start()).sum();
    }

    /**
     * A prefix with characters that keys must carry percent-encoded (space, '+', '%', a non-ASCII letter): the
     * signature covers the encoded path, so one wrongly encoded character is a refused request.
     */
    @Test
    void shouldStoreObjectsUnderAPrefixThatNeedsEncoding() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Map<String, byte[]> sources = Map.of("a.log", lines(3, 500));
        Files.write(logs.resolve("a.log"), sources.get("a.log"));
        String prefix = "odd prefix+100%/\u00e9t\u00e9 ~(1)";
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        var cfg = ShipRun.config(List.of(logs.resolve("*.log").toString()), null, tmp.resolve("state"),
                settings(prefix, Map.of("s3.compression", "none")));
        assertTrue(ShipRun.once(cfg, log), log.toString(StandardCharsets.UTF_8));
        List<S3Objects.Piece> pieces = S3Objects.pieces(SERVER.minio().objects(BUCKET, prefix + "/"));
        assertEquals(new S3Objects.Tally(1, sources.get("a.log").length, 0, 0), S3Objects.tally(pieces, sources));
        assertTrue(pieces.get(0).key().startsWith(prefix + "/"), pieces.get(0).key());
    }

    @Test
    void shouldRefuseToStartWithWrongCredentialsAndLoseNothing() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        byte[] data = lines(3, 1000);
        Files.write(logs.resolve("app.log"), data);
        Map<String, String> bad = settings("creds", Map.of("s3.secret-key", "not-the-secret"));
        var cfg = ShipRun.config(List.of(logs.resolve("*.log").toString()), null, tmp.resolve("state"), bad);
        StartException e = assertThrows(StartException.class, () -> Shipper.open(cfg, Pipeline.Mode.ONCE,
                quiet()));
        assertEquals(StartException.Kind.ENVIRONMENT, e.kind(), e.getMessage());
        assertTrue(e.getMessage().contains("status=403") && e.getMessage().contains("bucket=" + BUCKET)
                && e.getMessage().contains("wrong credentials"), e.getMessage());
        assertTrue(!e.getMessage().contains("\n"), "one line: " + e.getMessage());
        // With the right ones, everything arrives.
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        assertTrue(ShipRun.once(ShipRun.config(List.of(logs.resolve("*.log").toString()), null,
                tmp.resolve("state"), settings("creds", Map.of())), log), log.toString(StandardCharsets.UTF_8));
        S3Objects.Tally t = S3Objects.tally(S3Objects.pieces(SERVER.minio().objects(BUCKET, "creds/")),
                Map.of("app.log", data));
        assertEquals(new S3Objects.Tally(t.objects(), data.length, 0, 0), t);
    }

    @Test
    void shouldRefuseToStartWhenTheBucketIsMissing() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Files.write(logs.resolve("app.log"), lines(4, 10));
        Map<String, String> m = new HashMap<>(SERVER.minio().settings());
        m.put("to", "s3://no-such-bucket/x");
        var cfg = ShipRun.config(List.of(logs.resolve("*.log").toString()), null, tmp.resolve("state"), m);
        StartException e = assertThrows(StartException.class, () -> Shipper.open(cfg, Pipeline.Mode.ONCE,
                quiet()));
        assertEquals(StartException.Kind.ENVIRONMENT, e.kind(), e.getMessage());
        assertTrue(e.getMessage().contains("status=404") && e.getMessage().contains("no such bucket")
                && e.getMessage().contains("bucket=no-such-bucket"), e.getMessage());
    }

    private static ShipLog quiet() {
        return new ShipLog(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), false);
    }
}
