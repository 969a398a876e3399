package io.jfio.core.file;

import io.jfio.core.engine.IoEngine;
import io.jfio.core.engine.ThreadEngine;

/** The {@link JfioFileChannel} contract on a fresh thread engine, the fallback where io_uring is unavailable. */
class JfioFileChannelThreadTest extends JfioFileChannelContract {
    @Override
    protected IoEngine newEngine() {
        return new ThreadEngine(4);
    }
}
