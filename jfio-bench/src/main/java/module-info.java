/** jfio's benchmark experiments: measurement, statistics, peers (fio), reports and charts. */
module io.jfio.bench {
    requires io.jfio.core;
    requires HdrHistogram;
    requires org.knowm.xchart;
    requires java.management;

    exports io.jfio.bench;
    exports io.jfio.bench.copy;
    exports io.jfio.bench.fio;
    exports io.jfio.bench.suite;
    exports io.jfio.bench.suite.experiments;
    exports io.jfio.bench.uring;
}
