package io.jfio.core.units;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every unit, case, fraction and bad input of {@link Units}, as tables. */
class UnitsTest {
    static Stream<Arguments> sizes() {
        return Stream.of(
                Arguments.of("0", 0L),
                Arguments.of("4096", 4096L),
                Arguments.of("4096B", 4096L),
                Arguments.of("4096b", 4096L),
                Arguments.of("1kB", 1_000L),
                Arguments.of("1KB", 1_000L),
                Arguments.of("1kb", 1_000L),
                Arguments.of("1MB", 1_000_000L),
                Arguments.of("1mb", 1_000_000L),
                Arguments.of("1GB", 1_000_000_000L),
                Arguments.of("1TB", 1_000_000_000_000L),
                Arguments.of("1KiB", 1024L),
                Arguments.of("1kib", 1024L),
                Arguments.of("1KIB", 1024L),
                Arguments.of("1MiB", 1L << 20),
                Arguments.of("1GiB", 1L << 30),
                Arguments.of("1TiB", 1L << 40),
                Arguments.of("4k", 4096L),
                Arguments.of("4K", 4096L),
                Arguments.of("512m", 512L << 20),
                Arguments.of("1g", 1L << 30),
                Arguments.of("1G", 1L << 30),
                Arguments.of("2t", 2L << 40),
                Arguments.of("1.5MiB", 3L << 19),
                Arguments.of("1.5g", 3L << 29),
                Arguments.of("0.5KiB", 512L),
                Arguments.of(".5KiB", 512L),
                Arguments.of("2.5kB", 2500L),
                Arguments.of("1e3", 1000L),
                Arguments.of("1E3", 1000L),
                Arguments.of(" 1MiB ", 1L << 20),
                Arguments.of("1 MiB", 1L << 20),
                Arguments.of("\t64 kB\n", 64_000L),
                Arguments.of("8TiB", 8L << 40),
                Arguments.of("9223372036854775807", Long.MAX_VALUE),
                Arguments.of("8388607TiB", 8388607L << 40));
    }

    @ParameterizedTest(name = "{0} = {1}")
    @MethodSource("sizes")
    void sizeMeansWhatItsUnitSays(String text, long bytes) {
        assertEquals(bytes, Units.parseSize(text));
    }

    static Stream<Arguments> badSizes() {
        return Stream.of(
                Arguments.of("", "is not a size"),
                Arguments.of("   ", "is not a size"),
                Arguments.of("MiB", "is not a size"),
                Arguments.of("1MX", "is not a size"),
                Arguments.of("1 M iB", "is not a size"),
                Arguments.of("1Mi", "is not a size"),
                Arguments.of("1Kbit", "is not a size"),
                Arguments.of("lots", "is not a size"),
                Arguments.of("1,5MiB", "is not a size"),
                Arguments.of("0x10", "is not a size"),
                Arguments.of("1e99999", "is not a size"),
                Arguments.of("Infinity", "is not a size"),
                Arguments.of("NaN", "is not a size"),
                Arguments.of("1.5", "not a whole number of bytes"),
                Arguments.of("1.0000001KiB", "not a whole number of bytes"),
                Arguments.of("-1", "is negative"),
                Arguments.of("-1g", "is negative"),
                Arguments.of("9223372036854775808", "is too large"),
                Arguments.of("8388608TiB", "is too large"),
                Arguments.of("100000000TB", "is too large"));
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("badSizes")
    void badSizeIsRefusedNamingTheTextAndTheForms(String text, String why) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Units.parseSize(text));
        assertTrue(e.getMessage().startsWith("'" + text + "' "), e.getMessage());
        assertTrue(e.getMessage().contains(why), e.getMessage());
        if (why.equals("is not a size")) assertTrue(e.getMessage().contains("KiB, MiB, GiB"), e.getMessage());
    }

    @org.junit.jupiter.api.Test
    void nullIsNotASize() {
        assertThrows(IllegalArgumentException.class, () -> Units.parseSize(null));
        assertThrows(IllegalArgumentException.class, () -> Units.parseDuration(null));
    }

    static Stream<Arguments> durations() {
        return Stream.of(
                Arguments.of("0", Duration.ZERO),
                Arguments.of("0s", Duration.ZERO),
                Arguments.of("3", Duration.ofSeconds(3)),
                Arguments.of("1.5", Duration.ofMillis(1500)),
                Arguments.of("7ns", Duration.ofNanos(7)),
                Arguments.of("7us", Duration.ofNanos(7_000)),
                Arguments.of("250ms", Duration.ofMillis(250)),
                Arguments.of("250MS", Duration.ofMillis(250)),
                Arguments.of("5s", Duration.ofSeconds(5)),
                Arguments.of("5S", Duration.ofSeconds(5)),
                Arguments.of("1.5s", Duration.ofMillis(1500)),
                Arguments.of("2m", Duration.ofMinutes(2)),
                Arguments.of("2M", Duration.ofMinutes(2)),
                Arguments.of("0.5m", Duration.ofSeconds(30)),
                Arguments.of("1h", Duration.ofHours(1)),
                Arguments.of("2d", Duration.ofDays(2)),
                Arguments.of("1.5ms", Duration.ofNanos(1_500_000)),
                Arguments.of(" 10 ms ", Duration.ofMillis(10)),
                Arguments.of("PT2S", Duration.ofSeconds(2)),
                Arguments.of("pt0.5s", Duration.ofMillis(500)),
                Arguments.of("PT1H30M", Duration.ofMinutes(90)),
                Arguments.of("P1D", Duration.ofDays(1)),
                Arguments.of("106751991167300d", Duration.ofDays(106751991167300L)));
    }

    @ParameterizedTest(name = "{0} = {1}")
    @MethodSource("durations")
    void durationMeansWhatItsUnitSays(String text, Duration expected) {
        assertEquals(expected, Units.parseDuration(text));
    }

    static Stream<Arguments> badDurations() {
        return Stream.of(
                Arguments.of("", "is not a duration"),
                Arguments.of("  ", "is not a duration"),
                Arguments.of("soon", "is not a duration"),
                Arguments.of("5x", "is not a duration"),
                Arguments.of("5 sec", "is not a duration"),
                Arguments.of("ms", "is not a duration"),
                Arguments.of("PT", "is not a duration"),
                Arguments.of("P1Y", "is not a duration"),
                Arguments.of("1.5ns", "not a whole number of nanoseconds"),
                Arguments.of("-1s", "is negative"),
                Arguments.of("-0.5s", "is negative"),
                Arguments.of("PT-2S", "is negative"),
                Arguments.of("-PT2S", "is negative"),
                Arguments.of("9223372036854775808s", "is too large"),
                Arguments.of("1000000000000000d", "is too large"));
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("badDurations")
    void badDurationIsRefusedNamingTheTextAndTheForms(String text, String why) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Units.parseDuration(text));
        assertTrue(e.getMessage().startsWith("'" + text + "' "), e.getMessage());
        assertTrue(e.getMessage().contains(why), e.getMessage());
        if (why.equals("is not a duration")) assertTrue(e.getMessage().contains("ms, s, m, h"), e.getMessage());
    }

    static Stream<Arguments> formats() {
        return Stream.of(
                Arguments.of(1L << 20, "1MiB"),
                Arguments.of(1000L, "1000B"),
                Arguments.of(0L, "0B"),
                Arguments.of(3L << 30, "3GiB"));
    }

    @ParameterizedTest(name = "{0} prints as {1}")
    @MethodSource("formats")
    void formattedSizeReadsBackAsTheSameBytes(long bytes, String text) {
        assertEquals(text, Units.formatSize(bytes));
        assertEquals(bytes, Units.parseSize(text));
    }

    @org.junit.jupiter.api.Test
    void formattedDurationReadsBackAsTheSameDuration() {
        for (Duration d : new Duration[] {Duration.ZERO, Duration.ofMillis(250), Duration.ofSeconds(5)}) {
            assertEquals(d, Units.parseDuration(Units.formatDuration(d)));
        }
    }
}
