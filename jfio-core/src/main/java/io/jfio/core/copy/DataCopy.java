package io.jfio.core.copy;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

import io.jfio.core.engine.IoEngine;
import io.jfio.core.engine.IoOp;
import io.jfio.core.sys.Errno;
import io.jfio.core.sys.ErrnoException;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * Moves the data of one file, or of one range of it, with the best method that works between the two devices:
 * reflink, copy_file_range, io_uring, read/write. Holes are found with SEEK_DATA/SEEK_HOLE and left as holes.
 *
 * <p>Not thread-safe; one per worker, using that worker's {@link Scratch}. Short transfers loop; every method
 * stops early, without error, where the source turns out shorter than statx said (it shrank while being copied):
 * the copy then has what the source had, and a rerun sees the size difference.
 */
final class DataCopy {
    /**
     * Bytes per copy_file_range call. The kernel moves at most about 2 GiB per call and may move less, so the call
     * loops anyway; 128 MiB keeps progress and cancellation responsive, and costs nothing measurable against 1 GiB.
     */
    static final long COPY_FILE_RANGE_CHUNK = 128L << 20;

    private final CopyContext ctx;
    private final Scratch s;
    private MemorySegment uringSlab;

    DataCopy(CopyContext ctx, Scratch s) {
        this.ctx = ctx;
        this.s = s;
    }

    /** How a file's data moved. */
    record Result(CopyMethod method, long written, boolean sparse, boolean shrank) {
    }

    /** One range of data: {@code [offset, offset + length)}. */
    record Range(long offset, long length) {
        long end() {
            return offset + length;
        }
    }

    /**
     * Tries a reflink of the whole file, as the policy and what is known about the device pair allow.
     *
     * @return true if the target now shares the source's data
     * @throws ErrnoException when reflink is required ({@code --reflink=always}) and fails, or fails for a reason
     *                        other than "not supported here"
     */
    boolean tryReflink(int srcFd, int dstFd, CopyContext.DevPair pair, byte[] dstPath) throws ErrnoException {
        CopyOptions o = ctx.options;
        if (o.reflink() == CopyOptions.Reflink.NEVER) return false;
        if (o.method() != null && o.method() != CopyMethod.REFLINK && o.reflink() != CopyOptions.Reflink.ALWAYS) {
            return false;
        }
        boolean required = o.reflink() == CopyOptions.Reflink.ALWAYS || o.method() == CopyMethod.REFLINK;
        if (!required && ctx.noReflink.containsKey(pair)) return false;
        int r = LibC.ficlone(dstFd, srcFd);
        if (r == 0) return true;
        if (required || !CopyContext.reflinkUnsupported(r)) {
            throw new ErrnoException("ioctl(FICLONE)", -r, dstFd, Names.show(dstPath), ErrnoException.NONE,
                    ErrnoException.NONE);
        }
        if (ctx.noReflink.putIfAbsent(pair, Errno.name((int) r)) == null) {
            ctx.listener.onNotice("reflink unavailable: source_device=" + Storage.showDevice(pair.src())
                    + " target_device=" + Storage.showDevice(pair.dst()) + " errno=" + Errno.name((int) r)
                    + "; copying data instead");
        }
        return false;
    }

    /** The first data method to use between this pair of devices. */
    CopyMethod firstMethod(CopyContext.DevPair pair) {
        CopyMethod forced = ctx.options.method();
        if (forced != null && forced != CopyMethod.REFLINK) return forced;
        // copy_file_range may share extents, holes included (xfs, btrfs): --sparse=never writes every byte.
        if (ctx.options.sparse() == CopyOptions.Sparse.NEVER) return CopyMethod.READ_WRITE;
        if (!ctx.noCopyFileRange.containsKey(pair)) return CopyMethod.COPY_FILE_RANGE;
        return ctx.uringEngine() != null ? CopyMethod.URING : CopyMethod.READ_WRITE;
    }

    /**
     * The data ranges of a file of {@code size} bytes: one range unless it looks sparse, else what SEEK_DATA and
     * SEEK_HOLE find (one range where the file system cannot tell).
     */
    List<Range> ranges(int fd, long size, boolean looksSparse, byte[] path) throws ErrnoException {
        List<Range> out = new ArrayList<>();
        if (size == 0) return out;
        if (!looksSparse) {
            out.add(new Range(0, size));
            return out;
        }
        long off = 0;
        while (off < size) {
            long d = LibC.lseek(fd, off, Fcntl.SEEK_DATA);
            if (d == -Errno.ENXIO) break; // only a hole from here to the end
            if (d < 0) {
                if (d == -Errno.EINVAL || d == -Errno.EOPNOTSUPP) { // no SEEK_DATA here: treat as dense
                    out.clear();
                    out.add(new Range(0, size));
                    return out;
                }
                throw new ErrnoException("lseek(SEEK_DATA)", (int) -d, fd, Names.show(path), off,
                        ErrnoException.NONE);
            }
            if (d >= size) break;
            long h = LibC.lseek(fd, d, Fcntl.SEEK_HOLE);
            if (h < 0) {
                throw new ErrnoException("lseek(SEEK_HOLE)", (int) -h, fd, Names.show(path), d, ErrnoException.NONE);
            }
            h = Math.min(h, size);
            out.add(new Range(d, h - d));
            off = h;
        }
        return out;
    }

    /**
     * Copies {@code [offset, offset+length)} from {@code srcFd} to the same offset of {@code dstFd}, starting with
     * {@code method} and falling back where it is not supported between the two files.
     *
     * @return bytes copied; fewer than {@code length} only when the source ended early
     */
    long copyRange(int srcFd, int dstFd, long offset, long length, CopyMethod method, CopyContext.DevPair pair,
                   byte[] srcPath, byte[] dstPath, CopyMethod[] used) throws IOException {
        long end = offset + length;
        long pos = offset;
        CopyMethod m = method;
        boolean cfrMoved = false;
        while (pos < end) {
            checkCancelled(srcPath);
            switch (m) {
                case COPY_FILE_RANGE -> {
                    s.offIn.set(JAVA_LONG, 0, pos);
                    s.offOut.set(JAVA_LONG, 0, pos);
                    long r = LibC.copyFileRange(srcFd, s.offIn, dstFd, s.offOut,
                            Math.min(end - pos, COPY_FILE_RANGE_CHUNK), 0);
                    if (r > 0) {
                        pos += r;
                        cfrMoved = true;
                        ctx.bytesWritten.add(r);
                        ctx.bytesAccounted.add(r);
                    } else if (r == 0) {
                        // End of the source before its statx size, or a file system whose copy_file_range moves
                        // nothing for this file: plain reads tell which.
                        m = CopyMethod.READ_WRITE;
                    } else if (r == -Errno.EINTR) {
                        continue;
                    } else if (!cfrMoved && CopyContext.copyFileRangeUnsupported((int) r)
                            && ctx.options.method() != CopyMethod.COPY_FILE_RANGE) {
                        CopyMethod next = ctx.uringEngine() != null ? CopyMethod.URING : CopyMethod.READ_WRITE;
                        if (ctx.noCopyFileRange.putIfAbsent(pair, Errno.name((int) r)) == null) {
                            ctx.listener.onNotice("copy_file_range unavailable: source_device="
                                    + Storage.showDevice(pair.src()) + " target_device="
                                    + Storage.showDevice(pair.dst()) + " errno=" + Errno.name((int) r) + "; using "
                                    + next.label());
                        }
                        m = next;
                    } else {
                        throw new ErrnoException("copy_file_range", (int) -r, srcFd, Names.show(srcPath), pos,
                                end - pos);
                    }
                }
                case URING -> {
                    long p = uringCopy(srcFd, dstFd, pos, end, srcPath, dstPath);
                    if (p < 0) {
                        m = CopyMethod.READ_WRITE; // an irregular block: finish plainly from the first gap
                        pos = -p - 1;
                    } else {
                        if (used != null) used[0] = m;
                        return p - offset;
                    }
                }
                case READ_WRITE -> {
                    long p = readWrite(srcFd, dstFd, pos, end, srcPath, dstPath);
                    if (used != null && used[0] == null) used[0] = m;
                    return p - offset;
                }
                default -> throw new IllegalStateException("not a data method: " + m);
            }
        }
        if (used != null && used[0] == null) used[0] = m;
        return pos - offset;
    }

    /** What {@code --sparse=always} leaves unwritten: aligned blocks of this many zero bytes become holes. */
    static final int HOLE_BLOCK = 4096;

    /**
     * {@code --sparse=always}: copies {@code [offset, offset+length)} with pread/pwrite, leaving every aligned
     * {@value #HOLE_BLOCK}-byte block that reads as zeros unwritten (the target's length is set already, so it stays
     * a hole), as {@code cp --sparse=always} does.
     *
     * @return bytes copied (holes included); fewer than {@code length} only when the source ended early
     */
    long copyMakingHoles(int srcFd, int dstFd, long offset, long length, byte[] srcPath, byte[] dstPath,
                         CopyMethod[] used) throws IOException {
        if (used != null) used[0] = CopyMethod.READ_WRITE;
        MemorySegment buf = s.data();
        long end = offset + length;
        long pos = offset;
        while (pos < end) {
            checkCancelled(srcPath);
            long n = read(srcFd, buf, Math.min(buf.byteSize(), end - pos), pos, srcPath);
            if (n == 0) break;
            long runStart = -1; // start (in buf) of the data not yet written
            long i = 0;
            while (i < n) {
                long blockEnd = Math.min(n, (pos + i) / HOLE_BLOCK * HOLE_BLOCK + HOLE_BLOCK - pos);
                boolean zero = blockEnd - i == HOLE_BLOCK && isZero(buf, i, blockEnd);
                if (zero && runStart >= 0) {
                    writeAll(dstFd, buf.asSlice(runStart), i - runStart, pos + runStart, dstPath, true);
                    runStart = -1;
                } else if (!zero && runStart < 0) {
                    runStart = i;
                }
                i = blockEnd;
            }
            if (runStart >= 0) writeAll(dstFd, buf.asSlice(runStart), n - runStart, pos + runStart, dstPath, true);
            pos += n;
            ctx.bytesWritten.add(n);
            ctx.bytesAccounted.add(n);
        }
        return pos - offset;
    }

    private static boolean isZero(MemorySegment buf, long from, long to) {
        long i = from;
        for (; i + 8 <= to; i += 8) {
            if (buf.get(JAVA_LONG_UNALIGNED, i) != 0) return false;
        }
        for (; i < to; i++) {
            if (buf.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i) != 0) return false;
        }
        return true;
    }

    private void checkCancelled(byte[] srcPath) throws InterruptedIOException {
        if (ctx.cancelled) throw new InterruptedIOException("copy cancelled: path=" + Names.show(srcPath));
    }

    /** One pread into {@code buf}, again after EINTR: the bytes read, 0 at the source's end. */
    private static long read(int srcFd, MemorySegment buf, long want, long pos, byte[] srcPath) throws IOException {
        while (true) {
            long n = LibC.pread(srcFd, buf, want, pos);
            if (n >= 0) return n;
            if (n != -Errno.EINTR) throw new ErrnoException("pread", (int) -n, srcFd, Names.show(srcPath), pos, want);
        }
    }

    /**
     * pread/pwrite through the worker's buffer, looping over short transfers, from {@code pos} to {@code end} or
     * the source's end. Returns the offset reached.
     */
    long readWrite(int srcFd, int dstFd, long pos, long end, byte[] srcPath, byte[] dstPath) throws IOException {
        MemorySegment buf = s.data();
        while (pos < end) {
            checkCancelled(srcPath);
            long n = read(srcFd, buf, Math.min(buf.byteSize(), end - pos), pos, srcPath);
            if (n == 0) break;
            writeAll(dstFd, buf, n, pos, dstPath, true);
            pos += n;
            ctx.bytesWritten.add(n);
            ctx.bytesAccounted.add(n);
        }
        return pos;
    }

    /**
     * Copies what {@code srcFd} reads until its end (a FIFO, a character device): read(2), which has no offset,
     * and pwrite at the running offset. Returns the bytes copied.
     */
    long copyStream(int srcFd, int dstFd, byte[] srcPath, byte[] dstPath) throws IOException {
        return stream(srcFd, dstFd, srcPath, dstPath, true);
    }

    /**
     * Reads {@code srcFd} to its end and writes it to {@code dstFd} with write(2), at the target's own position: for
     * a FIFO or device, where pwrite fails (ESPIPE) or means something else. Returns the bytes written.
     */
    long writeStream(int srcFd, int dstFd, byte[] srcPath, byte[] dstPath) throws IOException {
        return stream(srcFd, dstFd, srcPath, dstPath, false);
    }

    private long stream(int srcFd, int dstFd, byte[] srcPath, byte[] dstPath, boolean positioned) throws IOException {
        MemorySegment buf = s.data();
        long pos = 0;
        while (true) {
            checkCancelled(srcPath);
            long n = LibC.read(srcFd, buf, buf.byteSize());
            if (n == -Errno.EINTR) continue;
            if (n < 0) throw new ErrnoException("read", (int) -n, srcFd, Names.show(srcPath), pos, buf.byteSize());
            if (n == 0) return pos;
            writeAll(dstFd, buf, n, pos, dstPath, positioned);
            pos += n;
            ctx.bytesWritten.add(n);
        }
    }

    /** Writes {@code buf[0, n)}: with pwrite at {@code pos} where {@code positioned}, else with write(2). */
    private static void writeAll(int fd, MemorySegment buf, long n, long pos, byte[] dstPath, boolean positioned)
            throws ErrnoException {
        String call = positioned ? "pwrite" : "write";
        long done = 0;
        while (done < n) {
            MemorySegment rest = buf.asSlice(done, n - done);
            long w = positioned ? LibC.pwrite(fd, rest, n - done, pos + done) : LibC.write(fd, rest, n - done);
            if (w == -Errno.EINTR) continue;
            if (w < 0) throw new ErrnoException(call, (int) -w, fd, Names.show(dstPath), pos + done, n - done);
            if (w == 0) throw new ErrnoException(call + " (no progress)", Errno.EIO, fd, Names.show(dstPath),
                    pos + done, n - done);
            done += w;
        }
    }

    /**
     * io_uring: up to queueDepth blocks in flight, each a read linked to the write of the same buffer, so the
     * kernel starts the write as soon as the read completes, without a round trip through Java. Returns the offset
     * reached (end, or the source's end), or {@code -(gap + 1)} when a block went irregularly (a short read or a
     * failed write): everything before {@code gap} is copied, the caller finishes from there with plain calls,
     * which also report any real error.
     */
    private long uringCopy(int srcFd, int dstFd, long pos, long end, byte[] srcPath, byte[] dstPath)
            throws IOException {
        IoEngine engine = ctx.uringEngine();
        if (engine == null) return readWrite(srcFd, dstFd, pos, end, srcPath, dstPath);
        int depth = ctx.options.queueDepth();
        int block = ctx.options.blockSize();
        if (uringSlab == null) uringSlab = s.ioArena().allocate((long) depth * block, 4096);
        IoOp[] reads = new IoOp[depth];
        IoOp[] writes = new IoOp[depth];
        long[] starts = new long[depth];
        long next = pos;
        long doneUpTo = pos;
        int head = 0;
        int inFlight = 0;
        long gap = -1;
        try {
            while (true) {
                while (gap < 0 && inFlight < depth && next < end && !ctx.cancelled) {
                    int slot = (head + inFlight) % depth;
                    int len = (int) Math.min(block, end - next);
                    MemorySegment buf = uringSlab.asSlice((long) slot * block, len);
                    IoOp rd = IoOp.read(srcFd, buf, next).path(Names.show(srcPath));
                    IoOp wr = IoOp.write(dstFd, buf, next).path(Names.show(dstPath));
                    rd.link(wr);
                    reads[slot] = rd;
                    writes[slot] = wr;
                    starts[slot] = next;
                    engine.submit(rd);
                    next += len;
                    inFlight++;
                }
                if (inFlight == 0) break;
                int slot = head;
                long rres = await(reads[slot]);
                long wres = await(writes[slot]);
                long len = writes[slot].length();
                if (gap < 0) {
                    if (rres == len && wres == len) {
                        doneUpTo = starts[slot] + len;
                        ctx.bytesWritten.add(len);
                        ctx.bytesAccounted.add(len);
                    } else {
                        gap = starts[slot];
                    }
                }
                reads[slot] = null;
                writes[slot] = null;
                head = (head + 1) % depth;
                inFlight--;
            }
        } finally {
            // Never leave the kernel writing from buffers we are about to reuse.
            for (int i = 0; i < depth; i++) {
                if (reads[i] != null) awaitQuietly(reads[i]);
                if (writes[i] != null) awaitQuietly(writes[i]);
            }
        }
        checkCancelled(srcPath);
        if (gap >= 0) return -(gap + 1);
        return doneUpTo;
    }

    /** Waits for a request; returns its result, negative errno included (never throws for an I/O failure). */
    private static long await(IoOp op) throws InterruptedIOException {
        CompletableFuture<Long> f = op.future();
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    f.get();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    break;
                }
            }
            // The future settles after the request's result is published; wait for DONE (it follows at once).
            while (!op.isDone()) Thread.onSpinWait();
            return op.result();
        } finally {
            if (interrupted) Thread.currentThread().interrupt();
        }
    }

    private static void awaitQuietly(IoOp op) {
        try {
            await(op);
        } catch (InterruptedIOException ignored) {
            // await never throws this; the signature is shared
        }
    }

    /**
     * Compares the target with the source byte for byte over {@code [0, size)}: the source's data ranges are read
     * on both sides; in the source's holes the target must have no data, or data that reads as zeros.
     *
     * @return the first differing offset, or -1 when they are equal
     */
    long compare(int srcFd, int dstFd, long size, boolean looksSparse, byte[] srcPath, byte[] dstPath)
            throws IOException {
        long pos = 0;
        for (Range r : ranges(srcFd, size, looksSparse, srcPath)) {
            long at = holeReadsZero(dstFd, pos, r.offset(), srcPath, dstPath);
            if (at >= 0) return at;
            at = compareRange(srcFd, dstFd, r.offset(), r.end(), srcPath, dstPath);
            if (at >= 0) return at;
            pos = r.end();
        }
        return holeReadsZero(dstFd, pos, size, srcPath, dstPath);
    }

    private long compareRange(int srcFd, int dstFd, long pos, long end, byte[] srcPath, byte[] dstPath)
            throws IOException {
        MemorySegment a = s.data();
        MemorySegment b = s.verify();
        while (pos < end) {
            checkCancelled(srcPath);
            long want = Math.min(a.byteSize(), end - pos);
            long na = readFully(srcFd, a, want, pos, srcPath);
            long nb = readFully(dstFd, b, want, pos, dstPath);
            if (na != nb) return pos + Math.min(na, nb);
            long mm = MemorySegment.mismatch(a, 0, na, b, 0, nb);
            if (mm >= 0) return pos + mm;
            if (na < want) return -1; // both ended early: the source shrank, and the copy with it
            pos += na;
        }
        return -1;
    }

    /** Where the target has data inside {@code [from, to)} (a hole of the source), it must be zeros. */
    private long holeReadsZero(int dstFd, long from, long to, byte[] srcPath, byte[] dstPath) throws IOException {
        MemorySegment b = s.verify();
        long pos = from;
        while (pos < to) {
            checkCancelled(srcPath);
            long d = LibC.lseek(dstFd, pos, Fcntl.SEEK_DATA);
            if (d == -Errno.ENXIO || (d >= 0 && d >= to)) return -1;
            if (d < 0) d = pos; // no SEEK_DATA: read it all
            long h = LibC.lseek(dstFd, d, Fcntl.SEEK_HOLE);
            long end = h < 0 ? to : Math.min(h, to);
            for (long p = d; p < end; ) {
                long want = Math.min(b.byteSize(), end - p);
                long n = readFully(dstFd, b, want, p, dstPath);
                if (n == 0) return -1;
                for (long i = 0; i < n; i++) {
                    if (b.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i) != 0) return p + i;
                }
                p += n;
            }
            pos = end;
        }
        return -1;
    }

    private static long readFully(int fd, MemorySegment buf, long want, long pos, byte[] path) throws ErrnoException {
        long done = 0;
        while (done < want) {
            long n = LibC.pread(fd, buf.asSlice(done), want - done, pos + done);
            if (n == -Errno.EINTR) continue;
            if (n < 0) throw new ErrnoException("pread (verify)", (int) -n, fd, Names.show(path), pos + done,
                    want - done);
            if (n == 0) break;
            done += n;
        }
        return done;
    }
}
