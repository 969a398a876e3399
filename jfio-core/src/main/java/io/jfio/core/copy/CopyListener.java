package io.jfio.core.copy;

/**
 * Hears what a {@link TreeCopy} does. Every method has a default that does nothing.
 *
 * <p>Must be thread-safe: the copy's worker threads call it concurrently. Calls must be short (they run on the
 * copy's own threads) and must not throw. Progress is not pushed here: poll {@link TreeCopy#progress()}.
 */
public interface CopyListener {
    /** A listener that hears nothing. */
    CopyListener NONE = new CopyListener() {
    };

    /**
     * True when {@link #onEntry} should be called for every entry (costs an event object per entry).
     *
     * @return true to receive {@link #onEntry} calls
     */
    default boolean wantsEntries() {
        return false;
    }

    /**
     * One entry is done (see {@link CopyEvent.Outcome}); only called when {@link #wantsEntries()}.
     *
     * @param event the entry and what was done with it
     */
    default void onEntry(CopyEvent event) {
    }

    /**
     * Something could not be copied; the rest goes on.
     *
     * @param failure the entry, the step that failed and why
     */
    default void onFailure(CopyFailure failure) {
    }

    /**
     * Something worth knowing that is not a failure, said once: a method unavailable between two devices and the
     * fallback taken, an attribute the target file system cannot hold, the parallelism chosen and why.
     *
     * @param message the notice, as a sentence for people
     */
    default void onNotice(String message) {
    }
}
