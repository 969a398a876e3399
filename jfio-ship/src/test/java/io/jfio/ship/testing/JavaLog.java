package io.jfio.ship.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Not thread-safe.
 *
 * <p>A Java application's log, generated from a seed: each record a line that begins with an ISO-8601 timestamp, and
 * some of them followed by an exception with its stack trace (the exception's class line, indented {@code at} frames,
 * {@code Caused by:} and {@code ... N more}), as logback writes it. Both the {@code java} and the {@code iso8601}
 * multiline presets cut it into the same records.
 *
 * <p>As a process, {@code java JavaLog FILE SEED COUNT PERCENT PAUSE_EVERY} appends the records line by line, one
 * write per line, pausing 1 ms after every PAUSE_EVERY lines, so that a reader often finds a record half written.
 */
public final class JavaLog {
    private JavaLog() {
    }

    /** {@code count} records; {@code percent} of them carry a stack trace, up to {@code maxFrames} frames. */
    public static List<String> records(long seed, int count, int percent, int maxFrames) {
        SplittableRandom rnd = new SplittableRandom(seed);
        List<String> out = new ArrayList<>(count);
        for (int n = 0; n < count; n++) {
            StringBuilder b = new StringBuilder();
            b.append(String.format("2026-11-27T03:%02d:%02d.%03dZ %s [worker-%d] com.example.Service - request n=%d",
                    (n / 60000) % 60, (n / 1000) % 60, n % 1000, rnd.nextInt(5) == 0 ? "ERROR" : "INFO",
                    rnd.nextInt(8), n));
            b.append(" x".repeat(rnd.nextInt(40))).append('\n');
            if (rnd.nextInt(100) < percent) {
                b.append("java.lang.IllegalStateException: failed n=").append(n).append('\n');
                int frames = 1 + rnd.nextInt(maxFrames);
                for (int f = 0; f < frames; f++) {
                    b.append("\tat com.example.layer").append(f % 7).append(".Handler").append(f)
                            .append(".handle(Handler").append(f).append(".java:").append(10 + f).append(")\n");
                }
                if (rnd.nextBoolean()) {
                    b.append("Caused by: java.io.IOException: broken pipe\n");
                    b.append("\tat java.base/sun.nio.ch.IOUtil.write(IOUtil.java:62)\n");
                    b.append("\t... ").append(frames).append(" more\n");
                }
            }
            out.add(b.toString());
        }
        return out;
    }

    /** The offsets where records start, and the total length as the last element. */
    public static long[] boundaries(List<String> records) {
        long[] at = new long[records.size() + 1];
        long pos = 0;
        for (int i = 0; i < records.size(); i++) {
            at[i] = pos;
            pos += records.get(i).getBytes(StandardCharsets.UTF_8).length;
        }
        at[records.size()] = pos;
        return at;
    }

    /** All records as one file's bytes. */
    public static byte[] bytes(List<String> records) {
        return String.join("", records).getBytes(StandardCharsets.UTF_8);
    }

    /** Appends the records line by line (see the class comment). */
    public static void main(String[] args) throws IOException, InterruptedException {
        Path file = Path.of(args[0]);
        List<String> records = records(Long.parseLong(args[1]), Integer.parseInt(args[2]), Integer.parseInt(args[3]),
                30);
        int pauseEvery = Integer.parseInt(args[4]);
        int lines = 0;
        try (OutputStream out = Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
            for (String r : records) {
                int from = 0;
                while (from < r.length()) {
                    int nl = r.indexOf('\n', from);
                    out.write(r.substring(from, nl + 1).getBytes(StandardCharsets.UTF_8));
                    out.flush();
                    from = nl + 1;
                    if (++lines % pauseEvery == 0) Thread.sleep(1);
                }
            }
        }
        System.out.println("done lines=" + lines);
    }
}
