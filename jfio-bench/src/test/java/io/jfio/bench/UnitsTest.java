package io.jfio.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class UnitsTest {
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
