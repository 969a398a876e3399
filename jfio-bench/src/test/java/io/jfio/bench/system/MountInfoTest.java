package io.jfio.bench.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class MountInfoTest {
    private static final List<String> LINES = List.of(
            "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard",
            "25 27 0:23 / /dev/shm rw,relatime shared:4 master:1 - tmpfs tmpfs rw,size=24684096k",
            "40 27 8:17 / /mnt/data rw,noatime - xfs /dev/sdb1 rw",
            "41 27 0:50 / /mnt/my\\040disk rw - btrfs /dev/sdc rw",
            "42 40 0:51 / /mnt/data rw - tmpfs tmpfs rw",
            "garbage line",
            "43 27 0:52 / /mnt/x rw shared:1");

    @Test
    void shouldParseFixedAndOptionalFieldsAndSkipMalformedLines() {
        List<MountInfo> mounts = MountInfo.parse(LINES);
        assertEquals(5, mounts.size());
        MountInfo shm = mounts.get(1);
        assertEquals(25, shm.id());
        assertEquals(27, shm.parentId());
        assertEquals(0, shm.major());
        assertEquals(23, shm.minor());
        assertEquals("/dev/shm", shm.mountPoint());
        assertEquals("tmpfs", shm.fsType());
        assertEquals("tmpfs", shm.source());
        assertEquals("rw,size=24684096k", shm.superOptions());
    }

    @Test
    void shouldUnescapeOctalEscapes() {
        assertEquals("/mnt/my disk", MountInfo.parse(LINES).get(3).mountPoint());
        assertEquals("a\tb\nc\\d", MountInfo.unescape("a\\011b\\012c\\134d"));
        assertEquals("\\9x\\", MountInfo.unescape("\\9x\\"));
    }

    @Test
    void shouldPreferTheMountIdFromStatx() {
        List<MountInfo> mounts = MountInfo.parse(LINES);
        assertEquals(40, MountInfo.find(mounts, Path.of("/mnt/data/f"), 40).orElseThrow().id());
    }

    @Test
    void shouldPickTheLongestMountPointAndTheTopOfAStack() {
        List<MountInfo> mounts = MountInfo.parse(LINES);
        assertEquals(27, MountInfo.find(mounts, Path.of("/work/x"), -1).orElseThrow().id());
        assertEquals(25, MountInfo.find(mounts, Path.of("/dev/shm/a/b"), -1).orElseThrow().id());
        assertEquals(41, MountInfo.find(mounts, Path.of("/mnt/my disk/f"), -1).orElseThrow().id());
        // Two mounts on /mnt/data: the later one hides the earlier.
        assertEquals(42, MountInfo.find(mounts, Path.of("/mnt/data"), -1).orElseThrow().id());
        // Component-wise: /mnt/database is not under /mnt/data.
        assertEquals(27, MountInfo.find(mounts, Path.of("/mnt/database"), -1).orElseThrow().id());
        // An unknown mount ID falls back to the longest prefix.
        assertEquals(25, MountInfo.find(mounts, Path.of("/dev/shm"), 999).orElseThrow().id());
    }

    @Test
    void shouldFindTheMountOfThisProcessesWorkingDirectory() {
        List<MountInfo> mounts = MountInfo.parse(SysFiles.lines(MountInfo.SELF));
        assertTrue(mounts.size() > 0);
        MountInfo root = MountInfo.find(mounts, Path.of("/"), -1).orElse(null);
        assertEquals("/", root == null ? null : root.mountPoint());
        assertNull(MountInfo.find(List.of(), Path.of("/"), -1).orElse(null));
    }
}
