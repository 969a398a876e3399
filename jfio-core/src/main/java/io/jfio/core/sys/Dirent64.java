package io.jfio.core.sys;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemorySegment;

/**
 * {@code struct linux_dirent64} as getdents64(2) returns it (include/linux/dirent.h; the same on every
 * architecture), and the {@code d_type} values.
 *
 * {@snippet lang = c:
 * struct linux_dirent64 {
 *     u64  d_ino;       // 0
 *     s64  d_off;       // 8: opaque position of the next entry
 *     u16  d_reclen;    // 16: length of this record, padded to 8 bytes
 *     u8   d_type;      // 18: DT_* or DT_UNKNOWN when the file system does not say
 *     char d_name[];    // 19: NUL-terminated
 * };
 * }
 *
 * <p>Thread-safe; static accessors over caller-owned segments, where each record starts at an offset that the
 * previous record's {@code d_reclen} gives.
 */
public final class Dirent64 {
    public static final int DT_UNKNOWN = 0;     // DT_UNKNOWN in linux/fs_types.h (via dirent.h)
    public static final int DT_FIFO = 1;        // DT_FIFO
    public static final int DT_CHR = 2;         // DT_CHR
    public static final int DT_DIR = 4;         // DT_DIR
    public static final int DT_BLK = 6;         // DT_BLK
    public static final int DT_REG = 8;         // DT_REG
    public static final int DT_LNK = 10;        // DT_LNK
    public static final int DT_SOCK = 12;       // DT_SOCK

    public static final long OFF_INO = 0;
    public static final long OFF_OFF = 8;
    public static final long OFF_RECLEN = 16;
    public static final long OFF_TYPE = 18;
    public static final long OFF_NAME = 19;

    private Dirent64() {
    }

    public static long ino(MemorySegment buf, long rec) {
        return buf.get(JAVA_LONG, rec + OFF_INO);
    }

    public static int reclen(MemorySegment buf, long rec) {
        return Short.toUnsignedInt(buf.get(JAVA_SHORT, rec + OFF_RECLEN));
    }

    public static int type(MemorySegment buf, long rec) {
        return Byte.toUnsignedInt(buf.get(JAVA_BYTE, rec + OFF_TYPE));
    }

    /** The length of the record's name in bytes, without the terminating NUL. */
    public static int nameLength(MemorySegment buf, long rec) {
        long start = rec + OFF_NAME;
        long end = rec + reclen(buf, rec);
        for (long i = start; i < end; i++) {
            if (buf.get(JAVA_BYTE, i) == 0) return (int) (i - start);
        }
        throw new IllegalStateException("dirent name without NUL terminator at offset " + rec);
    }

    /** The record's name as raw bytes (file names are bytes on Linux, not necessarily UTF-8). */
    public static byte[] nameBytes(MemorySegment buf, long rec) {
        int n = nameLength(buf, rec);
        byte[] b = new byte[n];
        MemorySegment.copy(buf, JAVA_BYTE, rec + OFF_NAME, b, 0, n);
        return b;
    }

    /** True for the entries {@code .} and {@code ..}. */
    public static boolean isDotOrDotDot(MemorySegment buf, long rec) {
        long name = rec + OFF_NAME;
        if (buf.get(JAVA_BYTE, name) != '.') return false;
        byte b1 = buf.get(JAVA_BYTE, name + 1);
        return b1 == 0 || (b1 == '.' && buf.get(JAVA_BYTE, name + 2) == 0);
    }
}
