package io.jfio.bench.fio;

import io.jfio.bench.Units;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One fio random-read job, described with the same parameters as a jfio benchmark cell.
 *
 * <p>Immutable.
 *
 * @param file       the file to read (not written: {@code --readonly})
 * @param size       bytes of the file to use
 * @param ioengine   {@code io_uring} or {@code psync}
 * @param depth      queue depth ({@code --iodepth})
 * @param direct     O_DIRECT ({@code --direct=1})
 * @param runtime    how long to run ({@code --time_based --runtime})
 * @param invalidate let fio drop the file's page cache when it opens it ({@code --invalidate=1}); false to keep a
 *                   warmed cache
 * @param blockSize  bytes per read
 * @param seed       {@code --randseed}, for a reproducible offset sequence
 * @param fadviseHint {@code --fadvise_hint}: let fio advise POSIX_FADV_RANDOM (its default); false for the
 *                   cross-check of Java paths that cannot give the hint (FileChannel, RandomAccessFile)
 */
public record FioJob(Path file, long size, String ioengine, int depth, boolean direct, Duration runtime,
                     boolean invalidate, int blockSize, long seed, boolean fadviseHint) {

    /** The command line, starting with {@code fio}'s path. */
    public List<String> command(Path fio) {
        List<String> c = new ArrayList<>();
        c.add(fio.toString());
        c.add("--name=jfio-bench");
        c.add("--filename=" + file);
        c.add("--readonly");
        c.add("--size=" + size);
        c.add("--ioengine=" + ioengine);
        c.add("--rw=randread");
        c.add("--bs=" + blockSize);
        c.add("--iodepth=" + depth);
        c.add("--direct=" + (direct ? 1 : 0));
        c.add("--invalidate=" + (invalidate ? 1 : 0));
        c.add("--fadvise_hint=" + (fadviseHint ? 1 : 0));
        c.add("--time_based");
        c.add("--runtime=" + runtime.toMillis() + "ms");
        c.add("--randseed=" + seed);
        c.add("--lat_percentiles=1");
        c.add("--percentile_list=50:99:99.9");
        c.add("--output-format=json");
        return c;
    }

    /** A short description, e.g. {@code io_uring depth=32 direct=1 runtime=2s}. */
    public String describe() {
        return ioengine + " depth=" + depth + " direct=" + (direct ? 1 : 0) + " fadvise_hint="
                + (fadviseHint ? 1 : 0) + " runtime="
                + Units.formatDuration(runtime);
    }
}
