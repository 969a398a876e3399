package io.jfio.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code jfio info} where io_uring is denied (a child JVM whose seccomp filter fails io_uring_setup with EPERM):
 * auto falls back to threads and says why; forced io_uring is an environment error.
 */
class InfoWithoutIoUringTest {
    private static final String DENIED = "io_uring_setup failed: errno=EPERM (Operation not permitted)";

    record Result(int exit, String out, String err) {
    }

    private static Result runDenied(Path tmp, String engine, String... args) throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> cmd = new ArrayList<>(List.of(java.toString(), "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path")));
        if (engine != null) cmd.add("-Djfio.engine=" + engine);
        cmd.add(DenyIoUringMain.class.getName());
        cmd.addAll(List.of(args));
        Path out = tmp.resolve("out");
        Path err = tmp.resolve("err");
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("child did not finish: " + cmd);
        }
        return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    @Test
    void autoFallsBackToThreadsAndSaysWhy(@TempDir Path tmp) throws Exception {
        Result r = runDenied(tmp, null, "info", "--json", tmp.toString());
        assertEquals(ExitCodes.OK, r.exit(), r.err());
        JsonNode root = new ObjectMapper().readTree(r.out());
        JsonNode uring = root.get("io_uring");
        assertEquals(false, uring.get("available").asBoolean());
        assertEquals(DENIED, uring.get("unavailable_reason").asText());
        assertTrue(uring.get("supported_ops").isNull());
        // Unless the sysctl restricts io_uring here, the filter is what the hint must point at.
        if (uring.get("kernel_io_uring_disabled").asInt(0) == 0) {
            assertTrue(uring.get("unavailable_hint").asText().contains("seccomp filter"), uring.toString());
        }
        JsonNode engine = root.get("engine");
        assertEquals("threads", engine.get("selected").asText());
        assertEquals("io_uring unavailable: " + DENIED, engine.get("reason").asText());
    }

    @Test
    void humanOutputGivesTheReason(@TempDir Path tmp) throws Exception {
        Result r = runDenied(tmp, "auto", "info", tmp.toString());
        assertEquals(ExitCodes.OK, r.exit(), r.err());
        assertTrue(r.out().lines().anyMatch(l -> l.matches("  works: +no")), r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.matches("  reason: +" + java.util.regex.Pattern.quote(DENIED))),
                r.out());
        assertTrue(r.out().contains("kernel.io_uring_disabled:"), r.out());
    }

    @Test
    void forcedIoUringIsAnEnvironmentError(@TempDir Path tmp) throws Exception {
        Result r = runDenied(tmp, "uring", "info", tmp.toString());
        assertEquals(ExitCodes.ENVIRONMENT, r.exit(), r.err());
        assertEquals("jfio info: io_uring forced by -Djfio.engine=uring but unavailable: reason=" + DENIED,
                r.err().strip());
        // The report is still printed: it is what explains the failure.
        assertTrue(r.out().contains("selected:") && r.out().contains("none"), r.out());
    }
}
