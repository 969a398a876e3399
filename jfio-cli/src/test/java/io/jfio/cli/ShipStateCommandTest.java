package io.jfio.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code jfio ship state}: the checkpoints a real shipper (a child process) left, with each file's lag, as a table and
 * as JSON; forgetting one file's makes the next run ship it from its beginning; forgetting refuses while a shipper
 * holds the directory.
 */
class ShipStateCommandTest {
    @TempDir
    Path tmp;

    private Process ship(Path out, String... args) throws IOException {
        String java = ProcessHandle.current().info().command().orElseThrow();
        List<String> cmd = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED", "-cp",
                System.getProperty("java.class.path"), Main.class.getName(), "ship"));
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(tmp.resolve("ship.err").toFile())
                .start();
    }

    private void shipOnce(Path out, Path logs, Path state) throws Exception {
        Process p = ship(out, "--once", "--from", logs + "/*.log", "--to", "stdout:", "--state", state.toString());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), Files.readString(tmp.resolve("ship.err")));
    }

    @Test
    void shouldListLagAndForgetAFileSoThatItIsShippedAgain() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path a = Files.writeString(logs.resolve("a.log"), "a1\na2\n");
        Path b = Files.writeString(logs.resolve("b.log"), "b1\n");
        Path state = tmp.resolve("state");
        shipOnce(tmp.resolve("run1.out"), logs, state);
        Files.writeString(a, "a3\n", StandardOpenOption.APPEND);

        byte[] lock = Files.readAllBytes(state.resolve("lock"));
        long checkpointsChanged = Files.getLastModifiedTime(state.resolve("checkpoints-main.bin")).toMillis();
        CliResult table = CliResult.run("ship", "state", "--state", state.toString());
        assertEquals(0, table.exit(), table.err());
        assertTrue(java.util.Arrays.equals(lock, Files.readAllBytes(state.resolve("lock"))), "listing writes nothing");
        assertEquals(checkpointsChanged, Files.getLastModifiedTime(state.resolve("checkpoints-main.bin")).toMillis());
        assertTrue(table.out().startsWith("state " + state + " (no shipper running)\n"), table.out());
        assertTrue(table.out().lines().anyMatch(l -> l.matches("main +6 +9 +3 .*" + a + " \\(\\d+:\\d+\\)")),
                table.out());
        assertTrue(table.out().lines().anyMatch(l -> l.matches("main +3 +3 +0 .*" + b + " \\(\\d+:\\d+\\)")),
                table.out());

        CliResult json = CliResult.run("ship", "state", "--state", state.toString(), "--json");
        assertEquals(0, json.exit(), json.err());
        JsonNode root = new ObjectMapper().readTree(json.out());
        assertTrue(root.get("locked_by").isNull());
        assertEquals(2, root.get("entries").size());
        JsonNode first = root.get("entries").get(0);
        assertEquals(a.toString(), first.get("path").asText());
        assertEquals(Files.getAttribute(a, "unix:ino"), first.get("inode").asLong());
        assertEquals(6, first.get("offset").asLong());
        assertEquals(3, first.get("lag").asLong());

        CliResult forgot = CliResult.run("ship", "state", "--state", state.toString(), "--forget", a.toString());
        assertEquals(0, forgot.exit(), forgot.err());
        assertEquals("forgot 1 checkpoint of " + a + "\n", forgot.out());
        CliResult none = CliResult.run("ship", "state", "--state", state.toString(), "--forget", a.toString());
        assertEquals(ExitCodes.FAILED, none.exit());
        assertTrue(none.err().contains("no checkpoint of " + a), none.err());

        // The next run ships a from its beginning, and b not again.
        shipOnce(tmp.resolve("run2.out"), logs, state);
        assertEquals("a1\na2\na3\n", Files.readString(tmp.resolve("run2.out")));
    }

    @Test
    void shouldRefuseToForgetWhileAShipperHoldsTheStateDirectory() throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path a = Files.writeString(logs.resolve("a.log"), "a1\n");
        Path state = tmp.resolve("state");
        Process p = ship(tmp.resolve("run.out"), "--from", logs + "/*.log", "--to", "stdout:", "--state",
                state.toString());
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!Files.readString(tmp.resolve("run.out")).equals("a1\n") && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            CliResult refused = CliResult.run("ship", "state", "--state", state.toString(), "--forget", a.toString());
            assertEquals(ExitCodes.ENVIRONMENT, refused.exit(), refused.out());
            assertTrue(refused.err().contains("cannot forget while a shipper runs") && refused.err().contains(
                    "pid=" + p.pid()), refused.err());
            CliResult list = CliResult.run("ship", "state", "--state", state.toString());
            assertEquals(0, list.exit(), list.err());
            assertTrue(list.out().contains("(in use by jfio ship, pid " + p.pid() + ")"), list.out());
        } finally {
            p.destroy();
            p.waitFor(60, TimeUnit.SECONDS);
        }
    }

    @Test
    void shouldNameAMissingStateDirectoryAsBadInput() {
        CliResult r = CliResult.run("ship", "state", "--state", tmp.resolve("nope").toString());
        assertEquals(ExitCodes.USAGE, r.exit());
        assertEquals("jfio ship state: no state directory: " + tmp.resolve("nope") + " (--state)\n", r.err());
    }
}
