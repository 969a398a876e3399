package io.jfio.ship.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jfio.core.testing.TestSeed;
import io.jfio.ship.sink.RecordView;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The read time as NDJSON writes it: the date and time cached a second at a time, the milliseconds added. */
class RecordStageTest {
    private static final DateTimeFormatter FULL = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'")
            .withZone(ZoneOffset.UTC);

    @Test
    void shouldWriteTheReadTimeLikeAFormatterOfTheWholeInstant() {
        TestSeed.pick().run(seed -> {
            SplittableRandom rnd = seed.random();
            RecordStage stage = new RecordStage(RecordView.Encoding.NDJSON, false, false);
            long t = 1_764_236_860_000L;
            for (long ms : new long[] {t, t + 5, t + 50, t + 999, t + 1000, t + 1001, 0, 999, 1000}) {
                assertEquals(FULL.format(Instant.ofEpochMilli(ms)), stage.readTime(ms), "ms=" + ms);
            }
            for (int i = 0; i < 20_000; i++) {
                // Mostly nearby times, as a running shipper sees them, and some jumps.
                t = rnd.nextInt(10) == 0 ? rnd.nextLong(4_000_000_000_000L) : t + rnd.nextInt(1500);
                assertEquals(FULL.format(Instant.ofEpochMilli(t)), stage.readTime(t), "ms=" + t);
            }
        });
    }
}
