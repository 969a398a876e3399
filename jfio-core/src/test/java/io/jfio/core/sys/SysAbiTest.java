package io.jfio.core.sys;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The structs of {@code io.jfio.core.sys} against the kernel ABI (linux/stat.h, asm/stat.h, linux/uio.h) and the
 * flag constants against the headers; then statx and fstat through our layouts against what the JDK reports.
 */
class SysAbiTest {

    private static void assertField(StructLayout layout, String name, long expected, long constant) {
        assertEquals(expected, layout.byteOffset(groupElement(name)), "LAYOUT offset of " + name);
        assertEquals(expected, constant, "OFF_ constant of " + name);
    }

    private static void assertField(StructLayout layout, String name, long expected) {
        assertEquals(expected, layout.byteOffset(groupElement(name)), "LAYOUT offset of " + name);
    }

    @Test
    void shouldHoldTimesANanosecondCountCannotAtItsEndsAndConvertTheRestExactly() {
        assertEquals(0, Statx.nanos(0, 0));
        assertEquals(-1, Statx.nanos(-1, 999_999_999));
        assertEquals(1614834367_123456789L, Statx.nanos(1614834367L, 123456789));
        assertEquals(Long.MAX_VALUE, Statx.nanos(9_223_372_036L, 854_775_807)); // 2262-04-11, the last one
        assertEquals(Long.MAX_VALUE, Statx.nanos(9_223_372_036L, 854_775_808)); // one past: held
        assertEquals(Long.MAX_VALUE, Statx.nanos(13_569_465_600L, 0)); // 2400
        assertEquals(Long.MIN_VALUE, Statx.nanos(-9_223_372_037L, 145_224_192)); // 1677-09-21, the first one
        assertEquals(Long.MIN_VALUE + 1, Statx.nanos(-9_223_372_037L, 145_224_193));
        assertEquals(Long.MIN_VALUE, Statx.nanos(-9_223_372_037L, 145_224_191)); // one before: held
        assertEquals(Long.MIN_VALUE, Statx.nanos(-11_676_096_000L, 500_000_000)); // 1600
        assertEquals(Long.MIN_VALUE, Statx.nanos(Long.MIN_VALUE, 0));
        assertEquals(Long.MAX_VALUE, Statx.nanos(Long.MAX_VALUE, 999_999_999));
    }

    @Test
    void shouldMatchKernelStatxLayout() {
        StructLayout l = Statx.LAYOUT;
        assertEquals(0x100, l.byteSize());
        assertField(l, "stx_mask", 0x00, Statx.OFF_MASK);
        assertField(l, "stx_blksize", 0x04, Statx.OFF_BLKSIZE);
        assertField(l, "stx_attributes", 0x08, Statx.OFF_ATTRIBUTES);
        assertField(l, "stx_nlink", 0x10, Statx.OFF_NLINK);
        assertField(l, "stx_uid", 0x14, Statx.OFF_UID);
        assertField(l, "stx_gid", 0x18, Statx.OFF_GID);
        assertField(l, "stx_mode", 0x1c, Statx.OFF_MODE);
        assertField(l, "stx_ino", 0x20, Statx.OFF_INO);
        assertField(l, "stx_size", 0x28, Statx.OFF_SIZE);
        assertField(l, "stx_blocks", 0x30, Statx.OFF_BLOCKS);
        assertField(l, "stx_attributes_mask", 0x38);
        assertField(l, "stx_atime", 0x40, Statx.OFF_ATIME);
        assertField(l, "stx_btime", 0x50, Statx.OFF_BTIME);
        assertField(l, "stx_ctime", 0x60, Statx.OFF_CTIME);
        assertField(l, "stx_mtime", 0x70, Statx.OFF_MTIME);
        assertField(l, "stx_rdev_major", 0x80, Statx.OFF_RDEV_MAJOR);
        assertField(l, "stx_rdev_minor", 0x84, Statx.OFF_RDEV_MINOR);
        assertField(l, "stx_dev_major", 0x88, Statx.OFF_DEV_MAJOR);
        assertField(l, "stx_dev_minor", 0x8c, Statx.OFF_DEV_MINOR);
        assertField(l, "stx_mnt_id", 0x90, Statx.OFF_MNT_ID);
        assertField(l, "stx_dio_mem_align", 0x98, Statx.OFF_DIO_MEM_ALIGN);
        assertField(l, "stx_dio_offset_align", 0x9c, Statx.OFF_DIO_OFFSET_ALIGN);
        assertField(l, "__spare3", 0xa0);
        assertEquals(96, l.select(groupElement("__spare3")).byteSize());
        // struct statx_timestamp { __s64 tv_sec; __u32 tv_nsec; __s32 __reserved; }
        assertEquals(16, l.select(groupElement("stx_mtime")).byteSize());
        assertEquals(0x78, l.byteOffset(groupElement("stx_mtime"), groupElement("tv_nsec")));
        assertEquals(2, l.select(groupElement("stx_mode")).byteSize());
    }

    @Test
    void shouldMatchKernelStatLayoutForThisArchitecture() {
        StructLayout l = Stat.LAYOUT;
        assertField(l, "st_dev", 0, Stat.OFF_DEV);
        assertField(l, "st_ino", 8, Stat.OFF_INO);
        if (Platform.arch() == Platform.Arch.X86_64) {
            // arch/x86/include/uapi/asm/stat.h, the 64-bit struct
            assertEquals(144, l.byteSize());
            assertField(l, "st_nlink", 16);
            assertEquals(8, l.select(groupElement("st_nlink")).byteSize());
            assertField(l, "st_mode", 24, Stat.OFF_MODE);
            assertField(l, "st_uid", 28);
            assertField(l, "st_gid", 32);
            assertField(l, "st_rdev", 40);
            assertField(l, "st_blksize", 56);
            assertEquals(8, l.select(groupElement("st_blksize")).byteSize());
        } else {
            // include/uapi/asm-generic/stat.h
            assertEquals(128, l.byteSize());
            assertField(l, "st_mode", 16, Stat.OFF_MODE);
            assertField(l, "st_nlink", 20);
            assertEquals(4, l.select(groupElement("st_nlink")).byteSize());
            assertField(l, "st_uid", 24);
            assertField(l, "st_gid", 28);
            assertField(l, "st_rdev", 32);
            assertField(l, "st_blksize", 56);
            assertEquals(4, l.select(groupElement("st_blksize")).byteSize());
        }
        assertField(l, "st_size", 48, Stat.OFF_SIZE);
        assertField(l, "st_blocks", 64, Stat.OFF_BLOCKS);
        assertField(l, "st_atim", 72);
        assertField(l, "st_mtim", 88, Stat.OFF_MTIM);
        assertField(l, "st_ctim", 104);
    }

    @Test
    void shouldMatchKernelIovecLayout() {
        assertEquals(16, Iovec.LAYOUT.byteSize());
        assertEquals(16, Iovec.SIZE);
        assertField(Iovec.LAYOUT, "iov_base", 0, Iovec.OFF_BASE);
        assertField(Iovec.LAYOUT, "iov_len", 8, Iovec.OFF_LEN);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment buf = a.allocate(100);
            MemorySegment iov = a.allocate(Iovec.LAYOUT, 2);
            Iovec.set(iov, 1, buf);
            assertEquals(buf.address(), Iovec.base(iov, 1));
            assertEquals(100, Iovec.len(iov, 1));
            assertEquals(0, Iovec.len(iov, 0));
        }
    }

    @Test
    void shouldMatchHeaderOpenFlagsForThisArchitecture() {
        if (Platform.arch() == Platform.Arch.X86_64) {
            assertEquals(040000, Fcntl.O_DIRECT);          // asm-generic/fcntl.h
            assertEquals(0100000, Fcntl.O_LARGEFILE);
            assertEquals(0200000, Fcntl.O_DIRECTORY);
            assertEquals(0400000, Fcntl.O_NOFOLLOW);
        } else {
            assertEquals(0200000, Fcntl.O_DIRECT);         // arch/arm64/include/uapi/asm/fcntl.h
            assertEquals(0400000, Fcntl.O_LARGEFILE);
            assertEquals(040000, Fcntl.O_DIRECTORY);
            assertEquals(0100000, Fcntl.O_NOFOLLOW);
        }
        assertEquals(0100, Fcntl.O_CREAT);
        assertEquals(0200, Fcntl.O_EXCL);
        assertEquals(01000, Fcntl.O_TRUNC);
        assertEquals(04000, Fcntl.O_NONBLOCK);
        assertEquals(010000, Fcntl.O_DSYNC);
        assertEquals(02000000, Fcntl.O_CLOEXEC);
        assertEquals(04010000, Fcntl.O_SYNC);
        assertEquals(-100, Fcntl.AT_FDCWD);
        assertEquals(0x1000, Fcntl.AT_EMPTY_PATH);
        assertEquals(0x02, Fcntl.FALLOC_FL_PUNCH_HOLE);
        assertEquals(4, Fcntl.POSIX_FADV_DONTNEED);
        assertEquals(0x2000, Statx.STATX_DIOALIGN);
        assertEquals(0x7ff, Statx.STATX_BASIC_STATS);
        assertEquals(0x8000, Mman.MAP_POPULATE);
        assertEquals(22, Mman.MADV_POPULATE_READ);
    }

    @Test
    void shouldNameErrnoValues() throws ErrnoException {
        assertEquals(28, Errno.ENOSPC);
        assertEquals(125, Errno.ECANCELED);
        assertEquals(62, Errno.ETIME);
        assertEquals("ENOSPC", Errno.name(Errno.ENOSPC));
        assertEquals("EBADF", Errno.name(-Errno.EBADF));
        assertEquals("errno 999", Errno.name(999));
        assertEquals("Bad file descriptor", Errno.describe(Errno.EBADF));
        ErrnoException e = new ErrnoException("pread", Errno.EINVAL, 7, "/data/x", 4096, 512);
        assertEquals("pread failed: errno=EINVAL (Invalid argument) fd=7 path=/data/x offset=4096 length=512",
                e.getMessage());
        assertEquals(Errno.EINVAL, e.errno());
        assertEquals("EINVAL", e.errnoName());
        assertEquals(5, ErrnoException.check(5, "x", -1, null));
        ErrnoException thrown = assertThrows(ErrnoException.class,
                () -> ErrnoException.check(-Errno.ENOENT, "open", -1, "/nope"));
        assertEquals(Errno.ENOENT, thrown.errno());
        assertEquals("/nope", thrown.path());
    }

    /** statx and fstat decoded through our layouts must agree with each other and with the JDK's view. */
    @Test
    void shouldDecodeStatxAndFstatOfRealFile(@TempDir Path dir) throws Exception {
        Path p = dir.resolve("f");
        Files.write(p, new byte[12345]);
        Files.setLastModifiedTime(p, FileTime.from(Instant.parse("2021-03-04T05:06:07.123456789Z")));
        long ino = (Long) Files.getAttribute(p, "unix:ino");
        long dev = (Long) Files.getAttribute(p, "unix:dev");
        int mode = (Integer) Files.getAttribute(p, "unix:mode");
        int fd = LibC.openat(Fcntl.AT_FDCWD, p.toString(), Fcntl.O_RDONLY | Fcntl.O_CLOEXEC, 0);
        ErrnoException.check(fd, "open", -1, p.toString());
        try (Arena a = Arena.ofConfined()) {
            MemorySegment sx = a.allocate(Statx.LAYOUT);
            ErrnoException.check(LibC.statx(fd, a.allocateFrom(""), Fcntl.AT_EMPTY_PATH,
                    Statx.STATX_BASIC_STATS | Statx.STATX_DIOALIGN, sx), "statx", fd, null);
            assertEquals(Statx.STATX_BASIC_STATS, Statx.mask(sx) & Statx.STATX_BASIC_STATS);
            assertEquals(12345, Statx.size(sx));
            assertEquals(ino, Statx.ino(sx));
            assertEquals(dev, Statx.dev(sx));
            assertEquals(mode, Statx.mode(sx));
            assertEquals(1, Statx.nlink(sx));
            assertEquals(1614834367_123456789L, Statx.mtimeNanos(sx));
            assertTrue(Statx.blksize(sx) > 0);

            MemorySegment st = a.allocate(Stat.LAYOUT);
            ErrnoException.check(LibC.fstat(fd, st), "fstat", fd, null);
            assertEquals(12345, Stat.size(st));
            assertEquals(ino, Stat.ino(st));
            assertEquals(dev, Stat.dev(st));
            assertEquals(mode, Stat.mode(st));
            assertEquals(1614834367_123456789L, Stat.mtimeNanos(st));
            assertEquals(Statx.blocks(sx), Stat.blocks(st));
        } finally {
            LibC.close(fd);
        }
    }

    @Test
    void shouldReturnNegativeErrnoFromFailedCalls(@TempDir Path dir) {
        assertEquals(-Errno.ENOENT, LibC.openat(Fcntl.AT_FDCWD, dir.resolve("missing").toString(),
                Fcntl.O_RDONLY | Fcntl.O_CLOEXEC, 0));
        assertEquals(-Errno.EBADF, LibC.close(-5));
        assertEquals(-Errno.EBADF, LibC.fsync(-5));
        try (Arena a = Arena.ofConfined()) {
            assertEquals(-Errno.EBADF, LibC.pread(-5, a.allocate(8), 8, 0));
        }
        assertTrue(LibC.pageSize() >= 4096 && Integer.bitCount(LibC.pageSize()) == 1);
    }
}
