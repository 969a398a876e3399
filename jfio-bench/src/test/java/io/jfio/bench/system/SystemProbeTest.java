package io.jfio.bench.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class SystemProbeTest {
    @Test
    void shouldReadTheX86ModelName() {
        List<String> cpuinfo = List.of("processor\t: 0", "vendor_id\t: GenuineIntel",
                "model name\t: Intel(R) Xeon(R) Processor", "", "processor\t: 1", "model name\t: other");
        assertEquals("Intel(R) Xeon(R) Processor", SystemProbe.cpuModel(cpuinfo).orElseThrow());
    }

    @Test
    void shouldFallBackToTheArmImplementerAndPart() {
        List<String> cpuinfo = List.of("processor\t: 0", "BogoMIPS\t: 50.00", "CPU implementer\t: 0x41",
                "CPU part\t: 0xd0c");
        assertEquals("implementer 0x41 part 0xd0c", SystemProbe.cpuModel(cpuinfo).orElseThrow());
        assertTrue(SystemProbe.cpuModel(List.of()).isEmpty());
    }

    @Test
    void shouldReadMeminfoInBytes() {
        List<String> meminfo = List.of("MemTotal:       24684096 kB", "MemFree:        24251084 kB",
                "HugePages_Total:       0");
        assertEquals(24684096L * 1024, SystemProbe.meminfoBytes(meminfo, "MemTotal").orElseThrow());
        assertEquals(0L, SystemProbe.meminfoBytes(meminfo, "HugePages_Total").orElseThrow());
        assertTrue(SystemProbe.meminfoBytes(meminfo, "MemAvailable").isEmpty());
    }

    @Test
    void shouldFormatBytesForPeople() {
        assertEquals("512 bytes", SysFiles.bytes(512));
        assertEquals("4.0 KiB", SysFiles.bytes(4096));
        assertEquals("23.5 GiB", SysFiles.bytes(24684096L * 1024));
    }
}
