package io.jfio.core.watch;

import java.io.IOException;

/** A {@link FileWatcher} was used after {@link FileWatcher#close()}, or closed while a thread was in its poll. */
public final class WatcherClosedException extends IOException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param watcher the closed watcher, as its {@code toString()} names it
     */
    public WatcherClosedException(String watcher) {
        super("watcher closed: watcher=" + watcher);
    }
}
