package io.jfio.core.file;

import io.jfio.core.engine.Engines;
import io.jfio.core.engine.IoEngine;
import io.jfio.core.sys.Errno;
import io.jfio.core.sys.ErrnoException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.Channel;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.FileLockInterruptionException;
import java.nio.channels.NonReadableChannelException;
import java.nio.channels.NonWritableChannelException;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.ProviderMismatchException;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;

/**
 * A {@link FileChannel} whose reads, writes and syncs go through an {@link IoFile}, and so through io_uring or the
 * thread engine. Existing code switches by changing one line:
 * {@snippet :
 * FileChannel ch = JfioFileChannel.open(path, StandardOpenOption.READ); // was FileChannel.open(...)
 * }
 *
 * <p>Thread-safe, with {@link FileChannel}'s rules: positional reads and writes run concurrently; relative ones,
 * {@link #position(long)}, {@link #truncate} and the transfers that move a channel position serialise on that
 * channel's position lock, so a relative operation reads or writes at the position no other relative operation is
 * also using.
 *
 * <h2>Differences from the JDK's channel, and where they are decided</h2>
 * <ul>
 *   <li><b>Results.</b> Reads return -1 at end of file (the engine's 0 is translated). Writes write every byte
 *       unless an error stops them part way, in which case they return the bytes written and the error is
 *       reported by the next call.</li>
 *   <li><b>Heap buffers</b> are copied through a temporary direct buffer from a small cache (a few per platform
 *       thread, one shared pool for virtual threads, each at most 1 MiB; bigger heap buffers are copied in 1 MiB
 *       chunks). Direct buffers go to the kernel with no copy. A read into a read-only buffer throws
 *       {@link IllegalArgumentException}, as the JDK does.</li>
 *   <li><b>Scattering and gathering</b> operations submit one preadv/pwritev for up to {@link IoFile#IOV_MAX}
 *       buffers; direct buffers are addressed in place and heap buffers through temporary buffers.</li>
 *   <li><b>Append mode</b> ({@link StandardOpenOption#APPEND}) opens the descriptor with O_APPEND, so each write
 *       lands at the end of the file atomically, even with other processes appending, exactly as with the JDK on
 *       Linux; {@link #position()} then reports the size. As with the JDK on Linux, a positional write in append
 *       mode also appends (the spec leaves it unspecified).</li>
 *   <li><b>{@link #transferTo} and {@link #transferFrom}</b> use copy_file_range(2) when both ends are
 *       {@code JfioFileChannel}s (looping, since it may copy less than asked, and falling back to copying through
 *       a buffer on EXDEV, ENOSYS, EINVAL or EOPNOTSUPP). With any other channel, plain JDK {@code FileChannel}s
 *       included, they copy through a direct buffer: there is no clean way to obtain the descriptor of a JDK
 *       channel without reflection into {@code java.base}.</li>
 *   <li><b>{@link #map} and {@link #lock}</b> are delegated to a plain JDK {@code FileChannel} opened on
 *       {@code /proc/self/fd/N}, the same open file (the same inode even if the path was since renamed or
 *       deleted), with the same read/write access. It is opened on first use and closed with this channel, so the
 *       locks it holds are released then, and locks interact with other channels of this JVM through the JDK's
 *       lock table as usual. The returned {@link FileLock}s report this channel as theirs. Reopening checks
 *       permissions again, so it fails if the file's mode no longer grants the access this channel has.</li>
 *   <li><b>O_DIRECT</b> ({@link JfioOpenOption#DIRECT}, or the JDK's {@code ExtendedOpenOption.DIRECT}): every
 *       request passes through {@link IoFile}'s alignment checks, which throw {@link IllegalArgumentException}
 *       naming the misaligned value. Heap buffers are copied into page-aligned temporary buffers, so their
 *       address does not matter, but positions and lengths must still be aligned.</li>
 *   <li><b>copy_file_range and ftruncate</b> run on the calling thread (io_uring has no such operations); on a
 *       virtual thread they block its carrier for the call, at most 8 MiB of copying at a time.</li>
 * </ul>
 *
 * <p>Interruption follows {@link java.nio.channels.InterruptibleChannel}: a thread interrupted before or during an
 * operation gets {@link ClosedByInterruptException}, the channel is closed and the interrupt status stays set.
 * The request in flight is cancelled where the engine can, and the call never returns while the kernel may still
 * write into the caller's buffer. Closing the channel closes the {@link IoFile}; requests already in the kernel
 * finish first.
 */
public final class JfioFileChannel extends FileChannel {
    /** Bytes of a heap buffer copied per request; also the largest temporary buffer taken from the cache. */
    private static final int COPY_CHUNK = TempBuffers.MAX_CACHED;
    /** Bytes asked of one copy_file_range call: bounds how long a call that Java cannot interrupt may run. */
    private static final long COPY_RANGE_CHUNK = 8L << 20;
    /** Buffer size for transfers through user space. */
    private static final int TRANSFER_CHUNK = 256 << 10;
    /** Default permission bits of a created file; the process umask applies, as with the JDK. */
    private static final int DEFAULT_MODE = 0666;

    private final IoFile file;
    private final boolean readable;
    private final boolean writable;
    private final boolean append;
    private final Object positionLock = new Object();
    /** The position for relative operations; guarded by {@link #positionLock}; unused in append mode. */
    private long position;
    private final Object delegateLock = new Object();
    /** The plain channel for map and lock, opened on first use; guarded by {@link #delegateLock}. */
    private FileChannel delegate;

    private JfioFileChannel(IoFile file, boolean readable, boolean writable, boolean append) {
        this.file = file;
        this.readable = readable;
        this.writable = writable;
        this.append = append;
    }

    // ------------------------------------------------------------------ opening

    /**
     * Opens {@code path} on the shared engine ({@link Engines#shared()}), with the options and defaults of
     * {@link FileChannel#open(Path, OpenOption...)}.
     *
     * @param path the file to open
     * @param options how to open it, as for {@link #open(IoEngine, Path, Set, FileAttribute[])}
     * @return the open channel, which the caller closes
     * @throws IOException if the file cannot be opened (see {@link #open(IoEngine, Path, Set, FileAttribute[])}), or no
     *     engine can be created
     */
    public static JfioFileChannel open(Path path, OpenOption... options) throws IOException {
        Set<OpenOption> set = new HashSet<>(options.length);
        Collections.addAll(set, options);
        return open(Engines.shared(), path, set);
    }

    /**
     * Opens {@code path} on the shared engine, with the options, defaults and attributes of
     * {@link FileChannel#open(Path, Set, FileAttribute[])}.
     *
     * @param path the file to open
     * @param options how to open it, as for {@link #open(IoEngine, Path, Set, FileAttribute[])}
     * @param attrs the permissions for a created file, as there
     * @return the open channel, which the caller closes
     * @throws IOException if the file cannot be opened (see {@link #open(IoEngine, Path, Set, FileAttribute[])}), or no
     *     engine can be created
     */
    public static JfioFileChannel open(Path path, Set<? extends OpenOption> options, FileAttribute<?>... attrs)
            throws IOException {
        return open(Engines.shared(), path, options, attrs);
    }

    /**
     * Opens {@code path} with its requests going to {@code engine}.
     *
     * <p>Options as for {@link FileChannel#open(Path, Set, FileAttribute[])}: without READ, WRITE or APPEND the file
     * is opened for reading; APPEND implies WRITE and cannot be combined with READ or TRUNCATE_EXISTING; CREATE,
     * CREATE_NEW and TRUNCATE_EXISTING only apply when writing; SPARSE is a hint and ignored; DELETE_ON_CLOSE
     * unlinks the file right after opening it, as the JDK does on Linux. Beyond those, {@link JfioOpenOption}s and
     * the JDK's {@code ExtendedOpenOption.DIRECT}.
     *
     * @param attrs at most {@code posix:permissions} (or {@code unix:permissions}) for a created file; default 0666
     *              less the umask
     * @param engine the engine for this channel's requests
     * @param path the file to open
     * @param options how to open it
     * @return the open channel, which the caller closes
     * @throws NoSuchFileException          if the file does not exist and is not to be created
     * @throws FileAlreadyExistsException   with CREATE_NEW, if it exists
     * @throws AccessDeniedException        if permissions deny the access asked for
     * @throws FileSystemException          for other failures of open(2), naming the errno
     * @throws UnsupportedOperationException for an option or attribute this channel does not know
     * @throws IllegalArgumentException     for an invalid combination of options
     */
    public static JfioFileChannel open(IoEngine engine, Path path, Set<? extends OpenOption> options,
                                       FileAttribute<?>... attrs) throws IOException {
        Objects.requireNonNull(engine, "engine");
        if (path.getFileSystem() != FileSystems.getDefault()) {
            throw new ProviderMismatchException("JfioFileChannel opens files of the default file system only: "
                    + path.getFileSystem());
        }
        boolean append = false;
        boolean deleteOnClose = false;
        Set<OpenOption> fileOptions = new HashSet<>();
        for (OpenOption o : options) {
            Objects.requireNonNull(o, "null open option");
            if (o == StandardOpenOption.APPEND) {
                append = true;
            } else if (o == StandardOpenOption.SPARSE) {
                continue; // a hint; the JDK ignores it on Linux too
            } else if (o == StandardOpenOption.DELETE_ON_CLOSE) {
                deleteOnClose = true;
            } else if (o instanceof StandardOpenOption || o == LinkOption.NOFOLLOW_LINKS
                    || o instanceof JfioOpenOption) {
                fileOptions.add(o);
            } else if (isJdkDirectOption(o)) {
                fileOptions.add(JfioOpenOption.DIRECT);
            } else {
                throw new UnsupportedOperationException(o + " not supported");
            }
        }
        boolean read = fileOptions.contains(StandardOpenOption.READ);
        boolean write = fileOptions.contains(StandardOpenOption.WRITE);
        if (!read && !write) {
            if (append) {
                write = true;
            } else {
                read = true;
            }
        }
        if (read && append) throw new IllegalArgumentException("READ + APPEND not allowed");
        if (append && fileOptions.contains(StandardOpenOption.TRUNCATE_EXISTING)) {
            throw new IllegalArgumentException("APPEND + TRUNCATE_EXISTING not allowed");
        }
        if (write) {
            fileOptions.add(StandardOpenOption.WRITE);
        } else {
            // The JDK ignores these on a channel that cannot write; IoFile would honour O_CREAT regardless.
            fileOptions.remove(StandardOpenOption.CREATE);
            fileOptions.remove(StandardOpenOption.CREATE_NEW);
            fileOptions.remove(StandardOpenOption.TRUNCATE_EXISTING);
        }
        if (read) fileOptions.add(StandardOpenOption.READ);
        boolean createNew = fileOptions.contains(StandardOpenOption.CREATE_NEW);
        if (deleteOnClose && !createNew) {
            // Never unlink whatever a symbolic link points to; the JDK adds O_NOFOLLOW for the same reason.
            fileOptions.add(LinkOption.NOFOLLOW_LINKS);
        }
        int mode = mode(attrs);
        IoFile f;
        try {
            f = IoFile.open(engine, path, fileOptions, mode, append);
        } catch (ErrnoException e) {
            throw translate(e, path, createNew);
        }
        if (deleteOnClose) {
            try {
                Files.deleteIfExists(path);
            } catch (IOException ignored) {
                // Best effort, as in the JDK: the channel is open either way.
            }
        }
        return new JfioFileChannel(f, read, write, append);
    }

    /**
     * A channel over an open {@link IoFile}, readable and writable as the file is. The channel owns the file from
     * now on: closing the channel closes it, and the file should no longer be closed or used directly.
     *
     * @param file the open file the channel reads and writes
     * @return the channel, owning {@code file}
     * @throws IllegalArgumentException if the file is already closed
     */
    public static JfioFileChannel wrap(IoFile file) {
        Objects.requireNonNull(file, "file");
        if (!file.isOpen()) throw new IllegalArgumentException("file is closed: " + file);
        return new JfioFileChannel(file, file.isReadable(), file.isWritable(), file.isAppend());
    }

    /** True for {@code com.sun.nio.file.ExtendedOpenOption.DIRECT}, named so as not to depend on jdk.unsupported. */
    private static boolean isJdkDirectOption(OpenOption o) {
        return o instanceof Enum<?> e && e.getDeclaringClass().getName().equals("com.sun.nio.file.ExtendedOpenOption")
                && e.name().equals("DIRECT");
    }

    private static int mode(FileAttribute<?>... attrs) {
        int mode = DEFAULT_MODE;
        for (FileAttribute<?> a : attrs) {
            String name = a.name();
            if (!name.equals("posix:permissions") && !name.equals("unix:permissions")) {
                throw new UnsupportedOperationException("'" + name + "' not supported as initial attribute");
            }
            mode = 0;
            for (Object p : (Set<?>) a.value()) {
                mode |= switch ((PosixFilePermission) p) {
                    case OWNER_READ -> 0400;
                    case OWNER_WRITE -> 0200;
                    case OWNER_EXECUTE -> 0100;
                    case GROUP_READ -> 040;
                    case GROUP_WRITE -> 020;
                    case GROUP_EXECUTE -> 010;
                    case OTHERS_READ -> 04;
                    case OTHERS_WRITE -> 02;
                    case OTHERS_EXECUTE -> 01;
                };
            }
        }
        return mode;
    }

    /** The java.nio.file exception code written against FileChannel.open expects for an errno of open(2). */
    private static IOException translate(ErrnoException e, Path path, boolean createNew) {
        String file = path.toString();
        FileSystemException x = switch (e.errno()) {
            case Errno.ENOENT -> new NoSuchFileException(file);
            case Errno.EEXIST -> new FileAlreadyExistsException(file);
            // Linux reports EISDIR for O_CREAT|O_EXCL on a directory; it exists all the same.
            case Errno.EISDIR -> createNew ? new FileAlreadyExistsException(file)
                    : new FileSystemException(file, null, e.getMessage());
            case Errno.EACCES, Errno.EPERM -> new AccessDeniedException(file, null, e.getMessage());
            default -> new FileSystemException(file, null, e.getMessage());
        };
        x.initCause(e);
        return x;
    }

    // ------------------------------------------------------------------ checks

    private void ensureOpen() throws ClosedChannelException {
        if (!isOpen()) throw new ClosedChannelException();
    }

    private void ensureReadable() {
        if (!readable) throw new NonReadableChannelException();
    }

    private void ensureWritable() {
        if (!writable) throw new NonWritableChannelException();
    }

    private static void checkNotReadOnly(ByteBuffer dst) {
        // The JDK's wording, so that code matching on it keeps working.
        if (dst.isReadOnly()) throw new IllegalArgumentException("Read-only buffer");
    }

    // ------------------------------------------------------------------ reads

    /**
     * Reads into {@code dst} at this channel's position and advances the position by the bytes read.
     *
     * @return bytes read, or -1 at or past end of file
     */
    @Override
    public int read(ByteBuffer dst) throws IOException {
        Objects.requireNonNull(dst, "dst");
        ensureOpen();
        ensureReadable();
        checkNotReadOnly(dst);
        synchronized (positionLock) {
            long pos = position;
            int n = readAt(dst, pos);
            if (n > 0) position = pos + n;
            return n;
        }
    }

    /**
     * Reads into {@code dst} at {@code position}; concurrent with other positional operations, and does not
     * touch this channel's position.
     *
     * @return bytes read, or -1 at or past end of file
     */
    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
        Objects.requireNonNull(dst, "dst");
        if (position < 0) throw new IllegalArgumentException("Negative position");
        ensureOpen();
        ensureReadable();
        checkNotReadOnly(dst);
        return readAt(dst, position);
    }

    /**
     * Reads into {@code dsts[offset .. offset+length)}, filling them in order, at this channel's position, with one
     * preadv per {@link IoFile#IOV_MAX} buffers.
     *
     * @return bytes read, or -1 at or past end of file
     */
    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, dsts.length);
        ensureOpen();
        ensureReadable();
        for (int i = offset; i < offset + length; i++) checkNotReadOnly(dsts[i]);
        synchronized (positionLock) {
            long pos = position;
            long n = 0;
            try {
                begin();
                if (!isOpen()) return 0;
                n = scatter(dsts, offset, offset + length, pos);
                if (n > 0) position = pos + n;
                return n;
            } finally {
                end(n > 0);
            }
        }
    }

    private int readAt(ByteBuffer dst, long pos) throws IOException {
        int n = 0;
        try {
            begin();
            if (!isOpen()) return -1; // closed by an interrupt or another thread: end() throws
            if (!dst.hasRemaining()) return 0;
            n = dst.isDirect() ? readDirect(dst, pos) : readHeap(dst, pos);
            return n;
        } finally {
            end(n > 0);
        }
    }

    private int readDirect(ByteBuffer dst, long pos) throws IOException {
        // One request, as the JDK makes one pread: a short count is a valid FileChannel result.
        int n = file.read(dst, pos);
        return n == 0 ? -1 : n;
    }

    private int readHeap(ByteBuffer dst, long pos) throws IOException {
        int rem = dst.remaining();
        MemorySegment tmp = TempBuffers.take(Math.min(rem, COPY_CHUNK));
        int total = 0;
        try {
            MemorySegment target = MemorySegment.ofBuffer(dst);
            while (total < rem) {
                int want = (int) Math.min(rem - total, tmp.byteSize());
                int n;
                try {
                    n = file.read(tmp.asSlice(0, want), pos + total);
                } catch (IOException e) {
                    if (total > 0) break; // report what arrived; the next call meets the error again
                    throw e;
                }
                if (n == 0) break;
                MemorySegment.copy(tmp, 0, target, total, n);
                total += n;
                if (n < want) break;
            }
        } finally {
            dst.position(dst.position() + total);
            TempBuffers.give(tmp);
        }
        return total == 0 ? -1 : total;
    }

    // ------------------------------------------------------------------ writes

    /**
     * Writes all of {@code src} at this channel's position (at the end of the file in append mode) and advances
     * the position by the bytes written.
     *
     * @return bytes written: all of {@code src} unless an error stopped the write part way
     */
    @Override
    public int write(ByteBuffer src) throws IOException {
        Objects.requireNonNull(src, "src");
        ensureOpen();
        ensureWritable();
        synchronized (positionLock) {
            long pos = position;
            // In append mode the descriptor's O_APPEND makes the kernel ignore the offset.
            int n = writeAt(src, append ? 0 : pos);
            if (n > 0 && !append) position = pos + n;
            return n;
        }
    }

    /**
     * Writes all of {@code src} at {@code position}; concurrent with other positional operations, and does not
     * touch this channel's position. In append mode the bytes are appended instead (as with the JDK on Linux).
     *
     * @return bytes written: all of {@code src} unless an error stopped the write part way
     */
    @Override
    public int write(ByteBuffer src, long position) throws IOException {
        Objects.requireNonNull(src, "src");
        if (position < 0) throw new IllegalArgumentException("Negative position");
        ensureOpen();
        ensureWritable();
        return writeAt(src, position);
    }

    /**
     * Writes all of {@code srcs[offset .. offset+length)}, in order, at this channel's position (at the end of the
     * file in append mode), with one pwritev per {@link IoFile#IOV_MAX} buffers.
     *
     * @return bytes written: all remaining bytes unless an error stopped the write part way
     */
    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, srcs.length);
        ensureOpen();
        ensureWritable();
        for (int i = offset; i < offset + length; i++) Objects.requireNonNull(srcs[i], "srcs[" + i + "]");
        synchronized (positionLock) {
            long pos = position;
            long n = 0;
            try {
                begin();
                if (!isOpen()) return 0;
                n = gather(srcs, offset, offset + length, append ? 0 : pos);
                if (n > 0 && !append) position = pos + n;
                return n;
            } finally {
                end(n > 0);
            }
        }
    }

    private int writeAt(ByteBuffer src, long pos) throws IOException {
        int n = 0;
        try {
            begin();
            if (!isOpen()) return 0;
            if (!src.hasRemaining()) return 0;
            n = src.isDirect() ? writeDirect(src, pos) : writeHeap(src, pos);
            return n;
        } finally {
            end(n > 0);
        }
    }

    private int writeDirect(ByteBuffer src, long pos) throws IOException {
        int total = 0;
        while (src.hasRemaining()) {
            int n;
            try {
                n = file.write(src, pos + total);
            } catch (IOException e) {
                if (total > 0) break; // report what was written; the next call meets the error again
                throw e;
            }
            total += n;
            // No progress, or a short O_DIRECT write whose remainder would be misaligned: report what was done.
            if (n == 0 || (file.isDirect() && src.hasRemaining())) break;
        }
        return total;
    }

    private int writeHeap(ByteBuffer src, long pos) throws IOException {
        int rem = src.remaining();
        MemorySegment from = MemorySegment.ofBuffer(src);
        MemorySegment tmp = TempBuffers.take(Math.min(rem, COPY_CHUNK));
        int total = 0;
        try {
            while (total < rem) {
                int len = (int) Math.min(rem - total, tmp.byteSize());
                MemorySegment.copy(from, total, tmp, 0, len);
                long done = writeFully(tmp.asSlice(0, len), pos + total, total > 0);
                total += (int) done;
                if (done < len) break;
            }
        } finally {
            src.position(src.position() + total);
            TempBuffers.give(tmp);
        }
        return total;
    }

    /**
     * Writes {@code seg} at {@code pos}, looping over short writes. Stops early, returning the bytes written, on no
     * progress, on a short O_DIRECT write, or on an error after some progress ({@code progressed} counts earlier
     * progress of the same call: the error then surfaces on the next call instead).
     */
    private long writeFully(MemorySegment seg, long pos, boolean progressed) throws IOException {
        long done = 0;
        long size = seg.byteSize();
        while (done < size) {
            int n;
            try {
                n = file.write(seg.asSlice(done), pos + done);
            } catch (IOException e) {
                if (progressed || done > 0) break;
                throw e;
            }
            done += n;
            if (n == 0 || (file.isDirect() && done < size)) break;
        }
        return done;
    }

    // ------------------------------------------------------------------ scattering and gathering

    /** One preadv or pwritev: the segments, the buffers they belong to, and the temporary buffer for heap ones. */
    private static final class Round {
        final MemorySegment[] segs;
        final ByteBuffer[] owners;
        int count;
        long bytes;
        MemorySegment tmp;

        Round(int capacity) {
            segs = new MemorySegment[capacity];
            owners = new ByteBuffer[capacity];
        }

        MemorySegment[] segments() {
            return count == segs.length ? segs : Arrays.copyOf(segs, count);
        }

        void release() {
            if (tmp != null) TempBuffers.give(tmp);
            tmp = null;
        }
    }

    /**
     * Builds the next request over {@code bufs[from .. to)}: buffers with bytes remaining, in order, at most
     * {@link IoFile#IOV_MAX} of them, direct ones in place and heap ones in one temporary buffer of at most
     * {@link #COPY_CHUNK} bytes (a heap buffer that does not fit in full ends the round). For writes the heap bytes
     * are copied in.
     */
    private static Round round(ByteBuffer[] bufs, int from, int to, boolean forWrite) {
        long heap = 0;
        int candidates = 0;
        for (int i = from; i < to && candidates < IoFile.IOV_MAX; i++) {
            int rem = bufs[i].remaining();
            if (rem == 0) continue;
            candidates++;
            if (!bufs[i].isDirect()) heap += rem;
        }
        Round r = new Round(candidates);
        if (candidates == 0) return r;
        if (heap > 0) r.tmp = TempBuffers.take(Math.min(heap, COPY_CHUNK));
        long tmpUsed = 0;
        for (int i = from; i < to && r.count < candidates; i++) {
            ByteBuffer b = bufs[i];
            int rem = b.remaining();
            if (rem == 0) continue;
            MemorySegment s;
            boolean last = false;
            if (b.isDirect()) {
                s = MemorySegment.ofBuffer(b);
            } else {
                long room = r.tmp.byteSize() - tmpUsed;
                if (room == 0) break;
                long take = Math.min(rem, room);
                s = r.tmp.asSlice(tmpUsed, take);
                tmpUsed += take;
                if (forWrite) MemorySegment.copy(MemorySegment.ofBuffer(b), 0, s, 0, take);
                last = take < rem;
            }
            r.segs[r.count] = s;
            r.owners[r.count] = b;
            r.count++;
            r.bytes += s.byteSize();
            if (last) break;
        }
        return r;
    }

    /** Advances the buffers of {@code r} over the {@code n} bytes transferred; copies read bytes to heap ones. */
    private static void settle(Round r, long n, boolean forRead) {
        long left = n;
        for (int k = 0; k < r.count && left > 0; k++) {
            ByteBuffer b = r.owners[k];
            int m = (int) Math.min(left, r.segs[k].byteSize());
            if (forRead && !b.isDirect()) MemorySegment.copy(r.segs[k], 0, MemorySegment.ofBuffer(b), 0, m);
            b.position(b.position() + m);
            left -= m;
        }
    }

    private long scatter(ByteBuffer[] dsts, int from, int to, long pos) throws IOException {
        long total = 0;
        while (true) {
            Round r = round(dsts, from, to, false);
            if (r.count == 0) return total;
            long n;
            try {
                n = file.readv(r.segments(), pos + total);
                settle(r, n, true);
            } catch (IOException e) {
                if (total > 0) return total;
                throw e;
            } finally {
                r.release();
            }
            if (n == 0) return total == 0 ? -1 : total;
            total += n;
            // A short read means end of file (or a signal): stop. A full round that was cut by IOV_MAX or by the
            // temporary buffer's size goes on with the next buffers.
            if (n < r.bytes) return total;
        }
    }

    private long gather(ByteBuffer[] srcs, int from, int to, long pos) throws IOException {
        long total = 0;
        while (true) {
            Round r = round(srcs, from, to, true);
            if (r.count == 0) return total;
            long n;
            try {
                n = file.writev(r.segments(), pos + total);
                settle(r, n, false);
            } catch (IOException e) {
                if (total > 0) return total;
                throw e;
            } finally {
                r.release();
            }
            total += n;
            // Short writes go round again from where the buffers now stand, except with O_DIRECT where the rest
            // would be misaligned.
            if (n == 0 || (file.isDirect() && n < r.bytes)) return total;
        }
    }

    // ------------------------------------------------------------------ position, size, truncate, force

    /** This channel's position; in append mode the file's size, where the next relative write will go. */
    @Override
    public long position() throws IOException {
        ensureOpen();
        if (append) return size();
        synchronized (positionLock) {
            boolean completed = false;
            try {
                // No I/O here, but FileChannel's rule holds for every call: an interrupted caller closes the channel.
                begin();
                if (!isOpen()) return 0;
                completed = true;
                return position;
            } finally {
                end(completed);
            }
        }
    }

    /**
     * Sets the position for relative operations; beyond the end of file reads return -1 and writes extend the file.
     * In append mode it has no effect on where writes go.
     */
    @Override
    public JfioFileChannel position(long newPosition) throws IOException {
        ensureOpen();
        if (newPosition < 0) throw new IllegalArgumentException("Negative position");
        synchronized (positionLock) {
            boolean completed = false;
            try {
                begin();
                if (!isOpen()) return null;
                position = newPosition;
                completed = true;
                return this;
            } finally {
                end(completed);
            }
        }
    }

    /** The file's current size. */
    @Override
    public long size() throws IOException {
        ensureOpen();
        long s = -1;
        try {
            begin();
            if (!isOpen()) return -1;
            s = file.size();
            return s;
        } finally {
            end(s >= 0);
        }
    }

    /**
     * Truncates the file to {@code size} if it is longer (a larger size leaves the file unchanged) and brings this
     * channel's position down to {@code size} if it was beyond.
     */
    @Override
    public JfioFileChannel truncate(long size) throws IOException {
        ensureOpen();
        if (size < 0) throw new IllegalArgumentException("Negative size");
        ensureWritable();
        synchronized (positionLock) {
            boolean completed = false;
            try {
                begin();
                if (!isOpen()) return null;
                if (size < file.size()) file.truncate(size);
                if (position > size) position = size;
                completed = true;
                return this;
            } finally {
                end(completed);
            }
        }
    }

    /** fsync(2) with {@code metaData}, fdatasync(2) without: the file's content is durable when this returns. */
    @Override
    public void force(boolean metaData) throws IOException {
        ensureOpen();
        boolean completed = false;
        try {
            begin();
            if (!isOpen()) return;
            if (metaData) {
                file.sync();
            } else {
                file.datasync();
            }
            completed = true;
        } finally {
            end(completed);
        }
    }

    // ------------------------------------------------------------------ transfers

    /**
     * Transfers up to {@code count} bytes from {@code position} of this file to {@code target}, without touching
     * this channel's position. Nothing is transferred, and 0 returned, when {@code position} is at or beyond the
     * end of the file.
     *
     * <p>To another {@code JfioFileChannel} (not in append mode) the bytes move with copy_file_range(2) at the
     * target's position, which then advances; any other target, plain JDK channels included, is written to through
     * a direct buffer, and a target that accepts fewer bytes than offered (a non-blocking socket) ends the
     * transfer.
     */
    @Override
    public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
        ensureOpen();
        if (!target.isOpen()) throw new ClosedChannelException();
        ensureReadable();
        if (target instanceof JfioFileChannel t && !t.writable) throw new NonWritableChannelException();
        if (position < 0 || count < 0) throw new IllegalArgumentException("Negative position or count");
        try {
            long size = size();
            if (position > size) return 0;
            long max = count;
            // Files that report size 0 (in /proc, say) may still have content: only the buffer loop finds it.
            if (size > 0) {
                max = Math.min(count, size - position);
                if (max == 0) return 0;
                if (target instanceof JfioFileChannel t && !t.append) {
                    long n = copyRangeTo(t, position, max);
                    if (n >= 0) return n;
                }
            }
            return transferToArbitrary(position, max, target);
        } catch (ClosedChannelException e) {
            throw transferFailed(e, target);
        }
    }

    /**
     * Transfers up to {@code count} bytes from {@code src} into this file at {@code position}, without touching
     * this channel's position; a position beyond the end grows the file (the current FileChannel specification).
     * Returns 0 once {@code src} is at end of stream.
     *
     * <p>From another {@code JfioFileChannel} the bytes move with copy_file_range(2) from the source's position,
     * which then advances; any other source, plain JDK channels included, is read through a direct buffer.
     */
    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count) throws IOException {
        ensureOpen();
        if (!src.isOpen()) throw new ClosedChannelException();
        if (src instanceof JfioFileChannel s && !s.readable) throw new NonReadableChannelException();
        ensureWritable();
        if (position < 0 || count < 0) throw new IllegalArgumentException("Negative position or count");
        try {
            if (count == 0) return 0;
            if (src instanceof JfioFileChannel s && !append && s.size() > 0) {
                long n = copyRangeFrom(s, position, count);
                if (n >= 0) return n;
            }
            return transferFromArbitrary(src, position, count);
        } catch (ClosedChannelException e) {
            throw transferFailed(e, src);
        }
    }

    /** copy_file_range errors after which a transfer goes on through a buffer instead of failing. */
    private static boolean copyUnsupported(IOException e) {
        return e instanceof ErrnoException ee && switch (ee.errno()) {
            case Errno.EXDEV, Errno.ENOSYS, Errno.EINVAL, Errno.EOPNOTSUPP -> true;
            default -> false;
        };
    }

    /**
     * Copies from this file at {@code position} to {@code target} at its position, advancing it. Returns -1 if
     * copy_file_range cannot serve these files at all (before any byte moved), so the caller takes the buffer path.
     */
    private long copyRangeTo(JfioFileChannel target, long position, long count) throws IOException {
        synchronized (target.positionLock) {
            long base = target.position;
            long done = copyRange(this, position, target, base, count);
            if (done > 0) target.position = base + done;
            return done;
        }
    }

    /** Copies from {@code src} at its position to this file at {@code position}, advancing the source. */
    private long copyRangeFrom(JfioFileChannel src, long position, long count) throws IOException {
        synchronized (src.positionLock) {
            long base = src.position;
            long done = copyRange(src, base, this, position, count);
            if (done > 0) src.position = base + done;
            return done;
        }
    }

    /**
     * The copy_file_range loop, interruptible through this channel: an interrupt closes it, the next call fails and
     * end() turns that into {@link ClosedByInterruptException} (and {@link #transferFailed} closes the other end).
     * Returns the bytes copied (fewer than {@code count} at the source's end of file or after an error that
     * followed some progress), or -1 if the first call said the files cannot be copied between this way.
     */
    private long copyRange(JfioFileChannel in, long inPos, JfioFileChannel out, long outPos, long count)
            throws IOException {
        long done = 0;
        try {
            begin();
            if (!isOpen()) return 0;
            while (done < count) {
                long n;
                try {
                    n = in.file.copyRange(inPos + done, out.file, outPos + done,
                            Math.min(count - done, COPY_RANGE_CHUNK));
                } catch (IOException e) {
                    if (done > 0) break;
                    if (copyUnsupported(e)) return -1;
                    throw e;
                }
                if (n == 0) break; // the source ended (it may have shrunk since its size was read)
                done += n;
            }
            return done;
        } finally {
            end(done > 0);
        }
    }

    private long transferToArbitrary(long position, long count, WritableByteChannel target) throws IOException {
        if (count == 0) return 0;
        Scratch s = Scratch.of(Math.min(count, TRANSFER_CHUNK), target instanceof JfioFileChannel
                || isJdkChannel(target));
        ByteBuffer bb = s.buffer;
        long tw = 0;
        long pos = position;
        try {
            while (tw < count) {
                bb.clear().limit((int) Math.min(count - tw, bb.capacity()));
                int nr = read(bb, pos);
                if (nr <= 0) break;
                bb.flip();
                int nw = target.write(bb);
                tw += nw;
                if (nw != nr) break; // a non-blocking target took less: the rest stays for the next call
                pos += nw;
            }
            return tw;
        } catch (IOException e) {
            if (tw > 0) return tw;
            throw e;
        } finally {
            s.release();
        }
    }

    private long transferFromArbitrary(ReadableByteChannel src, long position, long count) throws IOException {
        Scratch s = Scratch.of(Math.min(count, TRANSFER_CHUNK), src instanceof JfioFileChannel || isJdkChannel(src));
        ByteBuffer bb = s.buffer;
        long tw = 0;
        long pos = position;
        try {
            while (tw < count) {
                bb.clear().limit((int) Math.min(count - tw, bb.capacity()));
                int nr = src.read(bb);
                if (nr <= 0) break;
                bb.flip();
                int nw = write(bb, pos);
                tw += nw;
                if (nw != nr) break;
                pos += nw;
            }
            return tw;
        } catch (IOException e) {
            if (tw > 0) return tw;
            throw e;
        } finally {
            s.release();
        }
    }

    /** Channels implemented in java.base, which neither keep nor peek beyond the buffer they are handed. */
    private static boolean isJdkChannel(Channel c) {
        return c.getClass().getName().startsWith("sun.nio.ch.");
    }

    /**
     * The buffer of a transfer through user space. A cached temporary buffer may hold another file's bytes beyond
     * the limit and is reused after the call; a channel of unknown code could read those or keep the buffer, so
     * such channels get a fresh buffer of their own, as the JDK gives them.
     */
    private static final class Scratch {
        final ByteBuffer buffer;
        private final MemorySegment cached;

        private Scratch(ByteBuffer buffer, MemorySegment cached) {
            this.buffer = buffer;
            this.cached = cached;
        }

        static Scratch of(long size, boolean trusted) {
            if (!trusted) return new Scratch(ByteBuffer.allocateDirect((int) size), null);
            MemorySegment seg = TempBuffers.take(size);
            return new Scratch(seg.asSlice(0, size).asByteBuffer(), seg);
        }

        void release() {
            if (cached != null) TempBuffers.give(cached);
        }
    }

    /**
     * What a transfer throws when a channel was found closed part way: {@link ClosedByInterruptException}, closing
     * both channels, if this thread was interrupted; otherwise {@link AsynchronousCloseException}.
     */
    private AsynchronousCloseException transferFailed(ClosedChannelException e, Channel other) {
        ClosedByInterruptException interrupted = null;
        if (e instanceof ClosedByInterruptException cbie) {
            interrupted = cbie;
        } else if (Thread.currentThread().isInterrupted()) {
            interrupted = new ClosedByInterruptException();
            interrupted.addSuppressed(e);
        }
        if (interrupted != null) {
            closeQuietly(this, interrupted);
            closeQuietly(other, interrupted);
            return interrupted;
        }
        if (e instanceof AsynchronousCloseException ace) return ace;
        AsynchronousCloseException ace = new AsynchronousCloseException();
        ace.addSuppressed(e);
        return ace;
    }

    private static void closeQuietly(Channel c, Throwable into) {
        try {
            c.close();
        } catch (IOException x) {
            into.addSuppressed(x);
        }
    }

    // ------------------------------------------------------------------ map and lock, delegated

    /**
     * The plain channel that serves {@link #map} and {@link #lock}: {@code /proc/self/fd/N} reopens this channel's
     * open file, whatever has happened to its path since, with the same access.
     */
    private FileChannel delegate() throws IOException {
        synchronized (delegateLock) {
            ensureOpen();
            FileChannel d = delegate;
            if (d == null) {
                Set<OpenOption> access = new HashSet<>();
                if (readable) access.add(StandardOpenOption.READ);
                if (writable) access.add(StandardOpenOption.WRITE);
                // Holding the descriptor while reopening it: the number cannot be reused for another file meanwhile.
                d = file.withDescriptor(fd -> FileChannel.open(Path.of("/proc/self/fd/" + fd), access));
                delegate = d;
            }
            return d;
        }
    }

    /**
     * Maps a region of the file, through a plain JDK {@code FileChannel} on the same open file (see the class
     * documentation). The mapping stays valid after this channel is closed, as with the JDK.
     */
    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
        ensureOpen();
        return delegate().map(mode, position, size);
    }

    /**
     * Maps a region of the file as a segment of {@code arena}, through a plain JDK {@code FileChannel} on the same
     * open file (see the class documentation). For regions over 2 GiB without a JDK channel, see {@link Mapping}.
     */
    @Override
    public MemorySegment map(MapMode mode, long offset, long size, Arena arena) throws IOException {
        ensureOpen();
        return delegate().map(mode, offset, size, arena);
    }

    /**
     * Locks a region of the file, through a plain JDK {@code FileChannel} on the same open file (see the class
     * documentation); the lock's {@link FileLock#channel()} is this channel. An interrupt while waiting throws
     * {@link FileLockInterruptionException} and closes this channel, as with the JDK.
     */
    @Override
    public FileLock lock(long position, long size, boolean shared) throws IOException {
        ensureOpen();
        if (shared) {
            ensureReadable();
        } else {
            ensureWritable();
        }
        FileChannel d = delegate();
        try {
            return new DelegatedLock(this, d.lock(position, size, shared));
        } catch (FileLockInterruptionException e) {
            // The interrupt closed the delegate; FileChannel's contract closes the channel itself too.
            closeQuietly(this, e);
            throw e;
        } catch (ClosedChannelException e) {
            throw closedDuringLock(e);
        }
    }

    /**
     * Tries to lock a region of the file without waiting, through a plain JDK {@code FileChannel} on the same open
     * file (see the class documentation).
     *
     * @return the lock, or null if another process holds an overlapping one
     */
    @Override
    public FileLock tryLock(long position, long size, boolean shared) throws IOException {
        ensureOpen();
        if (shared) {
            ensureReadable();
        } else {
            ensureWritable();
        }
        FileChannel d = delegate();
        try {
            FileLock l = d.tryLock(position, size, shared);
            return l == null ? null : new DelegatedLock(this, l);
        } catch (ClosedChannelException e) {
            throw closedDuringLock(e);
        }
    }

    private ClosedChannelException closedDuringLock(ClosedChannelException e) {
        // The delegate is closed only with this channel: report it as this channel's closing.
        if (isOpen() || e instanceof AsynchronousCloseException) return e;
        AsynchronousCloseException ace = new AsynchronousCloseException();
        ace.addSuppressed(e);
        return ace;
    }

    /** A lock held through the delegate channel, presented as this channel's. */
    private static final class DelegatedLock extends FileLock {
        private final FileLock inner;

        DelegatedLock(JfioFileChannel channel, FileLock inner) {
            super(channel, inner.position(), inner.size(), inner.isShared());
            this.inner = inner;
        }

        @Override
        public boolean isValid() {
            return inner.isValid();
        }

        @Override
        public void release() throws IOException {
            inner.release();
        }
    }

    // ------------------------------------------------------------------ closing

    /**
     * Closes the delegate channel of map and lock, if it was opened (releasing locks), and the {@link IoFile}, whose
     * descriptor is closed once requests in flight have completed.
     */
    @Override
    protected void implCloseChannel() throws IOException {
        IOException failure = null;
        synchronized (delegateLock) {
            FileChannel d = delegate;
            if (d != null) {
                try {
                    d.close();
                } catch (IOException e) {
                    failure = e;
                }
            }
        }
        file.close();
        if (failure != null) throw failure;
    }

    @Override
    public String toString() {
        return "JfioFileChannel[path=" + file.path() + " engine=" + file.engine().name()
                + (readable ? " read" : "") + (writable ? " write" : "") + (append ? " append" : "")
                + (file.isDirect() ? " O_DIRECT" : "") + (isOpen() ? "" : " closed") + "]";
    }
}
