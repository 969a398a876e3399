package io.jfio.bench.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Queue lookup on a fake sysfs laid out like the kernel's: a disk, its partition, a device without a queue. */
class BlockDevicesTest {
    @TempDir
    Path sys;

    @BeforeEach
    void layOutSysfs() throws IOException {
        Path sda = Files.createDirectories(sys.resolve("devices/pci0000:00/ata1/block/sda"));
        Files.writeString(sda.resolve("uevent"), "MAJOR=8\nMINOR=0\nDEVNAME=sda\nDEVTYPE=disk\n");
        Path q = Files.createDirectories(sda.resolve("queue"));
        Files.writeString(q.resolve("rotational"), "1\n");
        Files.writeString(q.resolve("logical_block_size"), "4096\n");
        Files.writeString(q.resolve("scheduler"), "none [mq-deadline] kyber bfq\n");
        Files.writeString(q.resolve("read_ahead_kb"), "128\n");
        Path sda1 = Files.createDirectories(sda.resolve("sda1"));
        Files.writeString(sda1.resolve("uevent"), "MAJOR=8\nMINOR=1\nDEVNAME=sda1\nDEVTYPE=partition\n");
        Files.writeString(sda1.resolve("partition"), "1\n");
        Path loop = Files.createDirectories(sys.resolve("devices/virtual/block/loop0"));
        Files.writeString(loop.resolve("uevent"), "MAJOR=7\nMINOR=0\nDEVNAME=loop0\n");
        Path links = Files.createDirectories(sys.resolve("dev/block"));
        Files.createSymbolicLink(links.resolve("8:0"), Path.of("../../devices/pci0000:00/ata1/block/sda"));
        Files.createSymbolicLink(links.resolve("8:1"), Path.of("../../devices/pci0000:00/ata1/block/sda/sda1"));
        Files.createSymbolicLink(links.resolve("7:0"), Path.of("../../devices/virtual/block/loop0"));
    }

    @Test
    void shouldReadTheDisksQueue() {
        BlockDevices.Queue q = new BlockDevices(sys).queue(8, 0).orElseThrow();
        assertEquals(new BlockDevices.Queue("sda", true, 4096L, "mq-deadline", 128L), q);
    }

    @Test
    void shouldUseTheParentDisksQueueForAPartition() {
        BlockDevices devices = new BlockDevices(sys);
        assertEquals("sda1", devices.name(8, 1).orElseThrow());
        assertEquals("sda", devices.queue(8, 1).orElseThrow().name());
    }

    @Test
    void shouldFindNoQueueWhereThereIsNone() {
        BlockDevices devices = new BlockDevices(sys);
        assertEquals("loop0", devices.name(7, 0).orElseThrow());
        assertTrue(devices.queue(7, 0).isEmpty());
        assertTrue(devices.queue(0, 27).isEmpty());
        assertTrue(devices.name(0, 27).isEmpty());
    }

    @Test
    void shouldTakeTheBracketedScheduler() {
        assertEquals("mq-deadline", BlockDevices.activeScheduler("none [mq-deadline] kyber bfq"));
        assertEquals("none", BlockDevices.activeScheduler("[none] mq-deadline"));
        assertEquals("none", BlockDevices.activeScheduler("none"));
        assertEquals(null, BlockDevices.activeScheduler(""));
    }
}
