package io.jfio.ship.config;

import java.util.List;
import java.util.Map;

/**
 * The configuration as written, before defaults and checks: what a YAML or TOML file maps onto (keys in kebab case,
 * {@code max-record}) and what the command line's options fill in. Every field may be null (not given).
 * {@link ShipConfig#resolve} merges a command line over a file and checks the result.
 *
 * @param from               globs of a single input named {@code main} (like {@code --from})
 * @param exclude            excludes of that input
 * @param to                 the sink of that input, named {@code main} (like {@code --to})
 * @param state              the state directory
 * @param start              {@code beginning} or {@code end}
 * @param metrics            {@code PORT} or {@code HOST:PORT} for Prometheus metrics over HTTP
 * @param poll               poll interval: forces polling instead of inotify
 * @param framing            {@code lines} or {@code raw} for inputs that do not say
 * @param partialTimeout     when an unterminated last line ships anyway, for inputs that do not say
 * @param maxRecord          the longest line, e.g. {@code 1MiB}
 * @param onOverlong         {@code split} or {@code drop}
 * @param checkpointInterval how often checkpoints are written at most
 * @param maxOpenFiles       the cap on open source files
 * @param rotateWait         how long a renamed-away file is kept open after its last growth
 * @param bufferSize         how much one read asks for; the buffer itself is {@link ShipConfig#bufferCapacity()}
 * @param segmentSize        the dir sink's segment size
 * @param maxInFlight        unacknowledged bytes per sink before reading pauses
 * @param tcpAck             whether tcp sinks ask the receiver to acknowledge durable bytes (default true)
 * @param tcp                TLS and token of tcp sinks ({@code tcp:} section)
 * @param kafkaCompression   the kafka sinks' compression: none, gzip, snappy, lz4 (default) or zstd
 * @param kafkaProperties    further Kafka producer properties for kafka sinks ({@code security.protocol}, ...)
 * @param inputs             more inputs
 * @param sinks              named sinks, name to spec
 * @param followSymlinks     whether inputs that do not say follow symlinks (default false)
 * @param owners             user names or IDs whose files inputs that do not say may ship (default: any)
 * @param outputMode         the mode of files and directories the sinks create, octal (default 0600: directories
 *                           get x where r is given)
 * @param s3                 how s3 sinks reach their server and cut their objects ({@code s3:} section)
 * @param ignoreOlder        for inputs that do not say: files never shipped whose last modification is older than
 *                           this start at their end (a duration)
 * @param multiline          for inputs that do not say: how lines are joined into multiline records
 * @param encoding           how every sink that {@code encodings} does not name delivers records: raw, ndjson or
 *                           (kafka) headers
 * @param encodings          sink name to encoding
 * @param fields             static fields added to each record's metadata (ndjson, headers), for every input; an
 *                           input's own are added over them
 * @param includeLines       for inputs that do not say: only records matching one of these expressions are shipped
 * @param excludeLines       for inputs that do not say: records matching one of these expressions are left out
 * @param readGz             for inputs that do not say: files whose name ends in {@code .gz} are decompressed and
 *                           shipped once, from their start
 */
public record RawConfig(List<String> from, List<String> exclude, String to, String state, String start,
                        String metrics, String poll, String framing, String partialTimeout, String maxRecord,
                        String onOverlong, String checkpointInterval, Integer maxOpenFiles, String rotateWait,
                        String bufferSize, String segmentSize, String maxInFlight, Boolean tcpAck,
                        RawTcp tcp, String kafkaCompression, Map<String, String> kafkaProperties, List<RawInput> inputs,
                        Map<String, String> sinks, Boolean followSymlinks, List<String> owners, String outputMode,
                        RawS3 s3, String ignoreOlder, RawMultiline multiline, String encoding,
                        Map<String, String> encodings, Map<String, String> fields, List<String> includeLines,
                        List<String> excludeLines, Boolean readGz) {

    /** Nothing given. */
    public static RawConfig empty() {
        return new RawConfig(null, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
                null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
                null, null, null);
    }

    /**
     * One input as written.
     *
     * @param name           its name (default {@code input-N})
     * @param paths          paths and globs
     * @param exclude        globs to leave out
     * @param framing        {@code lines} or {@code raw}
     * @param start          {@code beginning} or {@code end}
     * @param partialTimeout when an unterminated last line ships anyway
     * @param sink           the sink's name (may be left out when there is one sink)
     * @param followSymlinks whether symlinks are followed
     * @param owners         user names or IDs whose files may be shipped
     * @param ignoreOlder    files never shipped whose last modification is older than this start at their end
     * @param multiline      how lines are joined into multiline records
     * @param fields         static fields of this input's records, added over the top-level ones
     * @param includeLines   only records matching one of these expressions are shipped
     * @param excludeLines   records matching one of these expressions are left out
     * @param readGz         files whose name ends in {@code .gz} are decompressed and shipped once
     */
    public record RawInput(String name, List<String> paths, List<String> exclude, String framing, String start,
                           String partialTimeout, String sink, Boolean followSymlinks, List<String> owners,
                           String ignoreOlder, RawMultiline multiline, Map<String, String> fields,
                           List<String> includeLines, List<String> excludeLines, Boolean readGz) {
    }

    /**
     * The {@code multiline:} section (top level or per input): one of {@code preset}, {@code start-pattern} and
     * {@code continue-pattern}, and the record's limits. See {@link Multiline}.
     *
     * @param preset          {@code java} or {@code iso8601}
     * @param startPattern    a line matching it starts a record
     * @param continuePattern a line matching it continues the record before it
     * @param maxLines        the most lines of a record (default 500)
     * @param maxBytes        the most bytes of a record (default 1MiB)
     * @param timeout         how long a file's last record waits for the line that ends it (default 1s)
     */
    public record RawMultiline(String preset, String startPattern, String continuePattern, Integer maxLines,
                               String maxBytes, String timeout) {
        static RawMultiline pick(RawMultiline over, RawMultiline base) {
            if (over == null) return base;
            if (base == null) return over;
            boolean ownPattern = over.preset != null || over.startPattern != null || over.continuePattern != null;
            return new RawMultiline(ownPattern ? over.preset : base.preset,
                    ownPattern ? over.startPattern : base.startPattern,
                    ownPattern ? over.continuePattern : base.continuePattern,
                    RawConfig.pick(over.maxLines, base.maxLines), RawConfig.pick(over.maxBytes, base.maxBytes),
                    RawConfig.pick(over.timeout, base.timeout));
        }
    }

    /**
     * The {@code tcp:} section: how tcp sinks protect their connections. Relative paths are resolved like the
     * state directory's.
     *
     * @param tls       speak TLS 1.3 (default false)
     * @param tlsCa     CA certificates (PEM) the receiver's certificate must chain to (default: the JDK's)
     * @param tlsCert   a client certificate chain (PEM) for receivers that ask for one
     * @param tlsKey    its private key (PEM, unencrypted PKCS#8)
     * @param tokenFile a file holding the token receivers ask for
     */
    public record RawTcp(Boolean tls, String tlsCa, String tlsCert, String tlsKey, String tokenFile) {
        static RawTcp pick(RawTcp over, RawTcp base) {
            if (over == null) return base;
            if (base == null) return over;
            return new RawTcp(RawConfig.pick(over.tls, base.tls), RawConfig.pick(over.tlsCa, base.tlsCa),
                    RawConfig.pick(over.tlsCert, base.tlsCert), RawConfig.pick(over.tlsKey, base.tlsKey),
                    RawConfig.pick(over.tokenFile, base.tokenFile));
        }
    }

    /**
     * The {@code s3:} section: every key may be left out (the AWS SDK's default chains and the defaults of
     * {@link io.jfio.ship.s3.S3Settings} apply).
     *
     * @param endpoint      the server's URL ({@code http://127.0.0.1:9000})
     * @param region        the region
     * @param pathStyle     path-style addressing (default: on when an endpoint is given)
     * @param accessKey     the access key id
     * @param secretKey     its secret
     * @param sessionToken  a session token
     * @param profile       the shared config files' profile
     * @param storageClass  the objects' storage class
     * @param sse           server-side encryption: AES256 or aws:kms
     * @param sseKmsKeyId   the KMS key for aws:kms
     * @param objectSize    the object size, e.g. {@code 16MiB}
     * @param objectAge     the object age, e.g. {@code 60s}
     * @param compression   none, gzip or zstd
     * @param keyTemplate   the key template
     * @param shutdownGrace how long a stop waits for the last uploads
     * @param partSize      the part size of multipart uploads, e.g. {@code 8MiB}
     */
    public record RawS3(String endpoint, String region, Boolean pathStyle, String accessKey, String secretKey,
                        String sessionToken, String profile, String storageClass, String sse, String sseKmsKeyId,
                        String objectSize, String objectAge, String compression, String keyTemplate,
                        String shutdownGrace, String partSize) {
        static RawS3 pick(RawS3 over, RawS3 base) {
            if (over == null) return base;
            if (base == null) return over;
            return new RawS3(RawConfig.pick(over.endpoint, base.endpoint), RawConfig.pick(over.region, base.region),
                    RawConfig.pick(over.pathStyle, base.pathStyle), RawConfig.pick(over.accessKey, base.accessKey),
                    RawConfig.pick(over.secretKey, base.secretKey),
                    RawConfig.pick(over.sessionToken, base.sessionToken), RawConfig.pick(over.profile, base.profile),
                    RawConfig.pick(over.storageClass, base.storageClass), RawConfig.pick(over.sse, base.sse),
                    RawConfig.pick(over.sseKmsKeyId, base.sseKmsKeyId),
                    RawConfig.pick(over.objectSize, base.objectSize), RawConfig.pick(over.objectAge, base.objectAge),
                    RawConfig.pick(over.compression, base.compression),
                    RawConfig.pick(over.keyTemplate, base.keyTemplate),
                    RawConfig.pick(over.shutdownGrace, base.shutdownGrace),
                    RawConfig.pick(over.partSize, base.partSize));
        }
    }

    /** This configuration with every field that {@code over} gives replaced by {@code over}'s. */
    public RawConfig overriddenBy(RawConfig over) {
        return new RawConfig(pick(over.from, from), pick(over.exclude, exclude), pick(over.to, to),
                pick(over.state, state), pick(over.start, start), pick(over.metrics, metrics), pick(over.poll, poll),
                pick(over.framing, framing), pick(over.partialTimeout, partialTimeout),
                pick(over.maxRecord, maxRecord), pick(over.onOverlong, onOverlong),
                pick(over.checkpointInterval, checkpointInterval), pick(over.maxOpenFiles, maxOpenFiles),
                pick(over.rotateWait, rotateWait), pick(over.bufferSize, bufferSize),
                pick(over.segmentSize, segmentSize), pick(over.maxInFlight, maxInFlight), pick(over.tcpAck, tcpAck),
                RawTcp.pick(over.tcp, tcp),
                pick(over.kafkaCompression, kafkaCompression), pick(over.kafkaProperties, kafkaProperties),
                pick(over.inputs, inputs),
                pick(over.sinks, sinks), pick(over.followSymlinks, followSymlinks), pick(over.owners, owners),
                pick(over.outputMode, outputMode), RawS3.pick(over.s3, s3), pick(over.ignoreOlder, ignoreOlder),
                RawMultiline.pick(over.multiline, multiline), pick(over.encoding, encoding),
                pick(over.encodings, encodings), pick(over.fields, fields), pick(over.includeLines, includeLines),
                pick(over.excludeLines, excludeLines), pick(over.readGz, readGz));
    }

    private static <T> T pick(T over, T base) {
        return over != null ? over : base;
    }
}
