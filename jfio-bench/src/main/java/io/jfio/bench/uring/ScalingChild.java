package io.jfio.bench.uring;

import io.jfio.bench.BenchFile;
import io.jfio.bench.Offsets;
import io.jfio.core.engine.UringEngine;
import io.jfio.core.file.BufferPool;
import io.jfio.core.file.PageCache;
import io.jfio.core.sys.ErrnoException;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Locale;

/**
 * One cell of {@code bench uring}'s scaling table, run in a JVM of its own so that {@code taskset} can confine the
 * whole process (its JIT and GC threads too) to some CPUs: hot 4 KiB random reads of the benchmark's file by one
 * method, a warm-up, then repetitions, each printed as a line {@code iops N}. The engine sizes itself from the CPUs it
 * may use (one ring per CPU).
 *
 * <p>Not thread-safe; a process entry point. Arguments: {@code FILE BLOCKS SEED METHOD DEPTH DURATION_MS WARMUP_MS
 * REPS [direct]}, METHOD one of {@link Scaling.Kind}'s names; {@code direct} reads with O_DIRECT instead (for
 * profiling the engine by hand). Exit status 0, or 1 with the reason on stderr.
 */
public final class ScalingChild {
    private ScalingChild() {
    }

    /**
     * Runs one cell; see the class comment for the arguments.
     *
     * @param args the arguments
     */
    public static void main(String[] args) {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        try {
            run(args, out);
            out.flush();
            System.exit(0);
        } catch (Exception e) {
            System.err.println("scaling cell failed: " + e);
            System.exit(1);
        }
    }

    private static void run(String[] args, PrintStream out) throws Exception {
        if (args.length != 8 && args.length != 9) {
            throw new IllegalArgumentException("expected 8 or 9 arguments, got " + args.length);
        }
        boolean direct = args.length == 9 && args[8].equals("direct");
        Path file = Path.of(args[0]);
        long blocks = Long.parseLong(args[1]);
        long seed = Long.parseLong(args[2]);
        Scaling.Kind kind = Scaling.Kind.valueOf(args[3].toUpperCase(Locale.ROOT));
        int depth = Integer.parseInt(args[4]);
        long nanos = Long.parseLong(args[5]) * 1_000_000L;
        long warmup = Long.parseLong(args[6]) * 1_000_000L;
        int reps = Integer.parseInt(args[7]);
        if (!direct) PageCache.warm(file);
        Offsets offsets = new Offsets(blocks, BenchFile.BLOCK, seed);
        int fd = LibC.openat(Fcntl.AT_FDCWD, file.toString(), Fcntl.O_RDONLY | Fcntl.O_CLOEXEC
                | (direct ? Fcntl.O_DIRECT : 0), 0);
        ErrnoException.check(fd, "open", -1, file.toString());
        UringEngine engine = null;
        BufferPool pool = null;
        Workload w;
        try {
            LibC.posixFadvise(fd, 0, 0, Fcntl.POSIX_FADV_RANDOM);
            switch (kind) {
                case ENGINE -> {
                    engine = new UringEngine(Math.max(UringEngine.DEFAULT_ENTRIES,
                            Integer.highestOneBit(depth * 4 - 1)), UringEngine.DEFAULT_FLAGS);
                    pool = new BufferPool(depth, BenchFile.BLOCK, BenchFile.BLOCK);
                    pool.registerWith(engine);
                    MemorySegment[] bufs = new MemorySegment[depth];
                    for (int i = 0; i < depth; i++) {
                        bufs[i] = pool.slab().asSlice((long) i * BenchFile.BLOCK, BenchFile.BLOCK);
                    }
                    out.println("rings " + engine.rings());
                    w = new EngineWorkload(engine, fd, bufs, true, null);
                }
                case ENGINE_VIRTUAL -> {
                    engine = new UringEngine();
                    out.println("rings " + engine.rings());
                    w = new ThreadedWorkload("vthread", depth, ThreadedWorkload.engineReads(engine, fd), true);
                }
                case FILECHANNEL -> w = new ThreadedWorkload("filechannel", depth,
                        ThreadedWorkload.fileChannel(file, false));
                default -> throw new IllegalArgumentException("unknown method " + kind);
            }
            try (Workload work = w) {
                if (warmup > 0) work.run(offsets.cursor(false), warmup);
                for (int r = 0; r < reps; r++) {
                    Workload.Rep rep = work.run(offsets.cursor(false), nanos);
                    if (rep.errors() > 0) {
                        throw new IOException(rep.errors() + " failed or wrong reads: " + rep.firstError());
                    }
                    out.printf(Locale.ROOT, "iops %.1f%n", rep.iops());
                }
            }
        } finally {
            if (engine != null) engine.close();
            if (pool != null) pool.close();
            LibC.close(fd);
        }
    }
}
