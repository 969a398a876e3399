package io.jfio.bench.copy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether this machine is a VM that hands freed memory back to its host: a virtio-balloon device that negotiated
 * free page reporting ({@code VIRTIO_BALLOON_F_REPORTING}, feature bit 5).
 *
 * <p>Thread-safe; stateless. The guest reports free blocks about 2 s after a large free, a fraction of the free
 * memory per pass, and the host takes them away; memory it must then give again is written several times slower
 * (a 4 GiB copy from the page cache took 1.0-1.5 s started at once after the previous copy was deleted, 6-8 s
 * started 8-12 s later, on a 2-CPU Firecracker VM). So on such a machine a copy's speed depends on how long ago
 * memory was freed, and a tool that starts its copy later after the previous run's target was deleted (a JVM
 * against a C binary) is measured on slower memory: the benchmark waits before such runs so that every tool
 * meets the same state.
 */
final class FreePageReporting {
    /** The bit of {@code VIRTIO_BALLOON_F_REPORTING} in the device's negotiated features. */
    static final int FEATURE_BIT = 5;
    private static final Path DRIVER = Path.of("/sys/bus/virtio/drivers/virtio_balloon");

    private FreePageReporting() {
    }

    /** True when a virtio-balloon device here reports free pages to the host. */
    static boolean active() {
        return active(DRIVER);
    }

    static boolean active(Path driverDir) {
        if (!Files.isDirectory(driverDir)) return false;
        try (DirectoryStream<Path> devices = Files.newDirectoryStream(driverDir, "virtio*")) {
            for (Path d : devices) {
                Path f = d.resolve("features");
                if (!Files.isReadable(f)) continue;
                if (hasFeature(Files.readString(f, StandardCharsets.US_ASCII))) return true;
            }
        } catch (IOException e) {
            return false;
        }
        return false;
    }

    /** The features file lists bit 0 first, one '0' or '1' per bit. */
    static boolean hasFeature(String features) {
        String s = features.trim();
        return s.length() > FEATURE_BIT && s.charAt(FEATURE_BIT) == '1';
    }
}
