package io.jfio.bench.suite.experiments;

import java.io.BufferedReader;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.locks.LockSupport;

/**
 * The writer of the {@code watch} experiment, in a process of its own so that its CPU time is not counted as the
 * watcher's. It reads commands on stdin, one per line:
 * <pre>
 * run DIR FILES INTERVAL_NS DURATION_NS OUT   append 8 bytes (the time) to DIR/f0, f1, ... in turn, one write per
 *                                              interval, for the duration; then write the (file, time) records to OUT
 *                                              and answer "done N"
 * quit
 * </pre>
 * Times are {@link System#nanoTime()}, CLOCK_MONOTONIC, the same clock in every process of the machine, so the
 * parent can compare them with the times its watcher saw the events. Each time is taken right before the write.
 *
 * <p>Not thread-safe; a main program.
 */
public final class WatchWriter {
    private WatchWriter() {
    }

    public static void main(String[] args) throws IOException {
        PrintStream out = System.out;
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        out.println("ready");
        out.flush();
        String line;
        while ((line = in.readLine()) != null) {
            String[] f = line.trim().split(" ");
            if (f[0].equals("quit")) return;
            if (!f[0].equals("run") || f.length != 6) throw new IllegalArgumentException("bad command: " + line);
            int n = run(Path.of(f[1]), Integer.parseInt(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4]),
                    Path.of(f[5]));
            out.println("done " + n);
            out.flush();
        }
    }

    private static int run(Path dir, int files, long intervalNanos, long durationNanos, Path outFile)
            throws IOException {
        FileChannel[] ch = new FileChannel[files];
        int max = (int) Math.min(Integer.MAX_VALUE / 2, durationNanos / intervalNanos + 1);
        int[] index = new int[max];
        long[] time = new long[max];
        int count = 0;
        ByteBuffer buf = ByteBuffer.allocateDirect(8);
        try {
            for (int i = 0; i < files; i++) {
                ch[i] = FileChannel.open(dir.resolve("f" + i), StandardOpenOption.WRITE, StandardOpenOption.APPEND);
            }
            long start = System.nanoTime();
            for (int k = 0; k < max; k++) {
                long target = start + k * intervalNanos;
                long now;
                while ((now = System.nanoTime()) - target < 0) LockSupport.parkNanos(target - now);
                if (now - start > durationNanos) break;
                int i = k % files;
                long stamp = System.nanoTime();
                buf.clear().putLong(stamp).flip();
                while (buf.hasRemaining()) ch[i].write(buf);
                index[count] = i;
                time[count] = stamp;
                count++;
            }
        } finally {
            for (FileChannel c : ch) {
                if (c != null) c.close();
            }
        }
        try (OutputStream os = Files.newOutputStream(outFile);
                DataOutputStream data = new DataOutputStream(new java.io.BufferedOutputStream(os))) {
            data.writeInt(count);
            for (int k = 0; k < count; k++) {
                data.writeInt(index[k]);
                data.writeLong(time[k]);
            }
        }
        return count;
    }
}
