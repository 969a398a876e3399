package io.jfio.bench.suite;

import io.jfio.bench.Units;
import io.jfio.core.file.PageCache;
import java.io.IOException;
import java.nio.file.Path;

/**
 * The page-cache state of a file right before a measurement: what the cell asked for (cold or hot) and the
 * residency mincore reported. A cell whose residency does not match is flagged, never silently reported.
 *
 * <p>Immutable.
 *
 * @param wanted   cold or hot
 * @param resident fraction of the file's pages resident (0..1)
 */
public record CacheState(Cache wanted, double resident) {
    /** Residency at most this counts as cold. */
    public static final double COLD_MAX = 0.02;
    /** Residency at least this counts as hot. */
    public static final double HOT_MIN = 0.98;

    /** Cold: not in the page cache; hot: fully resident. */
    public enum Cache {
        COLD, HOT;

        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** True when the residency matches what the cell asked for. */
    public boolean ok() {
        return wanted == Cache.COLD ? resident <= COLD_MAX : resident >= HOT_MIN;
    }

    /** {@code "cold (0.0% resident)"}, with {@code " NOT COLD"} / {@code " NOT HOT"} when it does not match. */
    public String label() {
        return wanted.label() + " (" + Units.formatPercent(resident) + " resident)" + (ok() ? "" : " NOT "
                + wanted.name());
    }

    /**
     * Brings {@code file} into the wanted state (cold: fdatasync + POSIX_FADV_DONTNEED; hot: read it through) and
     * measures the residency with mincore. Does not throw on a mismatch: the label says so, and so must the report.
     */
    public static CacheState prepare(Path file, Cache wanted) throws IOException {
        if (wanted == Cache.COLD) PageCache.evict(file);
        else PageCache.warm(file);
        return measure(file, wanted);
    }

    /** The residency of {@code file} now, judged against {@code wanted}. */
    public static CacheState measure(Path file, Cache wanted) throws IOException {
        return new CacheState(wanted, PageCache.residency(file).fraction());
    }
}
