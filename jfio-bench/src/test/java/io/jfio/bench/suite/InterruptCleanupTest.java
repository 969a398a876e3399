package io.jfio.bench.suite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Kills a running suite with SIGTERM and checks that its test files are gone and it said so. */
class InterruptCleanupTest {
    @Test
    void shouldRemoveTestFilesWhenKilledWithSigtermMidRun() throws Exception {
        Path parent = CacheStateTest.diskDir();
        Path dir = Files.createTempDirectory(parent, "interrupt-");
        Path errFile = dir.resolveSibling(dir.getFileName() + ".err");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(List.of(java, "--enable-native-access=ALL-UNNAMED", "-cp",
                System.getProperty("java.class.path"), SuiteChildMain.class.getName(), dir.toString(),
                dir.resolveSibling(dir.getFileName() + "-report").toString()))
                .redirectErrorStream(true).redirectOutput(errFile.toFile()).start();
        try {
            // Wait until the run has written test data, then stop it mid-experiment.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (System.nanoTime() < deadline && dataBytes(dir) < (8L << 20) && p.isAlive()) Thread.sleep(20);
            assertTrue(p.isAlive(), "the child ended before it could be stopped:\n" + Files.readString(errFile));
            assertTrue(dataBytes(dir) > 0, "no test data appeared in " + dir);
            p.destroy(); // SIGTERM
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "the child did not stop after SIGTERM");
            String err = Files.readString(errFile, StandardCharsets.UTF_8);
            assertEquals(143, p.exitValue(), "exit after SIGTERM (128 + 15):\n" + err);
            assertTrue(err.contains("removed the test files"), err);
            try (Stream<Path> s = Files.list(dir)) {
                List<Path> left = s.toList();
                assertTrue(left.isEmpty(), "left behind: " + left + "\n" + err);
            }
        } finally {
            p.destroyForcibly();
            Files.deleteIfExists(errFile);
            Files.deleteIfExists(dir);
            Files.deleteIfExists(dir.resolveSibling(dir.getFileName() + "-report"));
        }
    }

    private static long dataBytes(Path dir) throws Exception {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.map(Path::toFile).filter(File::isFile).mapToLong(File::length).sum();
        }
    }
}
