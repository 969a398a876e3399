package io.jfio.core.engine;

import java.io.IOException;

/** A request was made of an engine that has been closed, or was still queued when it closed. */
public final class EngineClosedException extends IOException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param engine the closed engine's name
     */
    public EngineClosedException(String engine) {
        super("engine closed: engine=" + engine);
    }
}
