package io.jfio.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jfio.ship.Shipper;
import io.jfio.ship.log.ShipLog;
import io.jfio.ship.state.CheckpointStore;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code jfio ship} whose state directory fills up (a real 64 KiB tmpfs): periodic checkpoint writes fail, are said
 * once, counted and retried, and leave the previous checkpoint whole; the write at shutdown fails the run (exit 1,
 * the file and the reason named); the next start ships again what came after the last checkpoint, skipping nothing.
 */
class ShipCheckpointFullTest {
    @TempDir
    Path tmp;

    private static String lines(int from, int to) {
        StringBuilder b = new StringBuilder();
        for (int i = from; i <= to; i++) b.append("record-").append(i).append('\n');
        return b.toString();
    }

    private Process ship(Path out, Path err, String... args) throws IOException {
        String java = ProcessHandle.current().info().command().orElseThrow();
        List<String> cmd = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED", "-cp",
                System.getProperty("java.class.path"), Main.class.getName(), "ship"));
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    }

    private static void waitFor(BooleanSupplier done, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("timed out waiting for " + what);
            Thread.sleep(20);
        }
    }

    private static String read(Path p) {
        try {
            return Files.exists(p) ? Files.readString(p) : "";
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static long checkpointOffset(CheckpointStore store) {
        try {
            CheckpointStore.Loaded l = store.load(ShipLog.stderr(), false);
            assertFalse(l.corrupt(), l.problem());
            return l.entries().isEmpty() ? -1 : l.entries().get(0).offset();
        } catch (IOException e) {
            return -1;
        }
    }

    @Test
    void fullStateDirectoryFailsTheRunNamingTheFileAndLosesNothing() throws Exception {
        Path mnt = Files.createDirectories(tmp.resolve("statefs"));
        Tmpfs fs = Tmpfs.mount(mnt, "size=64k");
        assumeTrue(fs != null, "needs to mount a 64 KiB tmpfs to fill a state directory (root, mount permitted)");
        try (fs) {
            Path state = mnt.resolve("state");
            Path src = Files.writeString(tmp.resolve("a.log"), lines(1, 100));
            long first = Files.size(src);
            Path out1 = tmp.resolve("run1.out");
            Path err1 = tmp.resolve("run1.err");
            Process p = ship(out1, err1, "--from", src.toString(), "--to", "stdout:", "--state", state.toString(),
                    "--checkpoint-interval", "20ms", "--metrics", "127.0.0.1:0");
            CheckpointStore store = new CheckpointStore(state.resolve(Shipper.checkpointFile("main")));
            try {
                waitFor(() -> read(out1).contains("record-100\n") && checkpointOffset(store) == first,
                        "the first records and their checkpoint");
                Matcher m = Pattern.compile("event=metrics address=127.0.0.1:(\\d+)").matcher(read(err1));
                assertTrue(m.find(), read(err1));
                int port = Integer.parseInt(m.group(1));
                // Fill the file system: the next checkpoint cannot be written.
                try (OutputStream filler = Files.newOutputStream(mnt.resolve("filler"))) {
                    byte[] block = new byte[4096];
                    while (true) filler.write(block);
                } catch (IOException full) {
                    assertTrue(String.valueOf(full.getMessage()).contains("No space left on device"), full.toString());
                }
                Files.writeString(src, lines(101, 200), StandardOpenOption.APPEND);
                waitFor(() -> read(out1).contains("record-200\n"), "the records written after the disk filled");
                // The writer retries every second; wait for a second failed attempt.
                waitFor(() -> checkpointErrors(port) >= 2, "a retried checkpoint write");
                assertEquals(first, checkpointOffset(store), "the previous checkpoint stands, whole");
            } finally {
                p.destroy(); // SIGTERM: the shutdown checkpoint fails too
            }
            assertTrue(p.waitFor(60, TimeUnit.SECONDS));
            String log = read(err1);
            assertEquals(ExitCodes.FAILED, p.exitValue(), log);
            String[] lines = log.split("\\R");
            assertEquals("jfio ship: cannot save checkpoints to " + store.file() + ": No space left on device",
                    lines[lines.length - 1], log);
            assertEquals(1, log.lines().filter(l -> l.contains("event=checkpoint-write-failed")).count(),
                    "one line per distinct reason, not per attempt: " + log);
            assertTrue(log.contains("event=stop") && log.contains("ok=false"), log);
            assertEquals(first, checkpointOffset(store));

            Files.delete(mnt.resolve("filler"));
            Path out2 = tmp.resolve("run2.out");
            Path err2 = tmp.resolve("run2.err");
            Process again = ship(out2, err2, "--once", "--from", src.toString(), "--to", "stdout:", "--state",
                    state.toString());
            assertTrue(again.waitFor(60, TimeUnit.SECONDS));
            assertEquals(ExitCodes.OK, again.exitValue(), read(err2));
            // Resumed at the last checkpoint written: what came after it is shipped again, nothing is skipped.
            assertEquals(lines(1, 200), read(out1));
            assertEquals(lines(101, 200), read(out2));
            assertEquals(Files.size(src), checkpointOffset(store));
        }
    }

    /** The shipper's count of failed checkpoint writes, from its metrics endpoint. */
    private static long checkpointErrors(int port) {
        try (HttpClient http = HttpClient.newHttpClient()) {
            String body = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                    .build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8)).body();
            Matcher m = Pattern.compile("jfio_ship_errors_total\\{sink=\"main\",kind=\"checkpoint\"} (\\d+)")
                    .matcher(body);
            return m.find() ? Long.parseLong(m.group(1)) : 0;
        } catch (IOException e) {
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        }
    }
}
