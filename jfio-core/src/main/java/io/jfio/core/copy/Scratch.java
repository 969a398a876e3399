package io.jfio.core.copy;

import io.jfio.core.engine.IoArena;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import io.jfio.core.sys.Statx;
import io.jfio.core.sys.Timespec;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The native memory one worker thread reuses for every system call: path buffers, a statx buffer, the timespec
 * pair, copy_file_range offsets, a getdents64 buffer, xattr buffers and a data buffer. Nothing is allocated per file.
 *
 * <p>Not thread-safe; owned by one worker thread (the arena is confined to it). {@link #close()} frees it all.
 */
final class Scratch implements AutoCloseable {
    static final int DENTS_SIZE = 64 << 10;

    private final Arena arena = Arena.ofConfined();
    /** Source path. */
    final MemorySegment src = arena.allocate(Fcntl.PATH_MAX + 1);
    /** Target path. */
    final MemorySegment dst = arena.allocate(Fcntl.PATH_MAX + 1);
    /** A third path: temporary names, /proc/self/fd/N, symlink targets. */
    final MemorySegment aux = arena.allocate(Fcntl.PATH_MAX + 1);
    /** A temporary name's path in the target directory. */
    final MemorySegment tmp = arena.allocate(Fcntl.PATH_MAX + 1);
    /** A directory's path below its root, or one component of it (see {@link DirFds}). */
    final MemorySegment dirPath = arena.allocate(Fcntl.PATH_MAX + 1);
    /** /proc/self/fd/N/name of a source entry and of its copy, for the xattr calls that take only a path. */
    final MemorySegment procSrc = arena.allocate(Fcntl.PATH_MAX + 1);
    final MemorySegment procDst = arena.allocate(Fcntl.PATH_MAX + 1);
    /** struct open_how for openat2. */
    final MemorySegment openHow = arena.allocate(Fcntl.OPEN_HOW_SIZE, 8);
    /** The empty string, for AT_EMPTY_PATH (the arena zeroes it; nothing writes it). */
    final MemorySegment empty = arena.allocate(1);
    final MemorySegment statx = arena.allocate(Statx.LAYOUT);
    final MemorySegment statx2 = arena.allocate(Statx.LAYOUT);
    final MemorySegment times = arena.allocate(Timespec.LAYOUT, 2);
    final MemorySegment offIn = arena.allocate(8, 8);
    final MemorySegment offOut = arena.allocate(8, 8);
    final MemorySegment cacheRange = arena.allocate(LibC.CACHESTAT_RANGE_SIZE, 8);
    final MemorySegment cacheStat = arena.allocate(LibC.CACHESTAT_SIZE, 8);
    final MemorySegment dents = arena.allocate(DENTS_SIZE, 8);
    final MemorySegment xattrNames = arena.allocate(Fcntl.XATTR_LIST_MAX);
    final MemorySegment xattrValue = arena.allocate(Fcntl.XATTR_SIZE_MAX);
    final MemorySegment xattrName = arena.allocate(Fcntl.NAME_MAX + 1);
    private final int blockSize;
    private MemorySegment data;
    private IoArena io;
    private MemorySegment verify;

    Scratch(int blockSize) {
        this.blockSize = blockSize;
    }

    /** A {@code blockSize} buffer, page-aligned, allocated on first use. */
    MemorySegment data() {
        if (data == null) data = arena.allocate(blockSize, 4096);
        return data;
    }

    /** A second {@code blockSize} buffer for verification. */
    MemorySegment verify() {
        if (verify == null) verify = arena.allocate(blockSize, 4096);
        return verify;
    }

    /** Memory that lives as long as this worker, for io_uring buffers. */
    Arena arena() {
        return arena;
    }

    /**
     * Memory for asynchronous requests, which the engine fills directly (no bounce buffer) and which stays allocated
     * until the last request on it completed, even past {@link #close()}.
     */
    IoArena ioArena() {
        if (io == null) io = IoArena.ofShared();
        return io;
    }

    @Override
    public void close() {
        arena.close();
        if (io != null) io.close();
    }
}
