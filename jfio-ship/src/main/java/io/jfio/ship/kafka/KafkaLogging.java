package io.jfio.ship.kafka;

/**
 * Configures slf4j-simple, the binding jfio ships for the Kafka client's slf4j logging: WARN and above, to stderr,
 * one line each with an ISO-8601 time, the level and the logger's short name. A user's own
 * {@code -Dorg.slf4j.simpleLogger.*} settings win: only properties not set already are set here.
 *
 * <p>Thread-safe; runs once, before the first Kafka class asks slf4j for a logger.
 */
final class KafkaLogging {
    private static final String PREFIX = "org.slf4j.simpleLogger.";

    private KafkaLogging() {
    }

    static void configure() {
        setIfAbsent("logFile", "System.err");
        setIfAbsent("defaultLogLevel", "warn");
        setIfAbsent("showDateTime", "true");
        // ISO 8601 with the zone offset (SimpleDateFormat pattern letters: X is the offset, as in +01:00)
        setIfAbsent("dateTimeFormat", "yyyy-MM-dd'T'HH:mm:ss.SSSXXX");
        setIfAbsent("showThreadName", "false");
        setIfAbsent("showShortLogName", "true");
    }

    private static void setIfAbsent(String key, String value) {
        if (System.getProperty(PREFIX + key) == null) {
            System.setProperty(PREFIX + key, value);
        }
    }
}
