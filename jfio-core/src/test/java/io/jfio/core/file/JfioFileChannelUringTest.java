package io.jfio.core.file;

import io.jfio.core.engine.IoEngine;
import io.jfio.core.testing.EngineKind;

/** The {@link JfioFileChannel} contract on a fresh io_uring engine; skipped where io_uring cannot be used. */
class JfioFileChannelUringTest extends JfioFileChannelContract {
    @Override
    protected EngineKind kind() {
        return EngineKind.URING;
    }

    @Override
    protected IoEngine newEngine() throws Exception {
        return EngineKind.URING.create();
    }
}
