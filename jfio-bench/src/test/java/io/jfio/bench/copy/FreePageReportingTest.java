package io.jfio.bench.copy;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FreePageReportingTest {
    @Test
    void readsTheReportingBitOfTheNegotiatedFeatures() {
        // bit 0 first: STATS_VQ (1), DEFLATE_ON_OOM (2) and REPORTING (5), as a Firecracker balloon shows them
        assertTrue(FreePageReporting.hasFeature("0110010100000000\n"));
        assertFalse(FreePageReporting.hasFeature("0110000100000000\n"));
        assertFalse(FreePageReporting.hasFeature("0110"));
        assertFalse(FreePageReporting.hasFeature(""));
    }

    @Test
    void findsADeviceThatReportsAmongTheDriversDevices(@TempDir Path dir) throws Exception {
        Path driver = Files.createDirectory(dir.resolve("virtio_balloon"));
        assertFalse(FreePageReporting.active(dir.resolve("missing")), "no balloon driver");
        assertFalse(FreePageReporting.active(driver), "a driver without devices");
        Files.writeString(Files.createDirectory(driver.resolve("virtio0")).resolve("features"), "0110000\n");
        assertFalse(FreePageReporting.active(driver), "a balloon without reporting");
        Files.writeString(Files.createDirectory(driver.resolve("virtio7")).resolve("features"), "0000010\n");
        assertTrue(FreePageReporting.active(driver));
    }
}
