package io.jfio.ship.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.ship.sink.RecordView;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The record settings from a YAML file: multiline (top level, per input, presets, patterns, limits), encodings per
 * sink, fields and line filters; and each invalid combination refused with a message naming the key.
 */
class RecordConfigTest {
    @TempDir
    Path tmp;

    private ShipConfig load(String yaml) throws Exception {
        Path f = tmp.resolve("ship.yaml");
        Files.writeString(f, yaml);
        return ShipConfig.resolve(ConfigLoader.load(f, Map.of()), tmp);
    }

    private String refused(String yaml) {
        return assertThrows(ConfigException.class, () -> load(yaml)).getMessage();
    }

    @Test
    void shouldReadMultilineEncodingsFieldsAndFiltersFromTheConfigFile() throws Exception {
        ShipConfig c = load("""
                state: state
                multiline:
                  preset: java
                  max-lines: 200
                  timeout: 3s
                encoding: ndjson
                encodings:
                  bus: headers
                fields: {service: web, env: prod}
                exclude-lines: ["DEBUG"]
                inputs:
                  - name: app
                    paths: ["/var/log/app/*.log"]
                    sink: archive
                  - name: nginx
                    paths: ["/var/log/nginx/error.log"]
                    sink: bus
                    fields: {env: staging}
                    include-lines: ["error", "crit"]
                    multiline:
                      start-pattern: '^\\d{4}/'
                sinks:
                  archive: dir:/srv/ship
                  bus: kafka:localhost:9092/logs
                """);
        InputConfig app = c.inputs().get(0);
        InputConfig nginx = c.inputs().get(1);
        assertEquals(new Multiline(Multiline.Mode.CONTINUE, "java", null, 200, Multiline.MAX_BYTES_DEFAULT,
                Duration.ofSeconds(3)), app.multiline());
        assertEquals(new Multiline(Multiline.Mode.START, null, "^\\d{4}/", 200, Multiline.MAX_BYTES_DEFAULT,
                Duration.ofSeconds(3)), nginx.multiline(), "the input's pattern with the top level's limits");
        assertEquals(RecordView.Encoding.NDJSON, c.encodingOf("archive"));
        assertEquals(RecordView.Encoding.HEADERS, c.encodingOf("bus"));
        assertEquals(Map.of("service", "web", "env", "prod"), app.fields());
        assertEquals(Map.of("service", "web", "env", "staging"), nginx.fields());
        assertEquals(List.of("DEBUG"), app.excludeLines());
        assertEquals(List.of("error", "crit"), nginx.includeLines());
        assertTrue(c.bufferCapacity() > Multiline.MAX_BYTES_DEFAULT, "the buffer holds the longest record");
    }

    @Test
    void shouldRefuseInvalidRecordSettingsNamingTheKey() {
        String base = "state: s\nfrom: [/var/log/*.log]\nto: dir:/srv\n";
        assertTrue(refused(base + "multiline: {preset: python}\n").contains("invalid multiline preset"));
        assertTrue(refused(base + "multiline: {preset: java, start-pattern: x}\n").contains("exactly one"));
        assertTrue(refused(base + "multiline: {max-lines: 3}\n").contains("exactly one"));
        assertTrue(refused(base + "multiline: {start-pattern: '(a'}\n").contains("multiline start-pattern"));
        assertTrue(refused(base + "multiline: {preset: java, max-bytes: 10}\n").contains("max-bytes"));
        assertTrue(refused(base + "framing: raw\nmultiline: {preset: java}\n").contains("framing lines"));
        assertTrue(refused(base + "encoding: json\n").contains("invalid encoding"));
        assertTrue(refused(base + "encoding: headers\n").contains("kafka sinks only"));
        assertTrue(refused(base + "encodings: {other: ndjson}\n").contains("unknown sink"));
        assertTrue(refused(base + "framing: raw\nencoding: ndjson\n").contains("framing raw"));
        assertTrue(refused(base + "include-lines: ['[']\n").contains("invalid include-lines"));
        assertTrue(refused(base + "framing: raw\nexclude-lines: [x]\n").contains("framing lines"));
        assertTrue(refused("state: s\nfrom: [/var/log/*.log]\nto: s3://bucket/p\nencoding: headers\n")
                .contains("kafka sinks only"));
    }

    @Test
    void shouldBoundWhatIsInFlightByEachSinksKindUnlessTold() throws Exception {
        String base = "state: s\nfrom: [/var/log/*.log]\n";
        assertEquals(ShipConfig.MAX_IN_FLIGHT_DEFAULT, load(base + "to: dir:/srv\n").maxInFlight(ShipConfig.MAIN));
        assertEquals(ShipConfig.MAX_IN_FLIGHT_S3_DEFAULT,
                load(base + "to: s3://bucket/p\n").maxInFlight(ShipConfig.MAIN));
        // A kafka producer holds its records in the heap, with objects of their own: a smaller bound by default.
        assertEquals(ShipConfig.MAX_IN_FLIGHT_KAFKA_DEFAULT,
                load(base + "to: kafka:127.0.0.1:9092/t\n").maxInFlight(ShipConfig.MAIN));
        // Each sink its own, whatever sinks are beside it.
        ShipConfig mixed = load("state: s\ninputs: [{name: a, paths: [/a/*.log], sink: d}, {name: b, paths:"
                + " [/b/*.log], sink: k}, {name: c, paths: [/c/*.log], sink: o}]\n"
                + "sinks: {d: dir:/srv, k: kafka:127.0.0.1:9092/t, o: s3://bucket/p}\n");
        assertEquals(List.of(ShipConfig.MAX_IN_FLIGHT_DEFAULT, ShipConfig.MAX_IN_FLIGHT_KAFKA_DEFAULT,
                ShipConfig.MAX_IN_FLIGHT_S3_DEFAULT), List.of(mixed.maxInFlight("d"), mixed.maxInFlight("k"),
                mixed.maxInFlight("o")));
        // Set, it is every sink's.
        ShipConfig set = load("state: s\nmax-in-flight: 64MiB\ninputs: [{name: a, paths: [/a/*.log], sink: d},"
                + " {name: b, paths: [/b/*.log], sink: k}]\nsinks: {d: dir:/srv, k: kafka:127.0.0.1:9092/t}\n");
        assertEquals(List.of(64L << 20, 64L << 20), List.of(set.maxInFlight("d"), set.maxInFlight("k")));
        assertTrue(refused(base + "to: dir:/srv\nmax-in-flight: 0\n").contains("max-in-flight must be positive"));
    }

    @Test
    void shouldTakeReadGzForAnS3Sink() throws Exception {
        // Its objects of a gzip file are named by decompressed ranges: exactly once, as for plain files.
        ShipConfig c = load("state: s\nfrom: [/var/log/*.log*]\nto: s3://bucket/p\nread-gz: true\nencoding: ndjson\n");
        assertTrue(c.inputs().get(0).readGz());
        assertTrue(c.inputs().get(0).gzip("/var/log/app.log.1.gz"));
    }

    @Test
    void shouldReadTheRecordSettingsFromToml() throws Exception {
        Path f = tmp.resolve("ship.toml");
        Files.writeString(f, """
                state = "state"
                encoding = "ndjson"
                read-gz = true
                exclude-lines = ["DEBUG"]
                [multiline]
                preset = "iso8601"
                max-lines = 50
                [fields]
                service = "web"
                [[inputs]]
                name = "app"
                paths = ["/var/log/app/*.log"]
                sink = "main"
                [sinks]
                main = "dir:/srv/ship"
                """);
        ShipConfig c = ShipConfig.resolve(ConfigLoader.load(f, Map.of()), tmp);
        InputConfig app = c.inputs().get(0);
        assertEquals(Multiline.Mode.START, app.multiline().mode());
        assertEquals(50, app.multiline().maxLines());
        assertEquals(Map.of("service", "web"), app.fields());
        assertEquals(List.of("DEBUG"), app.excludeLines());
        assertTrue(app.gzip("/var/log/app/app.log.1.gz") && !app.gzip("/var/log/app/app.log"));
        assertEquals(RecordView.Encoding.NDJSON, c.encodingOf("main"));
    }
}
