/**
 * jfio's core: Linux file I/O for the JVM through the FFM API.
 *
 * <p>The API is {@link io.jfio.core.file} (files, stat, buffers), {@link io.jfio.core.engine} (the io_uring and
 * thread engines), {@link io.jfio.core.watch} (file watching), {@link io.jfio.core.copy} (tree copy) and {@link io.jfio.core.units}
 * (sizes and durations as people write them). The
 * system bindings ({@code io.jfio.core.sys}) and the io_uring constants ({@code io.jfio.core.uring}) are
 * internal: exported only to jfio's own modules, which still make system calls of their own (sockets, durable
 * state files, probes, benchmarks).
 */
module io.jfio.core {
    exports io.jfio.core.copy;
    exports io.jfio.core.engine;
    exports io.jfio.core.file;
    exports io.jfio.core.units;
    exports io.jfio.core.watch;

    exports io.jfio.core.sys to io.jfio.ship, io.jfio.bench, io.jfio.cli;
    exports io.jfio.core.uring to io.jfio.bench;
}
