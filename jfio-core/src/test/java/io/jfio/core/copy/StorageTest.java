package io.jfio.core.copy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.core.sys.Statx;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Rotation from a sysfs tree laid out like the kernel's, and the process facts the copy reads. */
class StorageTest {

    /** A disk under {@code sys/devices/...}, its /sys/dev/block link, its queue flag and its driver. */
    private static void disk(Path sys, String name, int major, int minor, String rotational, String driver)
            throws Exception {
        Path dir = Files.createDirectories(sys.resolve("devices/pci0000:00/x/" + name));
        Files.createDirectories(dir.resolve("queue"));
        Files.writeString(dir.resolve("queue/rotational"), rotational + "\n");
        Path drv = Files.createDirectories(sys.resolve("bus/drivers/" + driver));
        Files.createDirectories(dir.resolve("device"));
        Files.createSymbolicLink(dir.resolve("device/driver"), drv);
        Files.createDirectories(sys.resolve("dev/block"));
        Files.createSymbolicLink(sys.resolve("dev/block/" + major + ":" + minor), dir);
    }

    @Test
    void shouldTrustTheRotationalFlagOfRealDisksOnly(@TempDir Path sys) throws Exception {
        disk(sys, "sda", 8, 0, "1", "sd");
        disk(sys, "nvme0n1", 259, 0, "0", "nvme");
        disk(sys, "vda", 254, 0, "1", "virtio_blk");
        // a partition of sda: no queue of its own, the disk's applies
        Path part = Files.createDirectories(sys.resolve("devices/pci0000:00/x/sda/sda1"));
        Files.writeString(part.resolve("partition"), "1\n");
        Files.createSymbolicLink(sys.resolve("dev/block/8:1"), part);

        Storage.Rotation hdd = Storage.readRotation(sys, Statx.makedev(8, 0));
        assertTrue(hdd.rotational(), hdd.toString());
        assertEquals("sda: queue/rotational=1", hdd.detail());
        assertTrue(Storage.readRotation(sys, Statx.makedev(8, 1)).rotational(), "a partition of a spinning disk");
        assertFalse(Storage.readRotation(sys, Statx.makedev(259, 0)).rotational());
        Storage.Rotation virtio = Storage.readRotation(sys, Statx.makedev(254, 0));
        assertFalse(virtio.rotational(), virtio.toString());
        assertTrue(virtio.detail().contains("virtio_blk"), virtio.detail());
        Storage.Rotation none = Storage.readRotation(sys, Statx.makedev(0, 45));
        assertFalse(none.rotational(), "tmpfs and friends have no queue");
        assertEquals("0:45", Storage.showDevice(Statx.makedev(0, 45)));
    }

    @Test
    void shouldAskTheDevicesUnderLoopAndDeviceMapperDevices(@TempDir Path sys, @TempDir Path data) throws Exception {
        // the backing file's real device, laid out as a spinning disk
        long dev = ((Number) Files.getAttribute(data, "unix:dev")).longValue();
        Path backing = Files.writeString(data.resolve("image"), "x");
        String mm = Storage.showDevice(dev);
        int major = Integer.parseInt(mm.split(":")[0]);
        int minor = Integer.parseInt(mm.split(":")[1]);
        disk(sys, "hdd", major, minor, "1", "sd");
        // loop7 on that file: its own flag says 0, but what counts is the disk under it
        disk(sys, "loop7", 7, 7, "0", "loop");
        Path loop = sys.resolve("devices/pci0000:00/x/loop7");
        Files.createDirectories(loop.resolve("loop"));
        Files.writeString(loop.resolve("loop/backing_file"), backing + "\n");
        Files.writeString(loop.resolve("queue/rotational"), "1\n");
        assertTrue(Storage.readRotation(sys, Statx.makedev(7, 7)).rotational());
        // dm-0 over an NVMe disk: not rotational, whatever its own flag says
        disk(sys, "nvme1n1", 259, 5, "0", "nvme");
        disk(sys, "dm-0", 253, 0, "1", "dm");
        Path slaves = Files.createDirectories(sys.resolve("devices/pci0000:00/x/dm-0/slaves/nvme1n1"));
        Files.writeString(slaves.resolve("dev"), "259:5\n");
        Storage.Rotation dm = Storage.readRotation(sys, Statx.makedev(253, 0));
        assertFalse(dm.rotational(), dm.toString());
        assertTrue(dm.detail().contains("stacked on nvme1n1"), dm.detail());
    }

    @Test
    void shouldReadUmaskAndDescriptorLimit() {
        int umask = Storage.umask();
        assertTrue(umask >= 0 && umask <= 0777, Integer.toOctalString(umask));
        assertTrue(Storage.openFileLimit() >= 64);
        assertTrue(Storage.openFiles() >= 3);
        assertTrue(Storage.processAlive(ProcessHandle.current().pid()));
    }
}
