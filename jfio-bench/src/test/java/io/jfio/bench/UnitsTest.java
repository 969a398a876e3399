package io.jfio.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class UnitsTest {
    @Test
    void sizesAcceptBinarySuffixesInAnySpelling() {
        assertEquals(1L << 30, Units.parseSize("1g"));
        assertEquals(1L << 30, Units.parseSize("1GiB"));
        assertEquals(16L << 20, Units.parseSize("16MiB"));
        assertEquals(512L << 20, Units.parseSize("512m"));
        assertEquals(4096, Units.parseSize("4k"));
        assertEquals(4096, Units.parseSize("4096"));
        assertEquals(1536L << 20, Units.parseSize("1.5g"));
        assertThrows(IllegalArgumentException.class, () -> Units.parseSize("lots"));
        assertThrows(IllegalArgumentException.class, () -> Units.parseSize("-1g"));
    }

    @Test
    void durationsAcceptCommandLineForms() {
        assertEquals(Duration.ofSeconds(2), Units.parseDuration("2s"));
        assertEquals(Duration.ofMillis(500), Units.parseDuration("500ms"));
        assertEquals(Duration.ofMillis(1500), Units.parseDuration("1.5s"));
        assertEquals(Duration.ofSeconds(3), Units.parseDuration("3"));
        assertEquals(Duration.ofMinutes(1), Units.parseDuration("1m"));
        assertEquals(Duration.ofSeconds(2), Units.parseDuration("PT2S"));
        assertThrows(IllegalArgumentException.class, () -> Units.parseDuration("soon"));
    }

    @Test
    void formatsForPeople() {
        assertEquals("1 GiB", Units.formatSize(1L << 30));
        assertEquals("1.5 GiB", Units.formatSize(3L << 29));
        assertEquals("100 B", Units.formatSize(100));
        assertEquals("123,457", Units.formatCount(123_456.6));
        assertEquals("87.3", Units.formatMicros(87_300));
        assertEquals("1234", Units.formatMicros(1_234_000));
        assertEquals("45.2%", Units.formatPercent(0.452));
        assertEquals("-", Units.formatPercent(Double.NaN));
        assertEquals("2s", Units.formatDuration(Duration.ofSeconds(2)));
        assertEquals("250ms", Units.formatDuration(Duration.ofMillis(250)));
    }
}
