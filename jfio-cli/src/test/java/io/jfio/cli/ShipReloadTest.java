package io.jfio.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGHUP reloads the configuration of a running {@code jfio ship} (a real child process, a real dir sink) while
 * writers append: an added input starts, a removed one stops after what was read, an unchanged reload changes
 * nothing, an invalid file (or one whose glob does not compile) is refused and the shipper runs on; through all of it
 * every line is delivered exactly once.
 */
class ShipReloadTest {
    @TempDir
    Path tmp;

    /** A writer appending numbered lines to one file until stopped. */
    private static final class Writer extends Thread {
        final Path file;
        final String name;
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicInteger written = new AtomicInteger();

        Writer(Path file, String name) {
            this.file = file;
            this.name = name;
        }

        @Override
        public void run() {
            try {
                while (!stop.get()) {
                    StringBuilder b = new StringBuilder();
                    for (int i = 0; i < 20; i++) {
                        b.append(name).append(' ').append(written.getAndIncrement()).append('\n');
                    }
                    Files.writeString(file, b, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
                    Thread.sleep(2);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        void finish() throws InterruptedException {
            stop.set(true);
            join();
        }
    }

    private void config(Path cfg, Path out, List<String> inputs) throws IOException {
        StringBuilder b = new StringBuilder("state: " + tmp.resolve("state") + "\ninputs:\n");
        for (String in : inputs) {
            b.append("  - name: ").append(in).append("\n    paths: [\"").append(tmp.resolve(in)).append("/*.log\"]\n")
                    .append("    sink: out\n");
        }
        b.append("sinks:\n  out: dir:").append(out).append('\n');
        Files.writeString(cfg, b);
    }

    private static void hangup(Process p) throws Exception {
        Process k = new ProcessBuilder("kill", "-HUP", Long.toString(p.pid())).inheritIO().start();
        assertEquals(0, k.waitFor());
    }

    private static void waitFor(BooleanSupplier done, String what, Path log) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("timed out waiting for " + what + "\n"
                    + Files.readString(log));
            Thread.sleep(20);
        }
    }

    private static long count(Path log, String event) {
        try {
            return Files.readString(log).lines().filter(l -> l.contains("event=" + event + " ")
                    || l.endsWith("event=" + event)).count();
        } catch (IOException e) {
            return 0;
        }
    }

    /** Each line the sink holds, with how often. */
    private static Map<String, Integer> delivered(Path out) throws IOException {
        Map<String, Integer> seen = new HashMap<>();
        if (!Files.isDirectory(out)) return seen;
        try (Stream<Path> s = Files.list(out)) {
            for (Path seg : s.filter(p -> p.getFileName().toString().startsWith("ship-")).sorted().toList()) {
                for (String l : Files.readString(seg, StandardCharsets.ISO_8859_1).split("\n")) {
                    if (!l.isEmpty()) seen.merge(l, 1, Integer::sum);
                }
            }
        }
        return seen;
    }

    @Test
    void shouldReloadOnHangupWhileWritersRunAndDeliverEveryLineOnce() throws Exception {
        Path a = Files.createDirectories(tmp.resolve("a"));
        Path b = Files.createDirectories(tmp.resolve("b"));
        Path out = tmp.resolve("out");
        Path cfg = tmp.resolve("ship.yaml");
        config(cfg, out, List.of("a"));
        Path log = tmp.resolve("ship.err");
        String java = ProcessHandle.current().info().command().orElseThrow();
        List<String> cmd = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED", "-cp",
                System.getProperty("java.class.path"), Main.class.getName(), "ship", "--config", cfg.toString()));
        Process p = new ProcessBuilder(cmd).redirectOutput(tmp.resolve("ship.out").toFile())
                .redirectError(log.toFile()).start();
        Writer wa = new Writer(a.resolve("x.log"), "a");
        Writer wb = new Writer(b.resolve("y.log"), "b");
        try {
            waitFor(() -> count(log, "watch") == 1, "the shipper's start", log);
            wa.start();
            wb.start();
            waitFor(() -> wa.written.get() > 2000, "lines in a", log);

            config(cfg, out, List.of("a", "b")); // b is added
            hangup(p);
            waitFor(() -> count(log, "reloaded") == 1 && count(log, "watch") == 2, "the first reload", log);
            Thread.sleep(500);

            hangup(p); // the same configuration again
            waitFor(() -> count(log, "reloaded") == 2 && count(log, "watch") == 3, "the second reload", log);
            Thread.sleep(300);

            Files.writeString(cfg, "inputs: [ this is not: valid\n");
            hangup(p);
            waitFor(() -> count(log, "reload-refused") == 1, "the refused reload", log);
            assertTrue(p.isAlive(), "an invalid file does not stop the shipper");
            Thread.sleep(300);

            config(cfg, out, List.of("a", "b"));
            Files.writeString(cfg, Files.readString(cfg).replace("/*.log", "/[*.log")); // '[' never closed
            hangup(p);
            waitFor(() -> count(log, "reload-refused") == 2, "the refused reload of a bad glob", log);
            assertTrue(Files.readString(log).contains("invalid glob: input=a inputs.paths='" + tmp.resolve("a")
                    + "/[*.log': a '[' without its closing ']'"), Files.readString(log));
            assertTrue(p.isAlive(), "a glob that does not compile does not stop the shipper");
            Thread.sleep(300);

            wb.finish();
            int bWritten = wb.written.get();
            config(cfg, out, List.of("a")); // b is removed
            hangup(p);
            waitFor(() -> count(log, "reloaded") == 3 && count(log, "watch") == 4, "the third reload", log);
            Files.writeString(b.resolve("y.log"), "b after-removal\n", StandardOpenOption.APPEND);
            Thread.sleep(500);
            wa.finish();
            int aWritten = wa.written.get();
            waitFor(() -> {
                try {
                    return delivered(out).containsKey("a " + (aWritten - 1));
                } catch (IOException e) {
                    return false;
                }
            }, "every line of a", log);

            Map<String, Integer> seen = delivered(out);
            for (int i = 0; i < aWritten; i++) {
                assertEquals(1, seen.getOrDefault("a " + i, 0), "a " + i + " delivered once");
            }
            // b was added after it had lines: all of them; it was removed after its writer stopped and the reload
            // drained what was read, then nothing more.
            int bDelivered = 0;
            for (int i = 0; i < bWritten; i++) {
                int n = seen.getOrDefault("b " + i, 0);
                assertTrue(n <= 1, "b " + i + " delivered " + n + " times");
                bDelivered += n;
            }
            assertTrue(bDelivered > 0, "b was shipped after it was added");
            for (int i = 0; i < bDelivered; i++) {
                assertEquals(1, seen.getOrDefault("b " + i, 0), "b's lines up to the removal without a gap: " + i);
            }
            assertTrue(!seen.containsKey("b after-removal"), "a removed input is not read any more");
            assertEquals(aWritten + bDelivered, seen.values().stream().mapToInt(Integer::intValue).sum());
        } finally {
            wa.finish();
            wb.finish();
            p.destroy();
        }
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(ExitCodes.OK, p.exitValue(), Files.readString(log));
    }
}
