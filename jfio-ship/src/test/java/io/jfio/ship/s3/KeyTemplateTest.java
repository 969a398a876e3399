package io.jfio.ship.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class KeyTemplateTest {
    @Test
    void shouldNameTheDefaultKeyWithZeroPaddedDateAndRange() {
        KeyTemplate t = KeyTemplate.parse(S3Settings.KEY_TEMPLATE_DEFAULT);
        long millis = ZonedDateTime.of(2026, 3, 7, 4, 5, 6, 0, ZoneOffset.UTC).toInstant().toEpochMilli();
        assertEquals("logs/web-1/2026/03/07/app.log.0000000000000000-0000000000001234.0000000000000042.log.gz",
                t.key("logs/", "web-1", "/var/log/app.log", millis, 0, 1234, 42, ".gz"));
    }

    @Test
    void shouldPadEveryFieldAsAFormatterWould() {
        KeyTemplate t = KeyTemplate.parse("{yyyy}-{MM}-{dd}T{HH}:{mm}:{ss} {start} {end} {seq}");
        long seed = System.nanoTime();
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < 1000; i++) {
            // Years 1 to 9999 (the template's four digits), offsets up to a petabyte and past 16 digits.
            long millis = r.nextLong(-62_135_596_800_000L, 253_402_300_799_000L);
            long start = r.nextLong(0, i % 2 == 0 ? 1L << 50 : Long.MAX_VALUE);
            long end = r.nextLong(start, Long.MAX_VALUE);
            long seq = r.nextLong(0, 100_000);
            ZonedDateTime z = Instant.ofEpochMilli(millis).atZone(ZoneOffset.UTC);
            String want = String.format("%04d-%02d-%02dT%02d:%02d:%02d %016d %016d %016d", z.getYear(),
                    z.getMonthValue(), z.getDayOfMonth(), z.getHour(), z.getMinute(), z.getSecond(), start, end, seq);
            assertEquals(want, t.key("", "h", "f", millis, start, end, seq, ""), "seed=" + seed);
        }
    }
}
