package io.jfio.bench.ship;

import io.jfio.bench.Processes;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code min-shipper}: a C program, shipped as source with the benchmark and built with the machine's {@code cc},
 * that does per append only what any file shipper must (an inotify wake-up, a read of the new bytes, a send) and
 * nothing a shipper that keeps its promises also does (no checkpoints, no acknowledgements, no rotation, no
 * framing). Its row in a latency run is the floor of CPU per line and of latency on that machine and kernel, against
 * which jfio's and the peers' costs are read.
 *
 * <p>Not thread-safe; used by the benchmark's thread.
 */
final class MinShipper {
    private static final String SOURCE = "min-shipper.c";
    private static final long BUILD_TIMEOUT_SECONDS = 60;

    private MinShipper() {
    }

    /**
     * Builds the program in {@code work}; null (with the reason on {@code err}) when there is no C compiler or it
     * fails.
     */
    static Path build(Path work, PrintWriter err) {
        Path src = work.resolve(SOURCE);
        Path bin = work.resolve("min-shipper");
        try (InputStream in = MinShipper.class.getResourceAsStream(SOURCE)) {
            if (in == null) throw new IOException("the benchmark's jar lacks " + SOURCE);
            Files.copy(in, src);
            ProcessBuilder pb = new ProcessBuilder(List.of("cc", "-O2", "-o", bin.toString(), src.toString()))
                    .redirectErrorStream(true).redirectOutput(work.resolve("min-shipper-build.log").toFile());
            int exit = Processes.run(pb, BUILD_TIMEOUT_SECONDS);
            if (exit != 0 || !Files.isExecutable(bin)) {
                err.println("bench ship: cc could not build min-shipper (exit " + exit + "; see "
                        + work.resolve("min-shipper-build.log") + "): no floor rows");
                return null;
            }
            return bin;
        } catch (IOException e) {
            err.println("bench ship: no C compiler to build min-shipper (" + e.getMessage() + "): no floor rows");
            return null;
        }
    }

    /** The command that ships the files of {@code dir} to 127.0.0.1:{@code port}. */
    static List<String> command(Path bin, Path dir, int port) {
        return List.of(bin.toString(), dir.toString(), Integer.toString(port));
    }
}
