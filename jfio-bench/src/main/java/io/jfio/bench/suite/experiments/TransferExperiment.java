package io.jfio.bench.suite.experiments;

import io.jfio.bench.Stats;
import io.jfio.bench.Units;
import io.jfio.bench.suite.CacheState;
import io.jfio.bench.suite.Experiment;
import io.jfio.bench.suite.ExperimentResult;
import io.jfio.bench.suite.Interleave;
import io.jfio.bench.suite.Measure;
import io.jfio.bench.suite.Plot;
import io.jfio.bench.suite.SuiteContext;
import io.jfio.bench.suite.SuiteOptions;
import io.jfio.bench.suite.Table;
import io.jfio.bench.verdict.Call;
import io.jfio.bench.verdict.Contender;
import io.jfio.bench.verdict.Contest;
import io.jfio.bench.verdict.Workload;
import io.jfio.core.sys.ErrnoException;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Experiment 5: moving a whole file to another file and to a loopback TCP socket (a ServerSocketChannel on
 * 127.0.0.1 drained by a thread that counts what arrives) with every way Java and Linux offer: a stream loop, a
 * FileChannel read/write loop, transferTo in one call and in chunks, transferFrom, Files.copy, copy_file_range,
 * sendfile and splice through a pipe. Every repetition checks the bytes moved: the destination file's size or the
 * count the receiver drained must equal what the method reported, and every looping method must report the whole
 * file; file copies are compared byte for byte with the source once per cell.
 *
 * <p>Thread-safe; stateless.
 */
public final class TransferExperiment implements Experiment {
    static final String[] METHODS = {"stream loop (8 KiB byte[])", "FileChannel read/write (1 MiB direct)",
        "transferTo, one call", "transferTo loop, 1 MiB chunks", "transferTo loop, 64 MiB chunks",
        "transferTo loop, Integer.MAX_VALUE chunks", "transferFrom loop", "Files.copy", "copy_file_range loop (LibC)",
        "sendfile loop (LibC)", "splice via pipe (LibC)"};
    static final String[] DESTS = {"file", "socket"};
    private static final int ONE_CALL = 2;
    private static final int FILES_COPY = 7;
    /** The call behind each method, for "What wins here". */
    static final Call[] CALLS = {Call.STREAM_LOOP, Call.FILECHANNEL_COPY_LOOP, Call.TRANSFER_TO, Call.TRANSFER_TO,
        Call.TRANSFER_TO, Call.TRANSFER_TO, Call.TRANSFER_FROM, Call.FILES_COPY, Call.JFIO_COPY_RANGE, Call.NATIVE,
        Call.NATIVE};
    /** Why a socket row can say NOT COLD: the kernel keeps part of a file it sent to a socket referenced. */
    public static final String SOCKET_PINNED = "after a zero-copy send (sendfile, splice, transferTo) to the "
            + "loopback socket, part of the file's page cache stayed referenced by the kernel and POSIX_FADV_DONTNEED "
            + "could not drop it, even a second later: a fixed few hundred KiB, which matters only for small files; "
            + "such socket rows say NOT COLD with the residency measured";
    private static final int MIB = 1 << 20;
    /**
     * The zero-copy notes: a 9,740,308,808-byte file; destination and cache state not stated. {name, bytes, ms, our
     * method}.
     */
    private static final Object[][] ZERO_COPY_NOTES = {
        {"Buffered InputStream", 9_740_308_808L, 43_560L, METHODS[0]},
        {"FileChannel#transferFrom", 9_740_308_808L, 58_862L, METHODS[6]},
        {"FileChannel#transferTo smaller chunks (size not stated)", 9_740_308_808L, 39_775L, METHODS[3]},
        {"FileChannel#transferTo Integer#MAX chunks", 9_740_308_808L, 53_152L, METHODS[5]},
        {"FileChannel#transferTo one call (moved 203,886,592 of 9,740,308,808 bytes)", 203_886_592L, 432L,
            METHODS[2]},
    };

    @Override
    public String name() {
        return "transfer";
    }

    @Override
    public String description() {
        return "file to file and file to loopback socket: stream loop, FileChannel, transferTo (one call, chunked), "
                + "transferFrom, Files.copy, copy_file_range, sendfile, splice; bytes moved checked";
    }

    @Override
    public boolean fioExpressible() {
        return false;
    }

    @Override
    public Duration quickBudget() {
        // 28 s with a 128 MiB file: the 256 MiB file took 35 s of a suite that then ran 208 s at load 2; cells
        // beyond the budget are skipped and named
        return Duration.ofSeconds(28);
    }

    static long[] sizes(SuiteOptions.Scale s) {
        return switch (s) {
            case TINY -> new long[] {1L << 20};
            case QUICK -> new long[] {128L << 20};
            case FULL -> new long[] {1L << 30, (5L << 30) / 2};
        };
    }

    /** Measured repetitions: three in --quick to fit its budget, else the suite's usual five. */
    static int reps(SuiteOptions.Scale s) {
        return s == SuiteOptions.Scale.QUICK ? 3 : SuiteOptions.REPS;
    }

    static boolean applies(int method, int dest) {
        return dest == 0 || (method != 6 && method != 8); // transferFrom and copy_file_range need a file target
    }

    /** On the file over 2 GiB (--full) only the rows that show transferTo's per-call limit run. */
    static boolean runsOnHuge(int method) {
        return method == ONE_CALL || method == 5 || method == 9;
    }

    @Override
    public long bytesNeeded(SuiteOptions.Scale scale) {
        long[] s = sizes(scale);
        return 2 * s[s.length - 1];
    }

    @Override
    public ExperimentResult run(SuiteContext ctx) throws Exception {
        ExperimentResult r = new ExperimentResult(name(), description());
        int reps = reps(ctx.scale());
        Table t = r.table(new Table("Moving a whole file, GB/s (10^9 bytes/s)", "dest", "method", "file_size_bytes",
                "cache", "gb_per_s_median", "spread_pct", "bytes_moved", "content_check"));
        long[] sizes = sizes(ctx.scale());
        List<String> cats = new ArrayList<>(List.of(METHODS));
        String[] series = {"file hot", "file cold", "socket hot", "socket cold"};
        double[][] y = new double[series.length][METHODS.length];
        for (double[] a : y) java.util.Arrays.fill(a, Double.NaN);
        try (Receiver rx = new Receiver(); Arena arena = Arena.ofShared()) {
            for (int si = 0; si < sizes.length; si++) {
                long size = sizes[si];
                boolean huge = size > Integer.MAX_VALUE;
                Path src = ctx.dataFile("transfer-src-" + size, size);
                Path dst = ctx.scratch().resolve("transfer-dst");
                for (int d = 0; d < DESTS.length; d++) {
                    for (CacheState.Cache cache : CacheState.Cache.values()) {
                        String group = DESTS[d] + " " + Units.formatSize(size) + " " + cache.label();
                        if (!ctx.withinBudget()) {
                            r.note("skipped for the time budget: " + group);
                            continue;
                        }
                        ctx.status(group + ", methods interleaved");
                        final int fd = d;
                        Interleave g = ctx.interleave(reps);
                        List<Integer> ms = new ArrayList<>();
                        CacheState[][] before = new CacheState[METHODS.length][1];
                        long[] moved = new long[METHODS.length];
                        for (int m = 0; m < METHODS.length; m++) {
                            if (!applies(m, d) || (huge && !runsOnHuge(m))) continue;
                            final int fm = m;
                            String cell = DESTS[d] + " " + METHODS[m] + " " + Units.formatSize(size) + " "
                                    + cache.label();
                            ms.add(m);
                            g.arm(METHODS[m], () -> {
                                ctx.delete(dst);
                                before[fm][0] = CacheState.prepare(src, cache);
                            }, () -> {
                                long t0 = System.nanoTime();
                                long n = fd == 0 ? toFile(fm, src, dst, size, arena)
                                        : toSocket(fm, src, size, rx, arena);
                                long dt = System.nanoTime() - t0;
                                check(cell, fm, fd, n, size, dst);
                                if (fd == 0 && n == size && moved[fm] == 0) {
                                    // each method's copy is compared byte for byte once, right after it was made
                                    long mismatch = Files.mismatch(src, dst);
                                    if (mismatch != -1) {
                                        throw new IllegalStateException(cell + ": copy differs from the source at "
                                                + "byte " + mismatch);
                                    }
                                }
                                moved[fm] = n;
                                return Measure.gbPerSecond(n, dt);
                            });
                        }
                        Workload w = d == 0 && cache == CacheState.Cache.COLD && si == 0 ? Workload.LARGE_COPY : null;
                        if (w != null) g.decides(w, true);
                        g.run();
                        List<Contender> contenders = new ArrayList<>();
                        for (int i = 0; i < ms.size(); i++) {
                            int m = ms.get(i);
                            Stats.Summary s = g.summary(i);
                            String cell = DESTS[d] + " " + METHODS[m] + " " + Units.formatSize(size) + " "
                                    + cache.label();
                            String content = d == 0 ? (moved[m] == size ? "identical" : "first " + moved[m]
                                    + " bytes only") : "receiver counted " + moved[m];
                            if (!before[m][0].ok()) {
                                r.note("residency mismatch: " + cell + " " + before[m][0].label());
                                if (d == 1 && cache == CacheState.Cache.COLD) r.note(SOCKET_PINNED);
                            }
                            if (m == ONE_CALL && moved[m] < size) {
                                r.note(String.format(Locale.ROOT, "transferTo in one call moved %,d of %,d bytes "
                                        + "(%s, %s): the JDK and the kernel cap one call near 2 GiB, so a loop is "
                                        + "needed", moved[m], size, DESTS[d], cache.label()));
                            }
                            t.add(DESTS[d], METHODS[m], size, before[m][0].label(), s.median(), Measure.spreadPct(s),
                                    moved[m], content);
                            if (si == 0) y[d * 2 + (cache == CacheState.Cache.HOT ? 0 : 1)][m] = s.median();
                            if (w != null) {
                                contenders.add(CALLS[m].contender(METHODS[m], m == FILES_COPY, g.samples(i)));
                            }
                        }
                        if (w != null) {
                            r.contest(new Contest(w, Units.formatSize(size) + " file to a file on the same file "
                                    + "system, GB/s", "GB/s", true, contenders));
                        }
                        ctx.delete(dst);
                    }
                }
                ctx.delete(src);
            }
        }
        Table src = r.table(new Table("the zero-copy notes' timings beside ours (a 9,740,308,808-byte file; "
                + "destination and cache state not stated)", "zero_copy_notes_method", "bytes", "elapsed_ms",
                "gb_per_s", "our_row"));
        for (Object[] o : ZERO_COPY_NOTES) {
            long b = (Long) o[1];
            long ms = (Long) o[2];
            src.add(o[0], b, ms, b / (ms * 1e6), o[3]);
        }
        Plot p = Plot.bars("transfer: moving a " + Units.formatSize(sizes[0]) + " file", "GB/s (median)", false,
                cats);
        for (int i = 0; i < series.length; i++) p.bars(series[i], y[i]);
        r.plot(p);
        r.note("file destinations are written into the page cache and not fsync'ed (each is deleted before the "
                + "next repetition): the rates are CPU and page-cache rates, plus the disk for cold sources");
        r.note("socket: a ServerSocketChannel on 127.0.0.1 whose thread reads into a 1 MiB direct buffer and counts; a "
                + "repetition ends when the receiver has counted every byte. JDK methods write to a SocketChannel; "
                + "sendfile and splice write to a socket made with socket(2)/connect(2) (the JDK does not expose a "
                + "SocketChannel's descriptor). transferFrom and copy_file_range need a file target: file rows only");
        r.note("transferTo, one call: a single FileChannel.transferTo(0, size, target) with its return value as "
                + "bytes_moved; every other method loops until the whole file moved, and a repetition fails if the "
                + "bytes moved (destination size or receiver count) differ from the file size");
        if (reps != SuiteOptions.REPS) {
            r.note("--quick: " + reps + " measured repetitions per cell (after one warm-up) instead of "
                    + SuiteOptions.REPS);
        }
        if (ctx.scale() != SuiteOptions.Scale.FULL) {
            r.note("--full adds a 2.5 GiB file (transferTo one call and loops, sendfile) to show transferTo's per-call "
                    + "limit; this run's file is below it");
        }
        return r;
    }

    private static void check(String cell, int method, int dest, long n, long size, Path dst) throws IOException {
        if (method != ONE_CALL && n != size) {
            throw new IllegalStateException(cell + ": moved " + n + " of " + size + " bytes");
        }
        if (dest == 0 && Files.size(dst) != n) {
            throw new IllegalStateException(cell + ": destination has " + Files.size(dst) + " bytes, method reported "
                    + n);
        }
    }

    private static long toFile(int m, Path src, Path dst, long size, Arena arena) throws Exception {
        if (m == 0) {
            try (InputStream in = new FileInputStream(src.toFile());
                 OutputStream out = new FileOutputStream(dst.toFile())) {
                return streamLoop(in, out);
            }
        }
        if (m == 7) {
            Files.copy(src, dst);
            return Files.size(dst);
        }
        if (m >= 8) {
            int in = Native.open(src, Fcntl.O_RDONLY);
            try {
                int out = Native.open(dst, Fcntl.O_WRONLY | Fcntl.O_CREAT | Fcntl.O_TRUNC);
                try {
                    return nativeMove(m, in, out, size, arena);
                } finally {
                    LibC.close(out);
                }
            } finally {
                LibC.close(in);
            }
        }
        try (FileChannel in = FileChannel.open(src, StandardOpenOption.READ);
             FileChannel out = FileChannel.open(dst, StandardOpenOption.WRITE, StandardOpenOption.CREATE_NEW)) {
            if (m == 6) {
                long pos = 0;
                while (pos < size) {
                    long n = out.transferFrom(in, pos, size - pos);
                    if (n <= 0) break;
                    pos += n;
                }
                return pos;
            }
            return channelMove(m, in, out, size);
        }
    }

    private static long toSocket(int m, Path src, long size, Receiver rx, Arena arena) throws Exception {
        long n;
        if (m >= 8) {
            int in = Native.open(src, Fcntl.O_RDONLY);
            try {
                int out = Sockets.connectLoopback(rx.port());
                try {
                    n = nativeMove(m, in, out, size, arena);
                } finally {
                    LibC.close(out);
                }
            } finally {
                LibC.close(in);
            }
        } else {
            try (SocketChannel sc = SocketChannel.open(rx.address())) {
                if (m == 0) {
                    try (InputStream in = new FileInputStream(src.toFile())) {
                        n = streamLoop(in, Channels.newOutputStream(sc));
                    }
                } else if (m == 7) {
                    n = Files.copy(src, Channels.newOutputStream(sc));
                } else {
                    try (FileChannel in = FileChannel.open(src, StandardOpenOption.READ)) {
                        n = channelMove(m, in, sc, size);
                    }
                }
            }
        }
        long got = rx.received();
        if (got != n) throw new IllegalStateException("receiver counted " + got + " bytes, sender reported " + n);
        return n;
    }

    private static long streamLoop(InputStream in, OutputStream out) throws IOException {
        byte[] b = new byte[8192];
        long total = 0;
        int k;
        while ((k = in.read(b)) > 0) {
            out.write(b, 0, k);
            total += k;
        }
        return total;
    }

    /** FileChannel read/write (m = 1) and transferTo (m = 2..5) to a file or socket. */
    private static long channelMove(int m, FileChannel in, WritableByteChannel out, long size) throws IOException {
        if (m == 1) {
            ByteBuffer buf = ByteBuffer.allocateDirect(MIB);
            long total = 0;
            while (in.read(buf) > 0) {
                buf.flip();
                while (buf.hasRemaining()) total += out.write(buf);
                buf.clear();
            }
            return total;
        }
        if (m == ONE_CALL) return in.transferTo(0, size, out);
        long chunk = m == 3 ? MIB : m == 4 ? 64L * MIB : Integer.MAX_VALUE;
        long pos = 0;
        while (pos < size) {
            long n = in.transferTo(pos, Math.min(chunk, size - pos), out);
            if (n <= 0) break;
            pos += n;
        }
        return pos;
    }

    /** copy_file_range (8), sendfile (9), splice through a pipe (10), using and advancing the file offsets. */
    private static long nativeMove(int m, int in, int out, long size, Arena arena) throws ErrnoException {
        long total = 0;
        if (m == 8 || m == 9) {
            while (total < size) {
                long want = Math.min(size - total, 0x7fff_f000L);
                long n = m == 8 ? LibC.copyFileRange(in, MemorySegment.NULL, out, MemorySegment.NULL, want, 0)
                        : LibC.sendfile(out, in, MemorySegment.NULL, want);
                ErrnoException.check(n, m == 8 ? "copy_file_range" : "sendfile", in, "", total, want);
                if (n == 0) break;
                total += n;
            }
            return total;
        }
        MemorySegment fds = arena.allocate(ValueLayout.JAVA_INT, 2);
        ErrnoException.check(LibC.pipe2(fds, Fcntl.O_CLOEXEC), "pipe2", -1, "");
        int pr = fds.getAtIndex(ValueLayout.JAVA_INT, 0);
        int pw = fds.getAtIndex(ValueLayout.JAVA_INT, 1);
        try {
            int flags = Fcntl.SPLICE_F_MOVE | Fcntl.SPLICE_F_MORE;
            while (total < size) {
                long n = LibC.splice(in, MemorySegment.NULL, pw, MemorySegment.NULL, Math.min(size - total, MIB),
                        flags);
                ErrnoException.check(n, "splice file->pipe", in, "", total, MIB);
                if (n == 0) break;
                long left = n;
                while (left > 0) {
                    long k = LibC.splice(pr, MemorySegment.NULL, out, MemorySegment.NULL, left, flags);
                    ErrnoException.check(k, "splice pipe->target", out, "", total, left);
                    left -= k;
                }
                total += n;
            }
            return total;
        } finally {
            LibC.close(pr);
            LibC.close(pw);
        }
    }

    /**
     * The loopback receiver: accepts one connection at a time and drains it into a direct buffer, counting; the
     * count of each connection goes to a queue when its sender closes.
     *
     * <p>Thread-safe: the count queue is the hand-off between the receiver thread and the experiment.
     */
    private static final class Receiver implements AutoCloseable {
        private final ServerSocketChannel server;
        private final BlockingQueue<Object> counts = new LinkedBlockingQueue<>();
        private final Thread thread;

        Receiver() throws IOException {
            server = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            thread = new Thread(this::loop, "jfio-bench-transfer-receiver");
            thread.setDaemon(true);
            thread.start();
        }

        InetSocketAddress address() throws IOException {
            return (InetSocketAddress) server.getLocalAddress();
        }

        int port() throws IOException {
            return address().getPort();
        }

        private void loop() {
            ByteBuffer buf = ByteBuffer.allocateDirect(MIB);
            while (true) {
                try (SocketChannel c = server.accept()) {
                    long total = 0;
                    int k;
                    while ((k = c.read(buf)) >= 0) {
                        total += k;
                        buf.clear();
                    }
                    counts.add(total);
                } catch (ClosedChannelException e) {
                    return;
                } catch (IOException e) {
                    counts.add(e);
                }
            }
        }

        /** The byte count of the next finished connection. */
        long received() throws IOException, InterruptedException {
            Object o = counts.poll(120, TimeUnit.SECONDS);
            if (o == null) throw new IOException("receiver counted nothing within 120 s");
            if (o instanceof IOException e) throw new IOException("receiver failed: " + e, e);
            return (Long) o;
        }

        @Override
        public void close() throws IOException, InterruptedException {
            server.close();
            thread.join(10_000);
        }
    }
}
