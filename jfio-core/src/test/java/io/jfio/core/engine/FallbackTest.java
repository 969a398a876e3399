package io.jfio.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The automatic fallback, exercised for real: a child JVM in which a seccomp filter makes io_uring_setup fail with
 * EPERM, as container runtimes' default profiles do.
 */
class FallbackTest {

    private static String runChild(String engineProperty) throws IOException, InterruptedException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> cmd = new ArrayList<>(List.of(java.toString(), "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path")));
        if (engineProperty != null) cmd.add("-Djfio.engine=" + engineProperty);
        cmd.add(SeccompChild.class.getName());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "child did not finish");
        assertEquals(0, p.exitValue(), "child failed:\n" + out);
        return out;
    }

    @Test
    void shouldFallBackToThreadEngineWhenIoUringSetupIsDenied() throws Exception {
        String out = runChild(null);
        assertTrue(out.contains("engine=threads"), out);
        assertTrue(out.contains("reason=io_uring_setup failed: errno=EPERM"), out);
        // An event loop's ring says so with the same exception: the shipper then waits in epoll.
        assertTrue(out.contains("eventring=UringUnavailableException: io_uring_setup failed: errno=EPERM"), out);
    }

    @Test
    void shouldReportClearErrorWhenIoUringIsForcedButDenied() throws Exception {
        String out = runChild("uring");
        assertTrue(out.contains("error=UringUnavailableException: io_uring_setup failed: errno=EPERM"), out);
    }
}
