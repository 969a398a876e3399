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
    void shouldTakeAnEmptyVariableAsItsValueAndTheDefaultOnlyWithOne() throws Exception {
        Path f = Files.writeString(tmp.resolve("ship.yaml"), """
                to: "dir:/out${EMPTY}"
                state: "${EMPTY:-/var/lib/jfio}"
                """);
        RawConfig c = ConfigLoader.load(f, ENV);
        assertEquals("dir:/out", c.to());
        assertEquals("/var/lib/jfio", c.state());
    }

    @Test
    void shouldRefuseAKeyGivenTwiceAWrongTypeAndAFifo() throws Exception {
        Path twice = Files.writeString(tmp.resolve("twice.yaml"), "to: dir:/a\nstate: /s1\nstate: /s2\n");
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.load(twice, ENV));
        assertTrue(e.getMessage().contains("state") && e.getMessage().contains("line=3"), e.getMessage());
        Path type = Files.writeString(tmp.resolve("type.yaml"), "to: dir:/a\nmax-open-files: [1, 2]\n");
        e = assertThrows(ConfigException.class, () -> ConfigLoader.load(type, ENV));
        assertTrue(e.getMessage().contains("key=max-open-files") && e.getMessage().contains("expected=a number")
                && !e.getMessage().contains("java."), e.getMessage());
        Path fifo = tmp.resolve("fifo.yaml");
        Process mk = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assertEquals(0, mk.waitFor());
        e = assertThrows(ConfigException.class, () -> ConfigLoader.load(fifo, ENV));
        assertTrue(e.getMessage().contains("not a regular file"), e.getMessage());
    }

    @Test
    void shouldStillReportUnknownKeysWithTheirLine() throws Exception {
        Path f = Files.writeString(tmp.resolve("ship.yaml"), "to: dir:${OUT}\n\nstaet: /x\n");
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.load(f, ENV));
        assertTrue(e.getMessage().contains("key=staet") && e.getMessage().contains("line=3"), e.getMessage());
    }
}
