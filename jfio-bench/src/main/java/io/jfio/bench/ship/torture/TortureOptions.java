package io.jfio.bench.ship.torture;

import java.nio.file.Path;
import java.util.List;

/**
 * What a torture run does.
 *
 * @param dir            the work directory (null: a temporary one, removed when every sink passed)
 * @param seconds        how long the writers write
 * @param kills          SIGKILLs of the shipper per sink
 * @param writers        writer threads (files)
 * @param rate           records per second per writer
 * @param modes          rotation modes: rename, copytruncate, truncate, delete
 * @param sinks          dir, tcp, kafka, s3, in this order
 * @param kafkaBootstrap the broker for the kafka sink (null without kafka)
 * @param s3             the server for the s3 sink (null without s3)
 * @param outages        whether the sink's server is paused now and then: the tcp sink's receiver, the process
 *                       {@code serverPid} (a kafka or s3 server); the dir sink has none
 * @param serverPid      the kafka or s3 server's process, for outages (0: none)
 * @param seed           the seed of every random choice
 * @param killMinMs      shortest time from a shipper's start line to its kill
 * @param killMaxMs      longest such time
 * @param drainSeconds   how long the last run may take to deliver everything
 * @param java           the JVM's command line up to and including {@code io.jfio.cli.Main}
 */
public record TortureOptions(Path dir, int seconds, int kills, int writers, int rate, List<String> modes,
                             List<String> sinks, String kafkaBootstrap, S3Server s3, boolean outages,
                             long serverPid, long seed, long killMinMs, long killMaxMs, int drainSeconds,
                             List<String> java) {
    /** The sinks, in the order they run. */
    public static final List<String> SINKS = List.of("dir", "tcp", "kafka", "s3");

    public TortureOptions {
        if (seconds < 1) throw new IllegalArgumentException("--seconds must be at least 1: " + seconds);
        if (kills < 0) throw new IllegalArgumentException("--kills must not be negative: " + kills);
        if (writers < 1 || writers > TortureRecord.MAX_WRITER + 1) {
            throw new IllegalArgumentException("--writers must be 1-" + (TortureRecord.MAX_WRITER + 1) + ": "
                    + writers);
        }
        if (rate < 1 || rate > 100_000) throw new IllegalArgumentException("--rate must be 1-100000: " + rate);
        if ((long) rate * seconds > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("--rate x --seconds must be below 2^31 records per writer");
        }
        if (modes.isEmpty()) throw new IllegalArgumentException("--modes: none given");
        if (sinks.isEmpty()) throw new IllegalArgumentException("--sinks: none given");
        for (String s : sinks) {
            if (!SINKS.contains(s)) {
                throw new IllegalArgumentException("--sinks: unknown sink " + s + " (known: dir, tcp, kafka, s3)");
            }
        }
        if (sinks.contains("kafka") && (kafkaBootstrap == null || kafkaBootstrap.isBlank())) {
            throw new IllegalArgumentException("--sinks kafka needs --kafka-bootstrap HOST:PORT");
        }
        if (sinks.contains("s3") && s3 == null) {
            throw new IllegalArgumentException("--sinks s3 needs --s3-endpoint URL and --s3-bucket NAME");
        }
        if (serverPid < 0) throw new IllegalArgumentException("--server-pid must be a process id: " + serverPid);
        if (outages && serverPid == 0 && (sinks.contains("kafka") || sinks.contains("s3"))) {
            throw new IllegalArgumentException("--outages with a kafka or s3 sink needs --server-pid PID (the "
                    + "server's process, paused with SIGSTOP)");
        }
        if (killMinMs < 0 || killMaxMs < killMinMs) {
            throw new IllegalArgumentException("kill delay range invalid: " + killMinMs + "-" + killMaxMs + " ms");
        }
        for (String m : modes) Rotator.Mode.of(m);
        modes = List.copyOf(modes);
        sinks = SINKS.stream().filter(sinks::contains).toList();
        java = List.copyOf(java);
    }

    /** Parses {@code --modes}: {@code all} or a comma-separated list of rename, copytruncate, truncate, delete. */
    public static List<String> parseModes(List<String> names) {
        if (names == null || names.isEmpty() || names.contains("all")) return ALL_MODES;
        return names.stream().map(String::trim).map(Rotator.Mode::of).distinct().map(Rotator.Mode::label).toList();
    }

    /** Every rotation mode. */
    public static final List<String> ALL_MODES = List.of("rename", "copytruncate", "truncate", "delete");

    /**
     * The JVM command for jfio's main class ({@code io.jfio.cli.Main}, given by the command that runs this) on this
     * JVM's class path: the shipper and the receiver run on it.
     */
    public static List<String> thisJvm(String mainClass) {
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // The memory flags of bin/jfio's ship (serial collector, 32 MB heap); C1 is allowed so that the many
        // starts cost less CPU on a small machine.
        return List.of(javaBin, "--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC", "-Xms16m", "-Xmx32m",
                "-XX:-UsePerfData", "-cp", System.getProperty("java.class.path"), mainClass);
    }
}
