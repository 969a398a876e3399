package io.jfio.cli.shipbench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * Follows the dir sink's segment files for the latency runs: every millisecond it reads what was appended to the
 * current segment since the last look (by position, through its descriptor) and feeds the lines to a
 * {@link Latencies}; when the current segment has nothing new it lists the directory for the next one.
 *
 * <p>A line counts as delivered when it is readable in the segment, that is after the shipper's write and before its
 * fsync. Polling adds up to 1 ms (0.5 ms on average) to every latency measured here. Not thread-safe: one thread,
 * started by the constructor, stopped by {@link #close}.
 */
final class SegmentTail implements AutoCloseable {
    private final Path dir;
    private final Latencies latencies;
    private final long origin;
    private final Thread thread;
    private volatile boolean stop;
    private volatile IOException failure;

    SegmentTail(Path dir, Latencies latencies, long origin) {
        this.dir = dir;
        this.latencies = latencies;
        this.origin = origin;
        this.thread = Thread.ofPlatform().daemon().name("jfio-bench-ship-tail").start(this::run);
    }

    private void run() {
        Latencies.Parser parser = latencies.new Parser();
        ByteBuffer buf = ByteBuffer.allocate(1 << 20);
        String current = null;
        FileChannel ch = null;
        long pos = 0;
        try {
            while (!stop) {
                int n = 0;
                if (ch != null) {
                    buf.clear();
                    n = ch.read(buf, pos);
                    if (n > 0) {
                        pos += n;
                        parser.feed(buf.array(), 0, n, System.nanoTime() - origin);
                    }
                }
                if (n <= 0) {
                    List<Path> segs = Verify.segments(dir);
                    for (Path p : segs) {
                        String name = p.getFileName().toString();
                        if (current == null || name.compareTo(current) > 0) {
                            // The sink finished the current segment before it made this one: read what reached it
                            // since the last look, then move on.
                            if (ch != null) {
                                while (true) {
                                    buf.clear();
                                    int m = ch.read(buf, pos);
                                    if (m <= 0) break;
                                    pos += m;
                                    parser.feed(buf.array(), 0, m, System.nanoTime() - origin);
                                }
                                ch.close();
                            }
                            ch = FileChannel.open(p, StandardOpenOption.READ);
                            current = name;
                            pos = 0;
                            break;
                        }
                    }
                    Thread.sleep(1);
                }
            }
        } catch (IOException e) {
            failure = e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (ch != null) {
                try {
                    ch.close();
                } catch (IOException ignored) {
                    // read-only
                }
            }
        }
    }

    @Override
    public void close() throws IOException {
        stop = true;
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (failure != null) throw failure;
    }
}
