package io.jfio.bench.ship;

import io.jfio.core.watch.FileEvent;
import io.jfio.core.watch.FileWatcher;
import io.jfio.core.watch.FileWatchers;
import io.jfio.ship.sink.DirSink;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;

/**
 * Follows the dir sink's segment files for the latency runs: woken by inotify (the same watcher the shipper uses)
 * when a segment is written to or made, it reads what was appended to the current segment since the last look (by
 * position, through its descriptor) and feeds the lines to a {@link Latencies}; when the current segment has
 * nothing new it lists the directory for the next one.
 *
 * <p>A line counts as delivered when it is readable in the segment, that is after the shipper's write and before its
 * fsync. It waits for inotify rather than polling, because a polling interval adds up to itself to every latency
 * measured here and would make the dir sink look worse than TCP; where inotify cannot be used the watcher polls,
 * and a look every 50 ms catches anything it missed. Not thread-safe: one thread, started by
 * the constructor, stopped by {@link #close}.
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
        try (FileWatcher watcher = FileWatchers.open(Duration.ofMillis(1))) {
            // The shipper makes the directory when it starts: until then there is nothing to watch or read.
            while (!stop && !java.nio.file.Files.isDirectory(dir)) Thread.sleep(1);
            if (stop) return;
            watcher.watch(dir);
            boolean listDue = true;
            while (!stop) {
                int n = 0;
                if (ch != null) {
                    buf.clear();
                    n = ch.read(buf, pos);
                    if (n > 0) {
                        pos += n;
                        parser.feed(buf.array(), 0, n, System.nanoTime() - origin);
                        continue; // more may be there already
                    }
                }
                if (listDue || ch == null) {
                    listDue = false;
                    List<Path> segs = DirSink.segments(dir);
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
                            listDue = true; // a still newer one may be there too
                            break;
                        }
                    }
                    if (listDue) continue;
                }
                List<FileEvent> events = watcher.poll(Duration.ofMillis(50));
                if (events.isEmpty()) listDue = true; // nothing for 50 ms: look anyway (a missed event costs 50 ms)
                for (FileEvent e : events) {
                    if (e.kind() != FileEvent.Kind.MODIFY && e.kind() != FileEvent.Kind.CLOSE_WRITE) listDue = true;
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
