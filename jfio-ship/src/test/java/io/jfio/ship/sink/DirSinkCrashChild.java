package io.jfio.ship.sink;

import io.jfio.ship.log.ShipLog;
import io.jfio.ship.state.Checkpoint;
import java.io.FileOutputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;

/**
 * Single-threaded but for the ack lines, which the sink's sync thread writes (one write(2) each, so a kill never
 * tears one).
 *
 * <p>The child JVM of {@link DirSinkCrashTest}: writes numbered batches of several fake sources through a {@link
 * DirSink} until it is killed, resuming every source from {@link DirSink#committed()}, flushing at random points, and
 * appending {@code ACK source end-line} to the ack file for every batch whose future completed. One batch in four is
 * a large one handed over as encoded (a {@link RecordView} payload, the same bytes): the sink writes those on its
 * writer thread, so kills land between the two threads' writes too; the buffer is reused as soon as {@code send}
 * returns, as the pipeline does.
 *
 * <p>Source {@code s} is an endless file of 16-byte lines {@code Sss Lnnnnnnnnnn\n}: line {@code n} is at offset
 * {@code 16 n}, so a committed offset says which line comes next.
 *
 * <p>Arguments: sink directory, ack file, "started" marker file, seed, number of sources.
 */
public final class DirSinkCrashChild {
    static final int LINE = 16;
    static final long SEGMENT_SIZE = 64 << 10;
    static final long COMPACT_MIN = 8 << 10;
    /** The most lines of a batch: large batches are up to three segments long. */
    static final int MAX_LINES = 12_000;

    private DirSinkCrashChild() {
    }

    static SourceId id(int s) {
        return new SourceId(1, 1000 + s, LINE, 0xF00D + s, "/fake/src-" + s + ".log");
    }

    static String line(int s, long n) {
        return String.format("S%02d L%010d\n", s, n);
    }

    public static void main(String[] args) throws IOException, InterruptedException {
        Path dir = Path.of(args[0]);
        FileOutputStream acks = new FileOutputStream(args[1], true);
        SplittableRandom rnd = new SplittableRandom(Long.parseLong(args[3]));
        int sources = Integer.parseInt(args[4]);
        ShipLog log = new ShipLog(System.err, false);
        DirSink sink = new DirSink(dir, SEGMENT_SIZE, log, System::currentTimeMillis, COMPACT_MIN);
        long[] next = new long[sources];
        for (Checkpoint c : sink.committed()) {
            int s = (int) (c.inode() - 1000);
            if (c.offset() % LINE != 0 || !c.equals(new Checkpoint(1, 1000 + s, LINE, 0xF00D + s, c.offset(),
                    c.seenAt(), id(s).path()))) {
                throw new AssertionError("bad committed position: " + c);
            }
            next[s] = c.offset() / LINE;
        }
        System.out.println("resumed " + java.util.Arrays.toString(next));
        Files.writeString(Path.of(args[2]), "started");
        Arena arena = Arena.ofShared();
        MemorySegment buf = arena.allocate(MAX_LINES * LINE);
        RecordView view = new RecordView();
        while (true) {
            int s = rnd.nextInt(sources);
            boolean encoded = rnd.nextInt(4) == 0;
            int lines = encoded ? 4096 + rnd.nextInt(MAX_LINES - 4096) : 1 + rnd.nextInt(40);
            StringBuilder sb = new StringBuilder(lines * LINE);
            for (int i = 0; i < lines; i++) sb.append(line(s, next[s] + i));
            byte[] b = sb.toString().getBytes(StandardCharsets.US_ASCII);
            MemorySegment.copy(b, 0, buf, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, b.length);
            long end = next[s] + lines;
            view.reset(RecordView.Encoding.NDJSON, 0, "host", java.util.Map.of());
            view.payload(buf.asSlice(0, b.length));
            sink.send(new Batch(id(s).path(), "in", -1, next[s] * LINE, b.length, lines,
                    buf.asSlice(0, b.length), id(s), encoded ? view : null)).whenComplete((v, e) -> {
                        if (e != null) {
                            e.printStackTrace();
                            Runtime.getRuntime().halt(3);
                        }
                        try {
                            acks.write(("ACK " + s + " " + end + "\n").getBytes(StandardCharsets.US_ASCII));
                        } catch (IOException x) {
                            Runtime.getRuntime().halt(4);
                        }
                    });
            next[s] = end;
            buf.asSlice(0, b.length).fill((byte) 0);
            if (rnd.nextInt(8) == 0) {
                sink.flush();
                if (rnd.nextInt(4) == 0) Thread.sleep(rnd.nextInt(3));
            }
        }
    }
}
