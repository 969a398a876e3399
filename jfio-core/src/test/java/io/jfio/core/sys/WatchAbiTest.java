package io.jfio.core.sys;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The inotify and epoll structs and constants against the kernel ABI (linux/inotify.h, linux/eventpoll.h,
 * linux/magic.h): sizes, offsets, and every constant we define that the installed headers define too; then one
 * real event through inotify, epoll and our layouts.
 */
class WatchAbiTest {
    private static final Path INOTIFY_H = Path.of("/usr/include/linux/inotify.h");
    private static final Path EVENTPOLL_H = Path.of("/usr/include/linux/eventpoll.h");
    private static final Path MAGIC_H = Path.of("/usr/include/linux/magic.h");

    @Test
    void shouldMatchKernelInotifyEventLayout() {
        assertEquals(16, InotifyEvent.LAYOUT.byteSize());
        assertEquals(16, InotifyEvent.HEADER_SIZE);
        assertEquals(InotifyEvent.OFF_WD, InotifyEvent.LAYOUT.byteOffset(groupElement("wd")));
        assertEquals(0, InotifyEvent.OFF_WD);
        assertEquals(4, InotifyEvent.LAYOUT.byteOffset(groupElement("mask")));
        assertEquals(4, InotifyEvent.OFF_MASK);
        assertEquals(8, InotifyEvent.LAYOUT.byteOffset(groupElement("cookie")));
        assertEquals(8, InotifyEvent.OFF_COOKIE);
        assertEquals(12, InotifyEvent.LAYOUT.byteOffset(groupElement("len")));
        assertEquals(12, InotifyEvent.OFF_LEN);
        assertEquals(16, InotifyEvent.OFF_NAME);
        assertEquals(16 + 255 + 1, InotifyEvent.MIN_BUFFER);
    }

    @Test
    void shouldMatchKernelEpollEventLayoutForThisArchitecture() {
        assertEquals(0, EpollEvent.LAYOUT.byteOffset(groupElement("events")));
        assertEquals(0, EpollEvent.OFF_EVENTS);
        if (Platform.arch() == Platform.Arch.X86_64) {
            // EPOLL_PACKED on __x86_64__: data right after the 4-byte events, unaligned
            assertEquals(12, EpollEvent.LAYOUT.byteSize());
            assertEquals(12, EpollEvent.SIZE);
            assertEquals(4, EpollEvent.LAYOUT.byteOffset(groupElement("data")));
            assertEquals(4, EpollEvent.OFF_DATA);
        } else {
            assertEquals(16, EpollEvent.LAYOUT.byteSize());
            assertEquals(16, EpollEvent.SIZE);
            assertEquals(8, EpollEvent.LAYOUT.byteOffset(groupElement("data")));
            assertEquals(8, EpollEvent.OFF_DATA);
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment arr = a.allocate(EpollEvent.SIZE * 3, 8);
            EpollEvent.set(arr, 1, Epoll.EPOLLIN | Epoll.EPOLLET, 0x1122_3344_5566_7788L);
            assertEquals(Epoll.EPOLLIN | Epoll.EPOLLET, EpollEvent.events(arr, 1));
            assertEquals(0x1122_3344_5566_7788L, EpollEvent.data(arr, 1));
            assertEquals(0, EpollEvent.events(arr, 0));
            assertEquals(0, EpollEvent.events(arr, 2));
        }
    }

    @Test
    void shouldDefineInotifyConstantsAsTheKernel() throws Exception {
        assertEquals(0x2, Inotify.IN_MODIFY);
        assertEquals(0x8, Inotify.IN_CLOSE_WRITE);
        assertEquals(0x40, Inotify.IN_MOVED_FROM);
        assertEquals(0x80, Inotify.IN_MOVED_TO);
        assertEquals(0x4000, Inotify.IN_Q_OVERFLOW);
        assertEquals(0x8000, Inotify.IN_IGNORED);
        assertEquals(0x01000000, Inotify.IN_ONLYDIR);
        assertEquals(0x02000000, Inotify.IN_DONT_FOLLOW);
        assertEquals(0x04000000, Inotify.IN_EXCL_UNLINK);
        assertEquals(0x20000000, Inotify.IN_MASK_ADD);
        assertEquals(0x40000000, Inotify.IN_ISDIR);
        assertEquals(0xfff, Inotify.IN_ALL_EVENTS);
        assertEquals(02000000, Inotify.IN_CLOEXEC);
        assertEquals(04000, Inotify.IN_NONBLOCK);
        int checked = checkAgainstHeader(INOTIFY_H, Inotify.class);
        assumeTrue(checked > 0, "no kernel headers at " + INOTIFY_H);
        assertTrue(checked >= 25, "checked only " + checked + " constants");
    }

    @Test
    void shouldDefineEpollConstantsAsTheKernel() throws Exception {
        assertEquals(1, Epoll.EPOLL_CTL_ADD);
        assertEquals(2, Epoll.EPOLL_CTL_DEL);
        assertEquals(1, Epoll.EPOLLIN);
        assertEquals(1 << 31, Epoll.EPOLLET);
        int checked = checkAgainstHeader(EVENTPOLL_H, Epoll.class);
        assumeTrue(checked > 0, "no kernel headers at " + EVENTPOLL_H);
        assertTrue(checked >= 13, "checked only " + checked + " constants");
    }

    @Test
    void shouldDefineFileSystemMagicNumbersAsTheKernel() throws Exception {
        int checked = checkAgainstHeader(MAGIC_H, Statfs.class);
        assumeTrue(checked > 0, "no kernel headers at " + MAGIC_H);
        assertTrue(checked >= 25, "checked only " + checked + " constants");
        assertTrue(Statfs.isRemote(Statfs.NFS_SUPER_MAGIC));
        assertTrue(Statfs.isRemote(Statfs.FUSE_SUPER_MAGIC));
        assertTrue(!Statfs.isRemote(Statfs.EXT4_SUPER_MAGIC) && !Statfs.isRemote(Statfs.TMPFS_MAGIC));
        assertEquals("nfs", Statfs.name(Statfs.NFS_SUPER_MAGIC));
        assertEquals("9p", Statfs.name(Statfs.V9FS_MAGIC));
    }

    /**
     * Compares every {@code public static final int/long} of {@code holder} with the {@code #define} of the same name
     * in {@code header} (values like {@code 0x00000002}, {@code (__poll_t)0x00000001}, {@code ((__poll_t)(1U << 31))},
     * {@code O_CLOEXEC}); returns how many were compared.
     */
    private static int checkAgainstHeader(Path header, Class<?> holder) throws Exception {
        if (!Files.isReadable(header)) return 0;
        String text = Files.readString(header).replaceAll("(?s)/\\*.*?\\*/", "");
        Map<String, String> defines = new HashMap<>();
        Matcher m = Pattern.compile("(?m)^#define\\s+(\\w+)\\s+(.+?)\\s*$").matcher(text);
        while (m.find()) defines.put(m.group(1), m.group(2));
        Map<String, Long> known = new HashMap<>();
        known.put("O_CLOEXEC", (long) Fcntl.O_CLOEXEC);
        known.put("O_NONBLOCK", (long) Fcntl.O_NONBLOCK);
        int checked = 0;
        for (Field f : holder.getFields()) {
            if (!Modifier.isStatic(f.getModifiers()) || !defines.containsKey(f.getName())) continue;
            long expected;
            try {
                expected = evaluate(defines.get(f.getName()), defines, known);
            } catch (NumberFormatException notAConstant) {
                continue;
            }
            long ours = f.getType() == int.class ? Integer.toUnsignedLong(f.getInt(null)) : f.getLong(null);
            assertEquals(expected & 0xffff_ffffL, ours & 0xffff_ffffL, f.getName() + " in " + header);
            checked++;
        }
        return checked;
    }

    private static long evaluate(String expr, Map<String, String> defines, Map<String, Long> known) {
        String e = expr.replace("(__poll_t)", "").trim();
        while (e.startsWith("(") && e.endsWith(")")) e = e.substring(1, e.length() - 1).trim();
        if (e.contains("|")) {
            long v = 0;
            for (String part : e.split("\\|")) v |= evaluate(part.replace("\\", ""), defines, known);
            return v;
        }
        int shift = e.indexOf("<<");
        if (shift >= 0) {
            return evaluate(e.substring(0, shift), defines, known) << evaluate(e.substring(shift + 2), defines, known);
        }
        if (known.containsKey(e)) return known.get(e);
        if (defines.containsKey(e)) return evaluate(defines.get(e), defines, known);
        return Long.decode(e.replaceAll("(?i)[UL]+$", ""));
    }

    /** One real IN_CREATE through inotify_init1, inotify_add_watch, epoll_wait and read, decoded by our layouts. */
    @Test
    void shouldDeliverARealEventThroughEpoll(@TempDir Path dir) throws Exception {
        int ino = (int) ErrnoException.check(LibC.inotifyInit1(Inotify.IN_NONBLOCK | Inotify.IN_CLOEXEC),
                "inotify_init1", -1, null);
        int ep = (int) ErrnoException.check(LibC.epollCreate1(Epoll.EPOLL_CLOEXEC), "epoll_create1", -1, null);
        try (Arena a = Arena.ofConfined()) {
            int wd = LibC.inotifyAddWatch(ino, a.allocateFrom(dir.toString()), Inotify.IN_CREATE);
            assertTrue(wd > 0, "wd=" + wd);
            MemorySegment ev = a.allocate(EpollEvent.SIZE * 2, 8);
            EpollEvent.set(ev, 0, Epoll.EPOLLIN, 0xfeed_0000_0000_0042L);
            assertEquals(0, LibC.epollCtl(ep, Epoll.EPOLL_CTL_ADD, ino, ev));
            assertEquals(0, LibC.epollWait(ep, ev, 2, 0), "nothing ready yet");
            Files.createDirectory(dir.resolve("né"));
            assertEquals(1, LibC.epollWait(ep, ev, 2, 5000));
            assertEquals(Epoll.EPOLLIN, EpollEvent.events(ev, 0));
            assertEquals(0xfeed_0000_0000_0042L, EpollEvent.data(ev, 0));
            MemorySegment buf = a.allocate(4096, 8);
            long n = LibC.read(ino, buf, 4096);
            assertTrue(n >= InotifyEvent.HEADER_SIZE, "read " + n);
            assertEquals(n, InotifyEvent.recordLength(buf, 0), "one event");
            assertEquals(wd, InotifyEvent.wd(buf, 0));
            assertEquals(Inotify.IN_CREATE | Inotify.IN_ISDIR, InotifyEvent.mask(buf, 0));
            assertEquals(0, InotifyEvent.cookie(buf, 0));
            assertArrayEquals("né".getBytes(StandardCharsets.UTF_8), InotifyEvent.nameBytes(buf, 0));
            assertEquals(-Errno.EAGAIN, LibC.read(ino, buf, 4096));
            assertEquals(0, LibC.inotifyRmWatch(ino, wd));
            assertEquals(-Errno.EINVAL, LibC.inotifyRmWatch(ino, wd));
            assertEquals(0, LibC.epollCtl(ep, Epoll.EPOLL_CTL_DEL, ino, MemorySegment.NULL));
        } finally {
            LibC.close(ep);
            LibC.close(ino);
        }
    }
}
