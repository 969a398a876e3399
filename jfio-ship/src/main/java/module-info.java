/**
 * The shipper: discovers log files, harvests their lines and ships them to sinks (stdout, a directory, TCP,
 * Kafka) with checkpoints.
 */
module io.jfio.ship {
    requires io.jfio.core;
    requires com.fasterxml.jackson.databind;
    requires com.fasterxml.jackson.dataformat.yaml;
    requires com.fasterxml.jackson.dataformat.toml;
    requires kafka.clients;
    requires jdk.httpserver;

    exports io.jfio.ship;
    exports io.jfio.ship.config;
    exports io.jfio.ship.harvest;
    exports io.jfio.ship.kafka;
    exports io.jfio.ship.log;
    exports io.jfio.ship.metrics;
    exports io.jfio.ship.pipeline;
    exports io.jfio.ship.sink;
    exports io.jfio.ship.state;
    exports io.jfio.ship.tcp;

    // The configuration records are read by Jackson through reflection.
    opens io.jfio.ship.config to com.fasterxml.jackson.databind;
}
