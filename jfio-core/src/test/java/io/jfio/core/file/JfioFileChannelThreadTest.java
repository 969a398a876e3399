package io.jfio.core.file;

import io.jfio.core.engine.IoEngine;
import io.jfio.core.engine.ThreadEngine;
import io.jfio.core.testing.EngineKind;

/** The {@link JfioFileChannel} contract on a fresh thread engine, the fallback where io_uring is unavailable. */
class JfioFileChannelThreadTest extends JfioFileChannelContract {
    @Override
    protected EngineKind kind() {
        return EngineKind.THREADS;
    }

    @Override
    protected IoEngine newEngine() {
        return new ThreadEngine(4);
    }
}
