/**
 * The shipper: discovers log files, harvests their lines and ships them to sinks (stdout, a directory, TCP,
 * Kafka, S3) with checkpoints.
 */
module io.jfio.ship {
    requires io.jfio.core;
    requires com.fasterxml.jackson.databind;
    requires com.fasterxml.jackson.dataformat.yaml;
    requires com.fasterxml.jackson.dataformat.toml;
    requires kafka.clients;
    requires jdk.httpserver;
    requires java.net.http;
    requires software.amazon.awssdk.services.s3;
    requires software.amazon.awssdk.http.urlconnection;
    requires software.amazon.awssdk.auth;
    requires software.amazon.awssdk.regions;
    requires software.amazon.awssdk.core;
    requires software.amazon.awssdk.awscore;
    requires software.amazon.awssdk.http;
    requires software.amazon.awssdk.http.auth.aws;
    requires software.amazon.awssdk.http.auth.spi;
    requires software.amazon.awssdk.utils;
    requires software.amazon.awssdk.identity.spi;
    requires software.amazon.awssdk.retries.api;
    requires com.github.luben.zstd_jni;

    exports io.jfio.ship;
    exports io.jfio.ship.config;
    exports io.jfio.ship.harvest;
    exports io.jfio.ship.kafka;
    exports io.jfio.ship.log;
    exports io.jfio.ship.metrics;
    exports io.jfio.ship.pipeline;
    exports io.jfio.ship.s3;
    exports io.jfio.ship.sink;
    exports io.jfio.ship.state;
    exports io.jfio.ship.tcp;

    // The configuration records are read by Jackson through reflection.
    opens io.jfio.ship.config to com.fasterxml.jackson.databind;
}
