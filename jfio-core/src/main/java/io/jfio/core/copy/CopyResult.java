package io.jfio.core.copy;

import java.time.Duration;
import java.util.List;

/**
 * What a {@link TreeCopy} did.
 *
 * @param files         regular files copied
 * @param bytes         data bytes written (in a dry run, the bytes the copy would write)
 * @param directories   directories created or brought up to date
 * @param symlinks      symlinks created
 * @param specialFiles  FIFOs, sockets and device nodes created
 * @param hardLinks     hard links made to earlier copies
 * @param skipped       entries skipped (complete already, not newer, or not to be overwritten)
 * @param failures      what failed, in the order it happened (at most {@link TreeCopy#MAX_FAILURES_KEPT})
 * @param failureCount  how many failed in all
 * @param elapsed       wall time of the copy
 * @param cancelled     true when {@link TreeCopy#cancel()} stopped the copy before it finished
 */
public record CopyResult(long files, long bytes, long directories, long symlinks, long specialFiles,
                         long hardLinks, long skipped, List<CopyFailure> failures, long failureCount,
                         Duration elapsed, boolean cancelled) {

    /**
     * True when everything was copied: no failure and not cancelled.
     *
     * @return true on full success
     */
    public boolean ok() {
        return failureCount == 0 && !cancelled;
    }
}
