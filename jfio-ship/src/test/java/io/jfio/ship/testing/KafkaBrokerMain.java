package io.jfio.ship.testing;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The child JVM's main for {@link KafkaBroker}: formats the log directory once (what {@code kafka-storage.sh format}
 * does) and runs the KRaft server (what {@code kafka-server-start.sh} does) in the same process.
 *
 * <p>Arguments: the server.properties file, the cluster id, the log directory.
 */
public final class KafkaBrokerMain {
    private KafkaBrokerMain() {
    }

    public static void main(String[] args) {
        Path props = Path.of(args[0]);
        String clusterId = args[1];
        Path logDir = Path.of(args[2]);
        if (!Files.exists(logDir.resolve("meta.properties"))) {
            int rc = kafka.tools.StorageTool.execute(
                    new String[] {"format", "-t", clusterId, "-c", props.toString()}, System.out);
            if (rc != 0) {
                System.err.println("kafka storage format failed: " + rc);
                System.exit(rc);
            }
        }
        kafka.Kafka.main(new String[] {props.toString()});
    }
}
