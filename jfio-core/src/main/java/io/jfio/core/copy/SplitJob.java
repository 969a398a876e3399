package io.jfio.core.copy;

import io.jfio.core.sys.ErrnoException;
import io.jfio.core.sys.LibC;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A large file copied by several workers at once, each taking parts of at most {@code chunkSize} bytes at their own
 * offsets. The worker that finishes the last part gives the file its attributes and final name and closes both
 * descriptors.
 *
 * <p>Thread-safe: parts run on different workers; the part counter decides who finishes, and its decrement orders
 * every part's writes of {@code written}, {@code failure} and {@code shrinkAt} before the finisher reads them.
 */
final class SplitJob {
    private final CopyContext ctx;
    private final Entry entry;
    private final int srcFd;
    private final Copier.Target target;
    private final CopyContext.DevPair pair;
    private final boolean replace;
    private final Copier.Done done;
    private final List<DataCopy.Range> parts;
    private final boolean sparse;
    private final CopyMethod first;
    private final AtomicInteger remaining;
    private final AtomicLong written = new AtomicLong();
    private final AtomicLong shrinkAt = new AtomicLong(Long.MAX_VALUE);
    private volatile CopyMethod used;
    private volatile IOException failure;

    private SplitJob(CopyContext ctx, Entry entry, int srcFd, Copier.Target target, CopyContext.DevPair pair,
                     boolean replace, Copier.Done done, List<DataCopy.Range> parts, boolean sparse,
                     CopyMethod first) {
        this.ctx = ctx;
        this.entry = entry;
        this.srcFd = srcFd;
        this.target = target;
        this.pair = pair;
        this.replace = replace;
        this.done = done;
        this.parts = parts;
        this.sparse = sparse;
        this.first = first;
        this.remaining = new AtomicInteger(parts.size());
    }

    /** One part, run by whichever worker takes it. */
    record Part(SplitJob job, int index) implements Work.Task {
        @Override
        public void run(Copier c) {
            job.runPart(c, index);
        }

        /** Cancelled before it ran: counts as done without copying, so the last part still closes the file. */
        @Override
        public void abandon(Copier c) {
            job.runPart(c, index);
        }
    }

    /**
     * Starts copying a large file whose reflink was not made and whose data ranges were found (the caller did both,
     * and where {@code sparse} set the target's length): cuts the ranges into parts, queues all but the first and
     * copies the first on this worker. Owns {@code srcFd} and the target from here on.
     */
    static void start(Copier c, CopyContext ctx, Entry e, int srcFd, Copier.Target t, CopyContext.DevPair pair,
                      boolean replace, Copier.Done done, List<DataCopy.Range> ranges, boolean sparse) {
        List<DataCopy.Range> parts = new ArrayList<>();
        long chunk = ctx.options.chunkSize();
        for (DataCopy.Range r : ranges) {
            for (long off = r.offset(); off < r.end(); off += chunk) {
                parts.add(new DataCopy.Range(off, Math.min(chunk, r.end() - off)));
            }
        }
        SplitJob job = new SplitJob(ctx, e, srcFd, t, pair, replace, done, parts, sparse, c.data().firstMethod(pair));
        if (job.parts.isEmpty()) { // all holes
            job.finish(c);
            return;
        }
        for (int i = job.parts.size() - 1; i >= 1; i--) ctx.work.submitUrgent(new Part(job, i));
        job.runPart(c, 0);
    }

    private void runPart(Copier c, int index) {
        DataCopy.Range r = parts.get(index);
        if (failure == null && !ctx.cancelled) {
            try {
                CopyMethod[] u = new CopyMethod[1];
                long n = c.data().copyRange(srcFd, target.fd, r.offset(), r.length(), first, pair, entry.srcPath(),
                        entry.dstPath(), u);
                written.addAndGet(n);
                if (u[0] != null) used = u[0];
                if (n < r.length()) shrinkAt.accumulateAndGet(r.offset() + n, Math::min);
            } catch (IOException ex) {
                if (failure == null) failure = ex;
            }
        }
        if (remaining.decrementAndGet() == 0) finish(c);
    }

    private void finish(Copier c) {
        boolean ok = false;
        try {
            IOException f = failure;
            if (f != null) {
                if (!(f instanceof InterruptedIOException)) {
                    ctx.fail(entry.srcPath(), entry.dstPath(), message(f), errno(f));
                }
            } else if (!ctx.cancelled) {
                long shrink = shrinkAt.get();
                if (shrink != Long.MAX_VALUE) LibC.ftruncate(target.fd, shrink);
                CopyMethod m = used != null ? used : first;
                ok = c.finishFile(entry, srcFd, target, replace,
                        new DataCopy.Result(m, written.get(), sparse, shrink != Long.MAX_VALUE),
                        Math.max(1, parts.size()));
            }
        } catch (InterruptedIOException ex) {
            // cancelled
        } catch (IOException ex) {
            ctx.fail(entry.srcPath(), entry.dstPath(), message(ex), errno(ex));
        } finally {
            c.discardIfUnpublished(target, entry.dir());
            LibC.close(target.fd);
            LibC.close(srcFd);
            done.accept(c, ok);
        }
    }

    private static String message(IOException e) {
        return e instanceof ErrnoException ? e.getMessage() : e.toString();
    }

    private static int errno(IOException e) {
        return e instanceof ErrnoException ee ? ee.errno() : 0;
    }
}
