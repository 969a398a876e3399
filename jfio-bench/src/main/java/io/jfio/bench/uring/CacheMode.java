package io.jfio.bench.uring;

import java.util.Locale;

/** The page-cache state a benchmark cell reads under. */
public enum CacheMode {
    /** The whole file is in the page cache (verified with mincore before and after each repetition). */
    HOT,
    /** The file was evicted (fdatasync + POSIX_FADV_DONTNEED, verified with mincore) before each repetition. */
    COLD,
    /** O_DIRECT: the page cache is bypassed. */
    DIRECT;

    /** Lower-case name, as typed on the command line. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses {@code hot}, {@code cold} or {@code direct} (any case). */
    public static CacheMode parse(String s) {
        try {
            return valueOf(s.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid cache mode '" + s + "': expected hot, cold or direct");
        }
    }

    @Override
    public String toString() {
        return label();
    }
}
