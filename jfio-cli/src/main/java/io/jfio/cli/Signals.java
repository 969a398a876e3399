package io.jfio.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * SIGTERM, SIGINT and SIGHUP handled by the command instead of the JVM: the JVM's own handling starts the shutdown
 * sequence and ends the process with 128 + the signal's number, but a shipper stopped by a signal is a normal end:
 * it flushes, checkpoints and exits 0. {@code sun.misc.Signal} (module jdk.unsupported, exported on the class path)
 * is the JDK's only way to do that.
 *
 * <p>Thread-safe.
 */
final class Signals {
    private Signals() {
    }

    /**
     * Calls {@code handler} with the signal's name (TERM, INT) when one arrives; returns what puts the previous
     * handlers back.
     */
    static Runnable onTermination(Consumer<String> handler) {
        List<Runnable> undo = new ArrayList<>();
        for (String name : new String[] {"TERM", "INT"}) {
            try {
                Signal sig = new Signal(name);
                SignalHandler previous = Signal.handle(sig, s -> handler.accept(s.getName()));
                undo.add(() -> Signal.handle(sig, previous));
            } catch (IllegalArgumentException e) {
                // The signal is taken (-Xrs, a debugger): the shutdown hook covers it.
            }
        }
        return () -> undo.forEach(Runnable::run);
    }

    /**
     * Calls {@code handler} when SIGHUP arrives (instead of the JVM's default, which shuts down); returns what puts the
     * previous handler back. Where the signal cannot be taken, SIGHUP keeps its default.
     */
    static Runnable onHangup(Runnable handler) {
        try {
            Signal sig = new Signal("HUP");
            SignalHandler previous = Signal.handle(sig, s -> handler.run());
            return () -> Signal.handle(sig, previous);
        } catch (IllegalArgumentException e) {
            return () -> { };
        }
    }
}
