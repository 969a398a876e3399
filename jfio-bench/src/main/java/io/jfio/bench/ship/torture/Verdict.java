package io.jfio.bench.ship.torture;

import io.jfio.ship.config.ShipConfig;
import java.util.ArrayList;
import java.util.List;

/**
 * The duplicate bound and the PASS/FAIL rules of a torture run.
 *
 * <p>Thread-safe; stateless.
 */
public final class Verdict {
    private Verdict() {
    }

    /**
     * What one kill may leave to be sent again: every byte that can be unacknowledged at once, the sink's
     * {@code max-in-flight} plus one read buffer (the larger of {@code buffer-size} and {@code max-record + 1}).
     */
    public static long boundPerKill(long maxInFlight, long bufferSize, long maxRecord) {
        return maxInFlight + Math.max(bufferSize, maxRecord + 1);
    }

    /**
     * {@link #boundPerKill} with the shipper's defaults for {@code sink}, which the torture run uses (a kafka sink's
     * {@code max-in-flight} is smaller by default).
     */
    public static long defaultBoundPerKill(String sink) {
        long inFlight = sink.equals("kafka") ? ShipConfig.MAX_IN_FLIGHT_KAFKA_DEFAULT
                : ShipConfig.MAX_IN_FLIGHT_DEFAULT;
        return boundPerKill(inFlight, ShipConfig.BUFFER_SIZE_DEFAULT, ShipConfig.MAX_RECORD_DEFAULT);
    }

    /** True for the sinks that may deliver again what a kill left unacknowledged (tcp and kafka; not dir, s3). */
    public static boolean atLeastOnce(String sink) {
        return !sink.equals("dir") && !sink.equals("s3");
    }

    /**
     * Why a sink's run fails; empty when it passes. Fails: anything lost; a damaged line; a torn stream end except
     * tcp's (a connection cut by a kill ends where it was cut; the receiver's next file has the resend); for dir and
     * s3 any duplicate; for the others more duplicate bytes than {@code (kills + outages) x boundPerKill} (an outage
     * of the server may make the shipper send again what it had in flight, as a kill does); records out of order
     * when there was no kill, no outage and no copytruncate copy (then nothing may be sent twice or late).
     */
    public static List<String> reasons(String sink, int kills, int outages, Verifier.Counts c, long boundPerKill) {
        List<String> r = new ArrayList<>();
        if (c.lost() > 0) r.add(c.lost() + " record(s) lost");
        if (c.damaged() > 0) r.add(c.damaged() + " damaged line(s)");
        if (c.torn() > 0 && !sink.equals("tcp")) r.add(c.torn() + " torn stream end(s)");
        if (atLeastOnce(sink)) {
            long allowed = (kills + outages) * boundPerKill;
            if (c.duplicateBytes() > allowed) {
                r.add(c.duplicateBytes() + " duplicate bytes > " + (kills + outages) + " kills and outages x "
                        + boundPerKill + " bytes");
            }
        } else if (c.duplicated() > 0) {
            r.add(c.duplicated() + " duplicate record(s) (" + c.duplicateBytes() + " bytes)");
        }
        if (kills == 0 && outages == 0 && c.copies() == 0 && c.outOfOrder() > 0) {
            r.add(c.outOfOrder() + " out of order without a kill or an outage");
        }
        return r;
    }
}
