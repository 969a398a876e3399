package io.jfio.bench.fio;

import io.jfio.bench.Processes;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Runs fio, the reference every jfio benchmark is checked against: finds it on the PATH, installs it with apt-get
 * when it is missing and that is possible (root, Debian-like system), and runs {@link FioJob}s.
 *
 * <p>Thread-safe for {@link #run} from one thread at a time; {@link #destroyRunning()} may be called from any thread
 * (a shutdown hook) to stop the fio process in flight and keep new ones from starting.
 */
public final class Fio {
    private static final Path APT_GET = Path.of("/usr/bin/apt-get");
    /** How long one apt-get may take: a slow mirror, not a hung one (FioInterleaveTest installs fio in CI). */
    private static final long APT_TIMEOUT_SECONDS = 600;

    private final Path executable;
    private final String version;
    private volatile Process running;
    private boolean stopped;

    private Fio(Path executable, String version) {
        this.executable = executable;
        this.version = version;
    }

    /** fio on the PATH, if any. */
    public static Optional<Fio> find() {
        String path = System.getenv("PATH");
        if (path == null) path = "/usr/local/bin:/usr/bin:/bin";
        for (String dir : path.split(":")) {
            if (dir.isEmpty()) continue;
            Path p = Path.of(dir, "fio");
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                return Optional.of(new Fio(p, versionOf(p)));
            }
        }
        return Optional.empty();
    }

    private static String versionOf(Path p) {
        try {
            Process pr = new ProcessBuilder(p.toString(), "--version").redirectErrorStream(true).start();
            String out = new String(pr.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            pr.waitFor(10, TimeUnit.SECONDS);
            return out.isEmpty() ? "unknown" : out;
        } catch (IOException e) {
            return "unknown";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }

    /**
     * fio, installing it first if it is missing and {@code install} allows: as root on a system with apt-get this
     * runs {@code apt-get install -y fio} (after {@code apt-get update} if the first attempt fails). Otherwise, or if
     * installing fails, prints how to install it and returns empty: the benchmark goes on without fio.
     */
    public static Optional<Fio> findOrInstall(boolean install, PrintWriter log) {
        Optional<Fio> f = find();
        if (f.isPresent()) return f;
        String how = "install fio (e.g. 'sudo apt-get install fio' or 'sudo dnf install fio') to get jfio/fio ratios";
        if (!install) {
            log.println("fio not found; " + how);
            return Optional.empty();
        }
        if (!isRoot() || !Files.isExecutable(APT_GET)) {
            log.println("fio not found and cannot be installed from here (" + (isRoot() ? "no apt-get" : "not root")
                    + "); " + how + ". Continuing without fio.");
            return Optional.empty();
        }
        log.println("fio not found: running apt-get install -y fio ...");
        log.flush();
        boolean ok = apt(log, "install", "-y", "fio");
        if (!ok) {
            log.println("apt-get install failed; running apt-get update and trying again ...");
            log.flush();
            ok = apt(log, "update") && apt(log, "install", "-y", "fio");
        }
        f = find();
        if (f.isEmpty()) {
            log.println("fio could not be installed; " + how + ". Continuing without fio.");
        } else {
            log.println("installed " + f.get().version());
        }
        return f;
    }

    private static boolean apt(PrintWriter log, String... args) {
        List<String> cmd = new java.util.ArrayList<>();
        cmd.add(APT_GET.toString());
        cmd.addAll(List.of(args));
        Path out = null;
        try {
            // Into a file, not a pipe: nothing reads a pipe while Processes.run waits, and apt-get's output would
            // fill it.
            out = Files.createTempFile("jfio-apt-get-", ".log");
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile());
            pb.environment().put("DEBIAN_FRONTEND", "noninteractive");
            // A timeout kills apt-get's dpkg and maintainer scripts too.
            int rc = Processes.run(pb, APT_TIMEOUT_SECONDS);
            if (rc != 0) printTail(out, log);
            return rc == 0;
        } catch (IOException e) {
            // Not started, timed out or interrupted (then quietly, as the run is being stopped).
            if (e.getCause() instanceof InterruptedException) return false;
            if (out != null) printTail(out, log);
            log.println("  apt-get could not run: " + e.getMessage());
            return false;
        } finally {
            if (out != null) {
                try {
                    Files.deleteIfExists(out);
                } catch (IOException e) {
                    // a temporary file left behind: nothing more to do about it here
                }
            }
        }
    }

    /** The last 5 lines of apt-get's output (in {@code out}), which say why it failed. */
    private static void printTail(Path out, PrintWriter log) {
        String text;
        try {
            text = new String(Files.readAllBytes(out), StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            return;
        }
        if (text.isEmpty()) return;
        String[] lines = text.split("\n");
        int from = Math.max(0, lines.length - 5);
        for (int i = from; i < lines.length; i++) log.println("  apt-get: " + lines[i]);
    }

    /** True when the process runs as root (uid 0). */
    static boolean isRoot() {
        try {
            Object uid = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
            return uid instanceof Integer i && i == 0;
        } catch (IOException | RuntimeException e) {
            return "root".equals(System.getProperty("user.name"));
        }
    }

    public Path executable() {
        return executable;
    }

    /** fio's version, e.g. {@code fio-3.33}. */
    public String version() {
        return version;
    }

    /**
     * Runs {@code job} and parses its result.
     *
     * @throws IOException when fio cannot start, fails, times out or prints no JSON; the message carries fio's stderr
     */
    public FioResult run(FioJob job) throws IOException {
        return run(job.command(executable).subList(1, job.command(executable).size()), job.runtime().toMillis(),
                "read");
    }

    /**
     * Runs fio with {@code args} (without the executable; they must include {@code --output-format=json}) and
     * parses the {@code section} ({@code "read"} or {@code "write"}) statistics of its first job.
     *
     * @param expectedMs how long the job should take; fio is killed 120 s after that
     * @throws IOException when fio cannot start, fails, times out or prints no JSON; the message carries fio's stderr
     */
    public FioResult run(List<String> args, long expectedMs, String section) throws IOException {
        List<String> cmd = new java.util.ArrayList<>();
        cmd.add(executable.toString());
        cmd.addAll(args);
        Process p;
        synchronized (this) {
            // A shutdown hook may have stopped us while the benchmark thread went on: start nothing new then.
            if (stopped) throw new java.io.InterruptedIOException("fio stopped: the JVM is shutting down");
            p = new ProcessBuilder(cmd).start();
            running = p;
        }
        try {
            CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> drain(p.getErrorStream()));
            String out = drain(p.getInputStream());
            long limit = expectedMs + 120_000;
            if (!p.waitFor(limit, TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new IOException("fio did not finish within " + limit + " ms: " + String.join(" ", cmd));
            }
            String errText = err.get().strip();
            if (p.exitValue() != 0) {
                throw new IOException("fio failed: exit=" + p.exitValue() + " command=" + String.join(" ", cmd)
                        + (errText.isEmpty() ? "" : " stderr=" + errText));
            }
            try {
                FioResult r = FioResult.parse(out, section);
                if (r.error() != 0) throw new IOException("fio job failed: error=" + r.error() + " " + errText);
                return r;
            } catch (IllegalArgumentException e) {
                throw new IOException("cannot read fio's output (" + e.getMessage() + "): command="
                        + String.join(" ", cmd) + (errText.isEmpty() ? "" : " stderr=" + errText), e);
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while fio ran");
        } catch (ExecutionException e) {
            throw new IOException("reading fio's stderr failed", e.getCause());
        } finally {
            running = null;
        }
    }

    private static String drain(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    /** Stops the fio process in flight, if any, and refuses to start another (for a shutdown hook). */
    public synchronized void destroyRunning() {
        stopped = true;
        Process p = running;
        if (p != null) p.destroyForcibly();
    }
}
