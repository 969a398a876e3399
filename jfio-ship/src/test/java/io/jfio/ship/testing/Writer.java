package io.jfio.ship.testing;

import io.jfio.ship.sink.DirSink;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * A writer process for the rotation and crash tests: appends numbered records {@code g=GEN n=SEQ pad\n} to a file
 * and rotates it every {@code every} records in one of the modes, like a logging application with logrotate.
 *
 * <p>{@code java Writer FILE MODE TOTAL EVERY SINK_DIR|- PAUSE_MICROS}; modes: {@code rename} (rename to FILE.K,
 * create anew), {@code copytruncate} (copy to FILE.K, truncate), {@code copytruncate-live} (the same, with records
 * written between the copy and the truncation, which the sink holds before the truncation), {@code truncate}
 * (truncate in place once the sink holds everything written), {@code delete} (delete with unread data, create
 * anew), {@code none}. With a sink dir, a rotation first waits until the sink holds the file's first record, so the
 * shipper has the file open.
 */
public final class Writer {
    /** Records {@code copytruncate-live} writes between the copy and the truncation. */
    private static final int LIVE = 50;
    /** How long {@code copytruncate-live} waits for the sink to hold those records before it truncates. */
    private static final long LIVE_WAIT_NANOS = 300_000_000L;

    private Writer() {
    }

    /** Runs the writer; exits 0 when every record was written. */
    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[0]);
        String mode = args[1];
        int total = Integer.parseInt(args[2]);
        int every = Integer.parseInt(args[3]);
        Path sink = args[4].equals("-") ? null : Path.of(args[4]);
        long pauseMicros = Long.parseLong(args[5]);
        int gen = 1;
        int rotations = 0;
        String firstOfGen = null;
        String last = null;
        FileOutputStream out = new FileOutputStream(file.toFile(), true);
        for (int n = 1; n <= total; n++) {
            String rec = "g=" + gen + " n=" + n + " " + "x".repeat(n % 50) + "\n";
            out.write(rec.getBytes(StandardCharsets.US_ASCII));
            if (firstOfGen == null) firstOfGen = rec;
            last = rec;
            if (pauseMicros > 0 && n % 10 == 0) Thread.sleep(pauseMicros / 1000, (int) (pauseMicros % 1000) * 1000);
            if (n % every == 0 && n < total && !mode.equals("none")) {
                if (sink != null) waitFor(sink, mode.equals("truncate") ? last : firstOfGen);
                rotations++;
                switch (mode) {
                    case "rename" -> {
                        out.close();
                        Files.move(file, file.resolveSibling(file.getFileName() + "." + rotations));
                        out = new FileOutputStream(file.toFile(), true);
                    }
                    case "copytruncate" -> {
                        Files.copy(file, file.resolveSibling(file.getFileName() + "." + rotations),
                                StandardCopyOption.REPLACE_EXISTING);
                        out.getChannel().truncate(0);
                    }
                    case "copytruncate-live" -> {
                        // The application writes on between the copy and the truncation, and the shipper reads
                        // that from the original: the copy ends before what was shipped of its content. The
                        // truncation comes soon after the copy, as logrotate's does: when the sink does not hold
                        // those lines by then, the copy gets them first (a cp that read on to the end), so that
                        // none is lost to copytruncate's own race.
                        Path copy = file.resolveSibling(file.getFileName() + "." + rotations);
                        Files.copy(file, copy, StandardCopyOption.REPLACE_EXISTING);
                        long copied = Files.size(copy);
                        int upTo = Math.min(total - 1, n + LIVE);
                        for (; n < upTo; ) {
                            n++;
                            last = "g=" + gen + " n=" + n + " " + "x".repeat(n % 50) + "\n";
                            out.write(last.getBytes(StandardCharsets.US_ASCII));
                        }
                        if (sink == null || !waitFor(sink, last, LIVE_WAIT_NANOS)) {
                            byte[] all = Files.readAllBytes(file);
                            Files.write(copy, java.util.Arrays.copyOfRange(all, (int) copied, all.length),
                                    java.nio.file.StandardOpenOption.APPEND);
                        }
                        out.getChannel().truncate(0);
                    }
                    case "truncate" -> out.getChannel().truncate(0);
                    case "delete" -> {
                        out.close();
                        Files.delete(file);
                        out = new FileOutputStream(file.toFile(), true);
                    }
                    default -> throw new IllegalArgumentException("mode " + mode);
                }
                gen++;
                firstOfGen = null;
            }
        }
        out.close();
    }

    private static void waitFor(Path sink, String record) throws IOException, InterruptedException {
        if (!waitFor(sink, record, 30_000_000_000L)) throw new IOException("the sink never got: " + record.trim());
    }

    private static boolean waitFor(Path sink, String record, long nanos) throws InterruptedException {
        long deadline = System.nanoTime() + nanos;
        byte[] want = record.getBytes(StandardCharsets.US_ASCII);
        while (System.nanoTime() < deadline) {
            if (contains(DirSink.readAll(sink), want)) return true;
            Thread.sleep(5);
        }
        return false;
    }

    private static boolean contains(byte[] hay, byte[] needle) {
        outer:
        for (int i = hay.length - needle.length; i >= 0; i--) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) continue outer;
            }
            return true;
        }
        return false;
    }
}
