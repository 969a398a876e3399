package io.jfio.core.file;

import io.jfio.core.engine.IoEngine;
import io.jfio.core.engine.UringEngine;
import io.jfio.core.uring.UringUnavailableException;
import org.junit.jupiter.api.Assumptions;

/** The {@link JfioFileChannel} contract on a fresh io_uring engine; skipped where io_uring cannot be used. */
class JfioFileChannelUringTest extends JfioFileChannelContract {
    @Override
    protected IoEngine newEngine() throws Exception {
        try {
            return new UringEngine();
        } catch (UringUnavailableException e) {
            Assumptions.abort("io_uring unavailable here: " + e.getMessage());
            return null;
        }
    }
}
