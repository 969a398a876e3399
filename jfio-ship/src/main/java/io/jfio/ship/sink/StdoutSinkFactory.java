package io.jfio.ship.sink;

/** Thread-safe; stateless. The {@code stdout:} sink: {@link StdoutSink}. */
public final class StdoutSinkFactory implements SinkFactory {
    @Override
    public String scheme() {
        return SinkSpec.STDOUT;
    }

    @Override
    public String form() {
        return "stdout:";
    }

    @Override
    public void check(String target) {
        if (!target.isEmpty()) throw new IllegalArgumentException("stdout: takes nothing after the colon");
    }

    @Override
    public Sink open(SinkSpec spec, Sinks.Options options) {
        return new StdoutSink();
    }
}
