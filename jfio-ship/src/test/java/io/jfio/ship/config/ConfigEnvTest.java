package io.jfio.ship.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Environment references in configuration files, YAML and TOML, read from real files. */
class ConfigEnvTest {
    private static final Map<String, String> ENV = Map.of("LOGS", "/var/log/app", "OUT", "/srv/out",
            "TRICKY", "x\nfollow-symlinks: true", "EMPTY", "");

    @TempDir
    Path tmp;

    @Test
    void shouldSubstituteValuesInYaml() throws Exception {
        Path f = Files.writeString(tmp.resolve("ship.yaml"), """
                from: ["${LOGS}/*.log", "/literal/$${NOT_A_VAR}/x.log"]
                to: dir:${OUT}
                state: ${STATE_DIR:-/var/lib/jfio}
                kafka-properties:
                  client.id: ${EMPTY:-fallback}-${LOGS}
                sinks:
                  other: "dir:${TRICKY}"
                  bus: "kafka:127.0.0.1:9092/logs-${input}"
                """);
        RawConfig c = ConfigLoader.load(f, ENV);
        assertEquals(List.of("/var/log/app/*.log", "/literal/${NOT_A_VAR}/x.log"), c.from());
        assertEquals("dir:/srv/out", c.to());
        assertEquals("/var/lib/jfio", c.state());
        assertEquals("fallback-/var/log/app", c.kafkaProperties().get("client.id"));
        // A value stays a value: its text cannot add a key.
        assertEquals("dir:x\nfollow-symlinks: true", c.sinks().get("other"));
        assertEquals(null, c.followSymlinks());
        assertEquals("kafka:127.0.0.1:9092/logs-${input}", c.sinks().get("bus"), "the topic template's own field");
    }

    @Test
    void shouldSubstituteValuesInToml() throws Exception {
        Path f = Files.writeString(tmp.resolve("ship.toml"), """
                to = "dir:${OUT}"
                state = "${STATE:-/tmp/state}"
                """);
        RawConfig c = ConfigLoader.load(f, ENV);
        assertEquals("dir:/srv/out", c.to());
        assertEquals("/tmp/state", c.state());
    }

    @Test
    void shouldNameTheKeyAndTheVariableThatIsNotSet() throws Exception {
        Path f = Files.writeString(tmp.resolve("ship.yaml"), """
                from: ["/a/*.log"]
                inputs:
                  - name: web
                    paths: ["${WEB_LOGS}/*.log"]
                """);
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.load(f, ENV));
        assertTrue(e.getMessage().contains("inputs[0].paths[0]") && e.getMessage().contains("WEB_LOGS is not set")
                && e.getMessage().contains(f.toString()), e.getMessage());
        Path bad = Files.writeString(tmp.resolve("bad.yaml"), "to: \"dir:${1X}\"\n");
        e = assertThrows(ConfigException.class, () -> ConfigLoader.load(bad, ENV));
        assertTrue(e.getMessage().contains("to: '${1X}' does not name an environment variable"), e.getMessage());
        Path open = Files.writeString(tmp.resolve("open.yaml"), "to: \"dir:${OUT\"\n");
        e = assertThrows(ConfigException.class, () -> ConfigLoader.load(open, ENV));
        assertTrue(e.getMessage().contains("without a closing '}'"), e.getMessage());
    }

    @Test
    void shouldStillReportUnknownKeysWithTheirLine() throws Exception {
        Path f = Files.writeString(tmp.resolve("ship.yaml"), "to: dir:${OUT}\n\nstaet: /x\n");
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.load(f, ENV));
        assertTrue(e.getMessage().contains("key=staet") && e.getMessage().contains("line=3"), e.getMessage());
    }
}
