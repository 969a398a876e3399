package io.jfio.bench.suite;

import io.jfio.bench.system.SystemInfo;
import io.jfio.bench.fio.Fio;
import io.jfio.bench.fio.FioResult;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * What an experiment gets from the runner: options, the scratch directory for its test files, progress output,
 * fio (when available), the system description and its time budget.
 *
 * <p>Not thread-safe; owned by the runner thread and the experiment it runs.
 */
public final class SuiteContext {
    private final SuiteOptions options;
    private final Scratch scratch;
    private final Progress progress;
    private final Optional<Fio> fio;
    private final SystemInfo system;
    private final DirectIo directIo;
    private final String experiment;
    private final long deadline;
    private final long[] stableLeft;

    SuiteContext(SuiteOptions options, Scratch scratch, Progress progress, Optional<Fio> fio, SystemInfo system,
                 DirectIo directIo, String experiment, Duration budget, long[] stableLeft) {
        this.options = options;
        this.scratch = scratch;
        this.progress = progress;
        this.fio = fio;
        this.system = system;
        this.directIo = directIo;
        this.experiment = experiment;
        this.deadline = budget == null ? Long.MAX_VALUE : System.nanoTime() + budget.toNanos();
        this.stableLeft = stableLeft;
    }

    /** A group of contenders measured repetition by repetition in turn, with {@code reps} measured rounds. */
    public Interleave interleave(int reps) {
        return new Interleave(this, reps);
    }

    /** Nanoseconds left of the run's {@code --repeat-until-stable} budget (0 without it). */
    public long stableNanosLeft() {
        return stableLeft[0];
    }

    /** Charges {@code nanos} of extra repetitions to the run's {@code --repeat-until-stable} budget. */
    public void spendStable(long nanos) {
        stableLeft[0] = Math.max(0, stableLeft[0] - nanos);
    }

    public SuiteOptions options() {
        return options;
    }

    public SuiteOptions.Scale scale() {
        return options.scale();
    }

    /** The directory for test files; everything in it is removed after the experiment. */
    public Path scratch() {
        return scratch.dir();
    }

    public Optional<Fio> fio() {
        return fio;
    }

    public SystemInfo system() {
        return system;
    }

    /** Whether the test directory takes O_DIRECT (probed once per run). */
    public DirectIo directIo() {
        return directIo;
    }

    /** A generator seeded from the run's seed and {@code salt}, so every experiment's sequence is reproducible. */
    public SplittableRandom random(long salt) {
        return new SplittableRandom(options.seed() * 31 + salt);
    }

    /** Shows what runs now. */
    public void status(String s) {
        progress.status(experiment + ": " + s);
    }

    /**
     * False once the experiment's time budget is spent (quick scale only) and, on shutdown, always: the experiment
     * stops there and notes what it skipped.
     *
     * @throws InterruptedIOException when the JVM is shutting down (Ctrl-C, SIGTERM)
     */
    public boolean withinBudget() throws InterruptedIOException {
        if (scratch.stopping()) throw new InterruptedIOException("stopped: the JVM is shutting down");
        return options.scale() != SuiteOptions.Scale.QUICK || System.nanoTime() < deadline;
    }

    /** Stops with {@link InterruptedIOException} when the JVM is shutting down. */
    public void checkStopping() throws InterruptedIOException {
        if (scratch.stopping()) throw new InterruptedIOException("stopped: the JVM is shutting down");
    }

    /**
     * Creates {@code name} in the scratch directory: {@code size} bytes of non-zero seeded data (no holes),
     * fdatasync'ed, so evicting it later drops clean pages only.
     */
    public Path dataFile(String name, long size) throws IOException {
        checkStopping();
        Path file = scratch.dir().resolve(name);
        SplittableRandom rnd = random(name.hashCode());
        int chunk = 1 << 20;
        ByteBuffer buf = ByteBuffer.allocateDirect(chunk).order(ByteOrder.LITTLE_ENDIAN);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            long off = 0;
            while (off < size) {
                int n = (int) Math.min(chunk, size - off);
                buf.clear();
                for (int i = 0; i + 8 <= n; i += 8) buf.putLong(i, rnd.nextLong() | 0x0101_0101_0101_0101L);
                for (int i = n & ~7; i < n; i++) buf.put(i, (byte) 0x5a);
                buf.limit(n);
                while (buf.hasRemaining()) off += ch.write(buf, off);
                checkStopping();
            }
            ch.force(false);
        }
        return file;
    }

    /** Removes a test file now (the runner removes whatever is left anyway). */
    public void delete(Path file) throws IOException {
        Files.deleteIfExists(file);
    }

    /**
     * Runs fio with the common arguments ({@code --name}, JSON output, latency percentiles 50/99/99.9) followed by
     * {@code args}, and returns the {@code section} ("read" or "write") statistics.
     */
    public FioResult fio(long expectedMs, String section, String... args) throws IOException {
        Fio f = fio.orElseThrow(() -> new IllegalStateException("fio is not available"));
        checkStopping();
        List<String> a = new ArrayList<>();
        a.add("--name=jfio-bench");
        a.add("--output-format=json");
        a.add("--lat_percentiles=1");
        a.add("--percentile_list=50:99:99.9");
        a.addAll(List.of(args));
        return f.run(a, expectedMs, section);
    }
}
