package io.jfio.core.sys;

/**
 * Flags for mmap, madvise and mincore, from asm-generic/mman-common.h (same on x86_64 and aarch64).
 *
 * <p>Thread-safe; constants only.
 */
public final class Mman {
    public static final int PROT_NONE = 0;                  // PROT_NONE
    public static final int PROT_READ = 1;                  // PROT_READ
    public static final int PROT_WRITE = 1 << 1;           // PROT_WRITE
    public static final int MAP_SHARED = 0x01;              // MAP_SHARED
    public static final int MAP_PRIVATE = 0x02;             // MAP_PRIVATE
    public static final int MAP_ANONYMOUS = 0x20;           // MAP_ANONYMOUS
    public static final int MAP_POPULATE = 0x8000;          // MAP_POPULATE
    public static final int MADV_NORMAL = 0;                // MADV_NORMAL
    public static final int MADV_RANDOM = 1;                // MADV_RANDOM
    public static final int MADV_SEQUENTIAL = 2;            // MADV_SEQUENTIAL
    public static final int MADV_WILLNEED = 3;              // MADV_WILLNEED
    public static final int MADV_DONTNEED = 4;              // MADV_DONTNEED
    public static final int MADV_HUGEPAGE = 14;             // MADV_HUGEPAGE
    public static final int MADV_POPULATE_READ = 22;        // MADV_POPULATE_READ (Linux 5.14)

    private Mman() {
    }
}
