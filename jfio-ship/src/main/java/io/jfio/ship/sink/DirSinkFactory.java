package io.jfio.ship.sink;

import java.nio.file.Path;

/** Thread-safe; stateless. The {@code dir:PATH} sink: {@link DirSink}. */
public final class DirSinkFactory implements SinkFactory {
    @Override
    public String scheme() {
        return SinkSpec.DIR;
    }

    @Override
    public String form() {
        return "dir:PATH";
    }

    @Override
    public void check(String target) {
        if (target.isEmpty()) throw new IllegalArgumentException("dir: needs a path");
        Path.of(target);
    }

    @Override
    public Sink open(SinkSpec spec, Sinks.Options options) throws java.io.IOException {
        return new DirSink(spec.dir(), options.segmentSize(), options.outputMode(), options.log());
    }
}
