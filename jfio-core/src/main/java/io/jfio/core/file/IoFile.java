package io.jfio.core.file;

import io.jfio.core.engine.Engines;
import io.jfio.core.engine.IoEngine;
import io.jfio.core.engine.IoOp;
import io.jfio.core.sys.Errno;
import io.jfio.core.sys.ErrnoException;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import io.jfio.core.sys.Stat;
import io.jfio.core.sys.Statx;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An open file whose reads, writes and syncs go through an {@link IoEngine} (io_uring or the thread engine).
 *
 * <p>Thread-safe; any thread, platform or virtual, may use it concurrently. All I/O is positional: there is no
 * file position (the {@link JfioFileChannel} adapter keeps one). Buffers are caller-owned native
 * {@link MemorySegment}s or direct {@link ByteBuffer}s; nothing is copied through the Java heap.
 *
 * <p>Results follow pread/pwrite: {@link #read} returns the bytes read, which may be fewer than asked, and 0 at or
 * past end of file; {@link #readFully} and {@link #writeFully} loop until done and say so. With
 * {@link JfioOpenOption#DIRECT} every buffer address, offset and length must be aligned as {@link #directAlignment()}
 * says; a misaligned request fails with {@link IllegalArgumentException} before it reaches the kernel.
 *
 * <p>{@link #close()} is idempotent. Requests still in flight keep the descriptor open until they complete, so a
 * descriptor number is never reused under a running request; requests made after close fail with
 * {@link ClosedChannelException}.
 */
public final class IoFile implements AutoCloseable {
    private static final long CLOSED = 1L << 62;
    /** Most segments one vectored request takes: the kernel's IOV_MAX (UIO_MAXIOV in linux/uio.h). */
    public static final int IOV_MAX = IoOp.IOV_MAX;

    private final int fd;
    private final Path path;
    private final String pathString;
    private final IoEngine engine;
    private final boolean direct;
    private final int memAlign;
    private final int offsetAlign;
    private final boolean readable;
    private final boolean writable;
    private final boolean append;
    /** Requests in flight (low bits) and the closed flag; the descriptor is closed when both say so. */
    private final AtomicLong state = new AtomicLong();

    private IoFile(int fd, Path path, IoEngine engine, boolean direct, boolean readable, boolean writable,
                   boolean append) throws ErrnoException {
        this.fd = fd;
        this.path = path;
        this.pathString = path.toString();
        this.engine = engine;
        this.direct = direct;
        this.readable = readable;
        this.writable = writable;
        this.append = append;
        if (direct) {
            FileStat st = statFd(fd, pathString);
            // Without STATX_DIOALIGN (kernel < 6.1, or a file system that does not say) page alignment is the
            // conservative choice: it satisfies every block size Linux supports for O_DIRECT.
            int page = LibC.pageSize();
            this.memAlign = st.dioMemAlign() > 0 ? st.dioMemAlign() : page;
            this.offsetAlign = st.dioOffsetAlign() > 0 ? st.dioOffsetAlign() : page;
        } else {
            this.memAlign = 1;
            this.offsetAlign = 1;
        }
    }

    /** Opens {@code path} on the shared engine ({@link Engines#shared()}); options as for {@link #open(IoEngine,
     * Path, Set, int)}, with mode 0644 for created files.
     *
     * @param path the file to open
     * @param options how to open it, as for {@link #open(IoEngine, Path, Set, int)}
     * @return the open file, which the caller closes
     * @throws IOException if the file cannot be opened (the message names the errno: ENOENT, EACCES, EINVAL for
     *     O_DIRECT on a file system without it), or no engine can be created
     */
    public static IoFile open(Path path, OpenOption... options) throws IOException {
        return open(Engines.shared(), path, Set.of(options), 0644);
    }

    /**
     * Opens {@code path}.
     *
     * @param engine  the engine for this file's requests
     * @param options READ, WRITE, CREATE, CREATE_NEW, TRUNCATE_EXISTING, DSYNC, SYNC, NOFOLLOW_LINKS from
     *                {@link StandardOpenOption} and {@link java.nio.file.LinkOption}; DIRECT and NOATIME from
     *                {@link JfioOpenOption}. Without READ or WRITE the file is opened for reading. APPEND is not
     *                supported: all I/O is positional.
     * @param mode    permission bits for a created file
     * @param path the file to open
     * @return the open file, which the caller closes
     * @throws IOException naming the errno (ENOENT, EACCES, EINVAL for O_DIRECT on a file system without it)
     */
    public static IoFile open(IoEngine engine, Path path, Set<? extends OpenOption> options, int mode)
            throws IOException {
        return open(engine, path, options, mode, false);
    }

    /**
     * {@link #open(IoEngine, Path, Set, int)}, with O_APPEND when {@code append} is true. Package-private because it
     * changes what every write means: on an O_APPEND descriptor Linux appends whatever offset a pwrite or an io_uring
     * write names (pwrite(2), BUGS), which is right for {@link JfioFileChannel}'s append mode and wrong for the
     * positional API of this class.
     */
    static IoFile open(IoEngine engine, Path path, Set<? extends OpenOption> options, int mode, boolean append)
            throws IOException {
        boolean read = options.contains(StandardOpenOption.READ);
        boolean write = options.contains(StandardOpenOption.WRITE);
        if (!read && !write) read = true;
        int flags = Fcntl.O_CLOEXEC | (read && write ? Fcntl.O_RDWR : write ? Fcntl.O_WRONLY : Fcntl.O_RDONLY);
        if (append) {
            if (!write) throw new IllegalArgumentException("append mode needs WRITE");
            flags |= Fcntl.O_APPEND;
        }
        boolean direct = false;
        boolean noatime = false;
        for (OpenOption o : options) {
            if (o == StandardOpenOption.READ || o == StandardOpenOption.WRITE) continue;
            if (o == StandardOpenOption.CREATE) {
                if (write) flags |= Fcntl.O_CREAT; // as FileChannel: a file opened only for reading is never created
            } else if (o == StandardOpenOption.CREATE_NEW) {
                if (write) flags |= Fcntl.O_CREAT | Fcntl.O_EXCL;
            } else if (o == StandardOpenOption.TRUNCATE_EXISTING) {
                if (write) flags |= Fcntl.O_TRUNC;
            } else if (o == StandardOpenOption.DSYNC) {
                flags |= Fcntl.O_DSYNC;
            } else if (o == StandardOpenOption.SYNC) {
                flags |= Fcntl.O_SYNC;
            } else if (o == java.nio.file.LinkOption.NOFOLLOW_LINKS) {
                flags |= Fcntl.O_NOFOLLOW;
            } else if (o == JfioOpenOption.DIRECT) {
                flags |= Fcntl.O_DIRECT;
                direct = true;
            } else if (o == JfioOpenOption.NOATIME) {
                noatime = true;
            } else if (o == StandardOpenOption.SPARSE) {
                continue; // a hint; Linux files are sparse wherever nothing was written
            } else if (o == StandardOpenOption.DELETE_ON_CLOSE) {
                throw new UnsupportedOperationException("open option not supported by IoFile: " + o);
            } else if (o == StandardOpenOption.APPEND) {
                throw new UnsupportedOperationException("APPEND is not supported: IoFile I/O is positional");
            } else {
                throw new IllegalArgumentException("unknown open option: " + o);
            }
        }
        String p = path.toString();
        int fd = LibC.openat(Fcntl.AT_FDCWD, p, flags | (noatime ? Fcntl.O_NOATIME : 0), mode);
        if (fd == -Errno.EPERM && noatime) fd = LibC.openat(Fcntl.AT_FDCWD, p, flags, mode); // not the owner
        if (fd < 0) {
            String call = direct && fd == -Errno.EINVAL ? "open(O_DIRECT unsupported by this file system?)" : "open";
            throw new ErrnoException(call, -fd, p);
        }
        try {
            return new IoFile(fd, path, engine, direct, read, write, append);
        } catch (IOException | RuntimeException e) {
            LibC.close(fd);
            throw e;
        }
    }

    // ------------------------------------------------------------------ descriptor lifetime

    private void acquire() throws ClosedChannelException {
        while (true) {
            long s = state.get();
            if ((s & CLOSED) != 0) throw new ClosedChannelException();
            if (state.compareAndSet(s, s + 1)) return;
        }
    }

    private void release() {
        long s = state.decrementAndGet();
        if (s == CLOSED) closeFd();
    }

    private void closeFd() {
        // close(2) releases the descriptor even when it reports an error, so it is never retried.
        LibC.close(fd);
    }

    /** Closes the file once requests in flight have completed. Idempotent. */
    @Override
    public void close() {
        while (true) {
            long s = state.get();
            if ((s & CLOSED) != 0) return;
            if (state.compareAndSet(s, s | CLOSED)) {
                if (s == 0) closeFd();
                return;
            }
        }
    }

    /**
     * Whether this file is still open.
     *
     * @return true until {@link #close()} is called
     */
    public boolean isOpen() {
        return (state.get() & CLOSED) == 0;
    }

    /** Something to do with the raw descriptor while it is guaranteed open. */
    interface DescriptorAction<T> {
        T run(int fd) throws IOException;
    }

    /**
     * Runs {@code action} with the descriptor held open: a concurrent {@link #close()} defers closing it until the
     * action returns, so the number cannot be reused for another file under the action.
     *
     * @throws ClosedChannelException if the file is already closed
     */
    <T> T withDescriptor(DescriptorAction<T> action) throws IOException {
        acquire();
        try {
            return action.run(fd);
        } finally {
            release();
        }
    }

    // ------------------------------------------------------------------ checks

    private void checkDirect(MemorySegment buf, long position, long length) {
        if (!direct) return;
        if (buf.address() % memAlign != 0 || position % offsetAlign != 0 || length % offsetAlign != 0) {
            throw new IllegalArgumentException("unaligned O_DIRECT request: path=" + pathString + " address=0x"
                    + Long.toHexString(buf.address()) + " offset=" + position + " length=" + length
                    + " required_memory_alignment=" + memAlign + " required_offset_alignment=" + offsetAlign);
        }
    }

    private static void checkPosition(long position) {
        if (position < 0) throw new IllegalArgumentException("negative position: position=" + position);
    }

    private void checkReadable() {
        if (!readable) throw new java.nio.channels.NonReadableChannelException();
    }

    private void checkWritable() {
        if (!writable) throw new java.nio.channels.NonWritableChannelException();
    }

    private static MemorySegment segment(ByteBuffer b) {
        if (!b.isDirect()) {
            throw new IllegalArgumentException("IoFile needs a direct ByteBuffer (or a MemorySegment); "
                    + "JfioFileChannel accepts heap buffers");
        }
        return MemorySegment.ofBuffer(b);
    }

    /** Runs one request and keeps the descriptor alive while it is in flight. */
    private long run(IoOp op) throws IOException {
        acquire();
        try {
            return engine.execute(op.path(pathString));
        } finally {
            release();
        }
    }

    private CompletableFuture<Long> runAsync(IoOp op) {
        try {
            acquire();
        } catch (ClosedChannelException e) {
            return CompletableFuture.failedFuture(e);
        }
        IoOp tracked = op.path(pathString).whenDone(this::release);
        try {
            return engine.submit(tracked);
        } catch (RuntimeException e) {
            // Refused before submission (a closed arena, an unsupported opcode): whenDone will never run.
            if (!tracked.isDone()) release();
            throw e;
        }
    }

    // ------------------------------------------------------------------ reads

    private static void checkDestination(MemorySegment dst) {
        if (dst.isReadOnly()) {
            throw new IllegalArgumentException("read into a read-only segment: the kernel would write into it");
        }
    }

    /**
     * Reads into {@code dst} at {@code position} with one request.
     *
     * @param dst the native, writable memory to read into; at most {@link IoOp#MAX_RW} bytes are read
     * @param position the file offset to start at, not negative
     * @return bytes read: possibly fewer than {@code dst.byteSize()}, 0 at or past end of file
     * @throws IOException if the read fails (the message names the errno, e.g. EIO), or {@link ClosedChannelException}
     *     if this file is closed
     */
    public int read(MemorySegment dst, long position) throws IOException {
        checkReadable();
        checkDestination(dst);
        checkPosition(position);
        checkDirect(dst, position, Math.min(dst.byteSize(), IoOp.MAX_RW));
        if (dst.byteSize() == 0) return 0;
        return (int) run(IoOp.read(fd, dst, position));
    }

    /**
     * {@link #read(MemorySegment, long)} into the remaining bytes of a direct buffer; advances its position.
     *
     * @param dst a direct buffer; bytes are read into its remaining space
     * @param position the file offset to start at, not negative
     * @return bytes read, possibly fewer than {@code dst.remaining()}; 0 at or past end of file
     * @throws IOException if the read fails (the message names the errno), or {@link ClosedChannelException} if this
     *     file is closed
     */
    public int read(ByteBuffer dst, long position) throws IOException {
        if (dst.isReadOnly()) {
            throw new IllegalArgumentException("read into a read-only ByteBuffer: the kernel would write into it");
        }
        int n = read(segment(dst), position);
        dst.position(dst.position() + n);
        return n;
    }

    /**
     * Reads until {@code dst} is full or end of file, looping over short reads. With O_DIRECT, a read that ends
     * off the alignment can only have hit end of file, so it ends the loop too (the next read could not be aligned).
     *
     * @param dst the native, writable memory to fill
     * @param position the file offset to start at, not negative
     * @return bytes read; less than {@code dst.byteSize()} only at end of file
     * @throws IOException if a read fails (the message names the errno and the offset reached), or
     *     {@link ClosedChannelException} if this file is closed
     */
    public long readFully(MemorySegment dst, long position) throws IOException {
        long done = 0;
        long size = dst.byteSize();
        while (done < size) {
            int n = read(dst.asSlice(done, Math.min(size - done, IoOp.MAX_RW)), position + done);
            if (n == 0) break;
            done += n;
            if (direct && n % offsetAlign != 0) break;
        }
        return done;
    }

    /**
     * An asynchronous single read; completes with the bytes read (0 at end of file).
     *
     * @param dst the native, writable memory to read into
     * @param position the file offset to start at, not negative
     * @return the future of the bytes read; it completes exceptionally with an {@link IOException} naming the errno
     *     when the read fails
     */
    public CompletableFuture<Long> readAsync(MemorySegment dst, long position) {
        checkReadable();
        checkDestination(dst);
        checkPosition(position);
        checkDirect(dst, position, Math.min(dst.byteSize(), IoOp.MAX_RW));
        return runAsync(IoOp.read(fd, dst, position));
    }

    // ------------------------------------------------------------------ writes

    /**
     * Writes from {@code src} at {@code position} with one request; returns bytes written, possibly fewer.
     *
     * @param src the native memory to write; at most {@link IoOp#MAX_RW} bytes are written
     * @param position the file offset to start at, not negative
     * @return bytes written, possibly fewer than {@code src.byteSize()}
     * @throws IOException if the write fails (the message names the errno, e.g. ENOSPC), or
     *     {@link ClosedChannelException} if this file is closed
     */
    public int write(MemorySegment src, long position) throws IOException {
        checkWritable();
        checkPosition(position);
        checkDirect(src, position, Math.min(src.byteSize(), IoOp.MAX_RW));
        if (src.byteSize() == 0) return 0;
        return (int) run(IoOp.write(fd, src, position));
    }

    /**
     * {@link #write(MemorySegment, long)} from the remaining bytes of a direct buffer; advances its position.
     *
     * @param src a direct buffer whose remaining bytes are written
     * @param position the file offset to start at, not negative
     * @return bytes written, possibly fewer than {@code src.remaining()}
     * @throws IOException if the write fails (the message names the errno, e.g. ENOSPC), or
     *     {@link ClosedChannelException} if this file is closed
     */
    public int write(ByteBuffer src, long position) throws IOException {
        int n = write(segment(src), position);
        src.position(src.position() + n);
        return n;
    }

    /**
     * Writes all of {@code src}, looping over short writes. A write that makes no progress (0 bytes) fails with
     * EIO rather than looping forever; ENOSPC and other errors propagate with the offset reached.
     *
     * @param src the native memory to write, all of it
     * @param position the file offset to start at, not negative
     * @throws IOException if a write fails or makes no progress (the message names the errno and the offset reached),
     *     or {@link ClosedChannelException} if this file is closed
     */
    public void writeFully(MemorySegment src, long position) throws IOException {
        long done = 0;
        long size = src.byteSize();
        while (done < size) {
            int n = write(src.asSlice(done, Math.min(size - done, IoOp.MAX_RW)), position + done);
            if (n == 0) throw new ErrnoException("write (no progress)", Errno.EIO, fd, pathString, position + done,
                    size - done);
            done += n;
        }
    }

    /**
     * An asynchronous single write; completes with the bytes written.
     *
     * @param src the native memory to write
     * @param position the file offset to start at, not negative
     * @return the future of the bytes written; it completes exceptionally with an {@link IOException} naming the errno
     *     when the write fails
     */
    public CompletableFuture<Long> writeAsync(MemorySegment src, long position) {
        checkWritable();
        checkPosition(position);
        checkDirect(src, position, Math.min(src.byteSize(), IoOp.MAX_RW));
        return runAsync(IoOp.write(fd, src, position));
    }

    /**
     * Writes {@code src} and then fdatasyncs, as one linked chain: the sync starts only after the write completed in
     * full. Returns when both are done; the data is then durable.
     *
     * @param src the native memory to write, all of it
     * @param position the file offset to start at, not negative
     * @throws IOException if the write or the sync fails (the message names the errno), or
     *     {@link ClosedChannelException} if this file is closed
     */
    public void writeDurably(MemorySegment src, long position) throws IOException {
        checkWritable();
        checkPosition(position);
        if (src.byteSize() > IoOp.MAX_RW) {
            writeFully(src, position);
            datasync();
            return;
        }
        checkDirect(src, position, src.byteSize());
        IoOp write = IoOp.write(fd, src, position);
        write.link(IoOp.fdatasync(fd).path(pathString));
        long n;
        try {
            n = run(write);
        } catch (ErrnoException e) {
            // A short write cancels the linked sync, and execute reports that cancellation as the chain's failure;
            // the write's own count says what really happened.
            boolean shortWrite = e.errno() == Errno.ECANCELED && write.isDone() && write.result() >= 0
                    && write.result() < src.byteSize();
            if (!shortWrite) throw e;
            n = write.result();
        }
        if (n < src.byteSize()) {
            // A short write cancels the linked sync: finish the rest the long way.
            writeFully(src.asSlice(n), position + n);
            datasync();
        }
    }

    // ------------------------------------------------------------------ vectored I/O

    /**
     * Reads into {@code dsts}, in order, at {@code position} with one preadv request.
     *
     * <p>The segments must be native, writable, at most {@link #IOV_MAX} of them; the engine keeps each from being
     * freed under the kernel as for {@link #read}. With O_DIRECT each segment's address and length must be aligned.
     *
     * @param dsts the segments to fill, in order
     * @param position the file offset to start at, not negative
     * @return bytes read: possibly fewer than the segments hold, filling them in order; 0 at or past end of file
     * @throws IOException if the read fails (the message names the errno), or {@link ClosedChannelException} if this
     *     file is closed
     */
    public long readv(MemorySegment[] dsts, long position) throws IOException {
        checkReadable();
        checkPosition(position);
        return vectored(dsts, position, true);
    }

    /**
     * Writes {@code srcs}, in order, at {@code position} with one pwritev request; the segments as for
     * {@link #readv}, but they may be read-only.
     *
     * @param srcs the segments to write, in order
     * @param position the file offset to start at, not negative
     * @return bytes written, possibly fewer than the segments hold
     * @throws IOException if the write fails (the message names the errno), or {@link ClosedChannelException} if this
     *     file is closed
     */
    public long writev(MemorySegment[] srcs, long position) throws IOException {
        checkWritable();
        checkPosition(position);
        return vectored(srcs, position, false);
    }

    private long vectored(MemorySegment[] bufs, long position, boolean read) throws IOException {
        if (bufs.length > IOV_MAX) {
            throw new IllegalArgumentException("too many segments for one request: count=" + bufs.length
                    + " max=" + IOV_MAX);
        }
        long total = 0;
        for (MemorySegment b : bufs) {
            if (!b.isNative()) {
                // Its address() is an offset into a Java array, which the kernel would treat as a pointer.
                throw new IllegalArgumentException("vectored I/O needs native segments, not heap segments");
            }
            if (read && b.isReadOnly()) throw new IllegalArgumentException("read into a read-only segment");
            checkDirect(b, position, b.byteSize());
            total += b.byteSize();
        }
        if (total == 0) return 0;
        return run(read ? IoOp.readv(fd, bufs, position) : IoOp.writev(fd, bufs, position));
    }

    // ------------------------------------------------------------------ in-kernel copy

    /**
     * Copies up to {@code length} bytes from this file at {@code position} to {@code target} at
     * {@code targetPosition} inside the kernel, with one copy_file_range(2) call: no data passes through user
     * space, and file systems with shared extents (XFS, Btrfs) may clone instead of copying.
     *
     * <p>Runs on the calling thread, not on the engine: io_uring has no copy_file_range operation. The kernel may
     * copy fewer bytes than asked; callers loop. EINTR is retried.
     *
     * @param position the offset in this file to copy from, not negative
     * @param target the file to copy to, open for writing
     * @param targetPosition the offset in {@code target} to copy to, not negative
     * @param length the most bytes to copy, not negative
     * @return bytes copied; 0 at or past the end of this file
     * @throws IOException naming the errno: EXDEV (no cross-file-system copy here), EINVAL (overlapping ranges of
     *                     one file, or a file system without support), EOPNOTSUPP, ENOSYS (kernel before 4.5), EBADF
     *                     (target in append mode), ...
     */
    public long copyRange(long position, IoFile target, long targetPosition, long length) throws IOException {
        checkReadable();
        target.checkWritable();
        checkPosition(position);
        checkPosition(targetPosition);
        if (length < 0) throw new IllegalArgumentException("negative length: length=" + length);
        if (length == 0) return 0;
        acquire();
        try {
            target.acquire();
            try (Arena a = Arena.ofConfined()) {
                MemorySegment offIn = a.allocateFrom(ValueLayout.JAVA_LONG, position);
                MemorySegment offOut = a.allocateFrom(ValueLayout.JAVA_LONG, targetPosition);
                long r;
                do {
                    r = LibC.copyFileRange(fd, offIn, target.fd, offOut, length, 0);
                } while (r == -Errno.EINTR);
                return ErrnoException.check(r, "copy_file_range(to=" + target.pathString + " to_offset="
                        + targetPosition + ")", fd, pathString, position, length);
            } finally {
                target.release();
            }
        } finally {
            release();
        }
    }

    // ------------------------------------------------------------------ syncs, hints, space

    /**
     * fsync(2): data and metadata durable.
     *
     * @throws IOException if the sync fails (the message names the errno, e.g. EIO after a failed write-back), or
     *     {@link ClosedChannelException} if this file is closed
     */
    public void sync() throws IOException {
        run(IoOp.fsync(fd));
    }

    /**
     * fdatasync(2): data (and the metadata needed to read it) durable.
     *
     * @throws IOException if the sync fails (the message names the errno, e.g. EIO after a failed write-back), or
     *     {@link ClosedChannelException} if this file is closed
     */
    public void datasync() throws IOException {
        run(IoOp.fdatasync(fd));
    }

    /**
     * posix_fadvise(2) for {@code [offset, offset+length)}; {@code length} 0 means to end of file.
     *
     * @param offset where the range starts, not negative
     * @param length the range's length; 0 means to end of file
     * @param advice the expected access pattern
     * @throws IOException if the kernel rejects the advice (the message names the errno), or
     *     {@link ClosedChannelException} if this file is closed
     */
    public void advise(long offset, long length, Advice advice) throws IOException {
        checkPosition(offset);
        acquire();
        try {
            // The system call, not an io_uring request: it is cheap, and IORING_OP_FADVISE carries only 32 bits
            // of length.
            ErrnoException.check(LibC.posixFadvise(fd, offset, length, advice.value), "posix_fadvise(" + advice
                    + ")", fd, pathString, offset, length);
        } finally {
            release();
        }
    }

    /**
     * fallocate(2): reserves {@code [offset, offset+length)}, growing the file if needed.
     *
     * @param offset where the range starts, not negative
     * @param length the range's length, positive
     * @throws IOException if the space cannot be reserved (the message names the errno: ENOSPC, EOPNOTSUPP where the
     *     file system cannot), or {@link ClosedChannelException} if this file is closed
     */
    public void allocate(long offset, long length) throws IOException {
        checkWritable();
        run(IoOp.fallocate(fd, 0, offset, length));
    }

    /**
     * Frees {@code [offset, offset+length)} (FALLOC_FL_PUNCH_HOLE | KEEP_SIZE): reads there return zeros.
     *
     * @param offset where the hole starts, not negative
     * @param length the hole's length, positive
     * @throws IOException if the file system cannot punch holes (EOPNOTSUPP) or the call fails otherwise (the message
     *     names the errno), or {@link ClosedChannelException} if this file is closed
     */
    public void punchHole(long offset, long length) throws IOException {
        checkWritable();
        run(IoOp.fallocate(fd, Fcntl.FALLOC_FL_PUNCH_HOLE | Fcntl.FALLOC_FL_KEEP_SIZE, offset, length));
    }

    /**
     * ftruncate(2).
     *
     * @param size the new size in bytes, not negative: shorter cuts the file, longer extends it with zeros
     * @throws IOException if the call fails (the message names the errno, e.g. EFBIG), or
     *     {@link ClosedChannelException} if this file is closed
     */
    public void truncate(long size) throws IOException {
        checkWritable();
        if (size < 0) throw new IllegalArgumentException("negative size: size=" + size);
        acquire();
        try {
            ErrnoException.check(LibC.ftruncate(fd, size), "ftruncate", fd, pathString, ErrnoException.NONE, size);
        } finally {
            release();
        }
    }

    // ------------------------------------------------------------------ metadata

    /**
     * The file's size now.
     *
     * @return the size in bytes, from statx on the descriptor
     * @throws IOException if statx fails (the message names the errno), or {@link ClosedChannelException} if this file
     *     is closed
     */
    public long size() throws IOException {
        return stat().size();
    }

    /**
     * statx(2) on the descriptor.
     *
     * @return the file's metadata
     * @throws IOException if statx fails (the message names the errno), or {@link ClosedChannelException} if this file
     *     is closed
     */
    public FileStat stat() throws IOException {
        acquire();
        try {
            return statFd(fd, pathString);
        } finally {
            release();
        }
    }

    /**
     * The device and inode of the open file, from fstat on the descriptor: race-free, unlike stat on a path that
     * may have been renamed or replaced since it was opened.
     *
     * @return the file's device and inode
     * @throws IOException if fstat fails (the message names the errno), or {@link ClosedChannelException} if this file
     *     is closed
     */
    public FileIdentity identity() throws IOException {
        acquire();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(Stat.LAYOUT);
            ErrnoException.check(LibC.fstat(fd, st), "fstat", fd, pathString);
            return new FileIdentity(Stat.dev(st), Stat.ino(st));
        } finally {
            release();
        }
    }

    static FileStat statFd(int fd, String path) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment buf = a.allocate(Statx.LAYOUT);
            int mask = Statx.STATX_BASIC_STATS | Statx.STATX_DIOALIGN;
            ErrnoException.check(LibC.statx(fd, a.allocateFrom(""), Fcntl.AT_EMPTY_PATH, mask, buf), "statx", fd,
                    path);
            return new FileStat(new FileIdentity(Statx.dev(buf), Statx.ino(buf)), Statx.mode(buf), Statx.nlink(buf),
                    Statx.size(buf), Statx.blocks(buf), Statx.blksize(buf), Statx.mtimeNanos(buf),
                    Statx.dioMemAlign(buf), Statx.dioOffsetAlign(buf));
        }
    }

    /**
     * O_DIRECT alignment for buffers ({@code [0]}) and offsets/lengths ({@code [1]}); 1 when not O_DIRECT.
     *
     * @return {@code {memoryAlignment, offsetAlignment}} in bytes
     */
    public int[] directAlignment() {
        return new int[] {memAlign, offsetAlign};
    }

    /**
     * Whether this file was opened with {@link JfioOpenOption#DIRECT}.
     *
     * @return true when reads and writes bypass the page cache
     */
    public boolean isDirect() {
        return direct;
    }

    /**
     * True when the file was opened for reading.
     *
     * @return true for a file opened with READ, or with neither READ nor WRITE
     */
    public boolean isReadable() {
        return readable;
    }

    /**
     * True when the file was opened for writing.
     *
     * @return true for a file opened with WRITE
     */
    public boolean isWritable() {
        return writable;
    }

    /** True when the descriptor has O_APPEND (only files opened by {@link JfioFileChannel} in append mode). */
    boolean isAppend() {
        return append;
    }

    /**
     * The raw descriptor, for calls this class does not wrap. Valid while the file is open.
     *
     * @return the file descriptor
     */
    public int fd() {
        return fd;
    }

    /**
     * The path this file was opened with.
     *
     * @return the path as given to {@code open}
     */
    public Path path() {
        return path;
    }

    /**
     * The engine this file's requests go through.
     *
     * @return the engine given to {@code open}, or the shared one
     */
    public IoEngine engine() {
        return engine;
    }

    @Override
    public String toString() {
        return "IoFile[path=" + pathString + " fd=" + fd + " engine=" + engine.name() + (direct ? " O_DIRECT" : "")
                + (isOpen() ? "" : " closed") + "]";
    }

    /** posix_fadvise(2) advice values. */
    public enum Advice {
        /** No advice: the default read-ahead. */
        NORMAL(Fcntl.POSIX_FADV_NORMAL),
        /** Random access: no read-ahead. */
        RANDOM(Fcntl.POSIX_FADV_RANDOM),
        /** Sequential access: more read-ahead. */
        SEQUENTIAL(Fcntl.POSIX_FADV_SEQUENTIAL),
        /** The range will be read soon: start reading it into the page cache now. */
        WILLNEED(Fcntl.POSIX_FADV_WILLNEED),
        /** The range will not be needed soon: drop its clean pages from the page cache. */
        DONTNEED(Fcntl.POSIX_FADV_DONTNEED),
        /** The range will be read once (a no-op on Linux). */
        NOREUSE(Fcntl.POSIX_FADV_NOREUSE);

        final int value;

        Advice(int value) {
            this.value = value;
        }
    }
}
