package io.jfio.ship.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jfio.core.testing.TestSeed;
import io.jfio.ship.testing.Minio;
import io.jfio.ship.testing.S3Objects;
import io.jfio.ship.testing.ShipMain;
import io.jfio.ship.testing.ShipRun;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rotated gzip files ({@code read-gz}) into a real MinIO bucket, exactly once: an object of a gzip file holds a range
 * of its decompressed bytes, named by that range, so every decompressed byte is in exactly one object, through
 * SIGKILLs while gzip files are being shipped too; a gzip file of a log shipped before holds only the rest; a damaged
 * one ships nothing and is done; one deleted before its interrupted objects were redone is reported once, by name
 * and range.
 */
class S3GzipTest {
    private static final String BUCKET = "ship";
    private static final int KILLS = 12;

    @TempDir
    Path tmp;

    static byte[] gzip(byte[] data) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (GZIPOutputStream z = new GZIPOutputStream(b)) {
            z.write(data);
        }
        return b.toByteArray();
    }

    /** Numbered lines of varied length and content (so they compress like a log, not to nothing). */
    static byte[] lines(String name, SplittableRandom r, long bytes) {
        StringBuilder b = new StringBuilder();
        long n = 0;
        while (b.length() < bytes) {
            b.append(name).append(" n=").append(n++).append(" v=").append(r.nextLong()).append(' ');
            int k = r.nextInt(40);
            for (int i = 0; i < k; i++) b.append((char) ('a' + r.nextInt(26)));
            b.append('\n');
        }
        return b.toString().getBytes(StandardCharsets.US_ASCII);
    }

    /** Writes {@code name} complete at once (as logrotate's compression ends with a complete file). */
    static void put(Path dir, String name, byte[] bytes) throws IOException {
        Path t = dir.resolve("." + name + ".tmp");
        Files.write(t, bytes);
        Files.move(t, dir.resolve(name), StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * A shipper process from {@code logs/app.log*} with {@code read-gz} into {@code s3://ship/PREFIX}: objects of 1 MiB
     * cut at 500 ms, gzip; its output appended to {@code err}.
     */
    private Process shipper(Minio minio, Path logs, Path state, Path err, String prefix) throws IOException {
        return shipper(minio, logs, state, err, prefix, Map.of());
    }

    /** As above, with more settings. */
    private Process shipper(Minio minio, Path logs, Path state, Path err, String prefix, Map<String, String> more)
            throws IOException {
        Map<String, String> s = new LinkedHashMap<>(settings(minio, prefix, "gzip"));
        s.put("s3.object-age", "500ms");
        s.putAll(more);
        s.remove("buffer-size");
        List<String> args = new ArrayList<>(List.of(logs.resolve("app.log*").toString(),
                tmp.resolve("unused").toString(), state.toString(), "8MiB", "256KiB", "64KiB", "run"));
        s.forEach((k, v) -> args.add(k + "=" + v));
        return ShipRun.java(ShipMain.class, List.of("-Xmx96m", "-XX:TieredStopAtLevel=1"), args.toArray(String[]::new))
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(err.toFile())).start();
    }

    private Map<String, String> settings(Minio minio, String prefix, String codec) {
        Map<String, String> s = new HashMap<>(minio.settings());
        s.put("to", "s3://" + BUCKET + "/" + prefix);
        s.put("s3.object-size", "1MiB");
        s.put("s3.compression", codec);
        s.put("read-gz", "true");
        s.put("buffer-size", "256KiB");
        // Less than the larger files: a gzip file is shipped in one harvest, which waits for room as it goes.
        s.put("max-in-flight", "3MiB");
        return s;
    }

    private boolean once(Minio minio, Path logs, Path state, String prefix, String codec, Map<String, String> more,
                         ByteArrayOutputStream log) throws Exception {
        Map<String, String> s = settings(minio, prefix, codec);
        s.putAll(more);
        return ShipRun.once(ShipRun.config(List.of(logs.resolve("app.log*").toString()), null, state, s), log);
    }

    @Test
    void shouldStoreEveryDecompressedByteOfGzipFilesInExactlyOneObjectWithEveryCodec() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        SplittableRandom r = new SplittableRandom(5);
        Map<String, byte[]> sources = new LinkedHashMap<>();
        sources.put("app.log", lines("live", r, 300_000));
        sources.put("app.log.1.gz", lines("one", r, 3_500_000));
        sources.put("app.log.2.gz", lines("two", r, 700_000));
        // Two gzip members in one file (what `cat a.gz b.gz` makes): one decompressed content.
        byte[] first = lines("three-a", r, 900_000);
        byte[] second = lines("three-b", r, 1_300_000);
        byte[] both = new byte[first.length + second.length];
        System.arraycopy(first, 0, both, 0, first.length);
        System.arraycopy(second, 0, both, first.length, second.length);
        sources.put("app.log.3.gz", both);
        Files.write(logs.resolve("app.log"), sources.get("app.log"));
        Files.write(logs.resolve("app.log.1.gz"), gzip(sources.get("app.log.1.gz")));
        Files.write(logs.resolve("app.log.2.gz"), gzip(sources.get("app.log.2.gz")));
        byte[] z1 = gzip(first);
        byte[] z2 = gzip(second);
        byte[] z = Arrays.copyOf(z1, z1.length + z2.length);
        System.arraycopy(z2, 0, z, z1.length, z2.length);
        Files.write(logs.resolve("app.log.3.gz"), z);
        try (Minio minio = Minio.start(tmp.resolve("server"), BUCKET)) {
            for (String codec : List.of("none", "gzip", "zstd")) {
                Path state = tmp.resolve("state-" + codec);
                ByteArrayOutputStream log = new ByteArrayOutputStream();
                assertTrue(once(minio, logs, state, codec, codec, Map.of(), log), log.toString());
                List<Minio.Stored> stored = minio.objects(BUCKET, codec + "/");
                S3Objects.Tally t = S3Objects.tally(S3Objects.pieces(stored), sources);
                System.out.println("S3GzipTest " + codec + ": " + t);
                assertEquals(0, t.lost(), t.toString());
                assertEquals(0, t.duplicated(), t.toString());
                assertTrue(t.objects() >= 5, "the larger gzip files in several objects: " + t);
                // Byte for byte: each file's objects in key order, decompressed and concatenated, are its content.
                for (Map.Entry<String, byte[]> e : sources.entrySet()) {
                    ByteArrayOutputStream all = new ByteArrayOutputStream();
                    S3Objects.pieces(stored).stream().filter(p -> p.file().equals(e.getKey()))
                            .sorted(java.util.Comparator.comparing(S3Objects.Piece::key))
                            .forEach(p -> all.writeBytes(p.bytes()));
                    assertTrue(Arrays.equals(e.getValue(), all.toByteArray()), e.getKey() + " with " + codec);
                }
                // Done is done: a second run stores nothing more.
                ByteArrayOutputStream again = new ByteArrayOutputStream();
                assertTrue(once(minio, logs, state, codec, codec, Map.of(), again), again.toString());
                assertEquals(stored.size(), minio.objects(BUCKET, codec + "/").size(), again.toString());
            }
        }
    }

    @Test
    void shouldHoldEveryDecompressedByteInExactlyOneObjectThroughKillsWhileGzipFilesAreShipped() throws Exception {
        TestSeed seed = TestSeed.pick();
        System.out.println("S3GzipTest " + seed);
        seed.run(ts -> kills(ts.random()));
    }

    private void kills(SplittableRandom rnd) throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path state = tmp.resolve("state");
        Path err = tmp.resolve("ship.err");
        Map<String, byte[]> sources = new LinkedHashMap<>();
        int steered = 0;
        try (Minio minio = Minio.start(tmp.resolve("server"), BUCKET)) {
            for (int k = 0; k < KILLS; k++) {
                // A new rotated, compressed log before each start: the shipper finds gzip files to ship every time.
                String name = "app.log." + (k + 1) + ".gz";
                byte[] plain = lines("g" + k, rnd, 1_500_000 + rnd.nextInt(2_500_000));
                sources.put(name, plain);
                put(logs, name, gzip(plain));
                Process p = shipper(minio, logs, state, err, "kill");
                try {
                    if (k % 3 == 2) {
                        // Into a gzip file's upload after part of it is stored (some of its objects done, one not):
                        // the next start continues the file where its stored objects end.
                        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                        while (p.isAlive() && System.nanoTime() < deadline && !gzipPartlyStored(state)) {
                            Thread.sleep(1);
                        }
                        if (gzipPartlyStored(state)) steered++;
                    } else {
                        // A gzip file is read once it has been quiet for a second: from then on it is being shipped.
                        Thread.sleep(1000 + rnd.nextInt(2500));
                    }
                    if (!p.isAlive()) fail("shipper " + k + " died by itself: " + ShipRun.tail(err, 40));
                } finally {
                    p.destroyForcibly(); // SIGKILL
                    p.waitFor();
                }
            }
            Map<String, String> s = settings(minio, "kill", "gzip");
            ByteArrayOutputStream log = new ByteArrayOutputStream();
            assertTrue(ShipRun.once(ShipRun.config(List.of(logs.resolve("app.log*").toString()), null, state, s), log),
                    log.toString(StandardCharsets.UTF_8));
            String all = Files.readString(err) + log.toString(StandardCharsets.UTF_8);
            assertFalse(all.contains("Exception in thread"), ShipRun.tail(err, 40));
            assertFalse(all.contains("s3-redo-abandoned") || all.contains("s3-redo-source-gone"), all);
            S3Objects.Tally t = S3Objects.tally(S3Objects.pieces(minio.objects(BUCKET, "kill/")), sources);
            System.out.println("S3GzipTest: " + KILLS + " kills (" + steered
                    + " during a gzip file's upload, part of it stored), " + t + ", objects redone "
                    + S3CrashTest.count(all, "s3-redo ") + " times, gzip files continued "
                    + S3CrashTest.count(all, "event=gzip-continued"));
            assertTrue(steered >= KILLS / 6, "kills during a gzip file's upload, part of it stored: " + steered);
            assertTrue(S3CrashTest.count(all, "event=gzip-continued") > 0, "a gzip file continued after a kill");
            assertEquals(0, t.lost(), t.toString());
            assertEquals(0, t.duplicated(), t.toString());
        }
    }

    /**
     * Records of gzip files into s3 through kill -9: ndjson of multiline records (Java stack traces), and raw lines
     * through a filter. Every record in exactly one object, inside its object's decompressed range, with its offset in
     * the decompressed bytes.
     */
    @Test
    void shouldHoldEveryRecordOfGzipFilesInExactlyOneObjectThroughKillsWithNdjsonAndFilters() throws Exception {
        TestSeed seed = TestSeed.pick();
        System.out.println("S3GzipTest records " + seed);
        seed.run(ts -> {
            SplittableRandom rnd = ts.random();
            try (Minio minio = Minio.start(tmp.resolve("server-" + ts.value()), BUCKET)) {
                Map<String, byte[]> ndjson = recordKills(minio, rnd, "ndjson", Map.of("encoding", "ndjson",
                        "multiline.preset", "java"), true);
                Map<String, TreeMap<Long, String>> want = new HashMap<>();
                int records = 0;
                for (var e : ndjson.entrySet()) {
                    List<String> recs = javaRecords.get(e.getKey());
                    long[] at = io.jfio.ship.testing.JavaLog.boundaries(recs);
                    TreeMap<Long, String> m = new TreeMap<>();
                    for (int i = 0; i < recs.size(); i++) {
                        m.put(at[i], recs.get(i).substring(0, recs.get(i).length() - 1));
                    }
                    want.put(e.getKey(), m);
                    records += recs.size();
                }
                List<S3RecordsTest.Found> found = S3RecordsTest.records(minio, "rec-ndjson");
                S3RecordsTest.assertExactlyOnce(found, want);
                System.out.println("S3GzipTest ndjson: " + records + " multiline records of " + ndjson.size()
                        + " gzip files in " + found.stream().map(S3RecordsTest.Found::key).distinct().count()
                        + " objects, each once");
                Pattern exclude = Pattern.compile(" v=-");
                Map<String, byte[]> raw = recordKills(minio, rnd, "filtered", Map.of("exclude-lines",
                        exclude.pattern()), false);
                List<Minio.Stored> objects = minio.objects(BUCKET, "rec-filtered/");
                S3RecordsTest.assertFilteredTiles(objects, raw, exclude);
                System.out.println("S3GzipTest filtered: " + raw.size() + " gzip files in " + objects.size()
                        + " objects, every kept line once");
            }
        });
    }

    private final Map<String, List<String>> javaRecords = new HashMap<>();

    /** Gzip files shipped through kills with {@code more}, then a last run; the decompressed sources by name. */
    private Map<String, byte[]> recordKills(Minio minio, SplittableRandom rnd, String name, Map<String, String> more,
                                            boolean java) throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs-" + name));
        Path state = tmp.resolve("state-" + name);
        Path err = tmp.resolve("ship-" + name + ".err");
        Map<String, byte[]> sources = new LinkedHashMap<>();
        int kills = 5;
        for (int k = 0; k < kills; k++) {
            String file = "app.log." + (k + 1) + ".gz";
            byte[] plain;
            if (java) {
                List<String> recs = io.jfio.ship.testing.JavaLog.records(rnd.nextLong(), 6000 + rnd.nextInt(6000),
                        20, 40);
                javaRecords.put(file, recs);
                plain = io.jfio.ship.testing.JavaLog.bytes(recs);
            } else {
                plain = lines("f" + k, rnd, 1_500_000 + rnd.nextInt(1_500_000));
            }
            sources.put(file, plain);
            put(logs, file, gzip(plain));
            Process p = shipper(minio, logs, state, err, "rec-" + name, more);
            try {
                if (k % 2 == 1) {
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                    while (p.isAlive() && System.nanoTime() < deadline && !gzipIntentLast(state)) Thread.sleep(1);
                } else {
                    Thread.sleep(1000 + rnd.nextInt(2500));
                }
                if (!p.isAlive()) fail("shipper " + k + " died by itself: " + ShipRun.tail(err, 40));
            } finally {
                p.destroyForcibly();
                p.waitFor();
            }
        }
        Map<String, String> s = settings(minio, "rec-" + name, "gzip");
        s.putAll(more);
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        assertTrue(ShipRun.once(ShipRun.config(List.of(logs.resolve("app.log*").toString()), null, state, s), log),
                log.toString(StandardCharsets.UTF_8));
        String all = Files.readString(err) + log.toString(StandardCharsets.UTF_8);
        assertFalse(all.contains("Exception in thread"), ShipRun.tail(err, 40));
        return sources;
    }

    /** Whether the journal's last complete line is the intent of a gzip file's object (it has the 14th field). */
    static boolean gzipIntentLast(Path state) throws IOException {
        String l = S3CrashTest.lastLine(state);
        return l.length() > 10 && l.charAt(9) == 'I' && l.split(" ").length == 15;
    }

    /**
     * Whether the journal shows a gzip file partly stored: an object of it done (or its position in a snapshot) and
     * another of it still being uploaded (an intent without done).
     */
    static boolean gzipPartlyStored(Path state) throws IOException {
        List<String> lines = journalLines(state);
        Map<String, List<Long>> open = new HashMap<>(); // seq -> dev, ino of a gzip file's intent
        java.util.Set<List<Long>> stored = new java.util.HashSet<>();
        for (String l : lines) {
            String[] f = l.split(" ");
            if (f.length < 3) continue;
            switch (f[1]) {
                case "I" -> {
                    if (f.length == 15) {
                        open.put(f[2], List.of(Long.parseLong(f[3]), Long.parseLong(f[4])));
                    }
                }
                case "D" -> {
                    List<Long> file = open.remove(f[2]);
                    if (file != null) stored.add(file);
                }
                case "X" -> open.remove(f[2]);
                case "G" -> {
                    if (f.length >= 7 && Long.parseLong(f[6]) > 0) {
                        stored.add(List.of(Long.parseLong(f[2]), Long.parseLong(f[3])));
                    }
                }
                default -> { }
            }
        }
        return open.values().stream().anyMatch(stored::contains);
    }

    /** The journal's complete lines (none before it exists). */
    private static List<String> journalLines(Path state) throws IOException {
        if (!Files.isDirectory(state)) return List.of();
        try (var files = Files.list(state)) {
            Path j = files.filter(f -> f.getFileName().toString().startsWith("s3-journal-")
                    && f.getFileName().toString().endsWith(".log")).findFirst().orElse(null);
            if (j == null) return List.of();
            String all;
            try {
                all = Files.readString(j, StandardCharsets.US_ASCII);
            } catch (java.nio.file.NoSuchFileException e) {
                return List.of(); // renamed over by a compaction just now
            }
            int end = all.lastIndexOf('\n');
            return end < 0 ? List.of() : List.of(all.substring(0, end).split("\n"));
        }
    }

    /** How many intents of a gzip file's objects the journal holds. */
    static int gzipIntents(Path state) throws IOException {
        int n = 0;
        for (String l : journalLines(state)) {
            if (l.length() > 10 && l.charAt(9) == 'I' && l.split(" ").length == 15) n++;
        }
        return n;
    }

    @Test
    void shouldStoreOnlyTheRestOfALogShippedBeforeWhenItComesBackCompressed() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path state = tmp.resolve("state");
        SplittableRandom r = new SplittableRandom(9);
        byte[] before = lines("before", r, 1_800_000);
        byte[] after = lines("after", r, 1_200_000);
        byte[] fresh = lines("fresh", r, 50_000);
        try (Minio minio = Minio.start(tmp.resolve("server"), BUCKET)) {
            Files.write(logs.resolve("app.log"), before);
            ByteArrayOutputStream log1 = new ByteArrayOutputStream();
            assertTrue(once(minio, logs, state, "resume", "gzip", Map.of(), log1), log1.toString());
            int firstRun = minio.objects(BUCKET, "resume/").size();
            // Stopped; the log grows, is rotated and compressed (logrotate's compress), and a new log begins.
            Files.write(logs.resolve("app.log"), after, java.nio.file.StandardOpenOption.APPEND);
            byte[] rotated = Files.readAllBytes(logs.resolve("app.log"));
            put(logs, "app.log.1.gz", gzip(rotated));
            Files.delete(logs.resolve("app.log"));
            Files.write(logs.resolve("app.log"), fresh);
            ByteArrayOutputStream log2 = new ByteArrayOutputStream();
            assertTrue(once(minio, logs, state, "resume", "gzip", Map.of(), log2), log2.toString());
            assertTrue(log2.toString().contains("event=gzip-resumed") && log2.toString().contains("offset="
                    + before.length), log2.toString());
            // The rotated content is in the first run's objects of app.log, then in app.log.1.gz's: each byte once.
            List<S3Objects.Piece> pieces = S3Objects.pieces(minio.objects(BUCKET, "resume/"));
            List<S3Objects.Piece> named = new ArrayList<>();
            for (S3Objects.Piece p : pieces) {
                long seq = Long.parseLong(p.key().replaceAll(".*\\.(\\d{16})\\.log\\.gz$", "$1"));
                boolean old = p.file().equals("app.log.1.gz") || seq <= firstRun;
                named.add(new S3Objects.Piece(p.key(), old ? "rotated" : "fresh", p.start(), p.end(), p.bytes()));
            }
            S3Objects.Tally t = S3Objects.tally(named, Map.of("rotated", rotated, "fresh", fresh));
            System.out.println("S3GzipTest resumed: " + t);
            assertEquals(0, t.lost(), t.toString());
            assertEquals(0, t.duplicated(), t.toString());
            assertTrue(pieces.stream().anyMatch(p -> p.file().equals("app.log.1.gz") && p.start() == before.length),
                    "the gzip file's first object starts where the log's shipping had got");
        }
    }

    /**
     * logrotate with compress while the shipper runs: the log's last bytes are still in an object that waits for its
     * age when the compressed copy appears. The copy waits until they are stored, then holds nothing new: every byte
     * of the log in exactly one object, none of them under the gzip file's name.
     */
    @Test
    void shouldNotStoreALogAgainWhenItIsCompressedWhileItsLastBytesAreStillBeingStored() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        SplittableRandom r = new SplittableRandom(13);
        byte[] first = lines("first", r, 2_500_000);
        byte[] second = lines("second", r, 20_000);
        try (Minio minio = Minio.start(tmp.resolve("server"), BUCKET)) {
            Map<String, String> s = settings(minio, "live", "gzip");
            s.put("s3.object-age", "4s");
            Files.write(logs.resolve("app.log"), first);
            try (ShipRun run = ShipRun.start(ShipRun.config(List.of(logs.resolve("app.log*").toString()), null,
                    tmp.resolve("state"), s))) {
                Thread.sleep(1000); // read, its last object still filling
                Files.move(logs.resolve("app.log"), logs.resolve("app.log.1"));
                Files.write(logs.resolve("app.log"), second);
                put(logs, "app.log.1.gz", gzip(Files.readAllBytes(logs.resolve("app.log.1"))));
                Files.delete(logs.resolve("app.log.1"));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                long want = first.length + second.length;
                while (System.nanoTime() < deadline && stored(minio, "live/") < want) Thread.sleep(100);
                Thread.sleep(2500); // past the gzip file's quiet second and its wait: it has been looked at
                List<S3Objects.Piece> pieces = S3Objects.pieces(minio.objects(BUCKET, "live/"));
                assertFalse(pieces.stream().anyMatch(p -> p.file().equals("app.log.1.gz")), run.log());
                List<S3Objects.Piece> named = new ArrayList<>();
                for (S3Objects.Piece p : pieces) {
                    // Both logs were app.log: an object's first line says which (lines are never split here).
                    String which = new String(p.bytes(), 0, 6, StandardCharsets.US_ASCII).equals("second") ? "second"
                            : "first";
                    named.add(new S3Objects.Piece(p.key(), which, p.start(), p.end(), p.bytes()));
                }
                S3Objects.Tally t = S3Objects.tally(named, Map.of("first", first, "second", second));
                System.out.println("S3GzipTest compressed while running: " + t);
                assertEquals(0, t.lost(), t + "\n" + run.log());
                assertEquals(0, t.duplicated(), t + "\n" + run.log());
                assertTrue(run.log().contains("event=gzip-resumed"), run.log());
            }
        }
    }

    private static long stored(Minio minio, String prefix) {
        return S3Objects.pieces(minio.objects(BUCKET, prefix)).stream().mapToLong(p -> p.end() - p.start()).sum();
    }

    @Test
    void shouldStoreNothingOfADamagedGzipFileAndMarkItDone() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path state = tmp.resolve("state");
        SplittableRandom r = new SplittableRandom(3);
        byte[] good = lines("good", r, 1_500_000);
        byte[] z2 = gzip(lines("two", r, 1_500_000));
        byte[] z3 = gzip(lines("three", r, 1_500_000));
        for (int i = z3.length / 3; i < z3.length / 3 + 64; i++) z3[i] ^= 0x5a;
        try (Minio minio = Minio.start(tmp.resolve("server"), BUCKET)) {
            Files.write(logs.resolve("app.log.1.gz"), gzip(good));
            Files.write(logs.resolve("app.log.2.gz"), Arrays.copyOf(z2, z2.length / 2)); // truncated
            Files.write(logs.resolve("app.log.3.gz"), z3); // corrupt in the middle
            ByteArrayOutputStream log = new ByteArrayOutputStream();
            assertFalse(once(minio, logs, state, "damaged", "zstd", Map.of(), log), "a damaged file: exit 1");
            String text = log.toString(StandardCharsets.UTF_8);
            assertTrue(text.contains("event=gzip-damaged") && text.contains("app.log.2.gz")
                    && text.contains("truncated"), text);
            assertTrue(text.contains("app.log.3.gz") && text.contains("corrupt"), text);
            List<S3Objects.Piece> pieces = S3Objects.pieces(minio.objects(BUCKET, "damaged/"));
            S3Objects.Tally t = S3Objects.tally(pieces, Map.of("app.log.1.gz", good));
            assertEquals(0, t.lost(), t.toString());
            assertEquals(0, t.duplicated(), t.toString());
            ByteArrayOutputStream again = new ByteArrayOutputStream();
            assertTrue(once(minio, logs, state, "damaged", "zstd", Map.of(), again), again.toString());
            assertFalse(again.toString().contains("gzip-damaged"), again.toString());
            assertEquals(pieces.size(), minio.objects(BUCKET, "damaged/").size());
        }
    }

    @Test
    void shouldReportAGzipFileDeletedBeforeItsInterruptedObjectsWereRedoneOnce() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path state = tmp.resolve("state");
        Path err = tmp.resolve("ship.err");
        SplittableRandom r = new SplittableRandom(21);
        byte[] plain = lines("gone", r, 12_000_000);
        try (Minio minio = Minio.start(tmp.resolve("server"), BUCKET)) {
            put(logs, "app.log.1.gz", gzip(plain));
            String intent = "";
            for (int attempt = 0; attempt < 5 && intent.isEmpty(); attempt++) {
                Process p = shipper(minio, logs, state, err, "gone");
                try {
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                    // Past its first objects: some of it is in the bucket, the rest is not.
                    while (p.isAlive() && System.nanoTime() < deadline
                            && !(gzipIntentLast(state) && gzipIntents(state) >= 3)) {
                        Thread.sleep(1);
                    }
                } finally {
                    p.destroyForcibly();
                    p.waitFor();
                }
                if (gzipIntentLast(state) && gzipIntents(state) >= 3) intent = S3CrashTest.lastLine(state);
            }
            assertFalse(intent.isEmpty(), "killed during a gzip file's upload: " + ShipRun.tail(err, 40));
            Files.delete(logs.resolve("app.log.1.gz"));
            Files.write(logs.resolve("app.log"), lines("live", r, 1000));
            Map<String, String> s = settings(minio, "gone", "gzip");
            ByteArrayOutputStream log = new ByteArrayOutputStream();
            io.jfio.ship.Shipper shipper = io.jfio.ship.Shipper.open(ShipRun.config(List.of(logs.resolve("app.log*")
                    .toString()), null, state, s), io.jfio.ship.pipeline.Pipeline.Mode.ONCE,
                    new io.jfio.ship.log.ShipLog(new java.io.PrintStream(log, true, StandardCharsets.UTF_8), true));
            assertFalse(shipper.run(), "work that failed: exit 1");
            String metrics = shipper.metrics().render();
            assertTrue(metrics.contains("jfio_ship_errors_total{sink=\"main\",kind=\"s3\"} 1"), metrics);
            String text = log.toString(StandardCharsets.UTF_8);
            assertTrue(text.contains("level=error") && text.contains("event=s3-redo-source-gone")
                    && text.contains("app.log.1.gz") && text.contains("-" + plain.length), text);
            // What is in the bucket is a prefix of the file's decompressed bytes, each byte once; the rest is what
            // the error line said is missing.
            List<S3Objects.Piece> pieces = S3Objects.pieces(minio.objects(BUCKET, "gone/")).stream()
                    .filter(p -> p.file().equals("app.log.1.gz")).toList();
            S3Objects.Tally t = S3Objects.tally(pieces, Map.of("app.log.1.gz", plain));
            assertEquals(0, t.duplicated(), t.toString());
            long stored = pieces.stream().mapToLong(S3Objects.Piece::end).max().orElse(0);
            assertEquals(plain.length - stored, t.lost(), t.toString());
            assertTrue(stored > 0, "objects of it were stored before the kill: " + t);
            assertTrue(text.contains("range=" + stored + "-" + plain.length), "the range reported: " + text);
            System.out.println("S3GzipTest gone: " + t + ", reported range " + stored + "-" + plain.length);
            // Reported once: the next start neither reports it again nor waits for it.
            ByteArrayOutputStream again = new ByteArrayOutputStream();
            assertTrue(ShipRun.once(ShipRun.config(List.of(logs.resolve("app.log*").toString()), null, state,
                    settings(minio, "gone", "gzip")), again), again.toString());
            assertFalse(again.toString().contains("s3-redo-source-gone"), again.toString());
            assertFalse(again.toString().contains("event=s3-redo "), again.toString());
        }
    }
}
