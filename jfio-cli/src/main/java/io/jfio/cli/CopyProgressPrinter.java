package io.jfio.cli;

import io.jfio.bench.system.SysFiles;
import io.jfio.core.copy.CopyProgress;
import io.jfio.core.copy.CopyResult;
import io.jfio.core.copy.TreeCopy;
import java.io.PrintWriter;
import java.util.Locale;

/**
 * Shows a running copy: a progress bar redrawn in place on a terminal, or a plain line every few seconds otherwise,
 * and one summary line at the end. Counts bytes as written (plus the sizes of files skipped as complete or
 * reflinked, so that 100% means done).
 *
 * <p>Thread-safe: a daemon thread of its own draws; {@link #stop} ends it before the summary.
 */
final class CopyProgressPrinter {
    /** How progress is shown. */
    enum Mode { BAR, LINES, NONE }

    static final long BAR_INTERVAL_MILLIS = 200;
    static final long LINE_INTERVAL_MILLIS = 5000;
    private static final int BAR_WIDTH = 24;

    private final TreeCopy copy;
    private final PrintWriter err;
    private final Mode mode;
    private final String name;
    private Thread thread;
    private volatile boolean running;
    private boolean drawn;

    CopyProgressPrinter(TreeCopy copy, PrintWriter err, Mode mode, String name) {
        this.copy = copy;
        this.err = err;
        this.mode = mode;
        this.name = name;
    }

    void start() {
        if (mode == Mode.NONE) return;
        running = true;
        long interval = mode == Mode.BAR ? BAR_INTERVAL_MILLIS : LINE_INTERVAL_MILLIS;
        thread = Thread.ofPlatform().daemon(true).name("jfio-copy-progress").start(() -> {
            while (running) {
                try {
                    Thread.sleep(interval);
                } catch (InterruptedException e) {
                    return;
                }
                if (running) draw(copy.progress());
            }
        });
    }

    /** Stops drawing and clears the bar, so what follows starts on a clean line. */
    void stop() {
        running = false;
        if (thread != null) {
            thread.interrupt();
            try {
                thread.join(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        synchronized (this) {
            if (mode == Mode.BAR && drawn) {
                err.print("\r\033[K");
                err.flush();
            }
        }
    }

    /** Prints something (a failure) without tearing the bar: clears it first; the next tick redraws it. */
    synchronized void println(String line) {
        if (mode == Mode.BAR && drawn) err.print("\r\033[K");
        err.println(line);
        err.flush();
        drawn = false;
    }

    private synchronized void draw(CopyProgress p) {
        if (!running) return;
        if (mode == Mode.BAR) {
            err.print("\r" + bar(p) + "\033[K");
            drawn = true;
        } else {
            err.println(name + ": " + line(p));
        }
        err.flush();
    }

    static String bar(CopyProgress p) {
        double frac = p.walkComplete() && p.bytesFound() > 0 ? Math.min(1.0, (double) p.bytesDone() / p.bytesFound())
                : p.walkComplete() && p.filesFound() > 0 ? Math.min(1.0, (double) p.filesDone() / p.filesFound()) : 0;
        int full = (int) Math.round(frac * BAR_WIDTH);
        String bar = "#".repeat(full) + "-".repeat(BAR_WIDTH - full);
        String pct = p.walkComplete() ? String.format(Locale.ROOT, "%3d%%", (int) Math.floor(frac * 100)) : "  ?%";
        return "[" + bar + "] " + pct + "  " + line(p);
    }

    /** {@code 10,400/20,000 files  168.2 MiB/324.1 MiB  152.0 MiB/s  ETA 0:01}. */
    static String line(CopyProgress p) {
        double secs = p.elapsedNanos() / 1e9;
        double rate = secs > 0 ? p.bytesWritten() / secs : 0;
        String total = p.walkComplete() ? "" : "+";
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%,d/%,d%s files  %s/%s%s  %s/s", p.filesDone(), p.filesFound(), total,
                SysFiles.bytes(p.bytesDone()), SysFiles.bytes(p.bytesFound()), total,
                SysFiles.bytes((long) rate)));
        if (p.failures() > 0) sb.append(String.format(Locale.ROOT, "  %,d failed", p.failures()));
        double doneRate = secs > 0 ? p.bytesDone() / secs : 0;
        if (p.walkComplete() && doneRate > 0 && p.bytesFound() > p.bytesDone()) {
            sb.append("  ETA ").append(clock((p.bytesFound() - p.bytesDone()) / doneRate));
        } else if (!p.walkComplete()) {
            sb.append("  ETA ?");
        }
        return sb.toString();
    }

    /** {@code 0:07}, {@code 1:02:03}. */
    static String clock(double seconds) {
        long s = (long) Math.ceil(seconds);
        long h = s / 3600;
        long m = (s % 3600) / 60;
        long r = s % 60;
        return h > 0 ? String.format(Locale.ROOT, "%d:%02d:%02d", h, m, r)
                : String.format(Locale.ROOT, "%d:%02d", m, r);
    }

    /**
     * {@code copied 20,000 files (324.1 MiB) in 2.10 s, 154.3 MiB/s; 221 directories, 12 symlinks, 3 hard links,
     * 0 special files, 0 skipped, 0 failed}.
     */
    static String summary(CopyResult r) {
        double secs = r.elapsed().toNanos() / 1e9;
        double rate = secs > 0 ? r.bytes() / secs : 0;
        return String.format(Locale.ROOT, "%s %,d files (%s) in %.2f s, %s/s; %,d directories, %,d symlinks, "
                        + "%,d hard links, %,d special files, %,d skipped, %,d failed",
                r.cancelled() ? "interrupted after copying" : "copied", r.files(), SysFiles.bytes(r.bytes()), secs,
                SysFiles.bytes((long) rate), r.directories(), r.symlinks(), r.hardLinks(), r.specialFiles(),
                r.skipped(), r.failureCount());
    }
}
