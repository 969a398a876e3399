package io.jfio.core.file;

import io.jfio.core.sys.ErrnoException;
import io.jfio.core.sys.LibC;
import io.jfio.core.sys.Mman;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A memory mapping of a file region as one {@link MemorySegment}, of any size (files over 2 GiB included, unlike
 * {@link java.nio.MappedByteBuffer}).
 *
 * <p>Thread-safe: the segment belongs to a shared arena, so any thread may read it. {@link #close()} unmaps: the
 * segment is invalidated first, so an access after close throws {@link IllegalStateException} instead of touching
 * unmapped memory. Idempotent. The mapping stays valid after the file is closed.
 */
public final class Mapping implements AutoCloseable {
    private final Arena arena;
    private final MemorySegment segment;
    private final long address;
    private final long length;
    private final String path;

    private Mapping(Arena arena, MemorySegment segment, long address, long length, String path) {
        this.arena = arena;
        this.segment = segment;
        this.address = address;
        this.length = length;
        this.path = path;
    }

    /**
     * Maps {@code [offset, offset+length)} of {@code file}, shared (writes, when {@code writable}, go to the file).
     *
     * @param offset a multiple of the page size
     * @param populate prefault the pages (MAP_POPULATE), paying the page faults now instead of on first touch
     * @param file the open file to map
     * @param length how many bytes to map, positive
     * @param writable whether the mapping may be written (the file must be open for writing)
     * @return the mapping, which the caller closes
     * @throws IOException if mmap(2) fails (the message names the call and the errno)
     */
    public static Mapping map(IoFile file, long offset, long length, boolean writable, boolean populate)
            throws IOException {
        return map(file.fd(), file.path().toString(), offset, length, writable, populate);
    }

    /**
     * Maps a region of a raw descriptor; see {@link #map(IoFile, long, long, boolean, boolean)}.
     *
     * @param fd the open descriptor to map
     * @param path the file's path, for messages
     * @param offset where the mapping starts in the file, a multiple of the page size
     * @param length how many bytes to map, positive
     * @param writable whether the mapping may be written (the descriptor must be open for writing)
     * @param populate prefault the pages (MAP_POPULATE)
     * @return the mapping, which the caller closes
     * @throws IOException if mmap(2) fails (the message names the call and the errno)
     */
    public static Mapping map(int fd, String path, long offset, long length, boolean writable, boolean populate)
            throws IOException {
        if (length <= 0) throw new IllegalArgumentException("mapping length must be positive: length=" + length);
        if (offset < 0 || offset % LibC.pageSize() != 0) {
            throw new IllegalArgumentException("mapping offset must be a non-negative multiple of the page size "
                    + LibC.pageSize() + ": offset=" + offset);
        }
        int prot = Mman.PROT_READ | (writable ? Mman.PROT_WRITE : 0);
        int flags = Mman.MAP_SHARED | (populate ? Mman.MAP_POPULATE : 0);
        long addr = ErrnoException.check(LibC.mmap(0, length, prot, flags, fd, offset), "mmap", fd, path, offset,
                length);
        Arena arena = Arena.ofShared();
        MemorySegment seg = MemorySegment.ofAddress(addr).reinterpret(length, arena, null);
        return new Mapping(arena, seg, addr, length, path);
    }

    /** The mapped bytes. Touching beyond the end of the file raises SIGBUS in the kernel: the JVM reports an
     * {@link InternalError}.
     *
     * @return the mapped memory, valid until {@link #close()}
     */
    public MemorySegment segment() {
        return segment;
    }

    /**
     * The mapping's length in bytes.
     *
     * @return the length asked for at {@link #map}
     */
    public long length() {
        return length;
    }

    /**
     * madvise(2) on the whole mapping, e.g. {@link Mman#MADV_SEQUENTIAL}.
     *
     * @param advice an {@code MADV_*} value, as for madvise(2)
     * @throws IOException if madvise fails (the message names the call and the errno)
     */
    public void advise(int advice) throws IOException {
        ErrnoException.check(LibC.madvise(address, length, advice), "madvise", -1, path, 0, length);
    }

    /**
     * Pages of the mapping resident in memory (mincore(2)), out of {@link #pages()}.
     *
     * @return how many of the mapping's pages are resident
     * @throws IOException if mincore fails (the message names the call and the errno)
     */
    public long residentPages() throws IOException {
        return PageCache.mincoreResident(address, length, path);
    }

    /**
     * Pages the mapping spans.
     *
     * @return the length in pages, rounded up
     */
    public long pages() {
        int page = LibC.pageSize();
        return (length + page - 1) / page;
    }

    /** Unmaps. Idempotent. Fails with {@link IllegalStateException} while another thread is accessing it. */
    @Override
    public void close() {
        if (!arena.scope().isAlive()) return;
        arena.close(); // invalidates the segment first; a concurrent reader gets IllegalStateException, never SIGSEGV
        LibC.munmap(address, length);
    }
}
