package io.jfio.ship.testing;

import io.jfio.ship.Shipper;
import io.jfio.ship.log.ShipLog;
import io.jfio.ship.pipeline.Pipeline;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * A shipper process for the crash and sink tests:
 * {@code java ShipMain GLOB OUT STATE MAX_IN_FLIGHT BUFFER MAX_RECORD [once|run] [KEY=VALUE...]} (keys as in
 * {@link ShipRun#config});
 * runs until killed, or with {@code once} ships what is there and exits 0 (1 when something failed). With
 * {@code -Djfio.test.graceful=true} a SIGTERM stops it the way the command's signal handler does.
 */
public final class ShipMain {
    private ShipMain() {
    }

    /** Runs the shipper. */
    public static void main(String[] args) throws Exception {
        var cfg = ShipRun.config(List.of(args[0]), Path.of(args[1]), Path.of(args[2]), Map.of("max-in-flight",
                args[3], "buffer-size", args[4], "max-record", args[5]));
        boolean once = args.length > 6 && args[6].equals("once");
        if (args.length > 7) {
            // More settings as key=value (e.g. to=tcp:127.0.0.1:5140).
            Map<String, String> extra = new java.util.HashMap<>(Map.of("max-in-flight", args[3], "buffer-size",
                    args[4], "max-record", args[5]));
            for (int i = 7; i < args.length; i++) {
                int eq = args[i].indexOf('=');
                extra.put(args[i].substring(0, eq), args[i].substring(eq + 1));
            }
            cfg = ShipRun.config(List.of(args[0]), Path.of(args[1]), Path.of(args[2]), extra);
        }
        Shipper s = Shipper.open(cfg, once ? Pipeline.Mode.ONCE : Pipeline.Mode.RUN, ShipLog.stderr());
        java.util.concurrent.CountDownLatch ended = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicInteger code = new java.util.concurrent.atomic.AtomicInteger();
        if (Boolean.getBoolean("jfio.test.graceful")) {
            // SIGTERM stops the shipper as the command's handler does, and the process exits with the run's code
            // once it has finished (not the JVM's 143).
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                s.stop();
                try {
                    ended.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                Runtime.getRuntime().halt(code.get());
            }));
        }
        System.out.println("started");
        System.out.flush();
        boolean ok = s.run();
        code.set(ok ? 0 : 1);
        ended.countDown();
        System.exit(ok ? 0 : 1);
    }
}
