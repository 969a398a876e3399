/**
 * jfio's benchmarks and system probes: the experiments of {@code jfio bench}, the ship benchmark and torture run,
 * what {@code jfio info} reports about the machine, statistics, peers (fio, rsyslog), reports and charts.
 */
module io.jfio.bench {
    requires io.jfio.core;
    requires io.jfio.ship;
    requires com.fasterxml.jackson.databind;
    requires kafka.clients;
    requires HdrHistogram;
    requires org.knowm.xchart;
    requires java.management;

    exports io.jfio.bench;
    exports io.jfio.bench.copy;
    exports io.jfio.bench.fio;
    exports io.jfio.bench.ship;
    exports io.jfio.bench.ship.torture;
    exports io.jfio.bench.suite;
    exports io.jfio.bench.suite.experiments;
    exports io.jfio.bench.system;
    exports io.jfio.bench.uring;
    exports io.jfio.bench.verdict;
}
