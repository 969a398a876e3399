package io.jfio.ship.testing;

import io.jfio.ship.Shipper;
import io.jfio.ship.log.ShipLog;
import io.jfio.ship.pipeline.Pipeline;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * A shipper process for the crash test: {@code java ShipMain GLOB OUT STATE MAX_IN_FLIGHT BUFFER MAX_RECORD}; runs
 * until killed.
 */
public final class ShipMain {
    private ShipMain() {
    }

    /** Runs the shipper. */
    public static void main(String[] args) throws Exception {
        var cfg = ShipRun.config(List.of(args[0]), Path.of(args[1]), Path.of(args[2]), Map.of("max-in-flight",
                args[3], "buffer-size", args[4], "max-record", args[5], "poll", "10ms"));
        Shipper s = Shipper.open(cfg, Pipeline.Mode.RUN, ShipLog.stderr());
        System.out.println("started");
        System.out.flush();
        s.run();
    }
}
